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

use crate::support::{repo_root, run};

/// Whether a missing tool must fail the test (CI) rather than skip it.
fn required() -> bool {
    std::env::var("PWK_TEST_REQUIRE_PI").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `python3`, or `None` (after saying why) when there is none and it is not required.
fn python() -> Option<PathBuf> {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !required(),
            "CI: python3 is needed to compare the host profiles with their extractions"
        );
        eprintln!("SKIPPING host-extract test: no python3");
        return None;
    }
    Some(PathBuf::from("python3"))
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

/// The provisioned artifacts (scripts/provision-hosts.sh) still say what the committed
/// extractions say: each extractor runs again and its output must be the committed
/// file, byte for byte.
#[test]
fn extractions_are_current() {
    let Some(py) = python() else { return };
    let hosts_root = std::env::var_os("PWK_TEST_HOST_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".host-test"));
    let provisioned = |rel: &str| hosts_root.join(rel).exists();
    let hosts: [(&str, &str); 7] = [
        (
            "claude-code",
            "cli/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
        ),
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
            eprintln!("SKIPPING extraction of {host}: not provisioned");
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
