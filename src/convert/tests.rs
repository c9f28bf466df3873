//! Conversions, unit by unit: each host's spelling of a setting, tool names both
//! ways, model names, identity and file names.

use super::*;
use crate::host::HostId;

fn spec(s: &str) -> &'static HostProfile {
    s.parse::<crate::host::HostSpec>()
        .unwrap()
        .profile()
        .unwrap()
}

fn convert(path: &str, text: &str, from: &str, to: &str, map: &[(&str, &str)]) -> Conversion {
    let doc = RoleDoc::parse(PathBuf::from(path), text.as_bytes());
    let opts = ConvertOptions {
        to: spec(to),
        model_map: map
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
    };
    convert_doc(&doc, spec(from), &opts).unwrap()
}

fn item<'a>(c: &'a Conversion, key: &str) -> &'a Item {
    c.items
        .iter()
        .find(|i| i.key == key)
        .unwrap_or_else(|| panic!("no item {key}: {:#?}", c.items))
}

const CLAUDE: &str = "---\nname: reviewer\ndescription: \"Reviews: diffs, carefully\"\ntools: Read, Grep, Glob, LS, Bash, MultiEdit, Edit, WebFetch, mcp__github__get_issue\ndisallowedTools: Write\nmodel: sonnet\nmaxTurns: 12\neffort: high\ncolor: cyan\npermissionMode: plan\nhooks:\n  Stop:\n    - command: echo done\n---\n\nYou review.\n";

#[test]
fn claude_code_to_tintinweb_maps_keys_tools_and_reports_losses() {
    let c = convert(
        ".claude/agents/reviewer.md",
        CLAUDE,
        "claude-code",
        "tintinweb",
        &[],
    );
    assert_eq!(c.file_name, "reviewer.md");
    assert!(
        c.text
            .contains("\ntools: read, grep, find, ls, bash, edit\n"),
        "{}",
        c.text
    );
    assert!(c.text.contains("\ndisallowed_tools: write\n"), "{}", c.text);
    assert!(c.text.contains("\nmax_turns: 12\n"), "{}", c.text);
    assert!(c.text.contains("\nthinking: high\n"), "{}", c.text);
    assert!(
        c.text
            .contains("description: \"Reviews: diffs, carefully\"\n"),
        "{}",
        c.text
    );
    assert!(c.text.ends_with("---\n\nYou review.\n"), "{}", c.text);
    assert!(
        !c.text.contains("model:"),
        "an unmapped alias is left out: {}",
        c.text
    );
    assert_eq!(item(&c, "model").outcome, Outcome::Decision);
    assert_eq!(item(&c, "tools: WebFetch").outcome, Outcome::Dropped);
    assert_eq!(
        item(&c, "tools: mcp__github__get_issue").outcome,
        Outcome::Dropped
    );
    assert_eq!(item(&c, "permissionMode").outcome, Outcome::Dropped);
    assert_eq!(item(&c, "hooks").outcome, Outcome::Dropped);
    assert_eq!(item(&c, "color").outcome, Outcome::Converted);
    assert!(c.lint_errors().next().is_none(), "{:#?}", c.lint);
}

#[test]
fn model_aliases_map_and_ids_gain_or_lose_their_provider() {
    let c = convert(
        ".claude/agents/r.md",
        CLAUDE,
        "claude-code",
        "nicobailon",
        &[("sonnet", "anthropic/claude-sonnet-4-5")],
    );
    assert!(
        c.text.contains("\nmodel: anthropic/claude-sonnet-4-5\n"),
        "{}",
        c.text
    );
    assert!(c.text.contains("\nexcludeTools: write\n"), "{}", c.text);
    let id = CLAUDE.replace("model: sonnet", "model: claude-sonnet-4-20250514");
    let c = convert(".claude/agents/r.md", &id, "claude-code", "herdr", &[]);
    assert!(
        c.text
            .contains("\nmodel: anthropic/claude-sonnet-4-20250514\n"),
        "{}",
        c.text
    );
    assert!(c.text.contains("\ndeny-tools: write\n"), "{}", c.text);
    let back = convert(
        ".pi/agents/reviewer.md",
        &c.text,
        "herdr",
        "claude-code",
        &[],
    );
    assert!(
        back.text.contains("\nmodel: claude-sonnet-4-20250514\n"),
        "{}",
        back.text
    );
    let inherit = CLAUDE.replace("model: sonnet", "model: inherit");
    let c = convert(
        ".claude/agents/r.md",
        &inherit,
        "claude-code",
        "tintinweb",
        &[],
    );
    assert!(!c.text.contains("model:"));
    assert_eq!(item(&c, "model").outcome, Outcome::Converted);
}

#[test]
fn identity_follows_the_target() {
    // tintinweb 0.14 names roles by file: `name` is dropped, the file renamed.
    let text = "---\nname: api-graphql\ndescription: d\ntools: Read\n---\nbody\n";
    let c = convert(
        ".claude/agents/graphql.md",
        text,
        "claude-code",
        "tintinweb@0.14",
        &[],
    );
    assert_eq!(c.file_name, "api-graphql.md");
    assert!(!c.text.contains("name:"), "{}", c.text);
    assert_eq!(item(&c, "name").outcome, Outcome::Dropped);
    // Back to Claude Code: the stem becomes `name`.
    let back = convert(
        ".pi/agents/api-graphql.md",
        &c.text,
        "tintinweb@0.14",
        "claude-code",
        &[],
    );
    assert!(
        back.text.starts_with("---\nname: api-graphql\n"),
        "{}",
        back.text
    );
    assert!(back.text.contains("\ntools: Read\n"), "{}", back.text);
}

#[test]
fn a_specifier_is_a_decision_not_a_wider_tool() {
    let text = "---\nname: g\ndescription: d\ntools: Read, Bash(git *)\n---\n";
    let c = convert(".claude/agents/g.md", text, "claude-code", "tintinweb", &[]);
    assert!(c.text.contains("\ntools: read\n"), "{}", c.text);
    assert_eq!(item(&c, "tools: Bash(git *)").outcome, Outcome::Decision);
}

#[test]
fn pi_hosts_convert_between_each_other() {
    let text = "---\nname: scout\ndescription: Finds things.\ntools: read, grep, find, ls\ndisallowed_tools: bash\nmax_turns: 8\nprompt_mode: append\nthinking: low\nmodel: anthropic/claude-haiku-4-5\n---\nGo.\n";
    let c = convert(".pi/agents/scout.md", text, "tintinweb", "nicobailon", &[]);
    assert!(c.text.contains("\nexcludeTools: bash\n"), "{}", c.text);
    assert!(
        c.text.contains("\nsystemPromptMode: append\n"),
        "{}",
        c.text
    );
    assert!(
        c.text.contains("\nmodel: anthropic/claude-haiku-4-5\n"),
        "{}",
        c.text
    );
    assert_eq!(item(&c, "max_turns").outcome, Outcome::Dropped);
    let h = convert(".pi/agents/scout.md", &c.text, "nicobailon", "herdr", &[]);
    assert!(h.text.contains("\ndeny-tools: bash\n"), "{}", h.text);
    assert!(h.text.contains("\nsystem-prompt: append\n"), "{}", h.text);
    assert!(c.lint_errors().next().is_none() && h.lint_errors().next().is_none());
    let _ = HostId::Herdr;
}
