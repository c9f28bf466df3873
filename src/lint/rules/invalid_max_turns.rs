//! `invalid-max-turns`: `max_turns` is not a positive whole number.

use crate::lint::Severity;
use crate::lint::rule::{Checker, describe};
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "invalid-max-turns",
    severity: Severity::Error,
    also: None,
    summary: "`max_turns` is not a positive whole number",
    explanation: "`max_turns` bounds how many turns the child may take before it must report. It must be a positive whole number: tintinweb ignores anything else silently (and reads 0 as unlimited), so the role runs unbounded.",
    bad: "---\nmax_turns: 0\n---\n",
    good: "---\nmax_turns: 20\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>, node: &Node) {
    let json = node.to_json();
    let help = match json.as_f64() {
        Some(n) if n <= 0.0 => {
            "use a positive number such as `max_turns: 20`; remove the key for no bound".to_string()
        }
        Some(n) => format!(
            "use a whole number, e.g. `max_turns: {}`",
            n.ceil().max(1.0) as u64
        ),
        None => "use a positive whole number such as `max_turns: 20`".to_string(),
    };
    cx.emit(
        &RULE,
        node.span.clone(),
        "expected a positive whole number",
        format!(
            "`max_turns` must be a positive whole number, found {}",
            describe(node)
        ),
        Some(help),
    );
}
