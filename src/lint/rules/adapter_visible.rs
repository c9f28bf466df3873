//! `adapter-visible`: a `cli` adapter that the parent model can see.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "adapter-visible",
    severity: Severity::Error,
    also: None,
    summary: "a `cli` adapter role without `disable-model-invocation: true`",
    explanation: "A role with `cli` is a local adapter to an external runtime. Adapters are hidden from task discovery: the parent model must not pick them on its own, only callers that name them exactly. Set `disable-model-invocation: true`.",
    bad: "---\nname: claude-reviewer\ncli: claude\n---\n",
    good: "---\nname: claude-reviewer\ncli: claude\ndisable-model-invocation: true\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    // Adapters are pwk's runner's concept: no real host runs `cli` roles (herdr
    // refuses them, the others read `cli` not at all).
    if !cx.profile.is_portable() {
        return;
    }
    let Some((key, _)) = tree.entry("cli") else {
        return;
    };
    let hidden = tree.get("disable-model-invocation").map(Node::to_json)
        == Some(serde_json::Value::Bool(true));
    if hidden {
        return;
    }
    let span = match tree.entry("disable-model-invocation") {
        Some((_, v)) => v.span.clone(),
        None => key.span.clone(),
    };
    cx.emit(
        &RULE,
        span,
        "adapter is visible",
        "this role is a `cli` adapter but the parent model can still pick it; adapters must be hidden",
        Some("add `disable-model-invocation: true`".into()),
    );
}
