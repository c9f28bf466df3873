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
    let dir = PathBuf::from(path).parent().unwrap().to_path_buf();
    convert_to(
        &doc,
        spec(from),
        &opts,
        &Destination::Dir(dir),
        default_settings,
    )
    .unwrap()
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
    // `permissionMode: plan` is read-only: no edits, and Bash only for commands
    // that change nothing, which tintinweb cannot say: Bash is left out (a
    // decision), Edit and MultiEdit too (plan mode refuses them anyway).
    assert!(
        c.text.contains("\ntools: read, grep, find, ls\n"),
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
    assert_eq!(item(&c, "permissionMode").outcome, Outcome::Decision);
    assert!(
        c.items
            .iter()
            .any(|i| i.outcome == Outcome::Decision && i.note.starts_with("bash left out")),
        "{:#?}",
        c.items
    );
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

fn convert_at(
    path: &str,
    text: &str,
    from: &str,
    to: &str,
    dest: Destination,
) -> Result<Conversion, ConvertError> {
    let doc = RoleDoc::parse(PathBuf::from(path), text.as_bytes());
    let opts = ConvertOptions {
        to: spec(to),
        model_map: BTreeMap::new(),
    };
    convert_to(&doc, spec(from), &opts, &dest, default_settings).map_err(|e| match e {
        ConvertOrSettingsError::Convert(e) => e,
        ConvertOrSettingsError::Settings(never) => match never {},
    })
}

/// No project configuration: every rule at its own severity.
fn default_settings(
    _: &std::path::Path,
) -> Result<crate::lint::FileSettings, std::convert::Infallible> {
    Ok(crate::lint::FileSettings::default())
}

/// The output's frontmatter, read back by pwk's own parser.
fn frontmatter(c: &Conversion) -> serde_json::Value {
    let doc = RoleDoc::parse(PathBuf::from("out.md"), c.text.as_bytes());
    match &doc.tree {
        Some(Ok(t)) => t.to_json(),
        other => panic!("the output does not parse: {other:?}\n{}", c.text),
    }
}

#[test]
fn a_flow_mapping_frontmatter_converts_from_its_values() {
    // Lint calls this file clean; convert used to panic on it.
    let text = "---\n{name: rev, description: \"Reviews: diffs # carefully\", tools: [Read, Grep], maxTurns: 5}\n---\nBody.\n";
    let c = convert(
        ".claude/agents/rev.md",
        text,
        "claude-code",
        "tintinweb",
        &[],
    );
    let fm = frontmatter(&c);
    assert_eq!(fm["name"], "rev", "{}", c.text);
    assert_eq!(
        fm["description"], "Reviews: diffs # carefully",
        "{}",
        c.text
    );
    assert_eq!(fm["tools"], "read, grep", "{}", c.text);
    assert_eq!(fm["max_turns"], 5, "{}", c.text);
    assert!(!c.text.contains('{') && !c.text.contains('}'), "{}", c.text);
    assert!(c.text.ends_with("---\nBody.\n"));
}

#[test]
fn values_that_need_quotes_are_quoted_in_the_output() {
    for value in ["*", "yes", "a: b", "x #y", "[x]", "&a", "12", " padded "] {
        let text = format!(
            "---\nname: q\ndescription: {}\nmodel: anthropic/claude-haiku-4-5\n---\n",
            serde_json::to_string(value).unwrap()
        );
        let c = convert(".pi/agents/q.md", &text, "tintinweb", "nicobailon", &[]);
        assert_eq!(frontmatter(&c)["description"], value, "{}", c.text);
    }
    let text = "---\nname: q\ndescription: '*'\n---\n";
    let c = convert(".pi/agents/q.md", text, "tintinweb", "nicobailon", &[]);
    assert!(c.text.contains("\ndescription: \"*\"\n"), "{}", c.text);
}

#[test]
fn nicobailon_star_is_no_tool_and_never_becomes_every_tool() {
    // On nicobailon `*` names no tool (the child gets only its own tools); on
    // tintinweb `*` is all seven built-ins.
    let text = "---\nname: s\ndescription: d\ntools: \"*\"\n---\n";
    let c = convert(".pi/agents/s.md", text, "nicobailon", "tintinweb", &[]);
    let fm = frontmatter(&c);
    assert_eq!(fm["tools"], "none", "{}", c.text);
    let star = item(&c, "tools: *");
    assert_eq!(star.outcome, Outcome::Dropped, "{star:?}");
    assert!(
        !c.items
            .iter()
            .any(|i| i.note == "as written" && i.key.starts_with("tools"))
    );
    // herdr has no word for no tools: denying its built-ins still leaves pi's MCP
    // tools, so the file would widen the role (a decision; it is not written).
    let h = convert(".pi/agents/s.md", text, "nicobailon", "herdr", &[]);
    assert!(
        h.widening()
            .any(|i| i.key == "tools" && i.note.contains("every MCP tool")),
        "{:#?}",
        h.items
    );
    // tintinweb's own `*` is every built-in: listed by name for nicobailon.
    let t = convert(".pi/agents/s.md", text, "tintinweb", "nicobailon", &[]);
    assert_eq!(
        frontmatter(&t)["tools"],
        "read, bash, edit, write, grep, find, ls"
    );
}

#[test]
fn opencode_gets_its_permission_ruleset() {
    // The tool limit is written as OpenCode's `permission` ruleset: everything
    // denied, then the tools the source grants allowed (`LS` is no tool on Claude
    // Code 2.1, so OpenCode's `list` is not allowed either).
    let text = "---\nname: reviewer\ndescription: Reviews.\ntools: Read, Grep, Glob, LS\n---\n";
    let c = convert(
        ".claude/agents/reviewer.md",
        text,
        "claude-code",
        "opencode",
        &[],
    );
    assert!(c.widening().next().is_none(), "{:#?}", c.items);
    assert!(
        c.text.contains(
            "\npermission:\n  \"*\": deny\n  read: allow\n  grep: allow\n  glob: allow\n---"
        ),
        "{}",
        c.text
    );
    // Denials: `permission: {bash: deny, edit: deny}` (Write and Edit share
    // OpenCode's `edit` permission).
    let text = "---\nname: w\ndescription: d\ndisallowedTools: Bash, Write, Edit\n---\n";
    let c = convert(".claude/agents/w.md", text, "claude-code", "opencode", &[]);
    assert!(
        c.text
            .contains("\npermission:\n  bash: deny\n  edit: deny\n---"),
        "{}",
        c.text
    );
    // Calls that ask on the source ask on OpenCode.
    let text = "---\nname: a\ndescription: d\ntools: Read, Bash\npermissionMode: default\n---\n";
    let c = convert(".claude/agents/a.md", text, "claude-code", "opencode", &[]);
    assert!(c.text.contains("\n  bash: ask\n"), "{}", c.text);
    assert_eq!(c.count(Outcome::Decision), 0, "{:#?}", c.items);
}

#[test]
fn opencode_denials_carry_over_never_dropped() {
    // N3: `tools: {write: false, bash: false}` is OpenCode's `edit` and `bash`
    // denied: the target denies them too.
    let text = "---\ndescription: d\ntools:\n  write: false\n  bash: false\n---\nB\n";
    let c = convert(".opencode/agents/a.md", text, "opencode", "tintinweb", &[]);
    assert_eq!(
        frontmatter(&c)["disallowed_tools"],
        "bash, edit, write",
        "{}",
        c.text
    );
    let c = convert(
        ".opencode/agents/a.md",
        text,
        "opencode",
        "claude-code",
        &[],
    );
    assert_eq!(frontmatter(&c)["disallowedTools"], "Bash, Edit, Write");
    // `permission: {edit: deny}` and `{"*": false, read: true}`.
    let text = "---\ndescription: d\npermission:\n  edit: deny\n  bash: deny\n---\n";
    let c = convert(".opencode/agents/b.md", text, "opencode", "nicobailon", &[]);
    assert_eq!(frontmatter(&c)["excludeTools"], "bash, edit, write");
    let text = "---\ndescription: d\ntools:\n  \"*\": false\n  read: true\n---\n";
    let c = convert(".opencode/agents/c.md", text, "opencode", "herdr", &[]);
    assert_eq!(frontmatter(&c)["tools"], "read", "{}", c.text);
}

#[test]
fn a_tool_denied_under_one_name_stays_denied_under_another() {
    // OpenCode's `web*: false` takes webfetch and websearch away; Copilot calls both
    // `web`: a Copilot list with `web` would give them back.
    let text = "---\ndescription: d\ntools:\n  \"web*\": false\n---\nB\n";
    let c = convert(".opencode/agents/a.md", text, "opencode", "copilot", &[]);
    let tools = frontmatter(&c)["tools"].to_string();
    assert!(!tools.contains("web"), "{}", c.text);
    // Claude Code's WebSearch denied: Gemini's google_web_search is the same tool.
    let text = "---\nname: a\ndescription: d\ndisallowedTools: WebSearch\n---\nB\n";
    let c = convert(".claude/agents/a.md", text, "claude-code", "gemini", &[]);
    let fm = frontmatter(&c);
    assert!(
        !fm["tools"].to_string().contains("google_web_search"),
        "{}",
        c.text
    );
    // Claude Code's Agent denied: OpenCode's `task` is it.
    let text = "---\nname: a\ndescription: d\ndisallowedTools: Agent\n---\nB\n";
    let c = convert(".claude/agents/a.md", text, "claude-code", "opencode", &[]);
    assert_eq!(frontmatter(&c)["permission"]["task"], "deny", "{}", c.text);
}

#[test]
fn a_ruleset_that_asks_but_denies_some_calls_never_becomes_asking() {
    // `bash: {"*": ask, "git push*": deny}`: Claude Code's asking modes would let
    // the child push once someone says yes; the denial must hold or be decided.
    let text = "---\ndescription: d\npermission:\n  bash:\n    \"*\": ask\n    \"git push*\": deny\n---\nB\n";
    for to in [
        "claude-code",
        "tintinweb",
        "nicobailon",
        "gemini",
        "copilot",
    ] {
        let c = convert(".opencode/agents/a.md", text, "opencode", to, &[]);
        let fm = frontmatter(&c);
        assert!(
            fm.get("permissionMode").is_none(),
            "{to}: an asking mode stands for the denial\n{}",
            c.text
        );
        assert!(
            c.limiting().any(|i| i.note.contains("git push*")),
            "{to}: no decision names the denied calls: {:#?}",
            c.items
        );
    }
}

#[test]
fn a_key_is_never_written_twice() {
    // N19: OpenCode's `name` is also the identity the converter writes.
    let text = "---\nname: rev\ndescription: d\n---\nBody\n";
    for to in ["claude-code", "copilot", "tintinweb", "nicobailon", "herdr"] {
        let c = convert(".opencode/agents/src.md", text, "opencode", to, &[]);
        assert_eq!(c.text.matches("\nname:").count(), 1, "{to}: {}", c.text);
        frontmatter(&c);
    }
    // A different value under the same target key is reported, not written.
    let text = "---\nname: rev\ndescription: d\n---\nBody\n";
    let c = convert(
        ".opencode/agents/src.md",
        text,
        "opencode",
        "claude-code",
        &[],
    );
    assert!(
        !c.items
            .iter()
            .any(|i| i.outcome == Outcome::Dropped && i.key == "name")
    );
}

#[test]
fn an_absent_tools_key_is_what_the_source_grants() {
    // nicobailon without `tools`: read, bash, edit, write (grep, find, ls are not
    // granted); tintinweb without `tools` would give all seven.
    let text = "---\nname: w\ndescription: d\n---\n";
    let c = convert(".pi/agents/w.md", text, "nicobailon", "tintinweb", &[]);
    assert_eq!(
        frontmatter(&c)["tools"],
        "read, bash, edit, write",
        "{}",
        c.text
    );
    assert_eq!(item(&c, "tools").outcome, Outcome::Converted);
    // tintinweb → nicobailon: nicobailon's default is narrower; nothing is added.
    let n = convert(".pi/agents/w.md", text, "tintinweb", "nicobailon", &[]);
    assert!(!n.text.contains("tools"), "{}", n.text);
}

#[test]
fn comments_go_with_their_entries_or_are_reported() {
    let text = "---\n# pwk: ignore-file[unknown-key] vendor keys\nname: c\n# the reviewer's blurb\ndescription: d # short\npermissionMode: plan # Claude Code only\nmaxTurns: 4\n# model: <provider/id> — set yours\n---\n";
    let c = convert(".claude/agents/c.md", text, "claude-code", "tintinweb", &[]);
    assert!(
        c.text
            .starts_with("---\n# pwk: ignore-file[unknown-key] vendor keys\nname: c\n"),
        "{}",
        c.text
    );
    assert!(
        c.text
            .contains("\n# the reviewer's blurb\ndescription: d # short\n"),
        "{}",
        c.text
    );
    assert!(
        c.text
            .contains("\n# model: <provider/id> — set yours\n---\n"),
        "{}",
        c.text
    );
    assert!(!c.text.contains("Claude Code only"), "{}", c.text);
    let dropped = item(&c, "comment");
    assert_eq!(dropped.outcome, Outcome::Dropped);
    assert!(dropped.note.contains("Claude Code only") && dropped.note.contains("permissionMode"));
    frontmatter(&c);
}

#[test]
fn the_output_is_linted_where_it_is_written() {
    let text = "---\nname: r\ndescription: d\ntools: read\n---\n";
    let c = convert_at(
        ".pi/agents/r.md",
        text,
        "tintinweb",
        "claude-code",
        Destination::Dir(PathBuf::from(".claude/agents")),
    )
    .unwrap();
    assert!(
        c.lint.iter().all(|d| d.rule != "host-unread-directory"),
        "{:#?}",
        c.lint
    );
    // Next to the source, claude-code would not find it: that is reported.
    let there = convert_at(
        ".pi/agents/r.md",
        text,
        "tintinweb",
        "claude-code",
        Destination::Dir(PathBuf::from(".pi/agents")),
    )
    .unwrap();
    assert!(
        there.lint.iter().any(|d| d.rule == "host-unread-directory"),
        "{:#?}",
        there.lint
    );
}

#[test]
fn in_place_names_no_rename_it_does_not_do() {
    let text = "---\nname: api-graphql\ndescription: d\ntools: Read\n---\n";
    let c = convert_at(
        ".claude/agents/graphql.md",
        text,
        "claude-code",
        "tintinweb@0.14",
        Destination::InPlace,
    )
    .unwrap();
    assert_eq!(c.file_name, "graphql.md");
    let f = item(&c, "file name");
    assert_eq!(f.outcome, Outcome::Decision, "{f:?}");
    assert!(
        f.note.contains("--in-place keeps the name `graphql.md`"),
        "{f:?}"
    );
    let n = convert_at(
        ".claude/agents/graphql.md",
        text,
        "claude-code",
        "tintinweb",
        Destination::InPlace,
    )
    .unwrap();
    let f = item(&n, "file name");
    assert_eq!(f.outcome, Outcome::Converted);
    assert_eq!(f.to.as_deref(), Some("graphql.md"), "{f:?}");
}

#[test]
fn claude_code_converts_to_pi_example_with_its_four_keys() {
    // pi's example extension reads name, description, tools and model only
    // (pi-coding-agent@1.6.0 examples/extensions/subagent/agents.ts:90-98).
    let text = "---\nname: reviewer\ndescription: Reviews a diff.\ntools: Read, Grep, Glob\nmaxTurns: 12\n---\nYou review.\n";
    let c = convert(
        ".claude/agents/reviewer.md",
        text,
        "claude-code",
        "pi-example",
        &[],
    );
    let fm = frontmatter(&c);
    assert_eq!(fm["name"], "reviewer");
    assert_eq!(fm["tools"], "read, grep, find");
    assert!(fm.get("maxTurns").is_none() && fm.get("max_turns").is_none());
    assert_eq!(item(&c, "maxTurns").outcome, Outcome::Dropped);
    // And to the newest tintinweb (0.25), which still spells it `max_turns`.
    let t = convert(
        ".claude/agents/reviewer.md",
        text,
        "claude-code",
        "tintinweb@0.25",
        &[],
    );
    assert_eq!(frontmatter(&t)["max_turns"], 12);
}

/// A target that delegates only to agents with a key set (Antigravity CLI:
/// `subagent: true`) gets it, and the report says why; the tools come in its names.
#[test]
fn a_role_converted_for_antigravity_is_invocable_there() {
    let c = convert(
        ".pi/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews.\ntools: read, grep, find, ls\n---\nYou review.\n",
        "tintinweb",
        "antigravity",
        &[],
    );
    assert!(c.text.contains("\nsubagent: true\n"), "{}", c.text);
    assert!(
        c.text
            .contains("\ntools: view_file, grep_search, find_by_name, list_dir\n"),
        "{}",
        c.text
    );
    let added = item(&c, "subagent");
    assert_eq!(added.outcome, Outcome::Converted);
    assert!(added.note.contains("invoke_subagent"), "{}", added.note);
    // And what it wrote lints without `not-invocable`.
    let doc = RoleDoc::parse(
        PathBuf::from(".agents/agents/reviewer.md"),
        c.text.as_bytes(),
    );
    let found = crate::lint::lint_doc(&doc, spec("antigravity"), &Default::default());
    assert!(
        !found.iter().any(|d| d.rule == "not-invocable"),
        "{found:#?}"
    );
}
