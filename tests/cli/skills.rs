//! `unknown-skill`: a name in `skills:` is looked up in the skill directories the
//! host reads (its profile's `skill_dirs`), from the project root, HOME and pi's
//! agent directory; a miss is a warning with the one did-you-mean.

use crate::support::{TestEnv, lint_doc, of_rule};
use serde_json::Value;

fn lint(env: &TestEnv, host: &str) -> Value {
    lint_doc(env, &["--host", host])
}

fn skill_findings(doc: &Value) -> Vec<(String, String)> {
    of_rule(doc, "unknown-skill")
        .into_iter()
        .map(|d| {
            (
                d["message"].as_str().unwrap().to_string(),
                d["help"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn role(skills: &str) -> String {
    format!(
        "---\nname: reader\ndescription: Reads PDF reports.\ntools: read, grep, find, ls\nskills: {skills}\n---\nSummarise.\n"
    )
}

#[test]
fn a_misspelt_skill_is_a_warning_with_did_you_mean() {
    let env = TestEnv::new();
    env.write(
        ".pi/skills/pdf-tools/SKILL.md",
        "---\nname: pdf-tools\n---\n",
    );
    env.write(".pi/agents/reader.md", role("pdf-tool"));
    for host in ["pwk", "tintinweb", "nicobailon", "herdr"] {
        let doc = lint(&env, host);
        let f = skill_findings(&doc);
        assert_eq!(f.len(), 1, "{host}: {doc:#}");
        assert!(f[0].0.contains("`pdf-tool` in `skills`"), "{host}: {f:?}");
        assert_eq!(f[0].1, "did you mean `pdf-tools`?", "{host}");
        assert_eq!(doc["summary"]["errors"], 0, "{host}: a warning only");
    }
}

#[test]
fn skills_that_exist_where_the_host_reads_them_are_clean() {
    let env = TestEnv::new();
    env.write(
        ".pi/skills/pdf-tools/SKILL.md",
        "---\nname: pdf-tools\n---\n",
    );
    env.write(".pi/skills/group/nested/SKILL.md", "x");
    env.write(".pi/skills/flat.md", "x");
    env.write(
        "home/.pi/agent/skills/global-one/SKILL.md",
        "---\nname: global-one\n---\n",
    );
    env.write(
        ".pi/agents/reader.md",
        role("pdf-tools, nested, flat, global-one"),
    );
    for host in ["pwk", "tintinweb", "nicobailon", "herdr"] {
        let doc = lint(&env, host);
        assert_eq!(
            skill_findings(&doc),
            Vec::<(String, String)>::new(),
            "{host}"
        );
    }
    // tintinweb's switches are not skill names.
    env.write(".pi/agents/reader.md", role("none"));
    assert!(skill_findings(&lint(&env, "tintinweb@0.14")).is_empty());
}

/// tintinweb also reads `~/.pi/skills/` (its legacy location) and flat files in
/// `.agents/skills/`; pi (herdr) reads neither.
#[test]
fn each_host_reads_its_own_skill_directories() {
    let env = TestEnv::new();
    env.write("home/.pi/skills/legacy/SKILL.md", "x");
    env.write(".agents/skills/flat-agents.md", "x");
    env.write(".pi/agents/reader.md", role("legacy, flat-agents"));
    assert!(skill_findings(&lint(&env, "tintinweb")).is_empty());
    let herdr = skill_findings(&lint(&env, "herdr"));
    assert_eq!(herdr.len(), 2, "{herdr:?}");
    assert!(herdr[0].0.contains("herdr@"), "{herdr:?}");
    // Claude Code reads `.claude/skills/`, not pi's directories.
    env.write(".claude/skills/legacy/SKILL.md", "x");
    env.write(
        ".claude/agents/reader.md",
        "---\nname: reader\ndescription: Reads.\nskills: legacy, flat-agents\n---\nRead.\n",
    );
    let claude: Vec<String> = skill_findings(&lint(&env, "claude-code"))
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    assert!(claude.iter().all(|m| !m.contains("`legacy`")), "{claude:?}");
    assert!(
        claude.iter().any(|m| m.contains("`flat-agents`")),
        "{claude:?}"
    );
}

/// A symlink in a skill directory is not followed, and a FIFO named `SKILL.md` is
/// never opened (lint returns).
#[test]
fn skill_lookup_follows_no_symlink_and_opens_nothing() {
    let env = TestEnv::new();
    env.write("elsewhere/outside/SKILL.md", "x");
    std::fs::create_dir_all(env.path(".pi/skills/fifo")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        env.path(".pi/skills/fifo/SKILL.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::os::unix::fs::symlink(
        env.path("elsewhere/outside"),
        env.path(".pi/skills/outside"),
    )
    .unwrap();
    env.write(".pi/agents/reader.md", role("outside, fifo"));
    let f = skill_findings(&lint(&env, "pwk"));
    assert_eq!(f.len(), 2, "{f:?}");
}
