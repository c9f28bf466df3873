//! `pwk lint`, `pwk rules`, `pwk schema --host`: driven through the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{
    Output, TestEnv, diagnostics, findings, first_of_rule, json, of_rule, repo_root, rules_of, run,
};

/// Run a command with a hard timeout, so a hang fails the test instead of stalling it.
/// Both pipes are drained while it runs (a child blocked on a full pipe is not a hang).
fn run_bounded(cmd: &mut Command, limit: Duration) -> Output {
    use std::io::Read;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn pwk");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("pwk did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

fn fixtures() -> PathBuf {
    repo_root().join("fixtures/lint")
}

/// Every rule fixture: `fixtures/lint/<host spec>/<rule>.md`, or a directory
/// `<rule>/` holding a small project tree when the rule needs one (a second file, a
/// path). The directory names the host profile the fixture is linted for.
/// Returns (host spec, rule id, path), sorted.
fn rule_fixtures() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for host in std::fs::read_dir(fixtures()).unwrap() {
        let host = host.unwrap().path();
        let spec = host.file_name().unwrap().to_str().unwrap().to_string();
        for entry in std::fs::read_dir(&host).unwrap() {
            let p = entry.unwrap().path();
            let name = p.file_name().unwrap().to_str().unwrap();
            let rule = name.strip_suffix(".md").unwrap_or(name).to_string();
            out.push((spec.clone(), rule, p));
        }
    }
    out.sort();
    out
}

/// Copy a fixture into `env`; returns the lint arguments that reach it.
fn place_fixture(env: &TestEnv, path: &Path) -> Vec<String> {
    if path.is_file() {
        let name = path.file_name().unwrap().to_str().unwrap();
        env.write(name, std::fs::read(path).unwrap());
        return vec![name.to_string()];
    }
    let mut top = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(path).unwrap();
                env.write(rel.to_str().unwrap(), std::fs::read(&p).unwrap());
            }
        }
    }
    for entry in std::fs::read_dir(path).unwrap() {
        top.push(entry.unwrap().file_name().to_str().unwrap().to_string());
    }
    top.sort();
    // `pwk lint` with no paths reads the project's agents directories.
    if top.iter().any(|t| t == ".agents" || t == ".pi") {
        return Vec::new();
    }
    top
}

#[test]
fn each_fixture_triggers_its_rule() {
    for (host, rule, path) in rule_fixtures() {
        let env = TestEnv::new();
        let args = place_fixture(&env, &path);
        let lint = |format: &str| {
            run(env
                .pwk()
                .args(["lint", "--host", &host, "--format", format])
                .args(&args))
        };
        let human = lint("human");
        let machine = lint("json");
        let doc = json(&machine);
        assert!(
            rules_of(&doc).contains(&rule),
            "{host}/{rule}: not reported:\n{}",
            machine.stdout
        );
        assert_eq!(
            human.code, machine.code,
            "{rule}: exit codes differ between formats"
        );
        let expected_code = if doc["summary"]["errors"].as_u64().unwrap() > 0 {
            1
        } else {
            0
        };
        assert_eq!(machine.code, expected_code, "{rule}: {}", machine.stderr);
        assert!(
            machine.stderr.is_empty(),
            "{rule}: stderr: {}",
            machine.stderr
        );
        env.insta_settings().bind(|| {
            insta::assert_snapshot!(
                format!("fixture@{host}@{rule}"),
                format!(
                    "$ pwk lint --host {host} {}\nexit: {}\n\n{}\n$ pwk lint --format json …\n{}",
                    args.join(" "),
                    human.code,
                    human.stdout,
                    machine.stdout
                )
            );
        });
    }
}

#[test]
fn every_rule_has_a_fixture_and_every_fixture_a_rule() {
    let out = run(TestEnv::new().pwk().args(["rules", "--format", "json"]));
    let ids: Vec<String> = json(&out)["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    // These two are about the file itself and are created at test time (below).
    let made_at_test_time = ["file-too-large", "not-a-regular-file", "unreadable-file"];
    // Needs `--check-models` and a pi: its fixtures are fixtures/models/ (models.rs).
    let made_at_test_time = [made_at_test_time.as_slice(), &["unresolved-model"]].concat();
    let fixtures = rule_fixtures();
    for id in &ids {
        assert!(
            fixtures.iter().any(|(_, r, _)| r == id) || made_at_test_time.contains(&id.as_str()),
            "no fixture for rule `{id}`"
        );
    }
    for (host, rule, _) in &fixtures {
        assert!(ids.contains(rule), "fixture {host}/{rule} names no rule");
        assert!(
            run(TestEnv::new().pwk().args(["schema", "--host", host])).code == 0,
            "fixture directory {host} is not a host profile"
        );
    }
}

#[test]
fn pwk_shaped_roles_lint_clean() {
    // Without an installed host the portable profile applies: no errors, and the
    // only warnings say which hosts ignore `max_turns` and `systemPromptMode`.
    let env = TestEnv::new();
    for entry in std::fs::read_dir(repo_root().join("fixtures/pwk-shaped-roles")).unwrap() {
        let p = entry.unwrap().path();
        env.write(
            &format!(
                ".agents/agents/{}",
                p.file_name().unwrap().to_str().unwrap()
            ),
            std::fs::read(&p).unwrap(),
        );
    }
    let out = run(env.pwk().args(["lint", "--format", "json"]));
    let doc = json(&out);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(doc["files"], 5);
    assert_eq!(doc["summary"]["errors"], 0);
    // No host known: no per-file finding; the keys only some hosts read are named
    // once.
    assert_eq!(doc["diagnostics"], serde_json::json!([]), "{doc}");
    assert!(doc["host_specific_keys"]["max_turns"].is_number(), "{doc}");
    // For the host that is installed, they are clean.
    env.write(
        ".pi/settings.json",
        r#"{"packages": ["npm:@tintinweb/pi-subagents@0.18.0"]}"#,
    );
    let human = run(env.pwk().args(["lint", "--deny-warnings"]));
    assert_eq!(human.code, 0, "{}", human.stdout);
    assert_eq!(
        human.stdout,
        "5 files checked for tintinweb@0.18: no problems.\n"
    );
}

#[test]
fn host_profiles_change_what_is_reported() {
    let env = TestEnv::new();
    env.write(
        "pwk-smell-reviewer.md",
        "---\nname: pwk-smell-checker\ndescription: Flags smells.\ntools: read, grep\nsystemPromptMode: append\nmax_turns: 20\n---\nBody.\n",
    );
    let lint = |host: &str| {
        json(&run(env.pwk().args([
            "lint",
            "--format",
            "json",
            "--host",
            host,
            "pwk-smell-reviewer.md",
        ])))
    };
    let find = |doc: &serde_json::Value, rule: &str| -> Vec<serde_json::Value> {
        of_rule(doc, rule).into_iter().cloned().collect()
    };

    // tintinweb 0.14 never reads `name`: calling the role by it runs a
    // general-purpose child. 0.18 answers to `name` (the stem is then the trap).
    let old = lint("tintinweb@0.14");
    let m = &find(&old, "name-mismatch")[0];
    assert_eq!(m["severity"], "error");
    assert!(m["message"].as_str().unwrap().contains("all seven"), "{m}");
    let new = lint("tintinweb");
    let m = &find(&new, "name-mismatch")[0];
    assert_eq!(m["severity"], "warning");
    assert!(
        m["message"]
            .as_str()
            .unwrap()
            .contains("tintinweb@0.25 calls this role `pwk-smell-checker`"),
        "{m}"
    );
    let ignored = find(&new, "host-ignored-key");
    assert!(
        ignored
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("systemPromptMode")),
        "{new}"
    );

    let nico = lint("nicobailon");
    assert_eq!(find(&nico, "name-mismatch")[0]["severity"], "warning");
    let ignored = find(&nico, "host-ignored-key");
    assert!(
        ignored
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("toolBudget")),
        "{nico}"
    );
    assert!(
        !ignored
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("systemPromptMode"))
    );

    // Portable: a warning that names who reads and who ignores each key.
    let pwk = lint("pwk");
    let m = &find(&pwk, "name-mismatch")[0];
    assert_eq!(m["severity"], "warning");
    assert!(
        m["message"].as_str().unwrap().contains("tintinweb@0.14"),
        "{m}"
    );
    // Keys only some hosts read: no per-file finding, the summary's note.
    assert!(find(&pwk, "host-ignored-key").is_empty(), "{pwk}");
    assert!(pwk["host_specific_keys"]["max_turns"].is_number(), "{pwk}");

    // prompt_mode is tintinweb's own key, outside the PWK contract: read there;
    // under the portable profile a warning naming who reads it and who silently
    // drops it, never "unknown"; with no host named, the key names tintinweb.
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntools: read\nprompt_mode: append\n---\nBody.\n",
    );
    let on = |host: Option<&str>| {
        let mut cmd = env.pwk();
        cmd.args(["lint", "--format", "json"]);
        if let Some(h) = host {
            cmd.args(["--host", h]);
        }
        json(&run(cmd.arg("r.md")))
    };
    let tintin = on(Some("tintinweb"));
    assert!(find(&tintin, "unknown-key").is_empty(), "{tintin}");
    assert!(find(&tintin, "host-ignored-key").is_empty(), "{tintin}");
    let pwk = on(Some("pwk"));
    assert!(find(&pwk, "unknown-key").is_empty(), "{pwk}");
    let warned = find(&pwk, "host-ignored-key");
    assert_eq!(warned.len(), 1, "{pwk}");
    assert_eq!(warned[0]["severity"], "warning");
    let m = warned[0]["message"].as_str().unwrap();
    assert!(
        m.contains("`prompt_mode` is read by tintinweb") && m.contains("ignored by nicobailon"),
        "{m}"
    );
    assert!(pwk["host_specific_keys"].is_null(), "{pwk}");
    let auto = on(None);
    assert!(
        auto["host"]["profile"]
            .as_str()
            .is_some_and(|p| p.starts_with("tintinweb@")),
        "{auto}"
    );
    assert_eq!(auto["host"]["decisions"][0]["basis"], "keys", "{auto}");
    assert!(find(&auto, "host-ignored-key").is_empty(), "{auto}");
}

#[test]
fn missing_or_misspelt_tools_says_what_the_child_gets() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntols: read\n---\nBody.\n",
    );
    for (host, words) in [
        ("tintinweb", "all seven"),
        ("nicobailon", "read, bash, edit, write"),
        ("herdr", "--tools"),
    ] {
        let doc = json(&run(env
            .pwk()
            .args(["lint", "--format", "json", "--host", host, "r.md"])));
        let diags = diagnostics(&doc);
        let unknown = diags
            .iter()
            .find(|d| d["rule"] == "unknown-key")
            .expect("unknown-key");
        assert_eq!(unknown["help"], "did you mean `tools`?");
        assert!(
            unknown["message"].as_str().unwrap().contains(words),
            "{host}: {unknown}"
        );
        assert_eq!(
            (unknown["line"].as_u64(), unknown["column"].as_u64()),
            (Some(4), Some(1))
        );
        let missing = diags
            .iter()
            .find(|d| d["rule"] == "missing-tools")
            .expect("missing-tools");
        assert_eq!(missing["severity"], "warning");
        assert!(
            missing["message"].as_str().unwrap().contains(words),
            "{host}: {missing}"
        );
    }
}

#[test]
fn did_you_mean_for_keys_aliases_and_rules() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntools: read\nallowedTools: read\nmaxTurns: 3\nmodel_name: a/b\ndescriptoin: x\n---\nBody.\n",
    );
    let doc = json(&run(env.pwk().args(["lint", "--format", "json", "r.md"])));
    let helps: Vec<(String, String)> = of_rule(&doc, "unknown-key")
        .into_iter()
        .map(|d| {
            (
                d["message"].as_str().unwrap().to_string(),
                d["help"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expect = [
        ("allowedTools", "tools"),
        ("maxTurns", "max_turns"),
        ("model_name", "model"),
        ("descriptoin", "description"),
    ];
    for (key, target) in expect {
        assert!(
            helps.iter().any(|(m, h)| m.contains(&format!("`{key}`"))
                && h == &format!("did you mean `{target}`?")),
            "{key} → {target}: {helps:?}"
        );
    }
    let out = run(env.pwk().args(["rules", "unknwn-key"]));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("did you mean `unknown-key`?"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn columns_count_unicode_scalars_after_cjk_and_emoji() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: 日本語の説明 🎉\ntools: [日本語, 🎉, Rd]\n---\nBody.\n",
    );
    let out = run(env.pwk().args(["lint", "--format", "json", "r.md"]));
    let doc = json(&out);
    let rd = diagnostics(&doc)
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("`Rd`"))
        .unwrap();
    // `tools: [` is 8 scalars, `日本語, ` 5, `🎉, ` 3: `Rd` starts at column 17.
    assert_eq!(
        (
            rd["line"].as_u64(),
            rd["column"].as_u64(),
            rd["end_column"].as_u64()
        ),
        (Some(4), Some(17), Some(19))
    );
    let emoji = diagnostics(&doc)
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("`🎉`"))
        .unwrap();
    assert_eq!(
        (emoji["column"].as_u64(), emoji["end_column"].as_u64()),
        (Some(14), Some(15))
    );
    let sarif = json(&run(env.pwk().args(["lint", "--format", "sarif", "r.md"])));
    assert_eq!(sarif["runs"][0]["columnKind"], "unicodeCodePoints");
    let github = run(env.pwk().args(["lint", "--format", "github", "r.md"])).stdout;
    assert!(
        github.contains("line=4,col=17,endLine=4,endColumn=19,title=unknown-tool::"),
        "{github}"
    );
}

#[test]
fn billion_laughs_is_refused_cleanly() {
    let env = TestEnv::new();
    let mut yaml = String::from(
        "---\nname: laughs\ndescription: d\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (i, c) in ('b'..='i').enumerate() {
        let prev = (b'a' + i as u8) as char;
        yaml.push_str(&format!(
            "{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
    }
    yaml.push_str("---\nBody.\n");
    env.write("laughs.md", yaml);
    let out = run_bounded(
        env.pwk().args(["lint", "--format", "json", "laughs.md"]),
        Duration::from_secs(10),
    );
    assert_eq!(out.code, 1);
    let doc = json(&out);
    assert_eq!(rules_of(&doc), ["yaml-anchor"]);
    assert_eq!(doc["diagnostics"][0]["line"], 4);
}

#[test]
fn fifo_socket_symlink_and_oversize_are_findings_not_hangs() {
    let env = TestEnv::new();
    let dir = env.path(".agents/agents");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.md");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .expect("mkfifo");
    let _sock = std::os::unix::net::UnixListener::bind(dir.join("socket.md")).expect("socket");
    env.write(
        "outside.md",
        "---\nname: outside\ndescription: d\ntools: read\n---\nBody.\n",
    );
    std::os::unix::fs::symlink(env.path("outside.md"), dir.join("link.md")).unwrap();
    std::os::unix::fs::symlink(env.path("nowhere.md"), dir.join("dangling.md")).unwrap();
    let big = std::fs::File::create(dir.join("big.md")).unwrap();
    big.set_len(4 * 1024 * 1024 * 1024).unwrap(); // sparse: refused from its size, never read
    drop(big);

    // As a directory scan.
    let out = run_bounded(
        env.pwk().args(["lint", "--format", "json"]),
        Duration::from_secs(10),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = json(&out);
    let by_file: Vec<(String, String)> = findings(&doc)
        .into_iter()
        .map(|f| (f.path, f.rule))
        .collect();
    let expect = [
        (".agents/agents/big.md", "file-too-large"),
        (".agents/agents/dangling.md", "not-a-regular-file"),
        (".agents/agents/fifo.md", "not-a-regular-file"),
        (".agents/agents/link.md", "not-a-regular-file"),
        (".agents/agents/socket.md", "not-a-regular-file"),
    ];
    assert_eq!(by_file, expect.map(|(a, b)| (a.to_string(), b.to_string())));
    for d in diagnostics(&doc) {
        assert_eq!(
            (d["line"].as_u64(), d["column"].as_u64()),
            (Some(1), Some(1))
        );
    }

    // Named explicitly, one by one, in every format.
    for name in ["fifo.md", "link.md", "big.md"] {
        let path = format!(".agents/agents/{name}");
        for format in ["human", "json", "sarif", "github"] {
            let out = run_bounded(
                env.pwk().args(["lint", "--format", format, &path]),
                Duration::from_secs(10),
            );
            assert_eq!(out.code, 1, "{name} {format}: {}", out.stderr);
        }
    }
    let human = run_bounded(
        env.pwk().args(["lint", ".agents/agents/fifo.md"]),
        Duration::from_secs(10),
    );
    env.insta_settings()
        .bind(|| insta::assert_snapshot!(human.stdout));
}

#[test]
fn exit_codes() {
    let env = TestEnv::new();
    env.write("warn.md", "---\nname: warn\ndescription: d\n---\nBody.\n"); // missing-tools: a warning
    env.write(
        "err/bad.md",
        "---\nname: bad\ndescription: [d\n---\nBody.\n",
    ); // yaml-syntax: every host
    assert_eq!(run(env.pwk().args(["lint", "warn.md"])).code, 0);
    assert_eq!(
        run(env.pwk().args(["lint", "--deny-warnings", "warn.md"])).code,
        1
    );
    assert_eq!(run(env.pwk().args(["lint", "err"])).code, 1);

    let missing = run(env.pwk().args(["lint", "nowhere.md"]));
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .contains("cannot read `nowhere.md`: does not exist"),
        "{}",
        missing.stderr
    );
    // Said once, by the fatal path: human output holds no finding for it, nor a
    // summary of files that were not linted (issue #32; the documents keep it).
    assert_eq!(missing.stdout, "", "{}", missing.stdout);

    // No PATH and neither default directory.
    let none = run(env.pwk().arg("lint"));
    assert_eq!(none.code, 2);
    assert!(none.stderr.contains(".agents/agents/"), "{}", none.stderr);
    assert_eq!(run(env.pwk().args(["lint", "--allow-empty"])).code, 0);

    // A directory without *.md files.
    std::fs::create_dir_all(env.path("empty/sub")).unwrap();
    env.write(
        "empty/sub/deep.md",
        "---\nname: deep\ndescription: d\ntools: read\n---\nBody.\n",
    );
    let empty = run(env.pwk().args(["lint", "empty"]));
    assert_eq!(empty.code, 2);
    assert!(empty.stderr.contains("--recursive"), "{}", empty.stderr);
    assert_eq!(
        run(env.pwk().args(["lint", "--allow-empty", "empty"])).code,
        0
    );
    assert_eq!(
        run(env.pwk().args(["lint", "--recursive", "empty"])).code,
        0
    );
}

#[test]
fn recursive_walk_never_follows_symlinked_directories() {
    let env = TestEnv::new();
    env.write(
        "roles/a.md",
        "---\nname: a\ndescription: d\ntools: read\n---\nBody.\n",
    );
    env.write(
        "roles/nested/b.md",
        "---\nname: b\ndescription: d\ntools: read\n---\nBody.\n",
    );
    env.write("elsewhere/c.md", "---\nname: c\n---\n");
    std::os::unix::fs::symlink(env.path("elsewhere"), env.path("roles/linked")).unwrap();
    std::os::unix::fs::symlink(env.path("roles"), env.path("roles/nested/loop")).unwrap();
    let out = run_bounded(
        env.pwk()
            .args(["lint", "--recursive", "--format", "json", "roles"]),
        Duration::from_secs(10),
    );
    let doc = json(&out);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(doc["files"], 2);
    let flat = json(&run(env.pwk().args(["lint", "--format", "json", "roles"])));
    assert_eq!(flat["files"], 1);
}

#[test]
fn output_is_sorted_by_path_then_position_and_deterministic() {
    let env = TestEnv::new();
    for i in (0..60).rev() {
        env.write(
            &format!("roles/r{i:02}.md"),
            format!("---\nname: r{i:02}\ntols: x\ndescription: d\nthinking: lots\n---\nBody.\n"),
        );
    }
    let first = run(env.pwk().args(["lint", "--format", "json", "roles"]));
    let second = run(env.pwk().args(["lint", "--format", "json", "roles"]));
    assert_eq!(first.stdout, second.stdout);
    let doc = json(&first);
    let keys: Vec<(String, u64, u64)> = findings(&doc)
        .into_iter()
        .map(|f| (f.path, f.line, f.column))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(doc["files"], 60);
    assert_eq!(doc["summary"]["errors"], 120);
}

#[test]
fn duplicate_names_across_files_name_both_paths() {
    // Two files of one directory (in two directories of the host, the later one
    // shadows the other: `shadowed-role`).
    let env = TestEnv::new();
    env.write(
        ".pi/agents/a-reviewer.md",
        "---\nname: reviewer\ndescription: d\ntools: read\n---\nBody.\n",
    );
    env.write(
        ".pi/agents/reviewer.md",
        "---\nname: reviewer\ndescription: d\ntools: read\n---\nBody.\n",
    );
    let doc = json(&run(env.pwk().args(["lint", "--format", "json"])));
    // (a-reviewer.md also gets name-mismatch.)
    let d: Vec<&serde_json::Value> = of_rule(&doc, "duplicate-name");
    assert_eq!(d.len(), 2);
    assert_eq!(d[0]["path"], ".pi/agents/a-reviewer.md");
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .contains(".pi/agents/reviewer.md")
    );
    assert_eq!(d[1]["path"], ".pi/agents/reviewer.md");
    assert!(
        d[1]["message"]
            .as_str()
            .unwrap()
            .contains(".pi/agents/a-reviewer.md")
    );
    assert_eq!(
        (d[0]["line"].as_u64(), d[0]["column"].as_u64()),
        (Some(2), Some(7))
    );
}

#[test]
fn json_sarif_and_github_shapes() {
    let env = TestEnv::new();
    env.write(
        "a, b%.md",
        "---\nname: a-b\ndescription: \"50% off\"\nthinking: lots\ntools: read\n---\nBody.\n",
    );
    env.write("ok.md", "---\nname: ok\ndescription: d\n---\nBody.\n");

    let doc = json(&run(env
        .pwk()
        .args(["lint", "--format", "json", "a, b%.md", "ok.md"])));
    let top: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        top,
        [
            "diagnostics",
            "files",
            "host",
            "skipped",
            "summary",
            "version"
        ]
    );
    assert_eq!(doc["host"]["profile"], "pwk");
    assert!(
        doc["host"]["detected"]
            .as_str()
            .unwrap()
            .contains("the PWK contract applies (the portable profile"),
        "{}",
        doc["host"]
    );
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["files"], 2);
    for d in diagnostics(&doc) {
        // `fixes` is there only when the finding has a mechanical repair.
        let keys: Vec<&str> = d
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "fixes")
            .collect();
        assert_eq!(
            keys,
            [
                "column",
                "end_column",
                "end_line",
                "fixable",
                "help",
                "line",
                "message",
                "path",
                "rule",
                "severity",
                "url"
            ]
        );
    }
    assert_eq!(
        doc["summary"],
        serde_json::json!({"errors": 1, "warnings": 2, "fixable": 0, "unsafe_fixable": 1})
    );

    let sarif = json(&run(env
        .pwk()
        .args(["lint", "--format", "sarif", "a, b%.md", "ok.md"])));
    assert_eq!(sarif["version"], "2.1.0");
    let run0 = &sarif["runs"][0];
    let rules: Vec<&str> = run0["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        ["invalid-thinking", "missing-tools", "name-mismatch"]
    );
    for r in run0["results"].as_array().unwrap() {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(r["ruleId"], rules[i]);
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert!(
            region["startLine"].as_u64().unwrap() >= 1
                && region["startColumn"].as_u64().unwrap() >= 1
        );
    }
    assert_eq!(
        run0["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "a%2C%20b%25.md"
    );

    let gh = run(env
        .pwk()
        .args(["lint", "--format", "github", "a, b%.md", "ok.md"]));
    let lines: Vec<&str> = gh.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", gh.stdout);
    assert!(
        lines[0].starts_with(
            "::warning file=a%2C b%25.md,line=2,col=7,endLine=2,endColumn=10,title=name-mismatch::"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines.iter().any(|l| l.starts_with("::warning file=ok.md,")),
        "{}",
        gh.stdout
    );
    assert!(lines.iter().all(|l| !l.contains('\r')));
    assert!(lines[0].contains("%0Ahelp: "), "{}", lines[0]);
}

#[test]
fn color_follows_the_flag() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\nthinking: lots\ntools: read\n---\nBody.\n",
    );
    let plain = run(env.pwk().args(["lint", "r.md"]));
    assert!(!plain.stdout.contains('\u{1b}'));
    let colored = run(env.pwk().args(["lint", "--color", "always", "r.md"]));
    assert!(colored.stdout.contains('\u{1b}'), "{}", colored.stdout);
    let never = run(env
        .pwk()
        .args(["lint", "--color", "never", "r.md"])
        .env_remove("NO_COLOR"));
    assert!(!never.stdout.contains('\u{1b}'));
}

#[test]
fn rules_lists_and_explains() {
    let env = TestEnv::new();
    let list = run(env.pwk().arg("rules"));
    assert_eq!(list.code, 0);
    for id in [
        "unknown-key",
        "missing-description",
        "invalid-thinking",
        "duplicate-name",
        "bom",
    ] {
        assert!(
            list.stdout.lines().any(|l| l.starts_with(id)),
            "{id} not listed"
        );
    }
    let doc = json(&run(env.pwk().args(["rules", "--format", "json"])));
    assert_eq!(doc["version"], 1);
    assert!(doc["rules"].as_array().unwrap().len() >= 35);
    let one = run(env.pwk().args(["rules", "name-mismatch"]));
    assert_eq!(one.code, 0);
    env.insta_settings()
        .bind(|| insta::assert_snapshot!(one.stdout));
    let one_json = json(&run(env.pwk().args([
        "rules",
        "unknown-tool",
        "--format",
        "json",
    ])));
    assert_eq!(one_json["id"], "unknown-tool");
    assert_eq!(one_json["version"], 1);
    assert!(one_json["bad"].as_str().unwrap().contains("Glob"));
}

#[test]
fn schema_per_host() {
    let env = TestEnv::new();
    let shipped = std::fs::read_to_string(repo_root().join("schemas/role.schema.json")).unwrap();
    assert_eq!(
        run(env.pwk().args(["schema", "--host", "pwk"])).stdout,
        shipped
    );
    let nico = json(&run(env.pwk().args(["schema", "--host", "nicobailon"])));
    assert_eq!(nico["properties"]["toolBudget"]["type"], "object");
    assert_eq!(nico["properties"]["max_turns"]["x-pwk-ignored"], true);
    assert!(
        nico["properties"]["max_turns"]["description"]
            .as_str()
            .unwrap()
            .starts_with("[ignored by nicobailon")
    );
    let herdr = json(&run(env.pwk().args(["schema", "--host", "herdr"])));
    assert_eq!(herdr["properties"]["tools"]["type"], "string");
    assert_eq!(herdr["properties"]["cli"]["x-pwk-rejected"], true);
    let dirs = herdr["x-pwk-host"]["discovers"].as_array().unwrap();
    assert!(!dirs.iter().any(|d| d == ".agents/agents"), "{dirs:?}");
    assert!(dirs.iter().any(|d| d == ".pi/agents"), "{dirs:?}");
    let tintin = json(&run(env.pwk().args(["schema", "--host", "tintinweb"])));
    assert_eq!(
        tintin["properties"]["prompt_mode"]["enum"],
        serde_json::json!(["append", "replace"])
    );
    assert_eq!(
        tintin["x-pwk-host"]["identity"],
        "`name`, else the file stem"
    );
    assert_eq!(tintin["x-pwk-host"]["version"], "0.25");
    let old = json(&run(env.pwk().args(["schema", "--host", "tintinweb@0.14"])));
    assert_eq!(
        old["x-pwk-host"]["identity"],
        "file stem (`name` is ignored)"
    );
    // 0.14 does not read `color` (0.16 added it): the schema marks what each reads.
    assert!(old["properties"]["color"].is_null());
    assert!(tintin["properties"]["color"].is_object());
}

#[test]
fn pre_commit_hook_definition() {
    let text = std::fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml")).unwrap();
    for needle in [
        "id: pwk-lint",
        "entry: pwk lint",
        "language: rust",
        "pass_filenames: true",
        // `files:`/`exclude:`: surface::pre_commit_hooks_match_every_directory_…
        "\\.pi/agents",
        "\\.claude/agents",
    ] {
        assert!(text.contains(needle), "missing `{needle}`");
    }
}

#[test]
fn docs_document_linting() {
    let page = std::fs::read_to_string(repo_root().join("docs/src/lint.md")).unwrap();
    assert!(page.starts_with("# Linting"));
    assert!(page.contains("yaml-language-server: $schema="));
    let summary = std::fs::read_to_string(repo_root().join("docs/src/SUMMARY.md")).unwrap();
    assert!(summary.contains("(lint.md)"));
}

#[test]
fn a_device_given_as_a_path_is_a_finding() {
    let env = TestEnv::new();
    let out = run_bounded(
        env.pwk().args(["lint", "--format", "json", "/dev/null"]),
        Duration::from_secs(10),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = json(&out);
    assert_eq!(rules_of(&doc), ["not-a-regular-file"]);
    assert!(
        doc["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("character device")
    );
}

/// Property test: arbitrary bytes as a role file never panic the linter, and every
/// reported position lies inside the file.
///
/// Default: 3,000 cases (a few seconds). For a long run:
/// `PWK_FUZZ_SECS=600 cargo test --release --test cli lint::fuzz -- --nocapture`
/// (or `PWK_FUZZ_CASES=N` for a fixed number of cases per round).
mod fuzz {
    use std::time::{Duration, Instant};

    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    use pwk::host::{ALL, HostProfile};
    use pwk::lint::render::{RenderOptions, render};
    use pwk::lint::{FileReport, LintReport, check_doc};
    use pwk::role::RoleDoc;

    /// Pieces of role files, valid and broken, that the generator strings together.
    const FRAGMENTS: &[&str] = &[
        "---\n",
        "---\r\n",
        "---",
        "...\n",
        "--- x\n",
        "... y\n",
        "\u{feff}",
        "\r\n",
        "\n",
        "\t",
        "  ",
        "name: pwk-a\n",
        "name: A B:c\n",
        "name:\n",
        "description: d\n",
        "description: \"\"\n",
        "description: a: b\n",
        "tools: read, grep, find, ls\n",
        "tools: Read, all, *\n",
        "tools:\n  - read\n",
        "\t- grep\n",
        "tools: [read, {a: b}]\n",
        "tols: read\n",
        "allowed_tools: x\n",
        "max_turns: 20\n",
        "max_turns: \"20\"\n",
        "max_turns: -1\n",
        "max_turns: 2.5\n",
        "thinking: low\n",
        "thinking: med\n",
        "model: a b\n",
        "model: haiku\n",
        "spawning: \"true\"\n",
        "spawning: yes\n",
        "skill: x\n",
        "cli: claude\n",
        "cli-model: m\n",
        "disable-model-invocation: true\n",
        "# model: <fast-tier>\n",
        "a: &x [1]\n",
        "b: *x\n",
        "!!str t\n",
        "? [a]\n: b\n",
        "|\n  block\n",
        ">-\n folded\n",
        "'unterminated\n",
        "\"esc \\u00e9 \\\"\n",
        "日本語: 🎉\n",
        "x-owner: me\n",
        "acme.k: v\n",
        "key: {a: [b, c]}\n",
        ": \n",
        "- a\n",
        "just text\n",
        "name: x\nname: y\n",
        "# Body\n",
        "\u{0}",
        "\u{1b}[2J",
        "\u{1b}]0;t\u{7}",
        "\u{7f}",
        "\u{9b}",
        "\u{202e}",
        "\u{2066}",
        "name:\tx\n",
        "k:\t-1\n",
        "\"k\\e[1m\": v\n",
        "\u{2028}",
        "é",
        "\r",
    ];

    fn role_like() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            4 => proptest::sample::select(FRAGMENTS).prop_map(|s| s.as_bytes().to_vec()),
            1 => proptest::collection::vec(any::<u8>(), 0..6),
        ];
        proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    /// Nesting around and past the depth limit: block sequences, flow collections,
    /// indented mappings and mixtures, with a role around them.
    fn nested() -> impl Strategy<Value = Vec<u8>> {
        let opener = proptest::sample::select(&["- ", "[", "{a: ", "? ", "- [", "- k: "][..]);
        (
            proptest::collection::vec(opener, 1..4),
            0usize..200,
            0usize..3,
            role_like(),
        )
            .prop_map(|(openers, depth, style, tail)| {
                let mut yaml = String::from("---\nname: n\ndescription: d\nx:\n  ");
                match style {
                    0 => {
                        for i in 0..depth {
                            yaml.push_str(openers[i % openers.len()]);
                        }
                        yaml.push('x');
                    }
                    1 => {
                        for i in 0..depth.min(150) {
                            yaml.push_str(&format!("\n{}k{i}:", " ".repeat(i + 2)));
                        }
                    }
                    _ => {
                        yaml.push_str(&"[".repeat(depth));
                        yaml.push_str(&"]".repeat(depth / 2));
                    }
                }
                yaml.push_str("\n---\nBody.\n");
                let mut bytes = yaml.into_bytes();
                bytes.extend(tail);
                bytes
            })
    }

    fn any_input() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            3 => role_like(),
            1 => nested(),
            1 => proptest::collection::vec(any::<u8>(), 0..512),
        ]
    }

    /// Every profile of every host, each version included.
    fn profiles() -> Vec<&'static HostProfile> {
        ALL.iter().flat_map(|h| h.profiles()).collect()
    }

    fn check_one(bytes: &[u8], host_index: usize) -> Result<(), TestCaseError> {
        let all = profiles();
        let host = all[host_index % all.len()];
        let doc = RoleDoc::parse("fuzz/role.md", bytes);
        let diags = check_doc(&doc, host);
        let text = &doc.text;
        let lines: Vec<&str> = text.split('\n').collect();
        let within = |line: usize, column: usize| -> bool {
            line >= 1
                && line <= lines.len()
                && column >= 1
                && column <= lines[line - 1].chars().count() + 1
        };
        for d in &diags {
            prop_assert!(
                d.span.start <= d.span.end && d.span.end <= text.len(),
                "{d:?}"
            );
            prop_assert!(
                text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end),
                "{d:?}"
            );
            prop_assert!(
                within(d.start.line, d.start.column),
                "start outside the file: {d:?}"
            );
            prop_assert!(
                within(d.end.line, d.end.column),
                "end outside the file: {d:?}"
            );
            prop_assert!(d.start <= d.end, "{d:?}");
            for r in &d.related {
                prop_assert!(
                    within(r.start.line, r.start.column) && within(r.end.line, r.end.column),
                    "{r:?}"
                );
            }
        }
        // Every renderer copes with whatever was found.
        let report = LintReport {
            files: vec![FileReport {
                path: doc.path.clone(),
                diagnostics: diags,
                text: Some(doc.text.clone()),
                suppressed: Vec::new(),
            }],
            failures: Vec::new(),
            skipped: Vec::new(),
            host: host.label(),
            host_reason: None,
            host_specific: Default::default(),
            decisions: Vec::new(),
        };
        let show = |p: &std::path::Path| p.display().to_string();
        let opts = RenderOptions {
            show_path: &show,
            color: false,
            width: 100,
            summary: true,
        };
        for f in [
            pwk::lint::render::Format::Human,
            pwk::lint::render::Format::Json,
            pwk::lint::render::Format::Sarif,
            pwk::lint::render::Format::Github,
        ] {
            let out = render(f, &report, &opts);
            // Whatever the file holds, no control character (other than line breaks
            // and tabs) and no bidi control reaches the output.
            let raw = out.chars().find(|&c| {
                c != '\n'
                    && c != '\t'
                    && (pwk::text::is_forbidden_control(c) || pwk::text::is_bidi_control(c))
            });
            prop_assert!(raw.is_none(), "{f:?} output holds {raw:?}");
        }
        // Depth is bounded for every consumer of the tree.
        if let Some(Ok(tree)) = &doc.tree {
            fn depth(n: &pwk::role::Node) -> usize {
                match &n.value {
                    pwk::role::Value::Scalar { .. } => 0,
                    pwk::role::Value::Sequence(items) => {
                        1 + items.iter().map(depth).max().unwrap_or(0)
                    }
                    pwk::role::Value::Mapping(m) => {
                        1 + m.iter().map(|(_, v)| depth(v)).max().unwrap_or(0)
                    }
                }
            }
            prop_assert!(depth(tree) <= pwk::role::yaml::MAX_DEPTH, "{}", depth(tree));
        }
        Ok(())
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_positions_stay_inside() {
        let cases: u32 = std::env::var("PWK_FUZZ_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3000);
        let budget = std::env::var("PWK_FUZZ_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_secs);
        let started = Instant::now();
        let mut executed: u64 = 0;
        let mut round: u64 = 0;
        loop {
            let mut runner = TestRunner::new(Config {
                cases: if budget.is_some() {
                    cases.max(2000)
                } else {
                    cases
                },
                failure_persistence: None,
                rng_seed: proptest::test_runner::RngSeed::Fixed(
                    round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5eed,
                ),
                ..Config::default()
            });
            let count = std::sync::atomic::AtomicU64::new(0);
            let result = runner.run(&(any_input(), 0usize..4), |(bytes, host)| {
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                check_one(&bytes, host)
            });
            executed += count.into_inner();
            if let Err(e) = result {
                panic!("after {executed} executions: {e}");
            }
            round += 1;
            match budget {
                Some(b) if started.elapsed() < b => continue,
                _ => break,
            }
        }
        eprintln!(
            "lint fuzz: {executed} executions in {:.1}s ({round} rounds)",
            started.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn absolute_paths_under_the_current_directory_are_shown_relative() {
    let env = TestEnv::new();
    let body = "---\nname: reviewer\ndescription: d\ntools: read\n---\nBody.\n";
    let a = env.write("a/reviewer.md", body);
    let b = env.write("b/reviewer.md", body);
    let doc = json(&run(env
        .pwk()
        .args(["lint", "--format", "json"])
        .arg(&a)
        .arg(&b)));
    let d = &doc["diagnostics"][0];
    assert_eq!(d["path"], "a/reviewer.md");
    assert_eq!(
        d["message"],
        "`name: reviewer` is also declared by `b/reviewer.md`"
    );
}

#[test]
fn a_bare_model_id_is_a_warning_that_names_the_host_behaviour() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntools: read\nmodel: claude-haiku-4-5\n---\nBody.\n",
    );
    let lint = |host: &str| {
        json(&run(env
            .pwk()
            .args(["lint", "--format", "json", "--host", host, "r.md"])))
    };
    let nico = lint("nicobailon");
    let d = &nico["diagnostics"][0];
    assert_eq!(
        (d["rule"].as_str(), d["severity"].as_str()),
        (Some("invalid-model"), Some("warning"))
    );
    // The host is the sentence's subject: "… when it does not resolve,
    // nicobailon@0.76 refuses the role" (issue #32: not "pwk: tintinweb …").
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("when it does not resolve, nicobailon@")
            && message.contains(" refuses the role"),
        "{d}"
    );
    // No provider is guessed for the id (`anthropic/opus` names no model).
    assert_eq!(
        d["help"],
        "write the `provider/id` that `pi --list-models` lists for it (`pwk lint --check-models` checks it)"
    );
    let tintin = lint("tintinweb");
    assert!(
        tintin["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("parent's model")
    );
    let out = run(env.pwk().args(["lint", "r.md"]));
    assert_eq!(out.code, 0, "a warning alone does not fail the run");
    env.write("ok.md", "---\nname: ok\ndescription: d\ntools: read\nmodel: anthropic/claude-haiku-4-5\n---\nBody.\n");
    assert_eq!(
        json(&run(env.pwk().args(["lint", "--format", "json", "ok.md"])))["diagnostics"],
        serde_json::json!([])
    );
}

#[test]
fn deeply_nested_yaml_in_many_files_does_not_overflow_a_worker() {
    let env = TestEnv::new();
    // Block nesting as deep as fits under the 1 MiB cap, in enough files to use threads.
    let nested: String = (0..1000)
        .map(|i| format!("{}k:\n", " ".repeat(i)))
        .collect();
    for j in 0..17 {
        env.write(
            &format!("deep/d{j:02}.md"),
            format!("---\nname: d{j:02}\ndescription: d\ntools: read\n{nested}---\nBody.\n"),
        );
    }
    let flow = format!(
        "---\nname: flow\na: {}{}\n---\nBody.\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    env.write("deep/flow.md", flow);
    let out = run_bounded(
        env.pwk().args(["lint", "--format", "json", "deep"]),
        Duration::from_secs(60),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = json(&out);
    assert_eq!(doc["files"], 18);
    let rules = rules_of(&doc);
    // 1000 block levels and 100,000 flow levels are both past the depth limit.
    assert_eq!(rules, vec!["yaml-too-deep"; 18], "{rules:?}");
}

/// The non-firing fixtures (`fixtures/lint-clean/<rule>.md`, linted with the portable profile): the input closest to
/// what triggers `<rule>` that must not, linted clean, and healthy in list and show.
#[test]
fn each_pass_fixture_lints_clean_and_is_healthy() {
    for entry in std::fs::read_dir(repo_root().join("fixtures/lint-clean")).unwrap() {
        let p = entry.unwrap().path();
        let rule = p.file_stem().unwrap().to_str().unwrap().to_string();
        let env = TestEnv::new();
        env.write(
            &format!(".agents/agents/{rule}.md"),
            std::fs::read(&p).unwrap(),
        );
        let out = run(env
            .pwk()
            .args(["lint", "--format", "json", "--deny-warnings"]));
        assert_eq!(out.code, 0, "{rule}: {}", out.stdout);
        assert_eq!(json(&out)["diagnostics"], serde_json::json!([]), "{rule}");
        let list = run(env.pwk().args(["list", "--format", "json"]));
        assert_eq!(list.code, 0, "{rule}: {}", list.stdout);
        let show = run(env.pwk().args(["show", &rule]));
        assert_eq!(show.code, 0, "{rule}: {}", show.stderr);
    }
}

/// 40,000 nested block sequences (80 KB) overflowed the stack in the YAML loader and
/// aborted lint, list and show (and review, which loads roles the same way).
#[test]
fn nesting_bombs_are_a_finding_not_a_crash() {
    let env = TestEnv::new();
    env.write(
        ".agents/agents/deep.md",
        format!(
            "---\nname: deep\ndescription: d\ntools: read\nx:\n  {}x\n---\nBody.\n",
            "- ".repeat(40_000)
        ),
    );
    env.write(
        ".agents/agents/flow.md",
        format!(
            "---\nname: flow\ndescription: d\ntools: read\nx: {}{}\n---\nBody.\n",
            "[".repeat(200),
            "]".repeat(200)
        ),
    );
    for format in ["human", "json", "sarif", "github"] {
        let out = run_bounded(
            env.pwk().args(["lint", "--format", format]),
            Duration::from_secs(20),
        );
        assert_eq!(out.code, 1, "{format}: {}", out.stderr);
        assert!(
            out.stdout.contains("yaml-too-deep"),
            "{format}: {}",
            out.stdout
        );
    }
    let doc = json(&run(env.pwk().args(["lint", "--format", "json"])));
    assert_eq!(rules_of(&doc), ["yaml-too-deep", "yaml-too-deep"]);
    // `x:` is line 5; the 64th `- ` (depth 65 with the top mapping) at column 3 + 2·63.
    assert_eq!(
        (
            doc["diagnostics"][0]["line"].as_u64(),
            doc["diagnostics"][0]["column"].as_u64()
        ),
        (Some(6), Some(129))
    );
    let list = run_bounded(
        env.pwk().args(["list", "--format", "json"]),
        Duration::from_secs(20),
    );
    assert_eq!(list.code, 1, "{}", list.stderr);
    let rows = json(&list)["roles"].as_array().unwrap().clone();
    for name in ["deep", "flow"] {
        let row = rows.iter().find(|r| r["name"] == name).expect(name);
        assert_eq!(row["broken"], true, "{row}");
        assert!(
            row["error"].as_str().unwrap().contains("yaml-too-deep"),
            "{row}"
        );
    }
    let human = run_bounded(env.pwk().arg("list"), Duration::from_secs(20));
    assert_eq!(human.code, 1, "{}", human.stderr);
    let show = run_bounded(env.pwk().args(["show", "deep"]), Duration::from_secs(20));
    assert_eq!(show.code, 1, "{}", show.stderr);
    assert!(show.stdout.contains("[yaml-too-deep]"), "{}", show.stdout);
}

/// Escape sequences in a key, a value, a file name and the body never reach the
/// terminal (or a CI log) raw, whatever the colour setting and the format.
#[test]
fn escape_sequences_from_files_never_reach_the_terminal() {
    let env = TestEnv::new();
    // A raw ESC in a value, an ESC written as a YAML escape in a key (no raw byte in
    // the file: the message quotes the key), and ESC in the body.
    env.write(
        ".agents/agents/esc.md",
        "---\nname: esc\ndescription: d\u{1b}]0;pwned\u{7}\ntools: read\n---\nBody \u{1b}[2J.\n",
    );
    env.write(
        ".agents/agents/key.md",
        "---\nname: key\ndescription: d\ntools: read\n\"k\\e[31m\\u202e\": v\n---\nBody \u{1b}[2J \u{9b}31m.\n",
    );
    // A file name with ESC, and a newline followed by a workflow command.
    env.write(
        ".agents/agents/x\u{1b}[1m\n::warning file=a.md::pwned.md",
        "---\nname: x\ndescription: d\ntools: read\n---\nBody.\n",
    );
    let no_esc = |what: &str, out: &Output| {
        for (stream, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(!text.contains('\u{1b}'), "{what} {stream}: {text:?}");
            assert!(!text.contains('\u{9b}'), "{what} {stream}: {text:?}");
            assert!(
                !text.lines().any(|l| l.starts_with("::warning file=a.md")),
                "{what} {stream}: the injected workflow command at column 0: {text}"
            );
        }
    };
    for format in ["human", "json", "sarif", "github"] {
        for color in ["never", "always", "auto"] {
            let out = run(env
                .pwk()
                .args(["lint", "--format", format, "--color", color]));
            assert_eq!(out.code, 1, "{format}: {}", out.stderr);
            if color == "always" && format == "human" {
                // Colours are pwk's own; only file text is escaped.
                let stripped = out.stdout.replace("\u{1b}[", "");
                assert!(!stripped.contains('\u{1b}'), "{}", out.stdout);
            } else {
                no_esc(&format!("lint {format} {color}"), &out);
            }
        }
    }
    let human = run(env.pwk().args(["lint", "--color", "never"]));
    assert!(human.stdout.contains("\\u{1b}]0;pwned"), "{}", human.stdout);
    assert!(
        human
            .stdout
            .contains("x\\u{1b}[1m\\n::warning file=a.md::pwned.md"),
        "{}",
        human.stdout
    );
    let github = run(env.pwk().args(["lint", "--format", "github"]));
    assert!(
        github
            .stdout
            .contains("file=.agents/agents/x\\u{1b}[1m\\n%3A%3Awarning file=a.md%3A%3Apwned.md,"),
        "{}",
        github.stdout
    );
    for args in [
        vec!["list", "--color", "never"],
        vec!["list", "--all", "--format", "json"],
        vec!["show", "esc", "--color", "never"],
        vec!["show", "key"],
        vec!["show", "nothing-like-it"],
    ] {
        let out = run(env.pwk().args(&args));
        no_esc(&args.join(" "), &out);
    }
}

/// pi's words (an error at startup, a role's report) printed by `review` are escaped.
#[test]
fn escape_sequences_from_pi_never_reach_the_terminal() {
    let env = TestEnv::new();
    env.write("packet.md", "## Requirement 1\nX\n");
    let fake = env.executable(
        "bin/pi",
        "#!/bin/sh\nprintf 'Error: \\033]0;pwned\\007 \\033[2J broke\\n' >&2\nexit 1\n",
    );
    let out = run(env
        .pwk()
        .args([
            "review",
            "--roles",
            "smell",
            "--packet",
            "packet.md",
            "--color",
            "never",
        ])
        .env("PWK_PI_BIN", &fake));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains("broke"), "{}", out.stdout);
    assert!(
        !out.stdout.contains('\u{1b}') && !out.stderr.contains('\u{1b}'),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    let fake_pi = repo_root().join("tests/cli/support/fake_pi.py");
    let out = run(env
        .pwk()
        .args([
            "review",
            "--roles",
            "smell",
            "--packet",
            "packet.md",
            "--color",
            "never",
        ])
        .env("PWK_PI_BIN", &fake_pi)
        .env("FAKE_PI_MODE", "ok")
        .args(["--transport", "json"])
        .env(
            "FAKE_PI_REPORT",
            "findings \u{1b}[2J\u{1b}]0;pwned\u{7} end",
        ));
    assert!(
        out.stdout
            .contains("findings \\u{1b}[2J\\u{1b}]0;pwned\\u{7} end"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains('\u{1b}') && !out.stderr.contains('\u{1b}'),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
}

/// NUL in frontmatter ended the YAML for pwk's parser: the rest of the keys vanished,
/// lint exited 0 and `show` reported pi's mutating default tools.
#[test]
fn control_characters_and_bidi_overrides_are_findings_and_roles_are_not_healthy() {
    let env = TestEnv::new();
    env.write(
        ".agents/agents/nul.md",
        "---\nname: nul\ndescription: d\n\u{0}tools: read\n---\nBody.\n",
    );
    env.write(
        ".agents/agents/trojan.md",
        "---\nname: trojan\ndescription: read only \u{202e}etirw\ntools: read\n---\nBody.\n",
    );
    let out = run(env.pwk().args(["lint", "--format", "json"]));
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc = json(&out);
    let found: Vec<(String, String, u64, u64)> = findings(&doc)
        .into_iter()
        .map(|f| (f.path, f.rule, f.line, f.column))
        .collect();
    assert_eq!(
        found,
        [
            (
                ".agents/agents/nul.md".into(),
                "control-character".into(),
                4,
                1
            ),
            (
                ".agents/agents/trojan.md".into(),
                "bidi-override".into(),
                3,
                24
            ),
        ]
    );
    let list = json(&run(env.pwk().args(["list", "--format", "json"])));
    for name in ["nul", "trojan"] {
        let row = list["roles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {list}"));
        assert_eq!(row["broken"], true, "{row}");
    }
    for name in ["nul", "trojan"] {
        let show = run(env.pwk().args(["show", name]));
        assert_eq!(show.code, 1, "{name}: {}", show.stdout);
        assert!(
            !show.stdout.contains("bash, edit, write"),
            "{}",
            show.stdout
        );
    }
}

/// An unreadable file exits 2; every document says so and counts it.
#[test]
fn an_unreadable_file_is_counted_in_every_document() {
    let env = TestEnv::new();
    env.write(
        "ok.md",
        "---\nname: ok\ndescription: d\ntools: read\n---\nBody.\n",
    );
    // A regular file whose read fails (EIO), whoever runs the test (root ignores modes).
    let unreadable = "/proc/self/mem";
    let out = run(env
        .pwk()
        .args(["lint", "--format", "json", "ok.md", unreadable]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    let doc = json(&out);
    assert_eq!(rules_of(&doc), ["unreadable-file"]);
    assert_eq!(doc["diagnostics"][0]["path"], unreadable);
    assert_eq!(doc["summary"]["errors"], 1);
    assert_eq!(doc["files"], 2);
    let sarif = json(&run(env
        .pwk()
        .args(["lint", "--format", "sarif", "ok.md", unreadable])));
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "unreadable-file");
    let gh = run(env.pwk().args(["lint", "--format", "github", unreadable]));
    assert_eq!(gh.code, 2);
    assert!(
        gh.stdout.starts_with("::error file=/proc/self/mem,"),
        "{}",
        gh.stdout
    );
    let human = run(env.pwk().args(["lint", unreadable]));
    assert_eq!(human.code, 2);
    // Human output names it once, on stderr (`surface::a_missing_file_is_said_once`).
    assert_eq!(human.stdout, "", "{}", human.stdout);
    assert_eq!(
        human.stderr.matches("cannot read").count(),
        1,
        "{}",
        human.stderr
    );
}

/// n files sharing one name made n² output (8,000 files: 1 GB): each finding names
/// at most three others and counts the rest.
#[test]
fn a_name_shared_by_many_files_names_a_few_and_counts_the_rest() {
    let env = TestEnv::new();
    for i in 0..40 {
        env.write(
            &format!("roles/r{i:02}.md"),
            "---\nname: same\ndescription: d\ntools: read\n---\nBody.\n",
        );
    }
    let doc = json(&run(env.pwk().args(["lint", "--format", "json", "roles"])));
    let d: Vec<&serde_json::Value> = of_rule(&doc, "duplicate-name");
    assert_eq!(d.len(), 40);
    assert_eq!(
        d[0]["message"],
        "`name: same` is also declared by `roles/r01.md`, `roles/r02.md`, `roles/r03.md` and 36 more"
    );
    assert!(d.iter().all(|x| x["message"].as_str().unwrap().len() < 120));
}

/// pi's reader accepts a tab after `key:`; pwk did not. `thinking: max` is a pi 1.6
/// level `delegate` accepted and `lint` refused. A BOM file was healthy in list/show.
#[test]
fn tab_after_colon_thinking_max_and_bom_agree_everywhere() {
    let env = TestEnv::new();
    env.write(
        ".agents/agents/tab.md",
        "---\nname:\ttab\ndescription:\tReviews.\ntools:\tread\nthinking:\tmax\n---\nBody.\n",
    );
    env.write(
        ".agents/agents/bom.md",
        "\u{feff}---\nname: bom\ndescription: d\ntools: read\n---\nBody.\n",
    );
    let doc = json(&run(env.pwk().args(["lint", "--format", "json"])));
    assert_eq!(rules_of(&doc), ["bom"], "{doc}");
    let show = run(env.pwk().args(["show", "tab", "--format", "json"]));
    assert_eq!(show.code, 0, "{}", show.stderr);
    let shown = json(&show);
    assert_eq!(
        shown["runtime"]["tools"]["effective"],
        serde_json::json!(["read"])
    );
    assert_eq!(shown["runtime"]["thinking"]["value"], "max");
    let list = json(&run(env.pwk().args(["list", "--format", "json"])));
    let bom = list["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "bom")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(bom["broken"], true, "{bom}");
    assert!(bom["error"].as_str().unwrap().contains("[bom]"), "{bom}");
    assert_eq!(run(env.pwk().args(["show", "bom"])).code, 1);
}

/// One file named two ways (`a.md` and `./a.md`, or a directory and a file in
/// it) was linted twice and reported as `duplicate-name` against itself
/// (f98aee5); it is one file (device and inode).
#[test]
fn one_file_named_two_ways_is_one_file() {
    let env = TestEnv::new();
    env.write(
        "roles/a.md",
        "---\nname: a\ndescription: d\ntools: read\n---\nBody\n",
    );
    for args in [
        &["roles/a.md", "./roles/a.md"][..],
        &["roles", "roles/a.md"],
        &["roles/a.md", "roles/../roles/a.md"],
    ] {
        let out = run(env
            .pwk()
            .args(["lint", "--host", "pwk", "--format", "json"])
            .args(args));
        let doc = json(&out);
        assert_eq!(doc["files"], 1, "{args:?}: {doc:#}");
        assert!(
            !rules_of(&doc).contains(&"duplicate-name".to_string()),
            "{args:?}: {doc:#}"
        );
    }
}

/// Hard links are two roles to every host (N24: the inode de-dup hid the second
/// name when both were named, as pre-commit names them). Generated: every pair of
/// (entry, spelling) over two hard-linked entries `a.md`, `b.md` and three
/// spellings of each (`roles/x`, `./roles/x`, `roles/../roles/x`), and the
/// directory with each: one entry named twice is one file; two entries are two
/// files and a `duplicate-name`.
#[test]
fn hard_links_are_two_roles_however_they_are_named() {
    let env = TestEnv::new();
    env.write(
        "roles/a.md",
        "---\nname: a\ndescription: d\ntools: read\n---\nBody\n",
    );
    std::fs::hard_link(env.path("roles/a.md"), env.path("roles/b.md")).unwrap();
    let mut named: Vec<(char, String)> = Vec::new();
    for entry in ['a', 'b'] {
        for spelling in ["roles/X.md", "./roles/X.md", "roles/../roles/X.md"] {
            named.push((entry, spelling.replace('X', &entry.to_string())));
        }
    }
    let mut cases: Vec<(Vec<String>, usize)> = Vec::new();
    for (i, (e1, p1)) in named.iter().enumerate() {
        for (e2, p2) in &named[i + 1..] {
            cases.push((vec![p1.clone(), p2.clone()], if e1 == e2 { 1 } else { 2 }));
        }
        cases.push((vec!["roles".into(), p1.clone()], 2));
    }
    cases.push((vec!["roles".into()], 2));
    for (args, files) in cases {
        let out = run(env
            .pwk()
            .args(["lint", "--host", "pwk", "--format", "json"])
            .args(&args));
        let doc = json(&out);
        assert_eq!(doc["files"], files, "{args:?}: {doc:#}");
        assert_eq!(
            rules_of(&doc).contains(&"duplicate-name".to_string()),
            files == 2,
            "{args:?}: {doc:#}"
        );
    }
}

/// nicobailon reads `toolBudget` with `JSON.parse` (pi-subagents@0.67.0
/// src/agents/agents.ts:2096): YAML's `{soft: 20, hard: 30}` is not JSON, the host
/// throws and the agent is not loaded. An error citing that line, under the host and
/// under the portable profile (nicobailon reads `.pi/agents/`); the JSON spelling, and
/// `pwk rules host-ignored-key`'s Good example, pass.
#[test]
fn tool_budget_as_a_yaml_mapping_is_refused_with_the_line_that_parses_it() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    let role = |budget: &str| {
        format!(
            "---\nname: budgeted\ndescription: d\ntools: read\ntoolBudget: {budget}\n---\nRead.\n"
        )
    };
    env.write(".pi/agents/budgeted.md", role("{soft: 20, hard: 30}"));
    for host in ["nicobailon@0.67", "pwk"] {
        let doc = json(&run(env
            .pwk()
            .args(["lint", "--format", "json", "--host", host])));
        let d = first_of_rule(&doc, "invalid-value");
        assert_eq!(d["severity"], "error", "{host}: {doc}");
        let m = d["message"].as_str().unwrap();
        assert!(
            m.contains("JSON.parse") && m.contains("refuses the agent"),
            "{m}"
        );
        if host != "pwk" {
            assert!(m.contains("src/agents/agents.ts:2094-2101"), "{m}");
        }
    }
    for budget in ["{\"soft\": 20, \"hard\": 30}", "'{\"soft\": 20}'"] {
        env.write(".pi/agents/budgeted.md", role(budget));
        let doc = json(&run(env.pwk().args([
            "lint",
            "--format",
            "json",
            "--host",
            "nicobailon@0.67",
        ])));
        assert_eq!(doc["diagnostics"], serde_json::json!([]), "{budget}: {doc}");
    }
    // The rule page's Good example is a role nicobailon loads.
    let rules = json(&run(env.pwk().args(["rules", "--format", "json"])));
    let good = rules["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "host-ignored-key")
        .unwrap()["good"]
        .as_str()
        .unwrap()
        .to_string();
    env.write(".pi/agents/good.md", format!("{good}Body.\n"));
    std::fs::remove_file(env.path(".pi/agents/budgeted.md")).unwrap();
    let doc = json(&run(env.pwk().args([
        "lint",
        "--format",
        "json",
        "--host",
        "nicobailon@0.67",
    ])));
    assert!(of_rule(&doc, "invalid-value").is_empty(), "{good}\n{doc}");
}
