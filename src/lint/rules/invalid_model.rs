//! `invalid-model`: a model hint hosts cannot use as written.

use crate::lint::Severity;
use crate::lint::check::{Checker, describe};
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "invalid-model",
    severity: Severity::Error,
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
    if text.is_empty()
        || text.chars().any(char::is_whitespace)
        || text.contains('/')
        || text == "inherit"
    {
        return;
    }
    let effect = cx.profile.unresolvable_model.note.clone();
    let d = cx.emit(
        &RULE,
        node.span.clone(),
        "no provider",
        format!("`model: {text}` has no `provider/` prefix; hosts resolve a bare id differently; when it does not resolve, {}: {effect}", cx.profile.label()),
        Some(format!("write it as `provider/{text}` (e.g. `anthropic/{text}`)")),
    );
    d.severity = Severity::Warning;
}
