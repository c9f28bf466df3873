//! `pwk lint --baseline` / `--write-baseline`.

use crate::support::{Finding, Output, TestEnv, findings, json, lint_json, run};

const ROLE: &str =
    "---\nname: r\ndescription: d\ntools: read\nowner: me\nmax_turns: \"20\"\n---\nBody\n";

fn project() -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(".agents/agents/r.md", ROLE);
    env.write(".agents/agents/s.md", ROLE.replace("name: r", "name: s"));
    env
}

fn lint(env: &TestEnv, extra: &[&str]) -> Output {
    lint_json(env, &[&["--host", "pwk"], extra].concat())
}

/// (path, rule) of every finding.
fn rules(out: &Output) -> Vec<(String, String)> {
    findings(&json(out)).iter().map(Finding::at_rule).collect()
}

#[test]
fn write_then_only_new_findings_fail() {
    let env = project();
    let before = lint(&env, &[]);
    assert_eq!(before.code, 1);
    let wrote = lint(&env, &["--write-baseline"]);
    assert_eq!(wrote.code, 0, "{}", wrote.stderr);
    assert!(
        wrote
            .stderr
            .contains("pwk: wrote 4 findings to `pwk-baseline.json`"),
        "{}",
        wrote.stderr
    );
    let text = env.read("pwk-baseline.json");
    let b: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(b["version"], 1);
    assert_eq!(
        b["findings"][0],
        serde_json::json!({"path": ".agents/agents/r.md", "rule": "invalid-type", "text": "\"20\""})
    );
    let out = lint(&env, &["--baseline", "pwk-baseline.json"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(rules(&out), []);
    let doc = json(&out);
    assert_eq!(doc["summary"]["suppressed"], 4);
    assert_eq!(
        doc["suppressed"][0]["suppression"],
        serde_json::json!({"kind": "baseline", "reason": "in the baseline `pwk-baseline.json`"})
    );
    // SARIF: external suppressions.
    let sarif = json(&run(env.pwk().args([
        "lint",
        "--host",
        "pwk",
        "--format",
        "sarif",
        "--baseline",
        "pwk-baseline.json",
    ])));
    assert_eq!(
        sarif["runs"][0]["results"][0]["suppressions"][0]["kind"],
        "external"
    );

    // Lines inserted above the findings: still baselined.
    env.write(
        ".agents/agents/r.md",
        ROLE.replace(
            "description: d\n",
            "description: d\nx-one: 1\nx-two: 2\nx-three: 3\n",
        ),
    );
    let out = lint(&env, &["--baseline", "pwk-baseline.json"]);
    assert_eq!((out.code, rules(&out)), (0, vec![]), "{}", out.stdout);

    // A new finding is reported, and only it (a key no host reads, no typo: a
    // warning; with --deny-warnings it fails).
    env.write(
        ".agents/agents/r.md",
        ROLE.replace("owner: me\n", "owner: me\nteam: x\n"),
    );
    let out = lint(
        &env,
        &["--baseline", "pwk-baseline.json", "--deny-warnings"],
    );
    assert_eq!(out.code, 1);
    assert_eq!(
        rules(&out),
        [(".agents/agents/r.md".to_string(), "unknown-key".to_string())]
    );
    assert_eq!(
        findings(&json(&out))[0].message,
        "unknown key `team`: no supported host reads it"
    );

    // A second occurrence of a baselined finding is new too (each entry covers one).
    env.write(".agents/agents/t.md", ROLE.replace("name: r", "name: t"));
    let out = lint(&env, &["--baseline", "pwk-baseline.json"]);
    assert!(
        rules(&out)
            .iter()
            .filter(|r| r.0 == ".agents/agents/t.md")
            .count()
            == 2,
        "{:?}",
        rules(&out)
    );
}

#[test]
fn the_baseline_is_sorted_stable_and_refreshed() {
    let env = project();
    lint(&env, &["--write-baseline", "--baseline", "ci/base.json"]);
    let first = env.read("ci/base.json");
    lint(&env, &["--write-baseline", "--baseline", "ci/base.json"]);
    assert_eq!(env.read("ci/base.json"), first, "not stable");
    let b: serde_json::Value = serde_json::from_str(&first).unwrap();
    let entries: Vec<_> = b["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.to_string())
        .collect();
    let mut sorted = entries.clone();
    sorted.sort();
    assert_eq!(entries, sorted);
    // Paths are relative to the baseline file's directory.
    assert_eq!(b["findings"][0]["path"], "../.agents/agents/r.md");
    // Fixing a finding leaves a stale entry: said so; refreshing drops it.
    env.write(
        ".agents/agents/s.md",
        ROLE.replace("name: r", "name: s")
            .replace("owner: me\n", ""),
    );
    let out = lint(&env, &["--baseline", "ci/base.json"]);
    assert_eq!(out.code, 0);
    assert!(
        out.stderr
            .contains("pwk: 1 baseline entry matched no finding (fixed since)"),
        "{}",
        out.stderr
    );
    lint(&env, &["--write-baseline", "--baseline", "ci/base.json"]);
    let b: serde_json::Value = serde_json::from_str(&env.read("ci/base.json")).unwrap();
    assert_eq!(b["findings"].as_array().unwrap().len(), 3);
}

#[test]
fn a_missing_or_broken_baseline_is_exit_2() {
    let env = project();
    let out = lint(&env, &["--baseline", "nope.json"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot read the baseline `nope.json`: it does not exist; create it with `pwk lint --write-baseline`"), "{}", out.stderr);
    env.write("bad.json", "{\"version\": 1, \"entries\": []}");
    let out = lint(&env, &["--baseline", "bad.json"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("`bad.json` is not a pwk baseline: unknown field `entries`"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_symlinked_baseline_is_not_written_through() {
    let env = project();
    env.write("elsewhere.json", "{\"version\": 1, \"findings\": []}\n");
    std::os::unix::fs::symlink(env.path("elsewhere.json"), env.path("pwk-baseline.json")).unwrap();
    let out = lint(&env, &["--write-baseline"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        env.read("elsewhere.json"),
        "{\"version\": 1, \"findings\": []}\n"
    );
}

/// `--baseline ../x.json` from a subdirectory recorded `../../…` paths and then
/// matched nothing (f98aee5): entries are relative to the baseline file.
#[test]
fn a_baseline_named_from_a_subdirectory_is_relative_to_itself() {
    let env = project();
    std::fs::create_dir_all(env.path("sub")).unwrap();
    let mut cmd = env.pwk();
    cmd.current_dir(env.path("sub"));
    let out = run(cmd.args([
        "lint",
        "--host",
        "pwk",
        "--write-baseline",
        "--baseline",
        "../b.json",
        "../.agents/agents",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let b: serde_json::Value = serde_json::from_str(&env.read("b.json")).unwrap();
    let paths: Vec<&str> = b["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert!(!paths.is_empty());
    assert!(
        paths.iter().all(|p| p.starts_with(".agents/agents/")),
        "{paths:?}"
    );
    // The same baseline, used from the root, hides every finding.
    let out = lint(&env, &["--baseline", "b.json"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

/// A baseline over the reader's cap was written and then could not be read
/// (f98aee5: 1 MiB). The writer never writes what the reader refuses: the cap is
/// one number per kind of file, and a large baseline now fits.
#[test]
fn a_large_baseline_is_written_and_read_back() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    // ~15,000 findings: well over 1 MiB of baseline.
    for i in 0..3000 {
        env.write(
            &format!(".agents/agents/r{i}.md"),
            format!(
                "---\nname: r{i}\ndescription: d\ntools: read\nowner-{i}-a: me\nowner-{i}-b: me\nowner-{i}-c: me\nowner-{i}-d: me\nmax_turns: \"20\"\n---\nBody\n"
            ),
        );
    }
    let out = lint(&env, &["--write-baseline"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let size = std::fs::metadata(env.path("pwk-baseline.json"))
        .unwrap()
        .len();
    assert!(size > 1 << 20, "{size}");
    let out = lint(&env, &["--baseline", "pwk-baseline.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = lint(&env, &["--write-baseline"]);
    assert_eq!(out.code, 0, "refreshing it: {}", out.stderr);
}

/// `--write-baseline` into a symlinked project directory is refused.
#[test]
fn write_baseline_never_writes_through_a_symlinked_directory() {
    let env = project();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), env.path("ci")).unwrap();
    let out = lint(&env, &["--write-baseline", "--baseline", "ci/b.json"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("symbolic link"), "{}", out.stderr);
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

/// The `baseline` key is taken from the configuration that governs each linted
/// file, wherever the run starts (N20): generated over the directory the run
/// starts in × how the file is named (its directory, the file, stdin) × two teams
/// with their own configuration and baseline, written from each start. Every way
/// agrees: the baselined findings are hidden (exit 0), each team's in its own file.
#[test]
fn the_baseline_of_each_files_configuration_applies_from_any_start() {
    let setup = || {
        let env = TestEnv::new();
        std::fs::create_dir_all(env.path(".git")).unwrap();
        for team in ["team", "other"] {
            env.write(
                &format!("{team}/pwk.toml"),
                "baseline = \"ci/pwk-baseline.json\"\n",
            );
            env.write(&format!("{team}/roles/a.md"), ROLE);
        }
        env
    };
    let starts = ["", "team", "team/roles"];
    for write_from in starts {
        let env = setup();
        let at = |start: &str| env.path(start);
        let pwk = |start: &str, args: &[&str]| {
            let mut cmd = env.pwk();
            cmd.current_dir(at(start))
                .args(["lint", "--host", "pwk"])
                .args(args);
            cmd
        };
        // Named from the start: `team/roles` is `roles` from `team`, `.` from `team/roles`.
        let rel = |start: &str, path: &str| -> String {
            let p = std::path::Path::new(path);
            match start {
                "" => path.to_string(),
                s => {
                    let up = "../".repeat(s.split('/').count());
                    format!("{up}{}", p.display())
                }
            }
        };
        let w = run(&mut pwk(
            write_from,
            &[
                "--write-baseline",
                &rel(write_from, "team/roles"),
                &rel(write_from, "other/roles"),
            ],
        ));
        assert_eq!(
            w.code, 0,
            "write from {write_from:?}: {}{}",
            w.stdout, w.stderr
        );
        for team in ["team", "other"] {
            assert!(
                env.path(&format!("{team}/ci/pwk-baseline.json")).is_file(),
                "written from {write_from:?}: no {team}/ci/pwk-baseline.json: {}",
                w.stderr
            );
        }
        assert!(!env.path("pwk-baseline.json").exists());
        for start in starts {
            for team in ["team", "other"] {
                let dir = rel(start, &format!("{team}/roles"));
                let file = rel(start, &format!("{team}/roles/a.md"));
                for (how, out) in [
                    ("directory", run(&mut pwk(start, &[&dir]))),
                    ("file", run(&mut pwk(start, &[&file]))),
                    (
                        "stdin",
                        crate::support::run_with_stdin(
                            &mut pwk(start, &["-", "--stdin-filename", &file]),
                            ROLE.as_bytes(),
                        ),
                    ),
                ] {
                    assert_eq!(
                        out.code, 0,
                        "written from {write_from:?}, {team} linted from {start:?} by {how}: {}{}",
                        out.stdout, out.stderr
                    );
                }
            }
        }
    }
}

/// However the file is spelled — bare in its own directory, `./`-led, from the
/// directory above, from a sibling, absolute — `--write-baseline` writes the baseline
/// its configuration names and nothing else, and the baseline then applies. (A bare
/// name's directory was the empty path: the configuration above was not found and
/// `pwk-baseline.json` was written beside the file.)
#[test]
fn every_spelling_of_a_file_writes_the_baseline_its_configuration_names() {
    // `None`: the file's absolute path.
    let spellings: [(&str, Option<&str>); 7] = [
        ("", Some("team/roles/a.md")),
        ("", Some("./team/roles/a.md")),
        ("team/roles", Some("a.md")),
        ("team/roles", Some("./a.md")),
        ("team/roles", None),
        ("team", Some("roles/a.md")),
        ("other", Some("../team/roles/a.md")),
    ];
    for (start, arg) in spellings {
        let env = TestEnv::new();
        std::fs::create_dir_all(env.path(".git")).unwrap();
        std::fs::create_dir_all(env.path("other")).unwrap();
        env.write("team/pwk.toml", "baseline = \"ci/pwk-baseline.json\"\n");
        let file = env.write("team/roles/a.md", ROLE);
        let arg = arg.map_or_else(|| file.to_str().unwrap().to_string(), str::to_string);
        let pwk = |args: &[&str]| {
            let mut cmd = env.pwk();
            cmd.current_dir(env.path(start))
                .args(["lint", "--host", "pwk"])
                .args(args)
                .arg(&arg);
            run(&mut cmd)
        };
        let w = pwk(&["--write-baseline"]);
        assert_eq!(
            w.code, 0,
            "`{arg}` from `{start}`: {}{}",
            w.stdout, w.stderr
        );
        assert!(
            env.path("team/ci/pwk-baseline.json").is_file(),
            "`{arg}` from `{start}`: no team/ci/pwk-baseline.json: {}",
            w.stderr
        );
        for stray in [
            "pwk-baseline.json",
            "team/roles/pwk-baseline.json",
            "team/pwk-baseline.json",
            "other/pwk-baseline.json",
        ] {
            assert!(
                !env.path(stray).exists(),
                "`{arg}` from `{start}` wrote {stray}"
            );
        }
        let again = pwk(&[]);
        assert_eq!(
            again.code, 0,
            "`{arg}` from `{start}`: the baseline applies: {}{}",
            again.stdout, again.stderr
        );
    }
}
