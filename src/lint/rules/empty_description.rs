//! `empty-description`: `description` present but blank.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "empty-description",
    severity: Severity::Error,
    also: None,
    summary: "`description` is empty",
    explanation: "An empty or blank `description` counts as missing for hosts that require one (nicobailon skips the role) and tells the parent model nothing about when to use the role.",
    bad: "---\nname: reviewer\ndescription: \"\"\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff and reports problems.\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>, node: &Node) {
    let span = match cx.mapping_key_span("description") {
        Some(k) if node.span.is_empty() => k,
        _ => node.span.clone(),
    };
    cx.emit(
        &RULE,
        span,
        "empty",
        "`description` is empty; hosts treat the role as having none",
        Some("describe what the role takes and what it returns".into()),
    );
}
