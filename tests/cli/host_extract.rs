//! Host facts extracted mechanically from each host's own artifact, against the profiles.
//!
//! `scripts/host-extract/extract.py HOST` reads what a profile claims — the keys the
//! loader reads, the values it accepts, the required keys, the tools a subagent may be
//! given, the model aliases, the directories and whether they are read recursively —
//! from the pinned artifact (Claude Code's binary, Gemini CLI's bundle, OpenCode's
//! binary, the pi hosts' loader source; Copilot CLI's loader is native code, so its keys
//! are measured with the real CLI) and `schemas/extracted/<host>@<version>.json` is
//! the committed result. These tests fail when a profile and an extraction disagree, and
//! when the provisioned artifact says something else than the committed extraction.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::tools::{Tool, required, skip, tool};
use crate::support::{findings, repo_root, run};

/// `python3` ([`crate::support::tools`]: a visible skip without it, a failure under CI).
fn python() -> Option<PathBuf> {
    tool(Tool::Python)
}

fn extractions() -> Vec<(PathBuf, Value)> {
    let dir = repo_root().join("schemas/extracted");
    let mut out: Vec<(PathBuf, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Every committed extraction agrees with the profile that applies to its version
/// (scripts/host-extract/compare.py: keys, values, required keys, variants, tools,
/// models, directories).
#[test]
fn profiles_agree_with_extractions() {
    let Some(py) = python() else { return };
    let all = extractions();
    assert!(all.len() >= 8, "only {} extractions", all.len());
    let out = run(Command::new(py)
        .arg(repo_root().join("scripts/host-extract/compare.py"))
        .args(all.iter().map(|(p, _)| p.as_os_str())));
    eprintln!("{}", out.stdout);
    assert!(
        out.code == 0,
        "the host profiles disagree with what their artifacts say (fix the profile in \
         schemas/hosts/, or re-extract if the artifact moved):\n{}{}",
        out.stdout,
        out.stderr
    );
    // The comparison can fail: a profile that lost a key the host reads is caught.
    let claude = all
        .iter()
        .find(|(p, _)| p.to_string_lossy().contains("claude-code@"))
        .expect("a Claude Code extraction");
    let mut doc = claude.1.clone();
    doc["facts"]["keys"]["read"]
        .as_array_mut()
        .unwrap()
        .push("notAKeyAnyHostReads".into());
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), doc.to_string()).unwrap();
    let out = run(Command::new("python3")
        .arg(repo_root().join("scripts/host-extract/compare.py"))
        .arg(tmp.path()));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("`notAKeyAnyHostReads`"),
        "{}",
        out.stdout
    );
}

/// Every host profile is backed by an extraction, or every fact it states that an
/// error could rest on is cited at a source line of a named commit (`owner/repo@commit
/// path`, the GUIDE's third kind of backing: subagents-lite, which no extractor reads
/// yet) or marked as known only from documentation or a changelog (then its findings
/// are warnings at most).
#[test]
fn every_profile_is_extracted_or_documented_only() {
    let extracted: BTreeSet<String> = extractions()
        .iter()
        .map(|(_, v)| v["host"].as_str().unwrap().to_string())
        .collect();
    let mut undocumented = Vec::new();
    for e in std::fs::read_dir(repo_root().join("schemas/hosts")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let host = p.file_stem().unwrap().to_string_lossy().to_string();
        if host == "pwk" || extracted.contains(&host) {
            continue;
        }
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        for v in doc["versions"].as_array().unwrap() {
            for (key, fact) in v["keys"].as_object().into_iter().flatten() {
                let documented = matches!(fact["confidence"].as_str(), Some("docs" | "changelog"));
                if !documented && !cites_source(fact["cite"].as_str().unwrap_or("")) {
                    undocumented.push(format!("{host}@{}: {key}", v["version"]));
                }
            }
        }
    }
    assert!(
        undocumented.is_empty(),
        "hosts without an extraction whose key facts claim more than documentation \
         without a cited source line: {undocumented:?}"
    );
    // The check can fail: a fact cited to nothing, or to a README, is not a source line.
    assert!(!cites_source("measured"));
    assert!(!cites_source("docs: owner/repo@06ee767 README.md"));
    assert!(!cites_source("owner/repo src/x.ts"));
    assert!(cites_source(
        "IIwate/pi-subagents-lite@5263448 src/agents/agent-discovery.ts parseAgentFile()"
    ));
}

/// Whether a citation starts with a source file at a named commit:
/// `owner/repo@<hex commit> path/with/a/dir.ext` (not a README).
fn cites_source(cite: &str) -> bool {
    let mut words = cite.split_whitespace();
    let (Some(at), Some(path)) = (words.next(), words.next()) else {
        return false;
    };
    let Some((repo, commit)) = at.split_once('@') else {
        return false;
    };
    repo.split('/').count() == 2
        && commit.len() >= 7
        && commit.chars().all(|c| c.is_ascii_hexdigit())
        && path.contains('.')
        && !path.to_ascii_lowercase().ends_with(".md")
}

/// Where the hosts are provisioned (`PWK_TEST_HOST_ROOT`, else `.host-test`).
fn hosts_root() -> PathBuf {
    std::env::var_os("PWK_TEST_HOST_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".host-test"))
}

/// Claude Code's binary under [`hosts_root`].
const CLAUDE_BINARY: &str =
    "cli/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude";

/// The provisioned artifacts (scripts/provision-hosts.sh) still say what the committed
/// extractions say: each extractor runs again and its output must be the committed
/// file, byte for byte.
#[test]
fn extractions_are_current() {
    let Some(py) = python() else { return };
    let hosts_root = hosts_root();
    let provisioned = |rel: &str| hosts_root.join(rel).exists();
    let hosts: [(&str, &str); 7] = [
        ("claude-code", CLAUDE_BINARY),
        (
            "copilot",
            "cli/copilot/node_modules/@github/copilot-linux-x64/copilot",
        ),
        (
            "opencode",
            "cli/opencode/node_modules/opencode-linux-x64/bin/opencode",
        ),
        ("gemini", "cli/gemini/node_modules/@google/gemini-cli"),
        (
            "tintinweb",
            "tintinweb/node_modules/@tintinweb/pi-subagents",
        ),
        ("nicobailon", "nicobailon/node_modules/pi-subagents"),
        (
            "pi-example",
            "tintinweb/node_modules/@earendil-works/pi-coding-agent",
        ),
    ];
    let mut stale = Vec::new();
    let mut running: Vec<(&str, std::process::Child)> = Vec::new();
    let mut finish = |(host, child): (&str, std::process::Child)| {
        let out = child.wait_with_output().unwrap();
        if !out.status.success() {
            stale.push(format!(
                "{host}:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    };
    for (host, artifact) in hosts {
        if !provisioned(artifact) {
            assert!(
                !required(),
                "CI: {host} is not provisioned under {} (scripts/provision-hosts.sh)",
                hosts_root.display()
            );
            skip(&format!("the extraction of {host}: not provisioned"));
            continue;
        }
        // Two at a time: the measured ones run the CLIs, two projects each.
        if running.len() == 2 {
            finish(running.remove(0));
        }
        running.push((host, spawn_check(&py, host, &hosts_root)));
    }
    for r in running {
        finish(r);
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

/// The table of deny rules Claude Code's own validator drops (the unit test
/// `deny_rules_as_claude_code_reads_them` holds pwk to it) is what the provisioned
/// binary's validator says: `scripts/host-extract/deny_rules.py --check` runs it again.
#[test]
fn deny_rule_table_is_current() {
    let Some(py) = python() else { return };
    let hosts_root = hosts_root();
    if !hosts_root.join(CLAUDE_BINARY).exists() {
        assert!(
            !required(),
            "CI: claude-code is not provisioned under {} (scripts/provision-hosts.sh)",
            hosts_root.display()
        );
        skip("the deny-rule table: claude-code is not provisioned");
        return;
    }
    let out = run(Command::new(py)
        .arg(repo_root().join("scripts/host-extract/deny_rules.py"))
        .arg("--check")
        .env("PWK_HOST_TEST", &hosts_root));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("is current"), "{}", out.stdout);
}

fn spawn_check(py: &Path, host: &str, hosts_root: &Path) -> std::process::Child {
    Command::new(py)
        .arg(repo_root().join("scripts/host-extract/extract.py"))
        .arg(host)
        .arg("--check")
        .arg("--hosts-root")
        .arg(hosts_root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// `pwk lint --host <host>@<version>` on `files` (in a fresh project): each
/// diagnostic as (file, line, rule, message).
fn lint_as(spec: &str, files: &[(String, String)]) -> Vec<(String, u64, String, String)> {
    let env = crate::support::TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    for (rel, text) in files {
        env.write(rel, text);
    }
    let out = run(env.pwk().args([
        "lint",
        "--format",
        "json",
        "--recursive",
        "--host",
        spec,
        "roles",
    ]));
    assert!(out.code <= 1, "pwk lint --host {spec}: {}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    findings(&doc)
        .into_iter()
        .map(|f| (f.path, f.line, f.rule, f.message))
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

/// The class test of the extracted facts, end to end: for every committed extraction,
/// `pwk lint --host <host>@<version>` (the profile that applies to that version) on
/// roles that use what the artifact says the host reads must not call any of it
/// unknown — every key the loader reads, every tool it gives a subagent (and every
/// old name it renames), every model alias it resolves — and must say something about
/// every tool name the host accepts but never hands over. A new host version whose
/// extraction adds a key, a tool or an alias fails here until its profile says so.
#[test]
fn lint_knows_every_extracted_key_tool_and_alias() {
    let mut wrong = Vec::new();
    for (path, doc) in extractions() {
        let spec = format!(
            "{}@{}",
            doc["host"].as_str().unwrap(),
            doc["version"].as_str().unwrap()
        );
        let facts = &doc["facts"];
        let mut files = Vec::new();
        // Keys: one per line, each with a scalar value (the value may be wrong for
        // the key: only a finding that calls the key unread counts here).
        let keys = strings(&facts["keys"]["read"]);
        assert!(!keys.is_empty(), "{}: no keys", path.display());
        let mut text = String::from("---\n");
        for k in &keys {
            text.push_str(&format!("{k}: x\n"));
        }
        text.push_str("---\nA role.\n");
        files.push(("roles/keys.md".to_string(), text));
        // Tools: one per line of a block list, the given ones and the dropped ones.
        let tools = &facts["tools"];
        let mut given = strings(&tools["subagent"]);
        given.extend(strings(&tools["registered"]));
        given.extend(
            tools["renamed"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k.clone()),
        );
        given.extend(
            tools["aliases"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k.clone()),
        );
        let mut dropped = strings(&tools["dropped"]);
        dropped.extend(strings(&tools["never_registered"]));
        let listed: Vec<&String> = given.iter().chain(&dropped).collect();
        if !listed.is_empty() {
            let mut text = String::from("---\nname: tools\ndescription: d\ntools:\n");
            for t in &listed {
                text.push_str(&format!("  - {t}\n"));
            }
            text.push_str("---\nA role.\n");
            files.push(("roles/tools.md".to_string(), text));
        }
        // Models: one role per alias.
        let models = &facts["models"];
        let aliases: Vec<String> = strings(&models["aliases"])
            .into_iter()
            .chain(strings(&models["inherit"]))
            .collect();
        for (i, m) in aliases.iter().enumerate() {
            files.push((
                format!("roles/model-{i}.md"),
                format!("---\nname: model-{i}\ndescription: d\nmodel: \"{m}\"\n---\nA role.\n"),
            ));
        }
        let found = lint_as(&spec, &files);
        let at = |file: &str, line: u64, rules: &[&str]| -> Vec<String> {
            found
                .iter()
                .filter(|(p, l, r, _)| {
                    p.ends_with(file) && *l == line && rules.contains(&r.as_str())
                })
                .map(|(_, _, r, m)| format!("{r}: {m}"))
                .collect()
        };
        for (i, k) in keys.iter().enumerate() {
            for f in at(
                "keys.md",
                i as u64 + 2,
                &["unknown-key", "host-ignored-key"],
            ) {
                wrong.push(format!("{spec}: key `{k}` (extracted: read): {f}"));
            }
        }
        for (i, t) in listed.iter().enumerate() {
            let said = at(
                "tools.md",
                i as u64 + 5,
                &["unknown-tool", "host-tools-list"],
            );
            if i < given.len() {
                for f in said {
                    wrong.push(format!(
                        "{spec}: tool `{t}` (extracted: given to a subagent): {f}"
                    ));
                }
            } else if said.is_empty() {
                wrong.push(format!(
                    "{spec}: tool `{t}` (extracted: accepted, never given) passes without a word"
                ));
            }
        }
        for (i, m) in aliases.iter().enumerate() {
            for (p, _, r, msg) in &found {
                if p.ends_with(&format!("model-{i}.md")) && r.contains("model") {
                    wrong.push(format!(
                        "{spec}: model `{m}` (extracted: an alias): {r}: {msg}"
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "pwk lint disagrees with the hosts' own artifacts (fix the profile in \
         schemas/hosts/):\n{}",
        wrong.join("\n")
    );
}

/// The contributing guide's worked drift example is the real output of the command
/// it shows (an older pinned version's extraction, Gemini CLI 0.56.0, against the
/// newest profile, `gemini@0.61`), not a hand-typed copy: each output line is the
/// block's `# ` comment line. `PWK_WRITE_DOCS=1` rewrites the block.
#[test]
fn the_contributing_guides_drift_example_is_the_real_output() {
    let Some(py) = python() else { return };
    const COMMAND: &str = "scripts/host-extract/compare.py --profile gemini@0.61 schemas/extracted/gemini@0.56.0.json";
    let out = run(Command::new(py)
        .current_dir(repo_root())
        .args(COMMAND.split(' ')));
    assert_eq!(out.code, 1, "an older version differs: {}", out.stdout);
    let mut block = format!("```sh\n{COMMAND}\n");
    for line in out.stdout.lines() {
        block.push_str(&format!("# {line}\n").replace("# \n", "#\n"));
    }
    block.push_str(&format!("# (exit {})\n```\n", out.code));
    let path = repo_root().join("docs/src/contributing.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text
        .find(&format!("```sh\n{COMMAND}\n"))
        .expect("the guide shows the drift example");
    let end = start + text[start..].find("\n```\n").expect("the block ends") + "\n```\n".len();
    if std::env::var_os("PWK_WRITE_DOCS").is_some() {
        std::fs::write(&path, format!("{}{block}{}", &text[..start], &text[end..])).unwrap();
        return;
    }
    assert_eq!(
        &text[start..end],
        block,
        "docs/src/contributing.md's drift example is not what the command prints: \
         PWK_WRITE_DOCS=1 cargo test --test cli host_extract::the_contributing"
    );
}
