//! `pwk list`, `pwk show` and `pwk new` over real layered trees: the package layer
//! built into pwk, a global agents directory through PI_CODING_AGENT_DIR, and a
//! project with `.agents/agents/` and `.pi/agents/`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::process::mkfifo;
use crate::support::{Output, TestEnv, json, run};

const BUNDLED: [&str; 5] = [
    "pwk-recon-scout",
    "pwk-spec-reviewer",
    "pwk-tracing-reviewer",
    "pwk-smell-reviewer",
    "pwk-hazard-reviewer",
];

fn role(name: &str, description: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {description}\ntools: read, grep, find, ls\n---\n# {name}\n\nBody.\n"
    )
}

fn adapter(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Internal Claude CLI adapter.\ncli: claude\ncli-model: sonnet\ndisable-model-invocation: true\n---\nAdapter body.\n"
    )
}

/// `pwk` with the global agents directory at `<root>/pi-agent/agents`.
fn pwk(env: &TestEnv) -> Command {
    let mut cmd = env.pwk();
    cmd.env("PI_CODING_AGENT_DIR", env.path("pi-agent"));
    cmd
}

fn rows<'a>(doc: &'a Value, name: &str) -> Vec<&'a Value> {
    doc["roles"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["name"] == name)
        .collect()
}

fn list_json(env: &TestEnv, extra: &[&str]) -> (Output, Value) {
    let out = run(pwk(env).args(["list", "--format", "json"]).args(extra));
    let doc = json(&out);
    (out, doc)
}

/// A project with every layer populated.
fn layered(env: &TestEnv) {
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(
        "pi-agent/agents/pwk-spec-reviewer.md",
        role("pwk-spec-reviewer", "Global spec reviewer."),
    );
    env.write(
        "pi-agent/agents/global-only.md",
        role("global-only", "Only in the global layer."),
    );
    env.write(
        ".agents/agents/pwk-spec-reviewer.md",
        role("pwk-spec-reviewer", "Project .agents spec reviewer."),
    );
    env.write(
        ".pi/agents/pwk-spec-reviewer.md",
        role("pwk-spec-reviewer", "Project .pi spec reviewer."),
    );
    env.write(
        ".agents/agents/pwk-recon-scout.md",
        role("pwk-recon-scout", "Project recon scout."),
    );
}

#[test]
fn precedence_is_project_over_global_over_package() {
    let env = TestEnv::new();
    layered(&env);
    let (out, doc) = list_json(&env, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(doc["version"], 1);

    let spec = rows(&doc, "pwk-spec-reviewer");
    assert_eq!(spec.len(), 1, "one row per effective role: {spec:?}");
    let spec = spec[0];
    assert_eq!(spec["source"], "project");
    assert_eq!(spec["path"], ".pi/agents/pwk-spec-reviewer.md");
    assert_eq!(spec["description"], "Project .pi spec reviewer.");
    let shadows: Vec<(String, String)> = spec["shadows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["source"].as_str().unwrap().to_string(),
                s["path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        shadows,
        [
            (
                "project".to_string(),
                ".agents/agents/pwk-spec-reviewer.md".to_string()
            ),
            (
                "global".to_string(),
                "pi-agent/agents/pwk-spec-reviewer.md".to_string()
            ),
            (
                "package".to_string(),
                "builtin:pwk-spec-reviewer.md".to_string()
            ),
        ]
    );

    let global = rows(&doc, "global-only")[0];
    assert_eq!(global["source"], "global");
    assert_eq!(global["shadows"], serde_json::json!([]));

    let scout = rows(&doc, "pwk-recon-scout")[0];
    assert_eq!(scout["source"], "project");
    assert_eq!(scout["shadows"][0]["source"], "package");

    for name in [
        "pwk-tracing-reviewer",
        "pwk-smell-reviewer",
        "pwk-hazard-reviewer",
    ] {
        let r = rows(&doc, name);
        assert_eq!(r.len(), 1, "{name}");
        assert_eq!(r[0]["source"], "package");
        assert_eq!(r[0]["path"], format!("builtin:{name}.md"));
        assert_eq!(r[0]["visible"], true);
    }
}

#[test]
fn list_json_shape() {
    let env = TestEnv::new();
    layered(&env);
    let (_, doc) = list_json(&env, &[]);
    for row in doc["roles"].as_array().unwrap() {
        for key in [
            "name",
            "description",
            "source",
            "path",
            "shadows",
            "hidden",
            "broken",
            "error",
            "visible",
            "host_notes",
        ] {
            assert!(row.get(key).is_some(), "row lacks `{key}`: {row}");
        }
        assert!(row["shadows"].is_array());
        assert!(row["hidden"].is_boolean());
    }
    assert_eq!(doc["host"], "pwk");
    assert!(doc["searched"].as_array().unwrap().len() >= 4);
}

#[test]
fn hidden_adapters_are_listed_only_with_all() {
    let env = TestEnv::new();
    layered(&env);
    env.write(".pi/agents/claude-runner.md", adapter("claude-runner"));

    let (out, doc) = list_json(&env, &[]);
    assert_eq!(out.code, 0);
    assert!(
        rows(&doc, "claude-runner").is_empty(),
        "hidden adapter listed without --all"
    );
    let human = run(pwk(&env).arg("list"));
    assert!(!human.stdout.contains("claude-runner"));
    assert!(
        human.stdout.contains("1 hidden adapter not shown"),
        "{}",
        human.stdout
    );

    let (_, doc) = list_json(&env, &["--all"]);
    let r = rows(&doc, "claude-runner");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["hidden"], true);
    let human = run(pwk(&env).args(["list", "--all"]));
    assert!(
        human.stdout.contains("claude-runner (hidden)"),
        "{}",
        human.stdout
    );

    // Hidden, but still invokable by exact name.
    let out = run(pwk(&env).args(["show", "claude-runner"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("hidden      yes"), "{}", out.stdout);

    // tintinweb does not honour the key: the adapter is offered to the model there.
    let (_, doc) = list_json(&env, &["--host", "tintinweb"]);
    let r = rows(&doc, "claude-runner");
    assert_eq!(r.len(), 1, "tintinweb shows it");
    assert_eq!(r[0]["hidden"], false);
    assert!(
        r[0]["host_notes"][0]
            .as_str()
            .unwrap()
            .contains("ignores `disable-model-invocation`")
    );
}

#[test]
fn broken_files_are_listed_with_their_first_problem() {
    let env = TestEnv::new();
    layered(&env);
    env.write(
        ".pi/agents/bad-yaml.md",
        "---\nname: bad-yaml\ndescription: a: b: c\n---\nbody\n",
    );
    env.write(".pi/agents/no-frontmatter.md", "# Just markdown\n");
    env.write(
        ".agents/agents/no-description.md",
        "---\nname: no-description\n---\nbody\n",
    );
    env.write(
        ".agents/agents/unterminated.md",
        "---\nname: unterminated\ndescription: x\n",
    );

    let (out, doc) = list_json(&env, &[]);
    assert_eq!(out.code, 1, "broken files make list exit 1");
    let expect = [
        ("bad-yaml", "line 3, column 15: invalid YAML"),
        ("no-frontmatter", "[missing-frontmatter]"),
        ("no-description", "[missing-description]"),
        ("unterminated", "[unterminated-frontmatter]"),
    ];
    for (name, problem) in expect {
        let r = rows(&doc, name);
        assert_eq!(r.len(), 1, "{name} is listed");
        assert_eq!(r[0]["broken"], true, "{name}");
        assert_eq!(r[0]["visible"], false, "{name}");
        let error = r[0]["error"].as_str().unwrap();
        assert!(error.contains(problem), "{name}: {error}");
    }
    let human = run(pwk(&env).arg("list"));
    assert_eq!(human.code, 1);
    assert!(
        human
            .stdout
            .contains("broken: line 3, column 15: invalid YAML"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("4 broken files"), "{}", human.stdout);
}

#[test]
fn a_broken_override_does_not_hide_the_layer_below() {
    let env = TestEnv::new();
    layered(&env);
    env.write(
        ".pi/agents/global-only.md",
        "---\nname: global-only\ndescription: [unclosed\n---\n",
    );
    let (_, doc) = list_json(&env, &[]);
    let r = rows(&doc, "global-only");
    let winner = r
        .iter()
        .find(|r| r["visible"] == true)
        .expect("the global definition still loads");
    assert_eq!(winner["source"], "global");
    let note = winner["host_notes"].as_array().unwrap().iter().any(|n| {
        n.as_str()
            .unwrap()
            .contains(".pi/agents/global-only.md would override this definition but is broken")
    });
    assert!(note, "{winner}");
    assert!(
        r.iter()
            .any(|r| r["broken"] == true && r["path"] == ".pi/agents/global-only.md")
    );
}

/// Run with a deadline so a blocking open fails the test instead of hanging it.
fn run_with_deadline(cmd: &mut Command, limit: Duration) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn pwk");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pwk did not finish within {limit:?}: it blocked on a special file");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn symlinks_and_fifos_are_broken_never_followed_and_never_block() {
    let env = TestEnv::new();
    layered(&env);
    std::fs::create_dir_all(env.path(".pi/agents")).unwrap();
    mkfifo(&env.path(".pi/agents/fifo-role.md"));
    mkfifo(&env.path("elsewhere.fifo"));
    std::os::unix::fs::symlink(
        env.path("elsewhere.fifo"),
        env.path(".pi/agents/link-to-fifo.md"),
    )
    .unwrap();
    env.write(
        "outside/real.md",
        role("linked-role", "Outside the agents dir."),
    );
    std::os::unix::fs::symlink(
        env.path("outside/real.md"),
        env.path(".agents/agents/linked-role.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        env.path("nowhere.md"),
        env.path("pi-agent/agents/dangling.md"),
    )
    .unwrap();

    for host in ["pwk", "tintinweb", "nicobailon", "herdr"] {
        let out = run_with_deadline(
            pwk(&env).args(["list", "--format", "json", "--host", host]),
            Duration::from_secs(20),
        );
        assert_eq!(out.code, 1, "{host}: {}", out.stderr);
        let doc = json(&out);
        for (name, problem) in [
            ("fifo-role", "not a regular file"),
            ("link-to-fifo", "symbolic link"),
            ("linked-role", "symbolic link"),
            ("dangling", "symbolic link"),
        ] {
            let r = rows(&doc, name);
            assert_eq!(r.len(), 1, "{host}: {name} listed");
            assert_eq!(r[0]["broken"], true, "{host}: {name}");
            assert!(
                r[0]["error"].as_str().unwrap().contains(problem),
                "{host}: {name}: {}",
                r[0]["error"]
            );
        }
        // The symlink was not followed: the target's description never shows up.
        assert!(
            !out.stdout.contains("Outside the agents dir."),
            "{host}: a symlink was followed"
        );
    }
    let out = run_with_deadline(
        pwk(&env).args(["show", "fifo-role"]),
        Duration::from_secs(20),
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("broken: is not a regular file (FIFO)"),
        "{}",
        out.stdout
    );
}

/// The same files created in two different orders give the same answer.
#[test]
fn result_does_not_depend_on_listing_order() {
    let files: Vec<(&str, String)> = vec![
        (".pi/agents/zeta.md", role("dup", "Zeta copy.")),
        (".pi/agents/alpha.md", role("dup", "Alpha copy.")),
        (".pi/agents/mid.md", role("mid", "Mid.")),
        (".agents/agents/mid.md", role("mid", "Lower mid.")),
        ("pi-agent/agents/beta.md", role("beta", "Beta.")),
        (".agents/agents/aaa.md", role("aaa", "Aaa.")),
    ];
    let outputs: Vec<(String, String)> = [false, true]
        .into_iter()
        .map(|reverse| {
            let env = TestEnv::new();
            std::fs::create_dir_all(env.path(".git")).unwrap();
            let mut order = files.clone();
            if reverse {
                order.reverse();
            }
            for (rel, text) in &order {
                env.write(rel, text);
            }
            let json = run(pwk(&env).args(["list", "--format", "json"])).stdout;
            let human = run(pwk(&env).arg("list")).stdout;
            let root = env.root().display().to_string();
            (
                json.replace(&root, "[ROOT]"),
                human.replace(&root, "[ROOT]"),
            )
        })
        .collect();
    assert_eq!(outputs[0], outputs[1]);
    let doc: Value = serde_json::from_str(&outputs[0].0).unwrap();
    let dup = rows(&doc, "dup");
    assert_eq!(dup.len(), 1);
    assert_eq!(
        dup[0]["path"], ".pi/agents/alpha.md",
        "the first path in sorted order wins a same-directory tie"
    );
    assert!(
        dup[0]["host_notes"][0]
            .as_str()
            .unwrap()
            .contains("2 files in .pi/agents/ answer to `dup`")
    );
    assert_eq!(dup[0]["shadows"][0]["path"], ".pi/agents/zeta.md");
}

#[test]
fn herdr_never_reads_agents_agents() {
    let env = TestEnv::new();
    layered(&env);
    env.write(
        ".agents/agents/project-only.md",
        role("project-only", "Only in .agents/agents."),
    );

    let (_, doc) = list_json(&env, &["--host", "herdr"]);
    assert_eq!(doc["host"], "herdr");
    let r = rows(&doc, "project-only");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["visible"], false);
    assert!(
        r[0]["host_notes"][0]
            .as_str()
            .unwrap()
            .contains("herdr never reads .agents/agents/")
    );

    // The .pi/agents copy wins; the .agents/agents one is not among what herdr reads.
    let spec = rows(&doc, "pwk-spec-reviewer");
    let winner = spec.iter().find(|r| r["visible"] == true).unwrap();
    assert_eq!(winner["path"], ".pi/agents/pwk-spec-reviewer.md");
    let shadow_paths: Vec<&str> = winner["shadows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(shadow_paths, ["pi-agent/agents/pwk-spec-reviewer.md"]);
    assert!(
        spec.iter()
            .any(|r| r["visible"] == false && r["path"] == ".agents/agents/pwk-spec-reviewer.md")
    );

    // Built-in roles are not installed for herdr.
    let tracing = rows(&doc, "pwk-tracing-reviewer");
    assert_eq!(tracing[0]["visible"], false);
    assert!(
        tracing[0]["host_notes"][0]
            .as_str()
            .unwrap()
            .contains("pwk setup --global")
    );

    let out = run(pwk(&env).args(["show", "project-only", "--host", "herdr"]));
    assert_eq!(out.code, 1, "found but not loadable by herdr");
    assert!(out.stdout.contains("not read by herdr"), "{}", out.stdout);
    let out = run(pwk(&env).args(["show", "project-only"]));
    assert_eq!(out.code, 0, "pwk reads .agents/agents");
}

#[test]
fn tintinweb_answers_to_the_file_stem() {
    let env = TestEnv::new();
    layered(&env);
    env.write(
        ".agents/agents/pwk-smell-reviewer.md",
        role("pwk-smell-checker", "Renamed smell reviewer."),
    );

    // tintinweb before 0.16 never reads `name`: the file stem is the identity.
    let (_, doc) = list_json(&env, &["--host", "tintinweb@0.14"]);
    let r = rows(&doc, "pwk-smell-reviewer");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["visible"], true);
    assert_eq!(r[0]["path"], ".agents/agents/pwk-smell-reviewer.md");
    let note = r[0]["host_notes"][0].as_str().unwrap();
    assert!(
        note.contains("tintinweb@0.14 ignores `name: pwk-smell-checker`"),
        "{note}"
    );
    assert!(rows(&doc, "pwk-smell-checker").is_empty());

    // 0.17 made `name` the identity: the same file answers to its name, and exactly
    // that row differs between the two versions.
    let (_, new) = list_json(&env, &["--host", "tintinweb@0.18"]);
    let r = rows(&new, "pwk-smell-checker");
    assert_eq!(r.len(), 1, "{new}");
    assert_eq!(r[0]["path"], ".agents/agents/pwk-smell-reviewer.md");
    assert!(
        r[0]["host_notes"][0]
            .as_str()
            .unwrap()
            .contains("calling `pwk-smell-reviewer` silently runs a general-purpose child"),
        "{new}"
    );
    let names = |d: &serde_json::Value| -> Vec<String> {
        d["roles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect()
    };
    let (a, b) = (names(&doc), names(&new));
    let only_old: Vec<&String> = a.iter().filter(|n| !b.contains(n)).collect();
    let only_new: Vec<&String> = b.iter().filter(|n| !a.contains(n)).collect();
    // The packaged pwk-smell-reviewer is still listed under 0.18 (not installed there,
    // but known), so the renamed file adds exactly one name.
    assert_eq!(
        only_new,
        [&"pwk-smell-checker".to_string()],
        "{a:?} / {b:?}"
    );
    assert!(only_old.is_empty(), "{a:?} / {b:?}");

    // Under pwk's rules the role answers to its `name`, and the mismatch is noted.
    let (_, doc) = list_json(&env, &[]);
    let r = rows(&doc, "pwk-smell-checker");
    assert_eq!(r[0]["visible"], true);
    assert!(
        r[0]["host_notes"][0]
            .as_str()
            .unwrap()
            .contains("tintinweb before 0.17 would call it `pwk-smell-reviewer`")
    );

    let out = run(pwk(&env).args(["show", "pwk-smell-checker", "--host", "tintinweb@0.14"]));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("declares `name: pwk-smell-checker`, but tintinweb knows it by its file stem `pwk-smell-reviewer`"),
        "{}",
        out.stderr
    );
    let out = run(pwk(&env).args(["show", "pwk-smell-reviewer", "--host", "tintinweb@0.14"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Renamed smell reviewer."));
}

#[test]
fn nicobailon_scans_agents_recursively() {
    let env = TestEnv::new();
    layered(&env);
    env.write(
        ".agents/team/backend/deep-reviewer.md",
        role("deep-reviewer", "Nested two levels down."),
    );
    env.write(
        ".pi/agents/group/pi-nested.md",
        role("pi-nested", "Nested under .pi/agents."),
    );
    env.write(
        ".agents/skills/some-skill/notes.md",
        role("skill-notes", "Must be skipped."),
    );

    let (_, doc) = list_json(&env, &["--host", "nicobailon"]);
    let deep = rows(&doc, "deep-reviewer");
    assert_eq!(deep.len(), 1);
    assert_eq!(deep[0]["visible"], true);
    assert_eq!(deep[0]["path"], ".agents/team/backend/deep-reviewer.md");
    assert_eq!(rows(&doc, "pi-nested")[0]["visible"], true);
    assert!(
        rows(&doc, "skill-notes").is_empty(),
        ".agents/skills/ is not searched"
    );
    let searched: Vec<&str> = doc["searched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert!(searched.contains(&".agents/**"), "{searched:?}");

    // pwk reads only the files directly in each directory.
    let (_, doc) = list_json(&env, &[]);
    assert!(rows(&doc, "deep-reviewer").is_empty());
    assert!(rows(&doc, "pi-nested").is_empty());
}

#[test]
fn project_root_is_found_from_a_subdirectory() {
    let env = TestEnv::new();
    layered(&env);
    std::fs::create_dir_all(env.path("src/deep")).unwrap();
    let out = run(pwk(&env)
        .current_dir(env.path("src/deep"))
        .args(["list", "--format", "json"]));
    let doc = json(&out);
    assert_eq!(doc["project_root"], env.root().display().to_string());
    assert_eq!(rows(&doc, "pwk-spec-reviewer")[0]["source"], "project");

    // tintinweb reads project roles from the directory pi starts in.
    let out = run(pwk(&env).current_dir(env.path("src/deep")).args([
        "list",
        "--format",
        "json",
        "--host",
        "tintinweb",
    ]));
    let doc = json(&out);
    assert!(
        doc["notes"][0]
            .as_str()
            .unwrap()
            .contains("tintinweb reads project roles from the current directory")
    );
    let spec = rows(&doc, "pwk-spec-reviewer");
    let winner = spec.iter().find(|r| r["visible"] == true).unwrap();
    assert_eq!(winner["source"], "global");
}

#[test]
fn list_human_snapshot() {
    let env = TestEnv::new();
    layered(&env);
    // Shadow every built-in role so the snapshot does not depend on their text.
    for name in BUNDLED {
        if !env.path(&format!(".agents/agents/{name}.md")).exists() {
            env.write(
                &format!("pi-agent/agents/{name}.md"),
                role(name, &format!("Global {name}.")),
            );
        }
    }
    env.write(".pi/agents/claude-runner.md", adapter("claude-runner"));
    env.write(
        ".pi/agents/bad-yaml.md",
        "---\nname: bad-yaml\ndescription: a: b: c\n---\nbody\n",
    );
    env.write(
        ".agents/agents/pwk-smell-reviewer.md",
        role("pwk-smell-checker", "Renamed smell reviewer."),
    );
    let out = run(pwk(&env).arg("list"));
    assert_eq!(out.code, 1);
    env.insta_settings()
        .bind(|| insta::assert_snapshot!("list_human", out.stdout));
    let out = run(pwk(&env).args(["list", "--host", "herdr", "--all"]));
    env.insta_settings()
        .bind(|| insta::assert_snapshot!("list_human_herdr", out.stdout));
}

#[test]
fn show_human_snapshot_and_model_chain() {
    let env = TestEnv::new();
    layered(&env);
    env.write(
        ".pi/agents/pwk-spec-reviewer.md",
        "---\nname: pwk-spec-reviewer\ndescription: Project spec reviewer.\ntools: read, grep, find, ls\nmax_turns: 40\nthinking: low\nmodel: <fast-tier>\n# a comment that stays\n---\n# Spec reviewer\n\nReport with file:line evidence.\n",
    );
    env.write(
        "pi-agent/herdr-agents/config.json",
        r#"{"models":{"default":"openai/gpt-5","agents":{"pwk-spec-reviewer":"anthropic/claude-haiku-4-5"}}}"#,
    );
    env.write(
        "pi-agent/settings.json",
        r#"{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4-5"}"#,
    );
    let out = run(pwk(&env).args(["show", "pwk-spec-reviewer"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    env.insta_settings()
        .bind(|| insta::assert_snapshot!("show_human", out.stdout));

    // The placeholder hint falls back; the per-agent config decides.
    let out = run(pwk(&env).args(["show", "pwk-spec-reviewer", "--format", "json"]));
    let doc = json(&out);
    let model = &doc["runtime"]["model"];
    assert_eq!(model["effective"], "anthropic/claude-haiku-4-5");
    assert_eq!(model["decided_by"], "per-agent-config");
    let statuses: Vec<&str> = model["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        [
            "unset",
            "falls-back",
            "decides",
            "not-reached",
            "not-reached"
        ]
    );

    // An explicit --model wins over everything.
    let out = run(pwk(&env).args([
        "show",
        "pwk-spec-reviewer",
        "--format",
        "json",
        "--model",
        "google/gemini-3",
    ]));
    let doc = json(&out);
    assert_eq!(doc["runtime"]["model"]["effective"], "google/gemini-3");
    assert_eq!(doc["runtime"]["model"]["decided_by"], "invocation");

    // Without any config, pi's own default decides.
    std::fs::remove_file(env.path("pi-agent/herdr-agents/config.json")).unwrap();
    std::fs::remove_file(env.path("pi-agent/settings.json")).unwrap();
    let doc = json(&run(pwk(&env).args([
        "show",
        "pwk-spec-reviewer",
        "--format",
        "json",
    ])));
    assert_eq!(doc["runtime"]["model"]["decided_by"], "parent-default");
    assert_eq!(doc["runtime"]["model"]["effective"], Value::Null);
}

#[test]
fn show_json_shape_and_tool_defaults() {
    let env = TestEnv::new();
    layered(&env);
    env.write(
        ".pi/agents/no-tools.md",
        "---\nname: no-tools\ndescription: Has no tools key.\n---\nBody text.\n",
    );
    let out = run(pwk(&env).args(["show", "no-tools", "--format", "json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = json(&out);
    for key in [
        "version",
        "host",
        "name",
        "description",
        "source",
        "path",
        "shadows",
        "hidden",
        "frontmatter",
        "body",
        "runtime",
    ] {
        assert!(doc.get(key).is_some(), "show JSON lacks `{key}`");
    }
    assert_eq!(
        doc["frontmatter"],
        serde_json::json!({"name": "no-tools", "description": "Has no tools key."})
    );
    assert_eq!(doc["body"], "Body text.\n");
    assert_eq!(doc["runtime"]["tools"]["host_default"], true);
    assert_eq!(doc["runtime"]["tools"]["mutating"], true);

    let doc = json(&run(pwk(&env).args([
        "show",
        "no-tools",
        "--format",
        "json",
        "--host",
        "tintinweb",
    ])));
    let tools: Vec<&str> = doc["runtime"]["tools"]["effective"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        ["read", "bash", "edit", "write", "grep", "find", "ls"]
    );
    assert!(
        doc["runtime"]["tools"]["note"]
            .as_str()
            .unwrap()
            .contains("all seven")
    );
}

#[test]
fn show_unknown_name_exits_2_with_did_you_mean() {
    let env = TestEnv::new();
    layered(&env);
    let out = run(pwk(&env).args(["show", "pwk-spec-reviewr"]));
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains("no role named `pwk-spec-reviewr`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("did you mean `pwk-spec-reviewer`?"),
        "{}",
        out.stderr
    );

    let out = run(pwk(&env).args(["show", "zzzzzz", "--format", "json"]));
    assert_eq!(out.code, 2);
    // A JSON error document on stdout (issue #32), the message on stderr.
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("a JSON document");
    assert_eq!(doc["error"]["message"], "no role named `zzzzzz`", "{doc}");
    assert!(out.stderr.contains("pwk list --all"), "{}", out.stderr);
}

fn check_template(path: &Path, name: &str) -> pwk::role::Role {
    let bytes = std::fs::read(path).unwrap();
    let doc = pwk::role::RoleDoc::parse(path, &bytes);
    assert_eq!(
        pwk::discover::first_problem(&doc, pwk::host::HostId::Pwk.newest()),
        None
    );
    let json = doc.mapping().expect("frontmatter parses").to_json();
    let errors: Vec<String> = pwk::role::schema::validator()
        .iter_errors(&json)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(doc.stem(), Some(name));
    let text = String::from_utf8(bytes).unwrap();
    for key in pwk::role::schema::known_keys() {
        assert!(
            text.contains(&format!("{key}: ")),
            "{key} missing from the template"
        );
    }
    assert!(text.contains("## Report contract"));
    // The template passes the linter exactly as written: no errors, and no
    // warnings but those true of every role of its kind: only herdr reads
    // `spawning` (tintinweb and nicobailon grant nesting their own way), and
    // herdr refuses an adapter's `cli`, and only herdr hides a role on
    // `disable-model-invocation`.
    let diagnostics = pwk::lint::check_doc(&doc, pwk::host::HostId::Pwk.newest());
    let expected = |d: &pwk::lint::Diagnostic| match name {
        "my-coordinator" => {
            d.rule == "host-ignored-key" && d.message.starts_with("`spawning` is read by herdr")
        }
        "my-adapter" => {
            (d.rule == "host-rejected-key" && d.message.starts_with("herdr refuses"))
                || (d.rule == "host-ignored-key"
                    && d.message
                        .starts_with("`disable-model-invocation` is read by herdr"))
        }
        _ => false,
    };
    assert!(
        diagnostics
            .iter()
            .all(|d| d.severity == pwk::lint::Severity::Warning && expected(d)),
        "{name}: {diagnostics:#?}"
    );
    pwk::role::Role::from_doc(&doc).unwrap()
}

#[test]
fn new_writes_a_valid_template_for_each_kind() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    for (name, kind) in [
        ("my-leaf", "leaf"),
        ("my-coordinator", "coordinator"),
        ("my-adapter", "adapter"),
    ] {
        let out = run(pwk(&env).args(["new", name, "--kind", kind]));
        assert_eq!(out.code, 0, "{kind}: {}", out.stderr);
        let rel = format!(".agents/agents/{name}.md");
        assert!(
            out.stdout.contains(&format!("Created {rel} ({kind} role)")),
            "{}",
            out.stdout
        );
        let role = check_template(&env.path(&rel), name);
        assert_eq!(role.name.as_deref(), Some(name));
        match kind {
            "leaf" => {
                assert_eq!(role.spawning, Some(false));
                assert_eq!(
                    role.tools.as_deref().unwrap(),
                    ["read", "grep", "find", "ls"]
                );
            }
            "coordinator" => assert_eq!(role.spawning, Some(true)),
            _ => {
                assert!(role.disable_model_invocation);
                assert!(role.cli.is_some() && role.cli_model.is_some());
            }
        }
        let show = run(pwk(&env).args(["show", name]));
        assert_eq!(show.code, 0, "{}", show.stderr);
        let deny = if kind == "leaf" {
            "--deny-warnings"
        } else {
            "--allow-empty"
        };
        let lint = run(pwk(&env).args(["lint", deny, &rel]));
        assert_eq!(lint.code, 0, "{kind}: {}{}", lint.stdout, lint.stderr);
    }
    let (_, doc) = list_json(&env, &[]);
    assert_eq!(rows(&doc, "my-leaf").len(), 1);
    assert!(rows(&doc, "my-adapter").is_empty(), "the adapter is hidden");

    let out = run(pwk(&env).args(["new", "pwk-spec-reviewer", "--agents-dir", ".pi/agents"]));
    assert_eq!(out.code, 0);
    assert!(
        out.stdout
            .contains("It shadows builtin:pwk-spec-reviewer.md (package)"),
        "{}",
        out.stdout
    );
}

#[test]
fn new_never_overwrites() {
    let env = TestEnv::new();
    env.write(".agents/agents/taken.md", "my own text\n");
    let out = run(pwk(&env).args(["new", "taken"]));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains(".agents/agents/taken.md already exists"),
        "{}",
        out.stderr
    );
    assert_eq!(env.read(".agents/agents/taken.md"), "my own text\n");

    // A symlink at the target is refused too, and its target is left alone.
    std::fs::create_dir_all(env.path("agents-dir")).unwrap();
    std::os::unix::fs::symlink(env.path("victim.md"), env.path("agents-dir/linked.md")).unwrap();
    let out = run(pwk(&env).args(["new", "linked", "--agents-dir", "agents-dir"]));
    assert_eq!(out.code, 2);
    assert!(!env.path("victim.md").exists());
}

#[test]
fn new_rejects_names_that_are_not_slugs() {
    let env = TestEnv::new();
    for (bad, reason) in [
        ("My Role", "try `my-role`"),
        ("role.md", "without `.md`"),
        ("a_b", "only lowercase letters, digits and hyphens"),
        ("-lead", "starts or ends with a hyphen"),
    ] {
        let out = run(pwk(&env).args(["new", "--", bad]));
        assert_eq!(out.code, 2, "{bad}");
        assert!(out.stderr.contains(reason), "{bad}: {}", out.stderr);
    }
    assert!(
        !env.path(".agents").exists(),
        "nothing written for a bad name"
    );
}

/// A role of each non-pi host, each in its own directory: what `show --host H`
/// prints for it (human and JSON) is that host's runtime — its own turn and
/// reasoning keys, its default model, its own process — and never pi's wording
/// (pi's model registry, pi's settings files, pi's default level). One table of
/// (host, file, role, facts the JSON must state), so a host added there is
/// covered the same way.
#[test]
fn non_pi_hosts_are_shown_as_they_run_roles_without_pi_wording() {
    let env = TestEnv::new();
    env.write(".git/HEAD", "ref: refs/heads/main\n");
    env.write(
        ".claude/agents/cc.md",
        "---\nname: cc\ndescription: d\ntools: Read, Grep, Bash\nmodel: sonnet\neffort: high\nmaxTurns: 7\n---\nB\n",
    );
    env.write(
        ".opencode/agents/oc.md",
        "---\ndescription: d\nmodel: anthropic/claude-x\nsteps: 9\n---\nB\n",
    );
    env.write(
        ".gemini/agents/gm.md",
        "---\nname: gm\ndescription: d\ntools: [read_file]\nmax_turns: 4\nthinking: low\n---\nB\n",
    );
    env.write(
        ".github/agents/cp.agent.md",
        "---\nname: cp\ndescription: d\ntools: [read]\nmax_turns: 3\n---\nB\n",
    );
    // (host, role, runtime kind, max_turns value and honoured, thinking value and
    // honoured, the model the chain settles on, whether the child can change files)
    type Row = (
        &'static str,
        &'static str,
        Value,
        bool,
        Value,
        bool,
        Value,
        bool,
    );
    let table: [Row; 4] = [
        (
            "claude-code",
            "cc",
            7.into(),
            true,
            "high".into(),
            true,
            "sonnet".into(),
            true,
        ),
        (
            "opencode",
            "oc",
            9.into(),
            true,
            Value::Null,
            true,
            "anthropic/claude-x".into(),
            true,
        ),
        (
            "gemini",
            "gm",
            4.into(),
            true,
            "low".into(),
            false,
            Value::Null,
            false,
        ),
        (
            "copilot",
            "cp",
            Value::Null,
            false,
            Value::Null,
            true,
            Value::Null,
            false,
        ),
    ];
    let pi_words = regex::Regex::new(
        r"(?i)\bpi's\b|\bon pi\b|runs on\s+pi\b|\.pi/|PI_CODING_AGENT_DIR|pi clamps|pi model",
    )
    .unwrap();
    for (host, name, turns, turns_ok, thinking, thinking_ok, model, mutating) in table {
        let human = run(pwk(&env).args(["show", "--host", host, name]));
        assert_eq!(human.code, 0, "{host}: {}", human.stderr);
        let out = run(pwk(&env).args(["show", "--host", host, name, "--format", "json"]));
        let doc = json(&out);
        let rt = &doc["runtime"];
        assert_eq!(rt["kind"], "host-cli", "{host}");
        let copilot_turns = host == "copilot";
        // Copilot reads no turn bound: the value is still shown, as ignored.
        if !copilot_turns {
            assert_eq!(rt["max_turns"]["value"], turns, "{host} max_turns");
        }
        assert_eq!(rt["max_turns"]["honoured"], turns_ok, "{host} max_turns");
        assert_eq!(rt["thinking"]["value"], thinking, "{host} thinking");
        assert_eq!(rt["thinking"]["honoured"], thinking_ok, "{host} thinking");
        assert_eq!(rt["model"]["effective"], model, "{host} model");
        assert_eq!(rt["tools"]["mutating"], mutating, "{host} tools");
        // The host's own settings files only, never pi's.
        for f in rt["config_files"].as_array().unwrap() {
            assert!(
                f["purpose"].as_str().unwrap().starts_with("the host's")
                    && !f["path"].as_str().unwrap().contains(".pi/"),
                "{host}: not the host's own settings file: {f}"
            );
        }
        for text in [&human.stdout, &out.stdout, &human.stderr, &out.stderr] {
            if let Some(m) = pi_words.find(text) {
                panic!("{host}: pi wording `{}` in:\n{text}", m.as_str());
            }
        }
    }
}
