//! `invalid-model`: a model hint hosts cannot use as written.

use crate::lint::Severity;
use crate::lint::rule::{Checker, describe};
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "invalid-model",
    severity: Severity::Error,
    also: Some((
        Severity::Warning,
        "for a model the host may still resolve: no `provider/` prefix, or a pi-style `provider/id` where the host takes its own aliases and ids",
    )),
    summary: "`model` contains whitespace, or is a bare id without `provider/` (warning)",
    explanation: "`model` must be one `provider/id` token such as `anthropic/claude-haiku-4-5`. Whitespace makes it unresolvable everywhere (an error). A bare id without `provider/` is a warning: each host resolves it differently (nicobailon prefers the current provider, tintinweb matches fuzzily), and what happens when it does not resolve differs too: tintinweb silently uses the parent's model, nicobailon refuses to launch the role.",
    bad: "---\nmodel: claude haiku\n---\n",
    good: "---\nmodel: anthropic/claude-haiku-4-5\n---\n",
};

/// The schema's pattern failed: whitespace in `model` or `cli-model`.
pub(crate) fn report_whitespace(cx: &mut Checker<'_>, key: &str, node: &Node) {
    let text = node.as_scalar().unwrap_or_default();
    let joined: String = text.split_whitespace().collect::<Vec<_>>().join("-");
    let message = if text.trim().is_empty() {
        format!("`{key}` is empty")
    } else {
        format!(
            "`{key}` must be one `provider/id` token without whitespace, found {}",
            describe(node)
        )
    };
    cx.emit(
        &RULE,
        node.span.clone(),
        "whitespace in model id",
        message,
        Some(if joined.is_empty() {
            format!("remove `{key}` or set it to `provider/id`")
        } else {
            format!("write the id as one token, e.g. `{key}: provider/{joined}`")
        }),
    );
}

/// A bare id without `provider/` (a warning).
pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some(node) = tree.get("model") else {
        return;
    };
    let Some(text) = node.as_str() else { return };
    let p = cx.profile;
    if !p.is_portable() && !p.models.provider_form() {
        own_names(cx, node, text);
        return;
    }
    if text.is_empty()
        || text.chars().any(char::is_whitespace)
        || text.contains('/')
        || text == "inherit"
    {
        return;
    }
    let p = cx.profile;
    // The portable profile's note is a sentence about the hosts; a host's note says
    // what that host does (`falls back to the parent's model …`).
    let effect = if p.is_portable() {
        p.unresolvable_model.note.to_string()
    } else {
        format!("{} {}", p.label(), p.unresolvable_model.note)
    };
    let d = cx.emit(
        &RULE,
        node.span.clone(),
        "no provider",
        format!(
            "`model: {text}` has no `provider/` prefix; hosts resolve a bare id differently, and when it does not resolve, {effect}"
        ),
        // No provider is guessed: `anthropic/opus` names no model. pi lists the
        // ids it has (`pi --list-models`), and `--check-models` checks them.
        Some(
            "write the `provider/id` that `pi --list-models` lists for it (`pwk lint --check-models` checks it)"
                .to_string(),
        ),
    );
    d.severity = Severity::Warning;
}

/// A host with its own model names (Claude Code: `sonnet`, `inherit`, `claude-…`
/// ids): a `provider/id`, or a value that is none of them, is not one it resolves.
/// The host's model names are documented, not read in a loader: a warning.
fn own_names(cx: &mut Checker<'_>, node: &Node, text: &str) {
    let p = cx.profile;
    let m = &p.models;
    if m.free
        || text.is_empty()
        || text.chars().any(char::is_whitespace)
        // Aliases resolve without regard to case (Claude Code 2.1.332, measured:
        // `model: Sonnet` runs on Sonnet).
        || m.aliases.iter().any(|a| a.eq_ignore_ascii_case(text))
        || m.inherit.contains(&text)
        || m.id_prefixes.iter().any(|x| text.starts_with(*x))
    {
        return;
    }
    let names = m
        .aliases
        .iter()
        .chain(&m.inherit)
        .map(|a| format!("`{a}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let ids = m
        .id_prefixes
        .iter()
        .map(|x| format!("`{x}…`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (label, message, help) = match text.split_once('/') {
        Some((_, id)) => (
            "provider/id",
            format!(
                "`model: {text}` is a pi-style `provider/id`; {label} takes an alias ({names}) or a model id ({ids}), and for a model it cannot resolve it {}",
                p.unresolvable_model.note,
                label = p.label()
            ),
            format!("write `model: {id}` or an alias"),
        ),
        None => (
            "not a model name",
            format!(
                "`model: {text}` is neither an alias ({names}) nor a model id ({ids}) of {label}; for a model it cannot resolve it {}",
                p.unresolvable_model.note,
                label = p.label()
            ),
            format!("use one of {names}"),
        ),
    };
    let d = cx.emit(&RULE, node.span.clone(), label, message, Some(help));
    d.severity = Severity::Warning;
}
