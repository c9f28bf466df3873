//! `cli-model-without-cli`: `cli-model` on a role that has no `cli`.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "cli-model-without-cli",
    severity: Severity::Warning,
    also: None,
    summary: "`cli-model` is set but `cli` is not",
    explanation: "`cli-model` chooses the model of an external CLI runtime, which only exists when `cli` names one. Without `cli` it has no effect; did you mean `model`?",
    bad: "---\ncli-model: sonnet\n---\n",
    good: "---\ncli: claude\ncli-model: sonnet\ndisable-model-invocation: true\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some((key, _)) = tree.entry("cli-model") else {
        return;
    };
    if tree.get("cli").is_some() {
        return;
    }
    cx.emit(
        &RULE,
        key.span.clone(),
        "no `cli` in this role",
        "`cli-model` has no effect without `cli`",
        Some("add the `cli` it belongs to, or use `model` for the role's own model".into()),
    );
}
