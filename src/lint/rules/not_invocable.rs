//! `not-invocable`: a host loads the file but never offers the agent for
//! delegation without one key set (Antigravity CLI: `subagent: true`).

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "not-invocable",
    severity: Severity::Warning,
    also: None,
    summary: "the host loads the role but never delegates to it without a key it needs",
    explanation: "Some hosts read every agent file in their directory but only offer an agent to the model's delegation tool when a key says it is a subagent. Antigravity CLI needs `subagent: true`: without it, `invoke_subagent` never reaches the agent, and nothing says so. The host is known from documentation and issues only, so this is a warning.",
    bad: "---\nname: reviewer\ndescription: Read-only reviewer.\ntools: [view_file, grep_search]\n---\n",
    good: "---\nname: reviewer\ndescription: Read-only reviewer.\nsubagent: true\ntools: [view_file, grep_search]\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let p = cx.profile;
    let Some(need) = &*p.invocable else {
        return;
    };
    let want = need.value.to_string();
    let (span, label, found) = match tree.get(need.key) {
        Some(v) if v.to_json() == need.value => return,
        Some(v) => (
            v.span.clone(),
            format!("not `{want}`"),
            format!("`{}` is not `{want}`", need.key),
        ),
        None => (
            cx.open_fence(),
            format!("no `{}: {want}`", need.key),
            format!("no `{}: {want}`", need.key),
        ),
    };
    let d = cx.emit(
        &RULE,
        span,
        label,
        format!("{found}: {} {}", p.label(), need.note),
        Some(format!(
            "add `{}: {want}` if the role is meant to be delegated to on {}",
            need.key,
            p.label()
        )),
    );
    if !need.confidence.may_error() {
        d.severity = Severity::Warning;
    }
}
