//! `host-tools-list`: a YAML list where the host takes one comma-separated line.

use crate::lint::Severity;
use crate::lint::check::{Checker, describe};
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "host-tools-list",
    severity: Severity::Error,
    summary: "`tools` is not one comma-separated line, which the chosen host requires",
    explanation: "pi-herdr-agents reads only the first line of `tools` as a comma-separated string and passes it to pi's `--tools`; a YAML list (or a multi-line value) reaches it as nothing, and the child starts without the allow-list. Write `tools: read, grep, find, ls` on one line. Only reported with `--host herdr`.",
    bad: "---\ntools:\n  - read\n  - grep\n---\n",
    good: "---\ntools: read, grep\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>, key: &str, node: &Node) {
    let host = cx.profile.label();
    let items: Vec<&str> = node
        .as_sequence()
        .map(|s| s.iter().filter_map(Node::as_scalar).collect())
        .unwrap_or_default();
    let help = if items.is_empty() {
        format!("write `{key}` as one comma-separated line")
    } else {
        format!("write it as `{key}: {}`", items.join(", "))
    };
    cx.emit(
        &RULE,
        node.span.clone(),
        "one comma-separated line expected",
        format!(
            "{host} reads `{key}` only as one comma-separated line, found {}",
            describe(node)
        ),
        Some(help),
    );
}
