//! One command layer: every command finds the project the same way, `--dir` means
//! the project root everywhere, every result-printing command takes `--format
//! human|json`, and fatal errors take one path.

use crate::support::{TestEnv, diagnostics, json, run, run_with_stdin};

const ROLE: &str = "---\nname: reviewer\ndescription: Reviews a diff against its acceptance criteria and returns findings.\ntools: read, grep, find, ls\n---\n\nYou review the diff you are given.\n";

/// A project with a role, and a subdirectory to run commands from.
fn project() -> TestEnv {
    let env = TestEnv::new();
    env.write(".git/HEAD", "ref: refs/heads/main\n");
    env.write(".agents/agents/reviewer.md", ROLE);
    std::fs::create_dir_all(env.path("src/deep")).unwrap();
    env
}

#[test]
fn lint_in_a_subdirectory_lints_the_project_roles() {
    let env = project();
    let out = run(env
        .pwk()
        .current_dir(env.path("src/deep"))
        .args(["lint", "--format", "json"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let doc = json(&out);
    assert_eq!(doc["files"], 1, "{}", out.stdout);
}

#[test]
fn setup_in_a_subdirectory_installs_at_the_project_root() {
    let env = project();
    let out = run(env.pwk().current_dir(env.path("src")).args(["setup"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(env.path(".agents/agents/pwk-spec-reviewer.md").is_file());
    assert!(
        !env.path("src/.agents").exists(),
        "a nested project was created"
    );
}

#[test]
fn new_in_a_subdirectory_writes_into_the_project_and_agents_dir_overrides() {
    let env = project();
    let out = run(env
        .pwk()
        .current_dir(env.path("src"))
        .args(["new", "scout", "--format", "json"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(env.path(".agents/agents/scout.md").is_file());
    assert!(!env.path("src/.agents").exists());
    let doc = json(&out);
    assert_eq!(doc["name"], "scout");
    assert_eq!(doc["kind"], "leaf");

    let out = run(env
        .pwk()
        .args(["new", "local", "--agents-dir", ".pi/agents"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(env.path(".pi/agents/local.md").is_file());
    assert!(
        out.stdout.starts_with("Created .pi/agents/local.md"),
        "{}",
        out.stdout
    );
}

#[test]
fn dir_names_the_project_root_in_every_command() {
    let env = project();
    let outside = TestEnv::new();
    let dir = env.root().to_str().unwrap();
    let lint = run(outside
        .pwk()
        .args(["lint", "--dir", dir, "--format", "json"]));
    assert_eq!(lint.code, 0, "{}{}", lint.stdout, lint.stderr);
    assert_eq!(json(&lint)["files"], 1);
    let list = run(outside
        .pwk()
        .args(["list", "--dir", dir, "--format", "json"]));
    assert_eq!(list.code, 0, "{}", list.stderr);
    let doc = json(&list);
    let names: Vec<&str> = doc["roles"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(names.contains(&"reviewer"), "{names:?}");
    let show = run(outside
        .pwk()
        .args(["show", "reviewer", "--dir", dir, "--format", "json"]));
    assert_eq!(show.code, 0, "{}", show.stderr);
    let smoke = run(outside
        .pwk()
        .args(["smoke", "reviewer", "--dir", dir, "--format", "json"]));
    assert_eq!(smoke.code, 0, "{}{}", smoke.stdout, smoke.stderr);
    let schema = run(outside.pwk().args(["schema", "--dir", dir]));
    assert_eq!(schema.code, 0, "{}", schema.stderr);

    // A --dir that is not a directory: one located error, exit 2.
    let bad = run(outside.pwk().args(["list", "--dir", "nope"]));
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .starts_with("pwk: error: --dir `nope` does not exist"),
        "{}",
        bad.stderr
    );
    // review's --cwd is an alias of --dir.
    let review = run(outside
        .pwk()
        .args(["review", "--cwd", dir, "--packet", "missing.md"]));
    assert_eq!(review.code, 2);
    assert!(review.stderr.contains("review packet"), "{}", review.stderr);
}

#[test]
fn every_result_printing_command_takes_format() {
    let env = project();
    let caps = run(env.pwk().args(["capabilities", "--format", "human"]));
    assert_eq!(caps.code, 0);
    assert!(serde_json::from_str::<serde_json::Value>(&caps.stdout).is_err());
    let caps = run(env.pwk().args(["capabilities"]));
    assert_eq!(json(&caps)["version"], 1);

    let input = br#"{"required":["pwk-spec-reviewer"],"outcomes":[]}"#;
    let cov = run_with_stdin(env.pwk().args(["coverage", "--format", "human"]), input);
    assert_eq!(cov.code, 1);
    assert!(
        cov.stdout
            .starts_with("Coverage incomplete: missing `pwk-spec-reviewer`"),
        "{}",
        cov.stdout
    );
    let cov = run_with_stdin(env.pwk().args(["coverage", "--format", "json"]), input);
    assert_eq!(json(&cov)["complete"], false);

    let schema = run(env.pwk().args(["schema", "--format", "human"]));
    assert_eq!(schema.code, 0);
    assert!(
        schema.stdout.contains("name (required)"),
        "{}",
        schema.stdout
    );

    let req = br#"{"action":"delegate","taskId":"t1","cwd":"/nonexistent-pwk","prompt":"do it"}"#;
    for format in ["json", "human"] {
        let out = run_with_stdin(
            env.pwk()
                .args(["delegate", "--dry-run", "--format", format]),
            req,
        );
        assert_eq!(out.code, 1, "{format}: {}{}", out.stdout, out.stderr);
        if format == "json" {
            assert_eq!(json(&out)["status"], "blocked");
        } else {
            assert!(
                out.stdout.starts_with("Task `t1`: blocked"),
                "{}",
                out.stdout
            );
        }
    }
}

#[test]
fn malformed_json_input_gives_one_document_and_one_message() {
    let env = TestEnv::new();
    for cmd in [&["delegate"][..], &["run-request"], &["coverage"]] {
        let out = run_with_stdin(env.pwk().args(cmd), b"{\"a\": ");
        assert_eq!(out.code, 2, "{cmd:?}");
        let doc = json(&out);
        assert_eq!(
            doc["error"]["code"], "INVALID_REQUEST",
            "{cmd:?}: {}",
            out.stdout
        );
        assert_eq!(
            out.stderr.matches("pwk: error:").count(),
            1,
            "{cmd:?}: {}",
            out.stderr
        );
        assert!(
            out.stderr.starts_with("pwk: error: stdin:"),
            "{cmd:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_missing_path_is_counted_in_the_lint_document() {
    let env = project();
    let out = run(env
        .pwk()
        .args(["lint", "--format", "json", "missing.md", ".agents/agents"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    let doc = json(&out);
    let rules: Vec<&str> = diagnostics(&doc)
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["unreadable-file"], "{}", out.stdout);
    assert_eq!(doc["diagnostics"][0]["path"], "missing.md");
    assert_eq!(doc["summary"]["errors"], 1);
    assert_eq!(
        out.stderr.matches("pwk: error:").count(),
        1,
        "{}",
        out.stderr
    );
    let sarif = run(env.pwk().args(["lint", "--format", "sarif", "missing.md"]));
    assert_eq!(sarif.code, 2);
    assert!(sarif.stdout.contains("unreadable-file"), "{}", sarif.stdout);
}

#[test]
fn shadowing_between_agent_dirs_is_a_warning_that_names_the_winner() {
    let env = project();
    env.write(".pi/agents/reviewer.md", ROLE);
    let out = run(env
        .pwk()
        .args(["lint", "--host", "pwk", "--format", "json"]));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc = json(&out);
    let d = &diagnostics(&doc);
    assert_eq!(d.len(), 1, "{}", out.stdout);
    assert_eq!(d[0]["rule"], "shadowed-role");
    assert_eq!(d[0]["severity"], "warning");
    assert_eq!(d[0]["path"], ".agents/agents/reviewer.md");
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .contains("`.pi/agents/reviewer.md`")
    );

    // Two files of one directory declaring one name stay a clash.
    env.write(".pi/agents/other.md", ROLE);
    let out = run(env
        .pwk()
        .args(["lint", "--host", "pwk", "--format", "json"]));
    assert_eq!(out.code, 1);
    let doc = json(&out);
    let rules: Vec<&str> = diagnostics(&doc)
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"duplicate-name"), "{rules:?}");
    assert!(!rules.contains(&"shadowed-role"), "{rules:?}");
}

#[test]
fn fatal_errors_are_printed_once() {
    let env = TestEnv::new();
    let out = run(env.pwk().args(["rules", "unknwn-key"]));
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "pwk: error: no rule `unknwn-key`; did you mean `unknown-key`?\n"
    );
    let out = run(env
        .pwk()
        .args(["review", "--roles", "spec,spec", "--packet", "p.md"]));
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, "pwk: error: --roles lists spec twice\n");
}

#[test]
fn completions_offer_the_project_role_names_and_rule_ids() {
    let env = project();
    let script = run(env.pwk().args(["completions", "bash"]));
    assert_eq!(script.code, 0);
    assert!(
        script.stdout.contains("COMPLETE=\"bash\""),
        "{}",
        script.stdout
    );
    let ask = |words: &[&str]| {
        let out = run(env
            .pwk()
            .env("COMPLETE", "fish")
            .current_dir(env.path("src"))
            .arg("--")
            .args(words));
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let roles = ask(&["pwk", "show", "rev"]);
    assert!(
        roles.lines().any(|l| l.starts_with("reviewer\t")),
        "{roles}"
    );
    let rules = ask(&["pwk", "rules", "unknown-k"]);
    assert!(
        rules.lines().any(|l| l.starts_with("unknown-key\t")),
        "{rules}"
    );
}
