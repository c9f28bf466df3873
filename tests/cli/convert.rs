//! `pwk convert`, as a user runs it: Claude Code → tintinweb → Claude Code keeps every
//! carried field and loses exactly what the report names; writes never follow a
//! symlink and never replace a different file without `--force` (then with a backup);
//! a converted file that still fails lint for its target exits 1; and the real hosts
//! (the oracle) load what `pwk convert` wrote, with the mapped tools.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::oracle::{Host, entry, oracle_bin, run_oracle};
use crate::support::{TestEnv, run};

/// The frontmatter of a file as JSON (pwk's own parser).
fn frontmatter(path: &Path) -> BTreeMap<String, Value> {
    let bytes = std::fs::read(path).unwrap();
    let doc = pwk::role::RoleDoc::parse(path.to_path_buf(), &bytes);
    match doc.mapping().expect("frontmatter").to_json() {
        Value::Object(m) => m.into_iter().collect(),
        other => panic!("not a mapping: {other}"),
    }
}

fn body(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = pwk::role::RoleDoc::parse(path.to_path_buf(), text.as_bytes());
    doc.body().to_string()
}

fn convert_json(env: &TestEnv, args: &[&str]) -> (i32, Value, String) {
    let out = run(env
        .pwk()
        .arg("convert")
        .args(args)
        .args(["--format", "json"]));
    let doc = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}\n{}", out.stdout, out.stderr));
    (out.code, doc, out.stderr)
}

/// The report's keys with this outcome.
fn keys(doc: &Value, outcome: &str) -> Vec<String> {
    doc["files"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["outcome"] == outcome)
        .map(|i| i["key"].as_str().unwrap().to_string())
        .collect()
}

const REVIEWER: &str = "---
name: reviewer
description: \"Reviews diffs: correctness first, then style.\"
tools: Read, Grep, Glob, Bash, WebFetch
disallowedTools: Write, MultiEdit
model: claude-sonnet-4-5
maxTurns: 15
effort: high
skills: review-checklist
memory: project
background: true
isolation: worktree
color: cyan
permissionMode: bypassPermissions
hooks:
  Stop:
    - hooks:
        - type: command
          command: echo done
---

You review diffs. Say what is wrong and why.
";

#[test]
fn claude_code_to_tintinweb_and_back_keeps_what_carries_and_names_what_is_lost() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    let src = env.write(".claude/agents/reviewer.md", REVIEWER);
    // Claude Code → tintinweb (`--from` detected from `.claude/agents/`).
    let (code, there, err) = convert_json(
        &env,
        &["--to", "tintinweb", ".claude/agents", "--out", ".pi/agents"],
    );
    assert_eq!(code, 0, "{there:#}\n{err}");
    assert_eq!(there["files"][0]["from"], "claude-code@2.1");
    assert!(
        there["files"][0]["from_reason"]
            .as_str()
            .unwrap()
            .contains(".claude/agents/"),
        "{there:#}"
    );
    assert_eq!(there["files"][0]["lint_clean"], true, "{there:#}");
    let mid = env.path(".pi/agents/reviewer.md");
    let fm = frontmatter(&mid);
    assert_eq!(fm["tools"], "read, grep, find, bash");
    assert_eq!(fm["disallowed_tools"], "write, edit");
    assert_eq!(fm["model"], "anthropic/claude-sonnet-4-5");
    assert_eq!(fm["max_turns"], 15);
    assert_eq!(fm["thinking"], "high");
    assert_eq!(fm["run_in_background"], true);
    assert_eq!(fm["isolation"], "worktree");
    assert_eq!(body(&mid), body(&src), "the body is copied unchanged");
    let lost_there: Vec<String> = [keys(&there, "dropped"), keys(&there, "decision")].concat();
    assert_eq!(
        lost_there,
        ["tools: WebFetch", "hooks", "permissionMode"],
        "{there:#}"
    );
    // The real tintinweb lints it clean, too.
    let lint = run(env
        .pwk()
        .args(["lint", "--host", "tintinweb", ".pi/agents/reviewer.md"]));
    assert_eq!(lint.code, 0, "{}", lint.stdout);

    // … and back to Claude Code.
    let (code, back, err) = convert_json(
        &env,
        &[
            "--to",
            "claude-code",
            "--from",
            "tintinweb",
            ".pi/agents/reviewer.md",
            "--out",
            "roundtrip",
        ],
    );
    assert_eq!(code, 0, "{back:#}\n{err}");
    assert!(keys(&back, "dropped").is_empty(), "{back:#}");
    assert!(keys(&back, "decision").is_empty(), "{back:#}");
    let end = env.path("roundtrip/reviewer.md");
    let (a, b) = (frontmatter(&src), frontmatter(&end));
    // Every field is back except exactly those the first report named.
    let carried: Vec<&String> = a
        .keys()
        .filter(|k| !lost_there.iter().any(|l| l == *k))
        .collect();
    for k in &carried {
        let want = match k.as_str() {
            // The lost entries are gone from the lists; the rest come back in
            // Claude Code's names (`MultiEdit` and `Edit` are both pi's `edit`).
            "tools" => Value::from("Read, Grep, Glob, Bash"),
            "disallowedTools" => Value::from("Write, Edit"),
            _ => a[*k].clone(),
        };
        assert_eq!(b.get(*k), Some(&want), "`{k}` after the round trip");
    }
    let extra: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
    assert!(extra.is_empty(), "keys that appeared: {extra:?}");
    for lost in ["permissionMode", "hooks"] {
        assert!(!b.contains_key(lost));
    }
    assert_eq!(body(&end), body(&src));
}

#[test]
fn writes_refuse_symlinks_and_keep_a_backup_on_force() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(".claude/agents/reviewer.md", REVIEWER);
    env.write("out/reviewer.md", "mine\n");
    let args = ["--to", "nicobailon", ".claude/agents", "--out", "out"];
    let (code, doc, _) = convert_json(&env, &args);
    assert_eq!(code, 1, "a different file is kept: {doc:#}");
    assert_eq!(doc["files"][0]["written"], "kept");
    assert_eq!(env.read("out/reviewer.md"), "mine\n");
    let (code, doc, err) = convert_json(&env, &[&args[..], &["--force"]].concat());
    assert_eq!(code, 0, "{doc:#}\n{err}");
    assert_eq!(doc["files"][0]["written"], "replaced");
    assert_eq!(env.read("out/reviewer.md.bak"), "mine\n");
    assert!(
        env.read("out/reviewer.md")
            .contains("excludeTools: write, edit\n")
    );
    // Converting again changes nothing.
    let (code, doc, _) = convert_json(&env, &args);
    assert_eq!(
        (code, doc["files"][0]["written"].clone()),
        (0, "unchanged".into())
    );
    // A symlink at the target is never written through.
    std::fs::create_dir_all(env.path("linked")).unwrap();
    std::os::unix::fs::symlink(env.path("elsewhere.md"), env.path("linked/reviewer.md")).unwrap();
    let out = run(env.pwk().args([
        "convert",
        "--to",
        "nicobailon",
        ".claude/agents",
        "--out",
        "linked",
        "--force",
    ]));
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("NOT WRITTEN"), "{}", out.stdout);
    assert!(!env.path("elsewhere.md").exists());
}

#[test]
fn a_conversion_that_still_fails_lint_exits_1_and_says_what() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    // tintinweb needs neither `name` nor `description`; Claude Code requires both: the
    // identity comes from the file name, the description is the user's to write.
    env.write(
        ".pi/agents/scout.md",
        "---\ntools: read, grep\n---\nFind things.\n",
    );
    let out = run(env.pwk().args([
        "convert",
        "--to",
        "claude-code",
        "--from",
        "tintinweb@0.14",
        ".pi/agents/scout.md",
        "--dry-run",
    ]));
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("decide     description"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("FAILS for claude-code@2.1"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("missing-description"), "{}", out.stdout);
    assert!(!env.path(".pi/agents/scout.md.bak").exists());
    // Without --from, a pi directory with no host in pi's settings is ambiguous.
    let out = run(env
        .pwk()
        .args(["convert", "--to", "claude-code", ".pi/agents", "--dry-run"]));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("pass `--from HOST`"), "{}", out.stderr);
}

#[test]
fn lint_and_list_detect_claude_code_from_its_directory() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(".claude/agents/reviewer.md", REVIEWER);
    let out = run(env.pwk().args(["lint", "--format", "json"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["host"]["profile"], "claude-code@2.1");
    assert!(
        doc["host"]["detected"]
            .as_str()
            .unwrap()
            .contains(".claude/agents/"),
        "{doc:#}"
    );
    let out = run(env
        .pwk()
        .args(["list", "--host", "claude-code", "--format", "json"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("\"reviewer\""), "{}", out.stdout);
    let out = run(env
        .pwk()
        .args(["show", "reviewer", "--host", "claude-code"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(".claude/agents/reviewer.md"),
        "{}",
        out.stdout
    );
}

/// The real hosts load what `pwk convert` wrote, under its name, with the mapped tools.
#[test]
fn real_hosts_load_converted_roles_with_the_mapped_tools() {
    let Some(oracle) = oracle_bin() else { return };
    for (host, target) in [
        (Host::Tintinweb, "tintinweb@0.14"),
        (Host::Nicobailon, "nicobailon@0.67"),
    ] {
        let env = TestEnv::new();
        std::fs::create_dir_all(env.path(".git")).unwrap();
        env.write(
            ".claude/agents/graphql.md",
            // Without `skills`: nicobailon refuses to launch a role whose skills it
            // cannot find (the oracle's project has none).
            REVIEWER
                .replace("name: reviewer", "name: api-graphql")
                .replace("skills: review-checklist\n", ""),
        );
        let (code, doc, err) = convert_json(
            &env,
            &["--to", target, ".claude/agents", "--out", ".pi/agents"],
        );
        assert_eq!(code, 0, "{doc:#}\n{err}");
        let got = run_oracle(&oracle, host, env.root(), None);
        let e = entry(&got, ".pi/agents/api-graphql.md");
        assert_eq!(e["outcome"], "loaded", "{target}: {e:#}");
        assert_eq!(e["identity"], "api-graphql", "{target}: {e:#}");
        let mut tools: Vec<&str> = e["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .filter(|t| *t != "contact_supervisor") // nicobailon injects it
            .collect();
        tools.sort();
        // tintinweb applies disallowed_tools itself; nicobailon reports the
        // allow-list and removes excludeTools at launch.
        assert_eq!(tools, ["bash", "find", "grep", "read"], "{target}: {e:#}");
        assert_eq!(e["model"], "anthropic/claude-sonnet-4-5", "{target}: {e:#}");
    }
}

/// A fixture of `fixtures/convert/`, copied into the project at `rel`.
fn fixture(env: &TestEnv, name: &str, rel: &str) -> std::path::PathBuf {
    let text = std::fs::read(
        crate::support::repo_root()
            .join("fixtures/convert")
            .join(name),
    )
    .unwrap();
    env.write(rel, text)
}

fn project() -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env
}

#[test]
fn a_flow_mapping_frontmatter_is_converted_from_its_values() {
    let env = project();
    fixture(&env, "flow-mapping-frontmatter.md", ".claude/agents/rev.md");
    let (code, doc, err) = convert_json(
        &env,
        &["--to", "tintinweb", ".claude/agents", "--out", ".pi/agents"],
    );
    assert_eq!(code, 0, "{doc:#}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    let fm = frontmatter(&env.path(".pi/agents/rev.md"));
    assert_eq!(fm["name"], "rev");
    assert_eq!(fm["description"], "Reviews: diffs # carefully");
    assert_eq!(fm["tools"], "read, grep");
    assert_eq!(fm["max_turns"], 5);
    let text = env.read(".pi/agents/rev.md");
    assert!(!text.contains('{') && !text.contains('}'), "{text}");
}

#[test]
fn nicobailon_star_becomes_no_tools_never_all_seven() {
    let env = project();
    fixture(&env, "nicobailon-star-grants-no-tool.md", "src/star.md");
    let (code, doc, err) = convert_json(
        &env,
        &[
            "--from",
            "nicobailon",
            "--to",
            "tintinweb",
            "src/star.md",
            "--out",
            ".pi/agents",
        ],
    );
    assert_eq!(code, 0, "{doc:#}\n{err}");
    let text = env.read(".pi/agents/star.md");
    let fm = frontmatter(&env.path(".pi/agents/star.md"));
    assert_eq!(fm["tools"], "none", "{text}");
    assert!(!text.contains("tools: *"), "{text}");
    assert_eq!(keys(&doc, "dropped"), ["tools: *"], "{doc:#}");
    let kept: Vec<&Value> = doc["files"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["note"] == "as written" && i["key"].as_str().unwrap().starts_with("tools"))
        .collect();
    assert!(kept.is_empty(), "{doc:#}");
}

#[test]
fn a_reviewer_limited_to_four_tools_gets_an_opencode_ruleset() {
    // #32: OpenCode takes a tool limit as its `permission` ruleset, which OpenCode
    // itself reads back as those tools only (`LS` is no tool on Claude Code 2.1).
    let env = project();
    fixture(
        &env,
        "reviewer-limited-to-four-tools.md",
        ".claude/agents/reviewer.md",
    );
    let (code, doc, err) = convert_json(
        &env,
        &[
            "--to",
            "opencode",
            ".claude/agents",
            "--out",
            ".opencode/agents",
        ],
    );
    assert_eq!(code, 0, "{doc:#}\n{err}");
    assert_eq!(doc["files"][0]["widens"], false, "{doc:#}");
    let fm = frontmatter(&env.path(".opencode/agents/reviewer.md"));
    assert_eq!(
        fm["permission"],
        serde_json::json!({"*": "deny", "read": "allow", "grep": "allow", "glob": "allow"})
    );
    // `pwk show` under OpenCode: only those tools.
    let show = run(env
        .pwk()
        .args(["show", "reviewer", "--host", "opencode", "--format", "json"]));
    let show: Value = serde_json::from_str(&show.stdout).unwrap();
    assert_eq!(
        show["runtime"]["tools"]["effective"],
        serde_json::json!(["read", "grep", "glob"]),
        "{show:#}"
    );
}

/// Converting to each host in turn, as a user with a role of each form would.
fn convert_fixture(name: &str, rel: &str, from: &str, to: &str) -> (i32, Value, TestEnv) {
    let env = project();
    fixture(&env, name, rel);
    let (code, doc, _) = convert_json(&env, &["--from", from, "--to", to, rel, "--out", "out"]);
    (code, doc, env)
}

#[test]
fn opencode_denials_are_denied_on_every_target() {
    // N3: `tools: {write: false, bash: false}` and `permission: {edit: deny}`.
    for (to, key, want) in [
        ("tintinweb", "disallowed_tools", "bash, edit, write"),
        ("nicobailon", "excludeTools", "bash, edit, write"),
        ("herdr", "deny-tools", "bash, edit, write"),
        ("claude-code", "disallowedTools", "Bash, Edit, Write"),
    ] {
        let (code, doc, env) = convert_fixture(
            "opencode-reviewer-denies-write-and-bash.md",
            ".opencode/agents/reviewer.md",
            "opencode",
            to,
        );
        assert_eq!(code, 0, "{to}: {doc:#}");
        let fm = frontmatter(&env.path("out/reviewer.md"));
        assert_eq!(fm[key], want, "{to}: {doc:#}");
    }
    // Copilot has no deny-list: the tools that are left are listed, and what
    // that loses (every other tool of the session) is a decision.
    let (code, doc, env) = convert_fixture(
        "opencode-reviewer-denies-write-and-bash.md",
        ".opencode/agents/reviewer.md",
        "opencode",
        "copilot",
    );
    assert_eq!(code, 1, "{doc:#}");
    let fm = frontmatter(&env.path("out/reviewer.agent.md"));
    let tools = fm["tools"].as_str().unwrap();
    assert!(
        !tools.contains("execute") && !tools.contains("edit"),
        "{tools}"
    );
}

#[test]
fn plan_mode_is_never_merely_dropped() {
    // N4: `permissionMode: plan` is read-only. Edits go (plan mode refuses them);
    // Bash, which plan mode lets run read-only commands only, is left out and the
    // user decides; the run exits 1.
    let (code, doc, env) = convert_fixture(
        "claude-reviewer-in-plan-mode.md",
        ".claude/agents/reviewer.md",
        "claude-code",
        "tintinweb",
    );
    assert_eq!(code, 1, "{doc:#}");
    let fm = frontmatter(&env.path("out/reviewer.md"));
    assert_eq!(fm["tools"], "read, grep, find", "{doc:#}");
    assert!(
        keys(&doc, "decision").contains(&"permissionMode".to_string()),
        "{doc:#}"
    );
    assert!(
        !keys(&doc, "dropped").contains(&"permissionMode".to_string()),
        "{doc:#}"
    );
    // To OpenCode: the same, as a ruleset.
    let (code, _, env) = convert_fixture(
        "claude-reviewer-in-plan-mode.md",
        ".claude/agents/reviewer.md",
        "claude-code",
        "opencode",
    );
    assert_eq!(code, 1);
    let fm = frontmatter(&env.path("out/reviewer.md"));
    assert_eq!(fm["permission"]["*"], "deny");
    assert!(fm["permission"].get("bash").is_none(), "{fm:?}");
}

#[test]
fn a_file_that_would_widen_the_role_is_not_written() {
    // nicobailon's `*` is no tool; herdr has no word for none, and even with its
    // built-ins denied a herdr role reaches pi's MCP tools.
    let (code, doc, env) = convert_fixture(
        "nicobailon-star-grants-no-tool.md",
        ".pi/agents/star.md",
        "nicobailon",
        "herdr",
    );
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(doc["files"][0]["widens"], true, "{doc:#}");
    assert!(
        doc["files"][0]["write_error"]
            .as_str()
            .is_some_and(|e| e.contains("more than the source")),
        "{doc:#}"
    );
    assert!(!env.path("out/star.md").exists());
}

#[test]
fn opencode_name_is_written_once() {
    // N19: the identity and OpenCode's `name` are one key.
    for to in ["claude-code", "copilot", "tintinweb", "nicobailon", "herdr"] {
        let (code, doc, env) = convert_fixture(
            "opencode-reviewer-denies-write-and-bash.md",
            ".opencode/agents/reviewer.md",
            "opencode",
            to,
        );
        let file = doc["files"][0]["path"].as_str().unwrap().to_string();
        let text = env.read(&file);
        assert_eq!(text.matches("\nname:").count(), 1, "{to} ({code}): {text}");
        let lint = run(env.pwk().args(["lint", "--host", to, &file]));
        assert!(
            !lint.stdout.contains("duplicate-key"),
            "{to}: {}",
            lint.stdout
        );
    }
}

#[test]
fn a_claude_file_converts_as_claude_repairs_it() {
    // #29: Claude Code quotes an unquoted value holding `: ` and loads the file;
    // convert reads it the same way and says what the repair changed.
    let (code, doc, env) = convert_fixture(
        "claude-description-with-colon.md",
        ".claude/agents/helper.md",
        "claude-code",
        "tintinweb",
    );
    assert_eq!(code, 0, "{doc:#}");
    let fm = frontmatter(&env.path("out/helper.md"));
    assert_eq!(
        fm["description"],
        "Use this agent when: the user asks for help"
    );
    let notes: Vec<&str> = doc["files"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["key"] == "frontmatter")
        .map(|i| i["note"].as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("value of `description` quoted")),
        "{notes:?}"
    );
    // What Claude Code cannot load either is refused: exit 1, the file named.
    let env = project();
    fixture(
        &env,
        "claude-unloadable-frontmatter.md",
        ".claude/agents/broken.md",
    );
    let out = run(env.pwk().args([
        "convert",
        "--to",
        "tintinweb",
        ".claude/agents",
        "--out",
        "out",
    ]));
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains(".claude/agents/broken.md"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("claude-code@2.1 cannot load it"),
        "{}",
        out.stderr
    );
}

#[test]
fn to_and_from_offer_only_hosts_that_read_files() {
    let env = project();
    env.write(".claude/agents/r.md", "---\nname: r\ndescription: d\n---\n");
    for (args, said) in [
        (vec!["--to", "auto"], "`--to auto`"),
        (vec!["--to", "pwk"], "`--to pwk`"),
        (vec!["--from", "pwk", "--to", "herdr"], "`--from pwk`"),
        (vec!["--to", "tintinwb"], "did you mean `tintinweb`"),
    ] {
        let out = run(env
            .pwk()
            .arg("convert")
            .args(&args)
            .args([".claude/agents", "--dry-run"]));
        assert_eq!(out.code, 2, "{args:?}");
        assert!(out.stderr.contains(said), "{args:?}: {}", out.stderr);
        let offered = out
            .stderr
            .split("convert knows")
            .nth(1)
            .unwrap_or(&out.stderr);
        assert!(
            !offered.contains("`auto`") && !offered.contains("`pwk`"),
            "{}",
            out.stderr
        );
    }
    let help = run(env.pwk().args(["convert", "--help"]));
    let to = help
        .stdout
        .split("--to <TO>")
        .nth(1)
        .unwrap()
        .split("--from")
        .next()
        .unwrap();
    assert!(!to.contains("`pwk`") && !to.contains("`auto`"), "{to}");
}

#[test]
fn comments_are_carried_with_their_keys_and_dropped_ones_reported() {
    let env = project();
    fixture(
        &env,
        "comments-to-carry-and-drop.md",
        ".claude/agents/commented.md",
    );
    let (code, doc, err) = convert_json(
        &env,
        &["--to", "tintinweb", ".claude/agents", "--out", ".pi/agents"],
    );
    assert!(code == 0 || code == 1, "{doc:#}\n{err}");
    let text = env.read(".pi/agents/commented.md");
    assert!(
        text.starts_with(
            "---\n# pwk: ignore-file[host-ignored-key] color is for the picker\nname: commented\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n# what the reviewer is for\ndescription: Reviews diffs. # short\n"),
        "{text}"
    );
    assert!(
        text.contains("\n# model: <provider/id> — set yours with pwk setup --fast-model\n---\n"),
        "{text}"
    );
    assert!(!text.contains("Claude Code only"), "{text}");
    let dropped: Vec<&Value> = doc["files"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["key"] == "comment")
        .collect();
    assert_eq!(dropped.len(), 1, "{doc:#}");
    assert_eq!(dropped[0]["outcome"], "dropped");
    assert!(
        dropped[0]["note"]
            .as_str()
            .unwrap()
            .contains("# Claude Code only"),
        "{doc:#}"
    );
}

#[test]
fn the_output_is_linted_at_its_destination_and_each_finding_is_named() {
    let env = project();
    env.write(
        ".pi/agents/scout.md",
        "---\nname: scout\ndescription: Finds things.\ntools: read, grep\nx-team: search\n---\nFind.\n",
    );
    let out = run(env.pwk().args([
        "convert",
        "--from",
        "tintinweb",
        "--to",
        "claude-code",
        ".pi/agents/scout.md",
        "--out",
        ".claude/agents",
    ]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    // Written to `.claude/agents/`: no claim that Claude Code never reads it.
    assert!(!out.stdout.contains("never reads"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("lint       clean for claude-code@2.1\n"),
        "{}",
        out.stdout
    );
    // Written where Claude Code does not look: the warning is there, and named.
    let out = run(env.pwk().args([
        "convert",
        "--from",
        "tintinweb",
        "--to",
        "claude-code",
        ".pi/agents/scout.md",
        "--out",
        ".pi/agents/claude",
    ]));
    let line = out
        .stdout
        .lines()
        .find(|l| l.contains("lint       "))
        .unwrap_or_default()
        .to_string();
    let warnings: usize = line
        .split('(')
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", out.stdout));
    let named = out
        .stdout
        .lines()
        .filter(|l| l.contains(": warning["))
        .count();
    assert!(warnings >= 1 && named == warnings, "{}", out.stdout);
}

#[test]
fn a_failed_run_prints_no_success_summary() {
    let env = project();
    env.write(
        ".pi/agents/scout.md",
        "---\nname: scout\ndescription: d\n---\n",
    );
    let out = run(env
        .pwk()
        .args(["convert", "--to", "claude-code", ".pi/agents", "--dry-run"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(!out.stdout.contains("converted"), "{}", out.stdout);
    assert_eq!(out.stdout, "", "{}", out.stdout);
    assert!(out.stderr.contains("pass `--from HOST`"), "{}", out.stderr);
}

#[test]
fn in_place_says_it_keeps_the_file_name() {
    let env = project();
    env.write(
        ".claude/agents/graphql.md",
        "---\nname: api-graphql\ndescription: d\ntools: Read\n---\nBody.\n",
    );
    let (_, doc, err) = convert_json(
        &env,
        &[
            "--to",
            "tintinweb@0.14",
            ".claude/agents/graphql.md",
            "--in-place",
        ],
    );
    let item = doc["files"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["key"] == "file name")
        .cloned()
        .unwrap_or_else(|| panic!("{doc:#}\n{err}"));
    assert_eq!(item["outcome"], "decision", "{item:#}");
    assert!(
        item["note"]
            .as_str()
            .unwrap()
            .contains("--in-place keeps the name `graphql.md`"),
        "{item:#}"
    );
    assert!(env.path(".claude/agents/graphql.md").exists());
    assert!(!env.path(".claude/agents/api-graphql.md").exists());
    assert_eq!(doc["files"][0]["file_name"], "graphql.md", "{doc:#}");
}

/// `convert --out .pi/agents` wrote through a symlinked `.pi` (and with
/// `--force` replaced the files there, f98aee5); now the link is refused.
#[test]
fn convert_never_writes_through_a_symlinked_out_directory() {
    for link in [".pi", ".pi/agents"] {
        let env = TestEnv::new();
        std::fs::create_dir_all(env.path(".git")).unwrap();
        env.write(".claude/agents/reviewer.md", REVIEWER);
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("t");
        std::fs::create_dir_all(target.join("agents")).unwrap();
        std::fs::write(target.join("reviewer.md"), "theirs\n").unwrap();
        std::fs::write(target.join("agents/reviewer.md"), "theirs\n").unwrap();
        std::fs::create_dir_all(env.path(".pi")).unwrap();
        if link == ".pi" {
            std::fs::remove_dir(env.path(".pi")).unwrap();
        }
        std::os::unix::fs::symlink(&target, env.path(link)).unwrap();
        let args = [
            "--to",
            "nicobailon",
            ".claude/agents",
            "--out",
            ".pi/agents",
            "--force",
        ];
        let (code, doc, _) = convert_json(&env, &args);
        assert_eq!(code, 2, "{link}: {doc:#}");
        assert!(
            doc["files"][0]["write_error"]
                .as_str()
                .is_some_and(|e| e.contains("symbolic link")),
            "{link}: {doc:#}"
        );
        let names: Vec<_> = walk(outside.path());
        assert_eq!(names.len(), 4, "{link}: {names:?}");
        assert_eq!(
            std::fs::read_to_string(target.join("reviewer.md")).unwrap(),
            "theirs\n"
        );
        assert_eq!(
            std::fs::read_to_string(target.join("agents/reviewer.md")).unwrap(),
            "theirs\n"
        );
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

#[test]
fn pwk_toml_host_is_the_source_host_when_the_directory_says_nothing() {
    // Without a host anywhere, `src/star.md` cannot be converted (see
    // `a_failed_run_prints_no_success_summary`); `host = "nicobailon"` in pwk.toml
    // makes it nicobailon's: `*` is an unknown name there, so no built-in tool.
    let env = project();
    fixture(&env, "nicobailon-star-grants-no-tool.md", "src/star.md");
    env.write("pwk.toml", "host = \"nicobailon\"\n");
    let args = ["--to", "tintinweb", "src/star.md", "--out", ".pi/agents"];
    let (code, doc, err) = convert_json(&env, &args);
    assert_eq!(code, 0, "{doc:#}\n{err}");
    assert!(
        doc["files"][0]["from"]
            .as_str()
            .unwrap()
            .starts_with("nicobailon@"),
        "{doc:#}"
    );
    let reason = doc["files"][0]["from_reason"].as_str().unwrap();
    assert!(reason.contains("pwk.toml:1:"), "{reason}");
    assert_eq!(keys(&doc, "dropped"), ["tools: *"], "{doc:#}");
    let text = env.read(".pi/agents/star.md");
    assert_eq!(
        frontmatter(&env.path(".pi/agents/star.md"))["tools"],
        "none",
        "{text}"
    );
    // The human report says why this host.
    let out = run(env
        .pwk()
        .args(["convert", "--to", "tintinweb", "src/star.md", "--dry-run"]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("src/star.md (nicobailon@"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("  from       `host` in the configuration (pwk.toml:1:"),
        "{}",
        out.stdout
    );
}

#[test]
fn config_file_names_the_source_host_as_on_lint() {
    // No pwk.toml: `--config FILE` governs every file, as on `lint`.
    let env = project();
    fixture(&env, "nicobailon-star-grants-no-tool.md", "src/star.md");
    env.write("conf/team.toml", "host = \"nicobailon\"\n");
    let args = ["--to", "tintinweb", "src/star.md", "--dry-run"];
    let out = run(env.pwk().arg("convert").args(args));
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("pass `--from HOST`"), "{}", out.stderr);
    let (code, doc, err) =
        convert_json(&env, &[&args[..], &["--config", "conf/team.toml"]].concat());
    assert_eq!(code, 0, "{doc:#}\n{err}");
    assert!(
        doc["files"][0]["from"]
            .as_str()
            .unwrap()
            .starts_with("nicobailon@"),
        "{doc:#}"
    );
    assert!(
        doc["files"][0]["from_reason"]
            .as_str()
            .unwrap()
            .contains("conf/team.toml:1:"),
        "{doc:#}"
    );
    // A `--config` that does not exist stops the run, as on the other commands.
    let out = run(env
        .pwk()
        .arg("convert")
        .args(args)
        .args(["--config", "conf/none.toml"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("`conf/none.toml` does not exist"),
        "{}",
        out.stderr
    );
}

/// Convert `.pi/agents/scout.md` to claude-code into `.pi/agents/claude/`, where
/// Claude Code never looks (`host-unread-directory`).
fn convert_scout_where_claude_does_not_look(env: &TestEnv, extra: &[&str]) -> (i32, Value, String) {
    env.write(
        ".pi/agents/scout.md",
        "---\nname: scout\ndescription: Finds things.\ntools: read, grep\n---\nFind.\n",
    );
    let args = [
        "--from",
        "tintinweb",
        "--to",
        "claude-code",
        ".pi/agents/scout.md",
        "--out",
        ".pi/agents/claude",
        "--dry-run",
    ];
    convert_json(env, &[&args[..], extra].concat())
}

fn lint_rules(doc: &Value) -> Vec<String> {
    doc["files"][0]["lint"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_rule_set_off_in_pwk_toml_is_silent_in_the_report_for_the_destination() {
    let env = project();
    let (code, doc, err) = convert_scout_where_claude_does_not_look(&env, &[]);
    assert_eq!(code, 0, "{doc:#}\n{err}");
    assert_eq!(lint_rules(&doc), ["host-unread-directory"], "{doc:#}");

    env.write("pwk.toml", "[rules]\nhost-unread-directory = \"off\"\n");
    let (code, doc, err) = convert_scout_where_claude_does_not_look(&env, &[]);
    assert_eq!(code, 0, "{doc:#}\n{err}");
    assert!(lint_rules(&doc).is_empty(), "{doc:#}");
    let out = run(env.pwk().args([
        "convert",
        "--from",
        "tintinweb",
        "--to",
        "claude-code",
        ".pi/agents/scout.md",
        "--out",
        ".pi/agents/claude",
        "--dry-run",
    ]));
    assert!(
        out.stdout
            .contains("  lint       clean for claude-code@2.1\n"),
        "{}",
        out.stdout
    );

    // The levels are those of the destination's path: an override for
    // `.pi/agents/claude/*.md` applies, one for the source's path does not.
    env.write(
        "pwk.toml",
        "[[overrides]]\nfiles = [\".pi/agents/scout.md\"]\nrules = { host-unread-directory = \"off\" }\n",
    );
    let (_, doc, _) = convert_scout_where_claude_does_not_look(&env, &[]);
    assert_eq!(lint_rules(&doc), ["host-unread-directory"], "{doc:#}");
    env.write(
        "pwk.toml",
        "[[overrides]]\nfiles = [\".pi/agents/claude/*.md\"]\nrules = { host-unread-directory = \"error\" }\n",
    );
    let (code, doc, _) = convert_scout_where_claude_does_not_look(&env, &[]);
    assert_eq!(lint_rules(&doc), ["host-unread-directory"], "{doc:#}");
    assert_eq!(doc["files"][0]["lint"][0]["severity"], "error", "{doc:#}");
    assert_eq!(doc["files"][0]["lint_clean"], false, "{doc:#}");
    assert_eq!(code, 1, "{doc:#}");
}

#[test]
fn from_the_portable_profile_is_refused_like_to() {
    // Converting "from pwk" would treat every key as absent and add a second
    // `name` and a `tools` line granting mutating tools: refused, nothing written.
    let env = project();
    env.write(
        "src/a.md",
        "---\nname: a\ndescription: d\ntools: read, grep\n---\nB\n",
    );
    let out = run(env.pwk().args([
        "convert",
        "--from",
        "pwk",
        "--to",
        "tintinweb",
        "src/a.md",
        "--out",
        "out",
    ]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("`--from pwk`"), "{}", out.stderr);
    assert!(!env.path("out").exists());
    // `host = "pwk"` in pwk.toml names no source host: pi's settings decide (none
    // here), and the error says to pass `--from`.
    env.write("pwk.toml", "host = \"pwk\"\n");
    let out = run(env
        .pwk()
        .args(["convert", "--to", "tintinweb", "src/a.md", "--dry-run"]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("pass `--from HOST`"), "{}", out.stderr);
}

/// Two files that convert to one output: the second is an error that names both,
/// and the first is written. Among many files, each output is checked against the
/// others by a lookup (a directory of thousands converted in linear time).
#[test]
fn two_files_to_one_output_are_refused_and_many_distinct_ones_are_written() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    let role = |name: &str| {
        format!("---\nname: {name}\ndescription: Reviews a diff.\ntools: Read\n---\nBody.\n")
    };
    env.write(".claude/agents/a.md", role("a"));
    env.write("more/.claude/agents/a.md", role("a"));
    for i in 0..300 {
        env.write(
            &format!("many/.claude/agents/r{i}.md"),
            role(&format!("r{i}")),
        );
    }
    std::fs::create_dir(env.path("out")).unwrap();
    let out = run(env.pwk().args([
        "convert",
        "--to",
        "tintinweb",
        "--out",
        "out",
        ".claude/agents/a.md",
        "more/.claude/agents/a.md",
    ]));
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("`more/.claude/agents/a.md` and an earlier file both convert to `out/a.md`"),
        "{}",
        out.stderr
    );
    assert!(env.path("out/a.md").is_file());
    std::fs::create_dir(env.path("out2")).unwrap();
    let out = run(env.pwk().args([
        "convert",
        "--to",
        "tintinweb",
        "--out",
        "out2",
        "many/.claude/agents",
    ]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let written = std::fs::read_dir(env.path("out2")).unwrap().count();
    assert_eq!(written, 300);
}
