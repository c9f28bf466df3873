//! One document convention: every JSON document pwk defines has a `version` and
//! snake_case keys, all the way down; the protocol documents the seeds define
//! (delegate, run-request, review, recon, capabilities) keep the seeds' spelling.
//! Human output names an error by the same code as JSON.

use serde_json::Value;

use crate::support::{TestEnv, of_rule, run, run_with_stdin};

const ROLE: &str = "---\nname: probe-role\ndescription: Answers smoke tests for pwk's own tests.\ntools: read, grep\nmax_turns: 3\n---\nYou are the probe role.\n";

/// Every key of `v` that is not snake_case (lowercase letters, digits, `_`), with
/// its path.
fn non_snake_keys(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                // A role's own frontmatter is the user's data, not pwk's keys.
                if k == "frontmatter" {
                    continue;
                }
                let snake = !k.is_empty()
                    && k.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
                if !snake {
                    out.push(format!("{path}.{k}"));
                }
                non_snake_keys(x, &format!("{path}.{k}"), out);
            }
        }
        Value::Array(items) => {
            for x in items {
                non_snake_keys(x, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

/// A stand-in pi that prints a minimal successful event stream.
fn stub_pi(env: &TestEnv) -> std::path::PathBuf {
    let script = r#"#!/bin/sh
cat > /dev/null
printf '%s\n' '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}'
printf '%s\n' '{"type":"agent_start"}'
printf '%s\n' '{"type":"turn_start"}'
printf '%s\n' '{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"probe-role: read, grep"}],"provider":"mock","model":"mock-model","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":0}}'
printf '%s\n' '{"type":"agent_end","messages":[]}'
"#;
    env.executable("bin/stub-pi", script)
}

/// A command whose stdout is one document: what, its arguments, `PWK_PI_BIN`, stdin.
type Case<'a> = (&'a str, &'a [&'a str], Option<&'a str>, Option<&'a str>);

#[test]
fn every_pwk_document_has_a_version_and_snake_case_keys() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(".agents/agents/probe-role.md", ROLE);
    env.write(
        ".claude/agents/helper.md",
        "---\nname: helper\ndescription: Helps.\ntools: Read, Grep\n---\nHelp.\n",
    );
    env.write(
        ".agents/agents/broken.md",
        "---\nname: broken\ndescription: [unclosed\n---\nBody.\n",
    );
    let pi = stub_pi(&env);
    let pi = pi.to_str().unwrap();

    let cases: &[Case<'_>] = &[
        ("lint", &["lint", "--format", "json"], None, None),
        ("list", &["list", "--all", "--format", "json"], None, None),
        (
            "show",
            &["show", "probe-role", "--format", "json"],
            None,
            None,
        ),
        // A contract role: its `provider_run` too.
        (
            "show (contract role)",
            &["show", "pwk-recon-scout", "--format", "json"],
            None,
            None,
        ),
        (
            "show (unavailable)",
            &["show", "broken", "--format", "json"],
            None,
            None,
        ),
        (
            "smoke (no pi)",
            &["smoke", "probe-role", "--format", "json"],
            None,
            None,
        ),
        (
            "smoke (planned)",
            &["smoke", "pwk-recon-scout", "--format", "json"],
            Some(pi),
            None,
        ),
        (
            "smoke --run",
            &["smoke", "probe-role", "--run", "--format", "json"],
            Some(pi),
            None,
        ),
        ("config", &["config", "--format", "json"], None, None),
        ("rules", &["rules", "--format", "json"], None, None),
        (
            "rules ID",
            &["rules", "unknown-tool", "--format", "json"],
            None,
            None,
        ),
        (
            "setup --dry-run",
            &["setup", "--dry-run", "--format", "json"],
            None,
            None,
        ),
        (
            "new",
            &["new", "fresh-role", "--format", "json"],
            None,
            None,
        ),
        (
            "convert",
            &[
                "convert",
                ".claude/agents/helper.md",
                "--to",
                "tintinweb",
                "--dry-run",
                "--format",
                "json",
            ],
            None,
            None,
        ),
        (
            "coverage",
            &["coverage", "--format", "json"],
            None,
            Some("{}"),
        ),
    ];
    let mut failures = Vec::new();
    for (what, args, pi_bin, stdin) in cases {
        let mut cmd = env.pwk();
        cmd.args(*args);
        if let Some(bin) = pi_bin {
            cmd.env("PWK_PI_BIN", bin);
        }
        let out = match stdin {
            Some(s) => run_with_stdin(&mut cmd, s.as_bytes()),
            None => run(&mut cmd),
        };
        let doc: Value = match serde_json::from_str(&out.stdout) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!(
                    "{what}: not one JSON document ({e}):\n{}\n{}",
                    out.stdout, out.stderr
                ));
                continue;
            }
        };
        if doc["version"] != 1 {
            failures.push(format!("{what}: `version` is {}, not 1", doc["version"]));
        }
        let mut bad = Vec::new();
        non_snake_keys(&doc, "", &mut bad);
        if !bad.is_empty() {
            failures.push(format!(
                "{what}: keys not in snake_case: {}",
                bad.join(", ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_seed_protocol_documents_keep_the_seeds_spelling() {
    let env = TestEnv::new();
    // pwk delegate's result is the worker contract's (camelCase, as the seed writes it).
    let out = run_with_stdin(env.pwk().args(["delegate", "--format", "json"]), b"{}");
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    for key in ["taskId", "decisionNeeded", "changedFiles"] {
        assert!(doc.get(key).is_some(), "delegate lost `{key}`: {doc:#}");
    }
    // capabilities: the capability names the seed lists are the notes' keys.
    let out = run(env.pwk().args(["capabilities", "--format", "json"]));
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["version"], 1);
    assert!(doc["notes"].get("codebase-recon").is_some(), "{doc:#}");
}

#[test]
fn human_output_names_an_error_by_its_json_code() {
    let env = TestEnv::new();
    env.write(".agents/agents/probe-role.md", ROLE);
    // No pi on PATH, none named: the launch cannot be planned.
    let json = run(env.pwk().env("PATH", "/nonexistent").args([
        "smoke",
        "probe-role",
        "--format",
        "json",
    ]));
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["launch_error"]["code"], "PI_NOT_FOUND", "{doc:#}");
    let human = run(env
        .pwk()
        .env("PATH", "/nonexistent")
        .args(["smoke", "probe-role"]));
    assert!(human.stdout.contains("PI_NOT_FOUND"), "{}", human.stdout);
    assert!(!human.stdout.contains("PiNotFound"), "{}", human.stdout);
}

#[test]
fn a_rule_raising_two_severities_says_so_everywhere() {
    let env = TestEnv::new();
    // unknown-tool: a warning for a name that may be an extension's tool, an error
    // for a misspelt built-in.
    env.write(
        ".agents/agents/r.md",
        "---\nname: r\ndescription: d\ntools: read, grpe, deploy-tool\n---\nBody.\n",
    );
    let out = run(env
        .pwk()
        .args(["lint", "--host", "tintinweb", "--format", "json"]));
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let severities: Vec<&str> = of_rule(&doc, "unknown-tool")
        .into_iter()
        .map(|d| d["severity"].as_str().unwrap())
        .collect();
    assert!(
        severities.contains(&"error") && severities.contains(&"warning"),
        "{doc:#}"
    );

    let rule: Value = serde_json::from_str(
        &run(env
            .pwk()
            .args(["rules", "unknown-tool", "--format", "json"]))
        .stdout,
    )
    .unwrap();
    assert_eq!(rule["severity"], "warning");
    assert_eq!(rule["also"]["severity"], "error", "{rule:#}");
    assert!(
        rule["also"]["when"].as_str().unwrap().contains("misspelt"),
        "{rule:#}"
    );
    let list = run(env.pwk().args(["rules"])).stdout;
    let line = list
        .lines()
        .find(|l| l.starts_with("unknown-tool "))
        .unwrap();
    assert!(line.contains("warning/error"), "{line}");
    let explain = run(env.pwk().args(["rules", "unknown-tool"])).stdout;
    assert!(
        explain.starts_with("unknown-tool [warning/error]"),
        "{explain}"
    );
    assert!(
        explain.contains("Severity: warning by default; error for a misspelt"),
        "{explain}"
    );
    // A rule with one severity says one.
    let rule: Value =
        serde_json::from_str(&run(env.pwk().args(["rules", "crlf", "--format", "json"])).stdout)
            .unwrap();
    assert_eq!(rule["also"], Value::Null);
}
