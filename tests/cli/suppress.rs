//! Inline suppressions: `# pwk: ignore[…] reason`, `# pwk: ignore-file[…] reason`.

use crate::support::{Output, TestEnv, diagnostics, findings, json, lint_json, run};

/// (rule, line) of the reported findings, and of the suppressed ones with their
/// kind and reason.
/// (rule, line, kind, reason) of a suppressed finding.
type Hidden = (String, u64, String, String);

fn outcome(out: &Output) -> (Vec<(String, u64)>, Vec<Hidden>) {
    let doc = json(out);
    let shown = findings(&doc)
        .into_iter()
        .map(|f| (f.rule, f.line))
        .collect();
    let hidden = doc
        .get("suppressed")
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .map(|d| {
                    (
                        d["rule"].as_str().unwrap().into(),
                        d["line"].as_u64().unwrap(),
                        d["suppression"]["kind"].as_str().unwrap().into(),
                        d["suppression"]["reason"].as_str().unwrap().into(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (shown, hidden)
}

fn lint(env: &TestEnv, extra: &[&str]) -> Output {
    lint_json(env, &[&["--host", "pwk", "r.md"], extra].concat())
}

fn s(v: &[(&str, u64)]) -> Vec<(String, u64)> {
    v.iter().map(|(r, l)| (r.to_string(), *l)).collect()
}

#[test]
fn a_suppression_on_the_line_before_or_at_the_end_of_the_key() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\n# pwk: ignore[unknown-key] our CI routes reviews by owner\nowner: me\ntools: read, deploy  # pwk: ignore[unknown-tool] deploy is our extension's tool\nteam: x\n---\nBody\n",
    );
    let out = lint(&env, &[]);
    let (shown, hidden) = outcome(&out);
    // `team` (line 7) is not covered by either comment.
    assert_eq!(shown, s(&[("unknown-key", 7)]));
    assert_eq!(
        hidden,
        [
            (
                "unknown-key".into(),
                5,
                "inline".into(),
                "our CI routes reviews by owner".into()
            ),
            (
                "unknown-tool".into(),
                6,
                "inline".into(),
                "deploy is our extension's tool".into()
            ),
        ]
    );
    assert_eq!(json(&out)["summary"]["suppressed"], 2);
    // Human output counts them.
    let human = run(env.pwk().args(["lint", "--host", "pwk", "r.md"]));
    assert!(
        human
            .stdout
            .ends_with("Suppressed: 2 findings by `# pwk: ignore` comments.\n"),
        "{}",
        human.stdout
    );
    // SARIF keeps them as results with `suppressions`.
    let sarif = json(&run(env
        .pwk()
        .args(["lint", "--host", "pwk", "--format", "sarif", "r.md"])));
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let hidden: Vec<_> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(hidden.len(), 2);
    assert_eq!(
        hidden[0]["suppressions"],
        serde_json::json!([{"kind": "inSource", "justification": "our CI routes reviews by owner"}])
    );
}

#[test]
fn a_suppression_covers_the_whole_entry_of_its_key() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\n# pwk: ignore[unknown-tool] both are ours\ntools:\n  - read\n  - deploy\n  - ship\n---\nBody\n",
    );
    let (shown, hidden) = outcome(&lint(&env, &[]));
    assert_eq!(shown, s(&[]));
    assert_eq!(hidden.len(), 2);
}

#[test]
fn ignore_file_covers_every_finding_of_its_rules() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntools: read\nowner: me\nteam: x\n# pwk: ignore-file[unknown-key] our CI reads these keys\n---\nBody\n",
    );
    let (shown, hidden) = outcome(&lint(&env, &[]));
    assert_eq!(shown, s(&[]));
    assert_eq!(
        hidden
            .iter()
            .map(|h| (h.1, h.2.as_str()))
            .collect::<Vec<_>>(),
        [(5, "file"), (6, "file")]
    );
}

#[test]
fn an_unused_suppression_is_a_warning() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntools: read  # pwk: ignore[unknown-tool, crlf] our tools\n# pwk: ignore-file[bom] old editor\n---\nBody\n",
    );
    let out = lint(&env, &["--deny-warnings"]);
    let doc = json(&out);
    let found: Vec<_> = diagnostics(&doc)
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "unused-suppression",
                4,
                28,
                "`unknown-tool` is suppressed here but has no finding on the key it covers"
            ),
            (
                "unused-suppression",
                4,
                42,
                "`crlf` is suppressed here but has no finding on the key it covers"
            ),
            (
                "unused-suppression",
                5,
                20,
                "`bom` is suppressed here but has no finding in this file"
            ),
        ]
    );
    assert_eq!(out.code, 1);
    // The config can turn it off.
    env.write("pwk.toml", "[rules]\nunused-suppression = \"off\"\n");
    let (shown, _) = outcome(&lint(&env, &[]));
    assert_eq!(shown, s(&[]));
}

#[test]
fn a_suppression_without_a_reason_is_not_applied() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntools: read\nowner: me  # pwk: ignore[unknown-key]\nteam: x  # pwk: ignore[unknwn-key] typo in the id\n# pwk: disable[crlf] not our syntax\n---\nBody\n",
    );
    let out = lint(&env, &[]);
    let doc = json(&out);
    let found: Vec<_> = diagnostics(&doc)
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap(),
                d["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "unknown-key",
                5,
                "unknown key `owner`: no supported host reads it"
            ),
            (
                "invalid-suppression",
                5,
                "the suppression of `unknown-key` has no reason, so it is not applied"
            ),
            (
                "unknown-key",
                6,
                "unknown key `team`: no supported host reads it"
            ),
            (
                "invalid-suppression",
                6,
                "`unknwn-key` names no rule; it suppresses nothing"
            ),
            (
                "invalid-suppression",
                7,
                "not a suppression: `# pwk:` must be followed by `ignore[…]` or `ignore-file[…]`"
            ),
        ]
    );
    assert_eq!(doc["diagnostics"][3]["help"], "did you mean `unknown-key`?");
    // `owner` is read by no host and is no typo: a warning.
    assert_eq!(out.code, 0);
}

#[test]
fn no_inline_suppressions_reports_everything_they_hide() {
    let env = TestEnv::new();
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntools: read\nowner: me  # pwk: ignore[unknown-key] our CI\n# pwk: ignore-file[bom] stale\n---\nBody\n",
    );
    let (shown, hidden) = outcome(&lint(&env, &[]));
    assert_eq!(shown, s(&[("unused-suppression", 6)]));
    assert_eq!(hidden.len(), 1);
    let out = lint(&env, &["--no-inline-suppressions"]);
    let (shown, hidden) = outcome(&out);
    assert_eq!(shown, s(&[("unknown-key", 5)]));
    assert!(hidden.is_empty());
    // A key no host reads that is no typo: a warning.
    assert_eq!(out.code, 0);
}

#[test]
fn suppressed_findings_are_not_fixed() {
    let env = TestEnv::new();
    let text = "---\nname: r\ndescription: d\ntools: read\nmax_turns: \"20\"  # pwk: ignore[invalid-type] our runner reads the string\n---\nBody\n";
    env.write("r.md", text);
    let out = run(env.pwk().args(["lint", "--host", "pwk", "--fix", "r.md"]));
    assert!(out.stderr.contains("applied 0 fixes"), "{}", out.stderr);
    assert_eq!(env.read("r.md"), text);
}

/// `duplicate-name` is found across files: its suppression and its level apply
/// too, and its suppression is never called unused.
#[test]
fn duplicate_name_can_be_suppressed_and_configured() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    let role =
        |extra: &str| format!("---\nname: same\ndescription: d\ntools: read\n{extra}---\nBody\n");
    env.write(
        "a/same.md",
        role("# pwk: ignore-file[duplicate-name] a deliberate fork\n"),
    );
    env.write("b/same.md", role(""));
    let lint = || {
        run(env.pwk().args([
            "lint",
            "--host",
            "pwk",
            "--format",
            "json",
            "a/same.md",
            "b/same.md",
        ]))
    };
    let out = lint();
    let (shown, hidden) = outcome(&out);
    assert_eq!(shown, s(&[("duplicate-name", 2)]));
    assert_eq!(hidden.len(), 1, "{}", out.stdout);
    assert_eq!(hidden[0].2, "file");
    env.write("pwk.toml", "[rules]\nduplicate-name = \"off\"\n");
    let out = lint();
    let (shown, hidden) = outcome(&out);
    assert_eq!((shown, hidden.len()), (s(&[]), 0));
}
