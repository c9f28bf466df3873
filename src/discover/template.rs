//! `pwk new`: the complete authoring template.
//!
//! Every key of the documented schema (`schemas/role.schema.json`) appears: the
//! ones the kind needs are set, the rest are commented out, each under a one-line
//! explanation taken from the schema itself, so the template can never drift from
//! what `pwk lint` checks. The body carries the report contract every role needs.

use crate::role::schema;

/// What kind of role to scaffold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// One bounded responsibility; never spawns; read-only tools.
    Leaf,
    /// Owns a multi-stage child session; may delegate.
    Coordinator,
    /// A hidden runtime adapter for an external CLI, invoked by exact name only.
    Adapter,
}

impl Kind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Leaf => "leaf",
            Kind::Coordinator => "coordinator",
            Kind::Adapter => "adapter",
        }
    }
}

/// Why a role name is not a slug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{name}` is not a valid role name: {reason}{}", .suggestion.as_ref().map(|s| format!(" (try `{s}`)")).unwrap_or_default())]
pub(crate) struct NameError {
    pub name: String,
    pub reason: &'static str,
    pub suggestion: Option<String>,
}

/// The longest role name accepted.
pub(crate) const MAX_NAME_LEN: usize = 64;

/// Check that `name` is a slug: lowercase letters and digits in hyphen-separated words.
pub(crate) fn validate_name(name: &str) -> Result<(), NameError> {
    let fail = |reason| {
        Err(NameError {
            name: name.to_string(),
            reason,
            suggestion: suggest(name),
        })
    };
    if name.is_empty() {
        return fail("it is empty");
    }
    if name.ends_with(".md") {
        return fail("give the name without `.md`; the file is named after it");
    }
    if name.contains('/') || name.contains('\\') {
        return fail("it contains a path separator; use --dir to choose the directory");
    }
    if name.len() > MAX_NAME_LEN {
        return fail("it is longer than 64 characters");
    }
    if name.chars().any(|c| c.is_ascii_uppercase()) {
        return fail("it has uppercase letters; role names are lowercase");
    }
    if name
        .chars()
        .any(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
    {
        return fail("only lowercase letters, digits and hyphens are allowed");
    }
    if name.starts_with('-') || name.ends_with('-') {
        return fail("it starts or ends with a hyphen");
    }
    if name.contains("--") {
        return fail("it has two hyphens in a row");
    }
    Ok(())
}

/// A slug close to `name`, if one can be made.
fn suggest(name: &str) -> Option<String> {
    let base = name.strip_suffix(".md").unwrap_or(name);
    let base = base.rsplit(['/', '\\']).next().unwrap_or(base);
    let mut out = String::new();
    for c in base.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out
        .trim_end_matches('-')
        .chars()
        .take(MAX_NAME_LEN)
        .collect::<String>();
    let out = out.trim_end_matches('-').to_string();
    (!out.is_empty() && out != name && validate_plain(&out)).then_some(out)
}

fn validate_plain(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Keys in template order; schema keys not listed here follow alphabetically.
const ORDER: &[&str] = &[
    "name",
    "description",
    "tools",
    "deny-tools",
    "model",
    "thinking",
    "max_turns",
    "skills",
    "skill",
    "spawning",
    "auto-exit",
    "interactive",
    "session-mode",
    "system-prompt",
    "systemPromptMode",
    "cwd",
    "cli",
    "cli-model",
    "disable-model-invocation",
];

/// The value a key is set to for a kind (`None`: commented out).
fn active_value(kind: Kind, key: &str, name: &str) -> Option<String> {
    match (kind, key) {
        (_, "name") => Some(name.to_string()),
        (Kind::Leaf, "description") => {
            Some("Takes one bounded task and returns a report with file:line evidence.".to_string())
        }
        (Kind::Coordinator, "description") => Some(
            "Splits a multi-stage task across leaf roles and returns one integrated report."
                .to_string(),
        ),
        (Kind::Adapter, "description") => Some(
            "Runs one task on an external CLI and returns its report (internal adapter)."
                .to_string(),
        ),
        (_, "tools") => Some("read, grep, find, ls".to_string()),
        (Kind::Leaf, "spawning") => Some("false".to_string()),
        (Kind::Coordinator, "spawning") => Some("true".to_string()),
        (Kind::Adapter, "cli") => Some("claude".to_string()),
        (Kind::Adapter, "cli-model") => Some("sonnet".to_string()),
        (Kind::Adapter, "disable-model-invocation") => Some("true".to_string()),
        _ => None,
    }
}

/// An example value for a commented-out key.
fn example_value(key: &str, spec: &serde_json::Value) -> String {
    let known = match key {
        "deny-tools" => Some("bash"),
        "model" => Some("anthropic/claude-haiku-4-5"),
        "thinking" => Some("low"),
        "max_turns" => Some("20"),
        "skills" | "skill" => Some("my-skill"),
        "spawning" | "auto-exit" | "interactive" | "disable-model-invocation" => Some("false"),
        "session-mode" => Some("standalone"),
        "system-prompt" => Some("replace"),
        "systemPromptMode" => Some("replace"),
        "cwd" => Some("."),
        "cli" => Some("claude"),
        "cli-model" => Some("sonnet"),
        _ => None,
    };
    if let Some(v) = known {
        return v.to_string();
    }
    // A key added to the schema later: derive something valid from its type.
    if let Some(first) = spec["enum"].as_array().and_then(|e| e.first()) {
        return match first {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    let ty = spec["type"]
        .as_str()
        .or_else(|| spec["oneOf"][0]["type"].as_str());
    match ty {
        Some("boolean") => "false".to_string(),
        Some("integer") | Some("number") => {
            spec["minimum"].as_i64().unwrap_or(1).max(1).to_string()
        }
        _ => "value".to_string(),
    }
}

/// The first sentence of a schema description, plus the allowed values of an enum.
fn explanation(spec: &serde_json::Value) -> String {
    let desc = spec["description"].as_str().unwrap_or("");
    let mut first = first_sentence(desc).to_string();
    if let Some(values) = spec["enum"].as_array() {
        let list: Vec<String> = values
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            })
            .collect();
        let joined = list.join(", ");
        if !first.contains(&joined) {
            first = format!("{} One of: {joined}.", first.trim_end());
        }
    }
    first
}

fn first_sentence(s: &str) -> &str {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(off) = s[i..].find(". ") {
        let end = i + off;
        let before = &s[..end];
        let abbrev = ["e.g", "i.e", "etc", "vs"]
            .iter()
            .any(|a| before.ends_with(a));
        // Not inside backticks.
        let ticks = before.bytes().filter(|&b| b == b'`').count();
        if !abbrev && ticks % 2 == 0 {
            return &s[..=end];
        }
        i = end + 2;
        if i >= bytes.len() {
            break;
        }
    }
    s
}

/// The complete template for a new role.
pub(crate) fn render(name: &str, kind: Kind) -> String {
    let schema = schema::schema();
    let props = schema["properties"].as_object();
    let mut keys: Vec<&str> = ORDER
        .iter()
        .copied()
        .filter(|k| props.is_some_and(|p| p.contains_key(*k)))
        .collect();
    if let Some(p) = props {
        for k in p.keys() {
            if !keys.contains(&k.as_str()) {
                keys.push(k.as_str());
            }
        }
    }
    let kind_line = match kind {
        Kind::Leaf => "A leaf role: one bounded responsibility; it never spawns other agents.",
        Kind::Coordinator => "A coordinator role: it may delegate bounded sub-tasks to leaf roles.",
        Kind::Adapter => {
            "A runtime adapter: runs on an external CLI, hidden from task discovery, invoked by exact name."
        }
    };
    let mut fm = String::new();
    fm.push_str("---\n");
    fm.push_str(&format!("# {kind_line}\n"));
    fm.push_str("# Written by `pwk new`: every documented key is listed; keys you do not need\n");
    fm.push_str(
        "# stay commented out. Replace the description and the body with your role's own,\n",
    );
    fm.push_str(&format!(
        "# then check the file with `pwk lint` and `pwk show {name}`.\n"
    ));
    for key in keys {
        let spec = &schema["properties"][key];
        fm.push('\n');
        fm.push_str(&format!("# {}\n", explanation(spec)));
        match active_value(kind, key, name) {
            Some(v) => fm.push_str(&format!("{key}: {v}\n")),
            None => fm.push_str(&format!("# {key}: {}\n", example_value(key, spec))),
        }
    }
    fm.push_str("---\n");
    fm.push_str(&body(name, kind));
    fm
}

/// The template for a host with its own CLI (Claude Code, OpenCode, Gemini CLI,
/// Copilot CLI), from [`render`]'s converted to that host (`converted`: its keys in
/// that host's spelling, pi's comments still in it). pi's commented-out keys give
/// way to the keys this host reads, each under the host's own note; a host that
/// controls tools with a permission map and got no `tools` (OpenCode) gets a
/// read-only map. The body is kept.
pub(crate) fn for_host(
    converted: &str,
    name: &str,
    kind: Kind,
    host: &crate::host::HostProfile,
) -> String {
    let Some(rest) = converted.strip_prefix("---\n") else {
        return converted.to_string();
    };
    let Some(close) = rest.find("\n---\n") else {
        return converted.to_string();
    };
    let (fm, tail) = (&rest[..=close], &rest[close + 1..]);
    // The keys set (and their continuation lines), without pi's comments.
    let active: Vec<&str> = fm
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let set: Vec<&str> = active
        .iter()
        .filter(|l| !l.starts_with([' ', '-']))
        .filter_map(|l| l.split(':').next())
        .collect();
    let label = host.label();
    let what = match kind {
        Kind::Leaf => "a leaf role: one bounded responsibility; it never spawns other agents",
        Kind::Coordinator => "a coordinator role: it may delegate bounded sub-tasks to leaf roles",
        Kind::Adapter => "a runtime adapter",
    };
    let mut out = String::from("---\n");
    for line in wrap_comment(&format!(
        "For {label}, {what}. Written by `pwk new --host {}`: the keys it needs are set; the other keys {label} reads follow, commented out. Replace the description and the body with your role's own, then check the file with `pwk lint` and `pwk show {name}`.",
        host.as_str()
    )) {
        out.push_str(&line);
    }
    for l in &active {
        out.push_str(l);
        out.push('\n');
    }
    let mut shown: Vec<&str> = set.clone();
    if !set
        .iter()
        .any(|k| ["tools", "permission", "permissions"].contains(k))
        && host.reads("permission")
    {
        for line in wrap_comment(&format!(
            "Read-only: {label}'s permission map lets it neither edit files nor run commands."
        )) {
            out.push_str(&line);
        }
        out.push_str("permission:\n  edit: deny\n  bash: deny\n");
        shown.push("permission");
    }
    let others: Vec<(&&str, &crate::host::KeyFact)> = host
        .keys
        .iter()
        .filter(|(k, _)| !shown.contains(*k))
        .map(|(k, f)| (k, &**f))
        .collect();
    if !others.is_empty() {
        out.push('\n');
        for line in wrap_comment(&format!("Other keys {label} reads:")) {
            out.push_str(&line);
        }
        for (key, fact) in others {
            let mut text = format!("{key}: {}", fact.note.unwrap_or("(no note)"));
            if let Some(d) = &fact.default {
                text.push_str(&format!(" (absent: {d})"));
            }
            for line in wrap_comment(&text) {
                out.push_str(&line);
            }
        }
    }
    out.push_str(tail);
    out
}

/// `text` as `# ` comment lines of at most 88 columns, continuation lines indented.
fn wrap_comment(text: &str) -> Vec<String> {
    crate::text::wrap_words(text, 86)
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("# {l}\n")
            } else {
                format!("#   {l}\n")
            }
        })
        .collect()
}

fn title(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn body(name: &str, kind: Kind) -> String {
    let title = title(name);
    let (statement, authority) = match kind {
        Kind::Leaf => (
            "You own one bounded responsibility: replace this paragraph with what it is, what you \
             take as input and what you hand back.",
            "You are read-only: do not create, modify, delete or move files, and do not change any \
             other state. The host enforces this through `tools`; if a task needs a change, say so \
             in your report instead of making it.",
        ),
        Kind::Coordinator => (
            "You coordinate one multi-stage task: replace this paragraph with the outcome you own, \
             the stages, and which leaf roles you delegate to.",
            "You may delegate bounded, independent sub-tasks to leaf roles by exact name, each with \
             its goal, scope and expected report. You keep the judgment, the integration and the \
             final verification; never delegate your own decision.",
        ),
        Kind::Adapter => (
            "You run one task on an external CLI runtime (`cli`, model `cli-model`) for a workflow \
             that asked for it by exact name. Replace this paragraph with what the workflow expects.",
            "You are an internal adapter: hidden from task discovery (`disable-model-invocation: \
             true`) and invoked by exact name only. Stay within the scope the caller gives you; \
             state it if the runtime is unavailable rather than falling back silently.",
        ),
    };
    let statement = crate::text::wrap_words(statement, 92).join("\n");
    let authority = crate::text::wrap_words(authority, 92).join("\n");
    format!(
        "# {title}

{statement}

## Inputs

- What the task must supply (paths, a diff, acceptance criteria). If something is missing,
  say what and stop instead of guessing.

## Authority boundary

{authority}

## Report contract

Your final message is the report. It must contain:

- **Result**: the outcome in one or two sentences.
- **Evidence**: every claim cites `file:line`.
- **Not covered**: what you could not check, and why.

If there is nothing to report, say `No findings` explicitly: an empty or missing report is not
a valid outcome.

## When you finish

End with the report as your final message. Do not ask follow-up questions.
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::role::{Role, RoleDoc};

    #[test]
    fn every_kind_is_valid_against_the_schema_and_reader() {
        for kind in [Kind::Leaf, Kind::Coordinator, Kind::Adapter] {
            let text = render("my-role", kind);
            let doc = RoleDoc::parse("my-role.md", text.as_bytes());
            assert_eq!(
                crate::discover::first_problem(&doc, crate::host::HostId::Pwk.newest()),
                None,
                "{kind:?}:\n{text}"
            );
            let json = doc.mapping().unwrap().to_json();
            let errors: Vec<String> = schema::validator()
                .iter_errors(&json)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{kind:?}: {errors:?}\n{text}");
            let role = Role::from_doc(&doc).unwrap();
            assert_eq!(role.name.as_deref(), Some("my-role"));
            assert_eq!(doc.stem(), Some("my-role"));
            for key in schema::known_keys() {
                assert!(
                    text.contains(&format!("{key}: ")),
                    "{kind:?}: {key} missing from the template"
                );
            }
            assert!(text.contains("## Report contract"));
        }
    }

    #[test]
    fn kinds_set_their_keys() {
        let leaf =
            Role::from_doc(&RoleDoc::parse("a.md", render("a", Kind::Leaf).as_bytes())).unwrap();
        assert_eq!(leaf.spawning, Some(false));
        assert_eq!(
            leaf.tools.as_deref().unwrap(),
            ["read", "grep", "find", "ls"]
        );
        let coord = Role::from_doc(&RoleDoc::parse(
            "a.md",
            render("a", Kind::Coordinator).as_bytes(),
        ))
        .unwrap();
        assert_eq!(coord.spawning, Some(true));
        let adapter = Role::from_doc(&RoleDoc::parse(
            "a.md",
            render("a", Kind::Adapter).as_bytes(),
        ))
        .unwrap();
        assert!(adapter.disable_model_invocation);
        assert_eq!(adapter.cli.as_deref(), Some("claude"));
        assert_eq!(adapter.cli_model.as_deref(), Some("sonnet"));
        assert_eq!(adapter.model, None);
    }

    #[test]
    fn names_must_be_slugs() {
        assert!(validate_name("pwk-spec-reviewer").is_ok());
        assert!(validate_name("a1").is_ok());
        let e = validate_name("My Role").unwrap_err();
        assert_eq!(e.suggestion.as_deref(), Some("my-role"));
        assert!(
            validate_name("x.md")
                .unwrap_err()
                .to_string()
                .contains("without `.md`")
        );
        assert!(validate_name("").is_err());
        assert!(validate_name("-a").is_err());
        assert!(validate_name("a--b").is_err());
        assert!(
            validate_name("a_b")
                .unwrap_err()
                .to_string()
                .contains("try `a-b`")
        );
        assert!(validate_name("dir/a").is_err());
        assert!(validate_name(&"a".repeat(65)).is_err());
    }

    #[test]
    fn first_sentence_skips_abbreviations() {
        assert_eq!(
            first_sentence("A hint (e.g. `x`). More."),
            "A hint (e.g. `x`)."
        );
        assert_eq!(first_sentence("One. Two."), "One.");
        assert_eq!(first_sentence("No stop"), "No stop");
    }
}
