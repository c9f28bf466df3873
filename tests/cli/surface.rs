//! The surface a ruff user expects (issue #32): `--exit-zero`, `--statistics`,
//! `pwk explain`, a page per finding (JSON `url`, SARIF `helpUri`), SARIF that the
//! official schema accepts with fingerprints that survive edits above a finding,
//! `--quiet` that prints nothing on success, 101 for an internal error, `pwk:
//! error:` on usage errors, JSON error documents, one message for one missing
//! file, and the wrong words fixed (each pinned here). Driven through the binary.

use serde_json::Value;

use crate::support::{TestEnv, diagnostics, json, repo_root, run};

/// A role with a safe fix (the quoted number), an error without one (the misspelt
/// key) and a warning (no `tools`).
const BROKEN: &str =
    "---\nname: broken\ndescription: Reviews diffs.\ntols: read\nmax_turns: \"20\"\n---\nBody.\n";
const CLEAN: &str =
    "---\nname: clean\ndescription: Reviews diffs.\ntools: read, grep\n---\nBody.\n";

#[test]
fn exit_zero_reports_the_findings_and_exits_0() {
    let env = TestEnv::new();
    env.write(".agents/agents/broken.md", BROKEN);
    let out = run(env
        .pwk()
        .args(["lint", "--exit-zero", "--format", "concise"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("error[unknown-key]"), "{}", out.stdout);
    // `--diff` would change a file: still 0.
    let out = run(env.pwk().args(["lint", "--exit-zero", "--diff"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("+max_turns: 20"), "{}", out.stdout);
    // pwk's own failure is not a finding: still 2.
    let out = run(env.pwk().args(["lint", "--exit-zero", "nope.md"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    // Contradicts --deny-warnings: a usage error.
    let out = run(env.pwk().args(["lint", "--exit-zero", "--deny-warnings"]));
    assert_eq!(out.code, 2);
    assert!(out.stderr.starts_with("pwk: error:"), "{}", out.stderr);
}

#[test]
fn statistics_count_the_findings_per_rule_in_human_and_json() {
    let env = TestEnv::new();
    env.write(".agents/agents/broken.md", BROKEN);
    env.write(
        ".agents/agents/twice.md",
        "---\nname: twice\ndescription: d\ntols: read\n---\nBody.\n",
    );
    let out = run(env
        .pwk()
        .args(["lint", "--statistics", "--host", "tintinweb"]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    // Most frequent first (then by rule id); `[*]` where `--fix` repairs; no
    // finding's snippet.
    let rows: Vec<&str> = out.stdout.lines().take(3).collect();
    assert!(
        rows[0].starts_with("2  warning  missing-tools")
            && rows[1].starts_with("2  error    unknown-key")
            && rows[2].starts_with("1  error    invalid-type"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("1  error    invalid-type") && l.contains("[*]")),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("╭─["), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("Found 3 errors and 2 warnings in 2 of 2 files"),
        "{}",
        out.stdout
    );

    let out = run(env.pwk().args([
        "lint",
        "--statistics",
        "--host",
        "tintinweb",
        "--format",
        "json",
    ]));
    let doc = json(&out);
    assert_eq!(doc["version"], 1);
    let stats = doc["statistics"].as_array().unwrap();
    let row = |rule: &str| stats.iter().find(|s| s["rule"] == rule).unwrap().clone();
    assert_eq!(row("unknown-key")["count"], 2);
    assert_eq!(row("unknown-key")["severity"], "error");
    assert_eq!(row("invalid-type")["fixable"], 1);
    assert!(
        row("invalid-type")["url"]
            .as_str()
            .unwrap()
            .ends_with("/docs/src/rules/invalid-type.md")
    );
    assert_eq!(doc["summary"]["errors"], 3);
    assert!(doc.get("diagnostics").is_none(), "{doc}");

    let out = run(env
        .pwk()
        .args(["lint", "--statistics", "--format", "sarif"]));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--statistics prints"), "{}", out.stderr);
}

#[test]
fn explain_is_rules_with_a_did_you_mean_at_the_command_line() {
    let env = TestEnv::new();
    let explain = run(env.pwk().args(["explain", "unknown-key"]));
    let rules = run(env.pwk().args(["rules", "unknown-key"]));
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    assert_eq!(explain.stdout, rules.stdout);
    assert!(
        explain
            .stdout
            .contains("Docs: https://github.com/OWNER/pwk/blob/v"),
        "{}",
        explain.stdout
    );
    let doc = json(&run(env.pwk().args([
        "explain",
        "unknown-key",
        "--format",
        "json",
    ])));
    assert_eq!(doc["id"], "unknown-key");
    for cmd in ["explain", "rules"] {
        let out = run(env.pwk().args([cmd, "unknwn-key"]));
        assert_eq!(out.code, 2, "{cmd}");
        assert_eq!(
            out.stderr, "pwk: error: no rule `unknwn-key`; did you mean `unknown-key`?\n",
            "{cmd}"
        );
    }
    let out = run(env.pwk().args(["explain"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
}

/// Every finding links its rule's page, the same page in JSON, SARIF, `pwk rules`
/// and the LSP (`src/lsp/document.rs` tests): the page at this version's tag, which
/// exists in the repository.
#[test]
fn every_finding_links_its_rule_page() {
    let env = TestEnv::new();
    env.write(".agents/agents/broken.md", BROKEN);
    let doc = json(&run(env.pwk().args(["lint", "--format", "json"])));
    let version = env!("CARGO_PKG_VERSION");
    for d in diagnostics(&doc) {
        let rule = d["rule"].as_str().unwrap();
        assert_eq!(
            d["url"],
            format!("https://github.com/OWNER/pwk/blob/v{version}/docs/src/rules/{rule}.md"),
            "{d}"
        );
    }
    let rules = json(&run(env.pwk().args(["rules", "--format", "json"])));
    for r in rules["rules"].as_array().unwrap() {
        let url = r["url"].as_str().unwrap();
        let page = url.split_once(&format!("/blob/v{version}/")).unwrap().1;
        assert!(repo_root().join(page).is_file(), "{url}: no {page}");
    }
}

/// SARIF from real runs (findings with fixes, suppressions, the baseline, a file
/// pwk cannot read, a clean run) is valid against the official SARIF 2.1.0 schema
/// (OASIS errata 01, vendored in `fixtures/sarif/`, never fetched).
#[test]
fn sarif_of_real_runs_is_valid_against_the_official_schema() {
    let text = std::fs::read_to_string(repo_root().join("fixtures/sarif/sarif-schema-2.1.0.json"))
        .unwrap();
    // The published bytes (fixtures/sarif/README.md says where from), not an edit.
    use sha2::Digest;
    let digest: String = sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        digest,
        "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
    );
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    let env = TestEnv::new();
    env.write(".agents/agents/broken.md", BROKEN);
    env.write(".agents/agents/clean.md", CLEAN);
    env.write(
        ".agents/agents/hidden.md",
        "---\nname: hidden\ndescription: d\ntools: read\n# pwk: ignore[unknown-key] kept on purpose\nextra: 1\n---\nBody.\n",
    );
    let sarif = |args: &[&str]| -> (i32, Value) {
        let out = run(env.pwk().args(["lint", "--format", "sarif"]).args(args));
        (out.code, json(&out))
    };
    let check = |doc: &Value, what: &str| {
        let errors: Vec<String> = validator
            .iter_errors(doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{what}: {errors:#?}\n{doc:#}");
    };
    let (code, doc) = sarif(&[]);
    assert_eq!(code, 1);
    check(&doc, "findings");
    let run0 = &doc["runs"][0];
    assert_eq!(run0["invocations"][0]["executionSuccessful"], true);
    assert!(
        run0["tool"]["driver"]["informationUri"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    for rule in run0["tool"]["driver"]["rules"].as_array().unwrap() {
        let id = rule["id"].as_str().unwrap();
        assert!(
            rule["helpUri"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/docs/src/rules/{id}.md")),
            "{rule}"
        );
    }
    let results = run0["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r.get("fixes").is_some()));
    assert!(results.iter().any(|r| r.get("suppressions").is_some()));
    for r in results {
        assert!(r["partialFingerprints"]["pwkFinding/v1"].is_string(), "{r}");
    }
    // With a baseline, and with a file pwk cannot read (exit 2, still a document).
    assert_eq!(run(env.pwk().args(["lint", "--write-baseline"])).code, 0);
    let (code, doc) = sarif(&["--baseline", "pwk-baseline.json"]);
    assert_eq!(code, 0);
    check(&doc, "baseline");
    let (code, doc) = sarif(&[".agents/agents/", "nope.md"]);
    assert_eq!(code, 2);
    check(&doc, "unreadable");
    let inv = &doc["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false, "{inv}");
    assert_eq!(
        inv["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
            ["uri"],
        "nope.md"
    );
    let (code, doc) = sarif(&[".agents/agents/clean.md"]);
    assert_eq!(code, 0);
    check(&doc, "clean");
}

/// Code scanning matches alerts across commits by `partialFingerprints`: a line
/// inserted above a finding (and a finding moved within the file) keeps its
/// fingerprint, and two equal findings in one file keep distinct ones.
#[test]
fn sarif_fingerprints_survive_a_line_inserted_above_a_finding() {
    let env = TestEnv::new();
    let role = "---\nname: r\ndescription: d\ntools: read\ncolour: red\nshade: dark\n---\nBody.\n";
    env.write(".agents/agents/r.md", role);
    let prints = || -> Vec<(String, u64, String)> {
        let doc = json(&run(env.pwk().args([
            "lint",
            "--format",
            "sarif",
            "--host",
            "tintinweb",
        ])));
        let mut v: Vec<(String, u64, String)> = doc["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["ruleId"].as_str().unwrap().to_string(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap(),
                    r["partialFingerprints"]["pwkFinding/v1"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                )
            })
            .collect();
        v.sort_by_key(|(_, line, _)| *line);
        v
    };
    let before = prints();
    assert_eq!(before.len(), 2, "{before:?}");
    assert_ne!(before[0].2, before[1].2, "two findings, two fingerprints");
    // A line inserted above both findings: they move down, their prints stay.
    env.write(
        ".agents/agents/r.md",
        role.replace(
            "tools: read\n",
            "tools: read\nmodel: anthropic/claude-haiku-4-5\n",
        ),
    );
    let after = prints();
    assert_eq!(after.len(), 2, "{after:?}");
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(
            a.1,
            b.1 + 1,
            "the finding moved down a line: {b:?} -> {a:?}"
        );
        assert_eq!(a.2, b.2, "its fingerprint stayed: {b:?} -> {a:?}");
    }
    // Another flagged text is another finding.
    env.write(".agents/agents/r.md", role.replace("colour", "color2"));
    let other = prints();
    assert_ne!(other[0].2, before[0].2);
    assert_eq!(other[1].2, before[1].2);
}

#[test]
fn quiet_prints_nothing_on_success_and_only_the_errors_otherwise() {
    let env = TestEnv::new();
    env.write(".agents/agents/clean.md", CLEAN);
    let out = run(env.pwk().args(["lint", "--quiet"]));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    assert_eq!(out.stderr, "");
    // Only a warning: not shown, not counted, nothing printed.
    env.write(
        ".agents/agents/warned.md",
        "---\nname: warned\ndescription: d\n---\nBody.\n",
    );
    let out = run(env.pwk().args(["lint", "-q", "--format", "concise"]));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
    // Errors: the findings and nothing else (no summary).
    env.write(".agents/agents/broken.md", BROKEN);
    let out = run(env.pwk().args(["lint", "-q", "--format", "concise"]));
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stdout);
    assert!(
        lines.iter().all(|l| l.contains(": error[")),
        "{}",
        out.stdout
    );
}

/// A panic is an internal error: said as pwk says its errors, with what to do,
/// and exit 101 (2 is "pwk could not do its job", a usage error among them).
#[test]
fn an_internal_error_exits_101_and_says_it_is_a_bug() {
    let env = TestEnv::new();
    let out = run(env
        .pwk()
        .env("PWK_DEBUG_PANIC", "1")
        .env("RUST_BACKTRACE", "0")
        .args(["lint", "--allow-empty"]));
    assert_eq!(out.code, 101, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("pwk: internal error: "),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("this is a bug in pwk"),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.stderr.matches("pwk: internal error").count(),
        1,
        "said once: {}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("thread 'main' panicked"),
        "{}",
        out.stderr
    );
}

/// clap's errors carry pwk's prefix, as every other error does, and exit 2.
#[test]
fn usage_errors_say_pwk_error() {
    let env = TestEnv::new();
    for args in [
        &["lint", "--frobnicate"][..],
        &["nosuchcommand"],
        &["lint", "--format", "xml"],
        &["show"],
    ] {
        let out = run(env.pwk().args(args));
        assert_eq!(out.code, 2, "{args:?}");
        assert!(
            out.stderr.starts_with("pwk: error: "),
            "{args:?}: {}",
            out.stderr
        );
        assert_eq!(out.stdout, "", "{args:?}");
    }
    // Help and version are not errors.
    let out = run(env.pwk().args(["--version"]));
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("pwk "), "{}", out.stdout);
}

/// A command asked for JSON answers a fatal error with a JSON document (and the
/// same `pwk: error:` on stderr); one that printed its document first does not
/// print a second.
#[test]
fn a_fatal_error_under_format_json_is_a_json_document() {
    let env = TestEnv::new();
    let out = run(env.pwk().args(["show", "nope", "--format", "json"]));
    assert_eq!(out.code, 2);
    let doc = json(&out);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["error"]["message"], "no role named `nope`");
    assert!(out.stderr.starts_with("pwk: error: no role named `nope`"));
    for args in [
        &["list", "--format", "json", "--dir", "no-such-dir"][..],
        &["config", "--format", "json", "--config", "missing.toml"],
        &["lint", "--format", "json", "--select", "no-such-rule"],
    ] {
        let out = run(env.pwk().args(args));
        assert_eq!(out.code, 2, "{args:?}");
        assert!(json(&out)["error"]["message"].is_string(), "{args:?}");
    }
    // lint printed its report first: one document, no error document after it.
    env.write(".agents/agents/clean.md", CLEAN);
    let out = run(env.pwk().args([
        "lint",
        "--format",
        "json",
        ".agents/agents/clean.md",
        "nope.md",
    ]));
    assert_eq!(out.code, 2);
    let doc = json(&out);
    assert!(doc["diagnostics"].is_array() && doc.get("error").is_none());
}

/// One missing file, one message: the fatal path's (not also a finding and a
/// summary of "1 of 1 file").
#[test]
fn a_missing_file_is_said_once() {
    let env = TestEnv::new();
    let out = run(env.pwk().args(["lint", "nope.md"]));
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "", "{}", out.stdout);
    assert_eq!(
        out.stderr.trim_end(),
        "pwk: error: cannot read `nope.md`: does not exist"
    );
    // With a file that was linted, its summary counts it only.
    env.write("clean.md", CLEAN);
    let out = run(env.pwk().args(["lint", "clean.md", "nope.md"]));
    assert_eq!(out.code, 2);
    assert!(
        out.stdout.starts_with("1 file checked for"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("unreadable-file"), "{}", out.stdout);
    // The documents keep the finding, so their counts include it.
    let doc = json(&run(env
        .pwk()
        .args(["lint", "--format", "json", "nope.md"])));
    assert_eq!(doc["diagnostics"][0]["rule"], "unreadable-file");
}

/// `detected` (lint JSON) and `profile` (list JSON) name the project's paths as
/// every other path is named: relative to the current directory.
#[test]
fn detected_and_profile_name_paths_relative_to_the_current_directory() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    env.write(".agents/agents/clean.md", CLEAN);
    env.write(
        ".pi/settings.json",
        r#"{"packages": ["npm:@tintinweb/pi-subagents@0.18.0"]}"#,
    );
    let root = env.root().display().to_string();
    let doc = json(&run(env.pwk().args(["lint", "--format", "json"])));
    let detected = doc["host"]["detected"].as_str().unwrap();
    assert!(
        detected.contains("per `.pi/settings.json`") && !detected.contains(&root),
        "{detected}"
    );
    let list = json(&run(env.pwk().args(["list", "--format", "json"])));
    let profile = list["profile_choice"].as_str().unwrap();
    assert!(
        profile.contains(".pi/settings.json") && !profile.contains(&root),
        "{profile}"
    );
    // From a subdirectory: as the document names the files it linted (the root's
    // files are not under the current directory, so both are named whole).
    std::fs::create_dir(env.path("sub")).unwrap();
    env.write(".agents/agents/broken.md", BROKEN);
    let doc = json(&run(env
        .pwk()
        .current_dir(env.path("sub"))
        .args(["lint", "--format", "json"])));
    let detected = doc["host"]["detected"].as_str().unwrap();
    let file = doc["diagnostics"][0]["path"].as_str().unwrap();
    let prefix = file.strip_suffix(".agents/agents/broken.md").unwrap();
    assert!(
        detected.contains(&format!("per `{prefix}.pi/settings.json`")),
        "{detected} vs {file}"
    );
}

/// `pwk setup --host herdr` writes where herdr reads (`.pi/agents/`, its only
/// project directory); a host with its own format is refused with what to do.
#[test]
fn setup_installs_where_the_named_host_reads() {
    let env = TestEnv::new();
    let out = run(env.pwk().args(["setup", "--host", "herdr"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(env.path(".pi/agents/pwk-spec-reviewer.md").is_file());
    assert!(!env.path(".agents/agents").exists());
    // What it wrote lints clean for herdr.
    let out = run(env.pwk().args(["lint", "--host", "herdr", ".pi/agents/"]));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let out = run(env.pwk().args(["setup", "--host", "claude-code"]));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("installs the canonical roles for pi hosts")
            && out.stderr.contains("pwk convert"),
        "{}",
        out.stderr
    );
}

/// `smoke` says where a provider run's budget comes from (a copy without
/// `max_turns` runs on the canonical role's), and does not offer `--run` when pi
/// cannot be launched.
#[test]
fn smoke_says_where_the_budget_comes_from_and_offers_run_only_when_it_can() {
    let env = TestEnv::new();
    env.write(
        ".agents/agents/pwk-spec-reviewer.md",
        "---\nname: pwk-spec-reviewer\ndescription: Checks the diff against the spec.\ntools: read, grep\n---\nReview.\n",
    );
    let out = run(env
        .pwk()
        .env("PWK_PI_BIN", env.path("no-such-pi"))
        .args(["smoke", "pwk-spec-reviewer"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.stdout.contains("(from max_turns)"),
        "this definition has no max_turns: {}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("(from the canonical role's max_turns, as this definition sets none)"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("`pwk smoke --run` starts it once"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("`--run` cannot launch it"),
        "{}",
        out.stdout
    );
}

/// `invalid-model` under the portable profile: the hosts' behaviour as a sentence
/// (not "pwk: tintinweb …"), and no guessed `provider/id` in the help.
#[test]
fn invalid_model_says_what_hosts_do_and_guesses_no_id() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntools: read\nmodel: opus\n---\nBody.\n",
    );
    let doc = json(&run(env
        .pwk()
        .args(["lint", "--format", "json", "--host", "pwk", "r.md"])));
    let d = &doc["diagnostics"][0];
    assert_eq!(d["rule"], "invalid-model");
    let message = d["message"].as_str().unwrap();
    assert!(!message.contains("pwk: "), "{message}");
    assert!(
        message.ends_with(
            "when it does not resolve, tintinweb silently runs the child on the parent's model, while nicobailon refuses to launch the role"
        ),
        "{message}"
    );
    let help = d["help"].as_str().unwrap();
    assert!(!help.contains("anthropic/opus"), "{help}");
    assert!(help.contains("pi --list-models"), "{help}");
}

/// Words separated by single spaces (Markdown wraps where `--help` does not).
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a bare `pwk lint` lints is said by `pwk lint --help` from the code (the
/// host registry's project directories), and the README and the book say the
/// same words; the exit codes of `pwk --help` are the rows of their tables.
#[test]
fn the_docs_say_what_the_help_says_about_defaults_and_exit_codes() {
    let env = TestEnv::new();
    let help = run(env.pwk().args(["lint", "--help"])).stdout;
    let start = help.find("With no PATH,").expect("the paragraph");
    let para = words(&help[start..start + help[start..].find("\n\n").unwrap()]);
    // Built from the registry: pi's two directories, then every other host's
    // project directories.
    let mut dirs: Vec<String> = vec![".agents/agents".into(), ".pi/agents".into()];
    for h in pwk::host::ALL.into_iter().filter(|h| !h.is_pi()) {
        for d in h.project_dirs() {
            if !dirs.iter().any(|x| x == d) {
                dirs.push(d.to_string());
            }
        }
    }
    for d in &dirs {
        assert!(para.contains(&format!("`{d}/`")), "{d}: {para}");
    }
    let read = |p: &str| words(&std::fs::read_to_string(repo_root().join(p)).unwrap());
    for doc in ["README.md", "docs/src/lint.md"] {
        assert!(
            read(doc).contains(&para),
            "{doc} does not say what `pwk lint --help` says:\n{para}"
        );
    }
    // Exit codes: each one `pwk --help` names is a row of the tables.
    let top = run(env.pwk().arg("--help")).stdout;
    let from = &top[top.find("Exit codes:").unwrap()..];
    let line = words(&from[..from.find("\n\n").unwrap_or(from.len())]);
    // `Exit codes: 0 success, 1 …, 101 …`: a number after the colon or a comma.
    let tokens: Vec<&str> = line.split(' ').collect();
    let codes: Vec<&str> = tokens
        .windows(2)
        .filter(|w| {
            (w[0].ends_with(':') || w[0].ends_with(',')) && w[1].chars().all(|c| c.is_ascii_digit())
        })
        .map(|w| w[1])
        .collect();
    assert_eq!(codes, ["0", "1", "2", "101"], "{line}");
    for doc in ["README.md", "docs/src/cli.md"] {
        let text = std::fs::read_to_string(repo_root().join(doc)).unwrap();
        for code in &codes {
            assert!(
                text.contains(&format!("\n| {code} | ")),
                "{doc}: exit {code}"
            );
        }
    }
}

/// One place a host reads role files from, below a project: its directory, whether
/// sub-directories are read (and which are not), and the file-name suffix.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ReadPlace {
    dir: String,
    recursive: bool,
    skip: Vec<String>,
    suffix: String,
}

/// Every project directory any profile of any host reads, from the registry.
fn read_places() -> Vec<ReadPlace> {
    let mut out: Vec<ReadPlace> = Vec::new();
    for h in pwk::host::ALL {
        for p in h.profiles() {
            for d in &p.discovery.dirs {
                if d.layer != pwk::host::DirLayer::Project {
                    continue;
                }
                let place = ReadPlace {
                    dir: d.path.trim_end_matches('/').to_string(),
                    recursive: d.recursive,
                    skip: d.skip_dirs.iter().map(|s| s.to_string()).collect(),
                    suffix: p.discovery.suffix.to_string(),
                };
                if !out.contains(&place) {
                    out.push(place);
                }
            }
        }
    }
    out.sort();
    out
}

/// Whether any host reads the file at `path` (relative, `/`-separated), by the
/// registry's facts: under a directory it reads (at any depth of the repository,
/// as pre-commit names files from the repository root), directly or, for a
/// recursive one, below it except the skipped directories, with its suffix.
fn some_host_reads(places: &[ReadPlace], path: &str) -> bool {
    places.iter().any(|p| {
        let found = path
            .match_indices(&format!("{}/", p.dir))
            .map(|(i, _)| i)
            .find(|&i| i == 0 || path.as_bytes()[i - 1] == b'/');
        let Some(i) = found else { return false };
        let rest = &path[i + p.dir.len() + 1..];
        let nested = rest.contains('/');
        rest.ends_with(&p.suffix)
            && rest.len() > p.suffix.len()
            && (!nested
                || (p.recursive && !p.skip.iter().any(|s| rest.starts_with(&format!("{s}/")))))
    })
}

/// The hooks' `files:` and `exclude:` patterns (Python `re.search`, as pre-commit
/// applies them), built from the places.
fn hook_patterns(places: &[ReadPlace]) -> (String, String) {
    let esc = |s: &str| regex::escape(s);
    // A place another one covers (a recursive read of it or of a parent that does
    // not skip it, with the same suffix) adds nothing.
    let covered = |p: &ReadPlace| {
        places.iter().any(|q| {
            q != p
                && q.recursive
                && q.suffix == p.suffix
                && (q.dir == p.dir
                    || p.dir
                        .strip_prefix(&format!("{}/", q.dir))
                        .is_some_and(|rest| {
                            !q.skip
                                .iter()
                                .any(|s| rest == s || rest.starts_with(&format!("{s}/")))
                        }))
        })
    };
    let mut alts: Vec<String> = places
        .iter()
        .filter(|p| !covered(p))
        .map(|p| {
            let depth = if p.recursive { ".+" } else { "[^/]+" };
            format!("{}/{depth}{}", esc(&p.dir), esc(&p.suffix))
        })
        .collect();
    alts.dedup();
    let files = format!("(^|/)({})$", alts.join("|"));
    let mut skips: Vec<String> = places
        .iter()
        .flat_map(|p| p.skip.iter().map(move |s| format!("{}/{s}", esc(&p.dir))))
        .collect();
    skips.sort();
    skips.dedup();
    let exclude = format!("(^|/)({})/", skips.join("|"));
    (files, exclude)
}

/// The pre-commit hooks hand pwk every file any profiled host reads, and nothing
/// else: their `files:`/`exclude:` are the patterns the registry gives
/// (`PWK_WRITE_DOCS=1` rewrites them), and those patterns agree with the
/// registry's facts on generated paths (each place, nested, at a depth the host
/// does not read, a skipped directory, another suffix, look-alike directories).
#[test]
fn pre_commit_hooks_match_every_directory_a_host_reads_and_nothing_else() {
    let places = read_places();
    assert!(
        places.iter().any(|p| p.dir == ".claude/agents"),
        "{places:?}"
    );
    let (files, exclude) = hook_patterns(&places);
    let path = repo_root().join(".pre-commit-hooks.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let want_files = format!("  files: {files}");
    let want_exclude = format!("  exclude: {exclude}");
    let rewritten: String = text
        .lines()
        .map(|l| {
            if l.starts_with("  files: ") {
                want_files.as_str()
            } else if l.starts_with("  exclude: ") {
                want_exclude.as_str()
            } else {
                l
            }
        })
        .map(|l| format!("{l}\n"))
        .collect();
    if rewritten != text && std::env::var_os("PWK_WRITE_DOCS").is_some() {
        std::fs::write(&path, &rewritten).unwrap();
    } else {
        assert_eq!(
            text, rewritten,
            "the hooks' patterns are not the registry's: run `PWK_WRITE_DOCS=1 cargo test --test cli surface::pre_commit`"
        );
    }
    let hooks = rewritten.matches("\n- id: ").count();
    assert_eq!(
        rewritten.matches(&want_files).count(),
        hooks,
        "every hook has files:"
    );
    assert_eq!(
        rewritten.matches(&want_exclude).count(),
        hooks,
        "every hook has exclude:"
    );

    // The patterns mean what the registry says, on generated paths.
    let files_re = regex::Regex::new(&files).unwrap();
    let exclude_re = regex::Regex::new(&exclude).unwrap();
    let hooked = |p: &str| files_re.is_match(p) && !exclude_re.is_match(p);
    let mut cases: Vec<String> = Vec::new();
    for p in &places {
        for base in ["", "sub/project/"] {
            let d = format!("{base}{}", p.dir);
            cases.push(format!("{d}/role{}", p.suffix));
            cases.push(format!("{d}/deeper/role{}", p.suffix));
            cases.push(format!("{d}/role.txt"));
            cases.push(format!("{d}x/role{}", p.suffix));
            cases.push(format!("x{d}/role{}", p.suffix));
            cases.push(format!("{d}/role{}.bak", p.suffix));
            for s in &p.skip {
                cases.push(format!("{d}/{s}/x/SKILL{}", p.suffix));
            }
        }
    }
    cases.extend(["README.md", "docs/agents/x.md", "agents/x.md", ".md"].map(String::from));
    let mut read = 0;
    for case in &cases {
        let want = some_host_reads(&places, case);
        read += usize::from(want);
        assert_eq!(hooked(case), want, "{case}");
    }
    assert!(
        read > places.len() && read < cases.len(),
        "{read} of {}",
        cases.len()
    );
}

/// `tools/list` of the real server: every tool says what it does to the world
/// (a host runs a read-only lint without asking), and the `host` argument's
/// choices are the registry's hosts, each usable (a lint with it succeeds).
#[test]
fn mcp_tools_carry_annotations_and_the_registrys_hosts() {
    let env = TestEnv::new();
    env.write(".agents/agents/clean.md", CLEAN);
    let mut m = crate::mcp::RawMcp::start_cmd(env.pwk());
    m.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let list = m.answer(&serde_json::json!(1));
    let tools = list["result"]["tools"].as_array().unwrap().clone();
    let hint = |name: &str, key: &str| -> bool {
        let t = tools.iter().find(|t| t["name"] == name).unwrap();
        t["annotations"][key]
            .as_bool()
            .unwrap_or_else(|| panic!("{name} has no {key}: {t}"))
    };
    for t in &tools {
        let name = t["name"].as_str().unwrap();
        for key in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            hint(name, key);
        }
        // A read-only tool is never destructive.
        assert!(
            !(hint(name, "readOnlyHint") && hint(name, "destructiveHint")),
            "{name}"
        );
    }
    for name in [
        "lint",
        "rules",
        "explain_rule",
        "list_roles",
        "show_role",
        "task_status",
    ] {
        assert!(
            hint(name, "readOnlyHint") && !hint(name, "openWorldHint"),
            "{name}"
        );
    }
    for name in ["delegate_start", "task_continue"] {
        assert!(
            !hint(name, "readOnlyHint") && hint(name, "openWorldHint"),
            "{name}"
        );
    }
    assert!(hint("review", "readOnlyHint") && hint("review", "openWorldHint"));
    assert!(hint("task_abort", "destructiveHint") && hint("task_abort", "idempotentHint"));

    // `host`: every choice is a registry host (or auto), every host a choice.
    let mut registry: Vec<String> = pwk::host::ALL.iter().map(|h| h.to_string()).collect();
    registry.sort();
    let mut seen = 0;
    for t in &tools {
        let Some(host) = t["inputSchema"]["properties"].get("host") else {
            continue;
        };
        seen += 1;
        let mut choices: Vec<String> = host["anyOf"][0]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .filter(|v| v != "auto")
            .collect();
        choices.sort();
        assert_eq!(choices, registry, "{}", t["name"]);
        let pattern = regex::Regex::new(host["anyOf"][1]["pattern"].as_str().unwrap()).unwrap();
        assert!(pattern.is_match("nicobailon@0.67") && !pattern.is_match("nobody@1"));
    }
    assert!(seen >= 3, "{seen} tools take `host`");
    // The lint document is snake_case, also for files pwk could not read
    // (`readFailures` stays one release, the same list).
    m.send(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lint","arguments":{"paths":["nope.md"]}}}"#);
    let r = m.answer(&serde_json::json!(2));
    let doc = &r["result"]["structuredContent"];
    assert_eq!(doc["read_failures"][0]["path"], "nope.md", "{r}");
    assert_eq!(doc["read_failures"], doc["readFailures"], "{r}");
    let mut id = 10;
    for h in &registry {
        id += 1;
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"lint","arguments":{{"host":"{h}","paths":[".agents/agents"]}}}}}}"#
        );
        m.send(call.as_bytes());
        let r = m.answer(&serde_json::json!(id));
        assert!(
            r["result"]["isError"] != true
                && r["result"]["structuredContent"]["summary"].is_object(),
            "{h}: {r}"
        );
    }
}
