//! `hook-outside-hooks`: a hook declaration nested under a key other than `hooks`,
//! which makes Claude Code refuse the whole agent.
//!
//! Claude Code 2.1.332 scans every top-level value except `hooks`, `metadata`,
//! `mcpServers` and `lspServers`, three levels deep, for something shaped like a
//! hook: a mapping with a `PreToolUse`, `PermissionRequest` or `PreSkillShellCommand`
//! entry, or a matcher (a mapping with a non-empty `hooks` list, or `hooks` beside a
//! `matcher`). Finding one, it logs `Agent '<name>': PreToolUse/PermissionRequest is
//! declared at the frontmatter top level, outside "hooks"` and does not load the
//! agent (oracle: Claude Code 2.1.332, `related: {hooks: [...]}`; binary 2.1.332
//! @329482319 `bwe`, @329481862 `Prt`, @329481593 `Zje`, @342477973 `nEs`).

use serde_json::Value as Json;

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "hook-outside-hooks",
    severity: Severity::Error,
    also: None,
    summary: "a hook declared outside `hooks` makes Claude Code refuse the agent",
    explanation: "Claude Code takes anything shaped like a hook (a `PreToolUse` or `PermissionRequest` entry, or a matcher with a `hooks` list) found under a top-level key other than `hooks` for a misplaced permission guard, and refuses the whole agent: the error is in its debug log only (measured with Claude Code 2.1.332). Move the hooks under the top-level `hooks:` key, or rename the nested `hooks` key if it is not a hook.",
    bad: "---\nname: reviewer\ndescription: Reviews a diff.\nrelated:\n  hooks:\n    - name: lint\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff.\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo done\n---\n",
};

/// Hook events whose hooks guard permissions (`FV`).
const GUARDS: [&str; 3] = ["PreToolUse", "PermissionRequest", "PreSkillShellCommand"];

/// Claude Code's hook events (`Oc`).
const EVENTS: [&str; 34] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
];

/// Top-level keys Claude Code does not scan (`BZn`).
const UNSCANNED: [&str; 3] = ["metadata", "mcpServers", "lspServers"];

/// `pe`: a mapping with a non-empty guard entry.
fn has_guard(v: &Json) -> bool {
    v.as_object().is_some_and(|m| {
        m.iter().any(|(k, s)| {
            GUARDS.contains(&k.as_str())
                && !s.is_null()
                && !s.as_array().is_some_and(|a| a.is_empty())
        })
    })
}

/// `Zje`: a hook matcher.
fn is_matcher(v: &Json) -> bool {
    let Some(m) = v.as_object() else {
        return false;
    };
    let matcher = m.contains_key("matcher");
    if !matcher && m.keys().any(|k| EVENTS.contains(&k.as_str())) {
        return false;
    }
    match m.get("hooks") {
        Some(Json::Array(a)) => !a.is_empty(),
        Some(Json::Object(h)) => matcher || h.get("type").is_some_and(Json::is_string),
        _ => false,
    }
}

/// `Prt`: whether `v` holds a hook within `depth` levels.
fn holds_hook(v: &Json, depth: u32, matchers_count: bool, in_hooks_list: bool) -> bool {
    if has_guard(v) || (matchers_count && is_matcher(v)) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    match v {
        Json::Array(items) => items
            .iter()
            .any(|i| holds_hook(i, depth - 1, matchers_count, in_hooks_list)),
        Json::Object(m) => {
            if in_hooks_list && m.get("type").is_some_and(Json::is_string) {
                return false;
            }
            m.iter().any(|(k, l)| {
                !UNSCANNED.contains(&k.as_str())
                    && holds_hook(
                        l,
                        depth - 1,
                        matchers_count && !EVENTS.contains(&k.as_str()),
                        k == "hooks" && l.is_array(),
                    )
            })
        }
        _ => false,
    }
}

/// The top-level key whose value Claude Code takes for a misplaced hook, if any
/// (`bwe`); `None` for the frontmatter itself holding a guard event at the top.
fn misplaced(tree: &Node) -> Option<Option<&crate::role::Key>> {
    let entries = tree.as_mapping()?;
    let json = tree.to_json();
    if has_guard(&json) {
        return Some(None);
    }
    entries
        .iter()
        .find(|(k, v)| {
            let k = k.text.as_str();
            k != "hooks"
                && !UNSCANNED.contains(&k)
                && holds_hook(&v.to_json(), 3, !EVENTS.contains(&k), false)
        })
        .map(|(k, _)| Some(k))
}

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some(fact) = &*cx.profile.misplaced_hooks else {
        return;
    };
    let Some(found) = misplaced(tree) else {
        return;
    };
    let label = cx.profile.label();
    let note = fact.note;
    let (span, what) = match found {
        Some(k) => (
            k.span.clone(),
            format!("`{}` holds a hook declaration", k.text),
        ),
        None => {
            let k = tree
                .as_mapping()
                .and_then(|m| m.iter().find(|(k, _)| GUARDS.contains(&k.text.as_str())))
                .map(|(k, _)| k.clone());
            match k {
                Some(k) => (
                    k.span,
                    format!("`{}` is a hook event at the top level", k.text),
                ),
                None => (
                    cx.open_fence(),
                    "the frontmatter declares a hook event".into(),
                ),
            }
        }
    };
    cx.emit(
        &RULE,
        span,
        "a hook outside `hooks`",
        format!("{what} outside `hooks`: {label} refuses the agent ({note})"),
        Some("move the hooks under the top-level `hooks:` key, or rename the nested key".into()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::role::RoleDoc;

    fn found(yaml: &str) -> Option<Option<String>> {
        let text = format!("---\n{yaml}---\nBody\n");
        let doc = RoleDoc::parse("a.md", text.as_bytes());
        misplaced(doc.mapping().unwrap()).map(|k| k.map(|k| k.text.clone()))
    }

    #[test]
    fn nested_hooks_lists_are_misplaced_hooks() {
        let some = |k: &str| Some(Some(k.to_string()));
        assert_eq!(
            found("name: a\nrelated:\n  hooks:\n    - x\n"),
            some("related")
        );
        assert_eq!(
            found("name: a\nextra:\n  PreToolUse:\n    - matcher: Bash\n"),
            some("extra")
        );
        assert_eq!(found("name: a\nPreToolUse: [x]\n"), Some(None));
    }

    #[test]
    fn real_hooks_and_unscanned_keys_are_not() {
        assert_eq!(
            found(
                "name: a\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n"
            ),
            None
        );
        assert_eq!(found("name: a\nmetadata:\n  hooks:\n    - x\n"), None);
        assert_eq!(found("name: a\nrelated:\n  hooks: []\n"), None);
        assert_eq!(found("name: a\nrelated:\n  other: [x]\n"), None);
        // An event name beside `hooks`, without `matcher`, is not a matcher.
        assert_eq!(found("name: a\nrelated:\n  Stop: 1\n  hooks: [x]\n"), None);
    }
}
