//! `invalid-thinking`: an unknown reasoning level.

use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::{Checker, describe};
use crate::lint::rules::Rule;
use crate::role::Node;
use crate::suggest::did_you_mean;

pub(crate) const RULE: Rule = Rule {
    id: "invalid-thinking",
    severity: Severity::Error,
    also: None,
    summary: "`thinking` is not one of off, minimal, low, medium, high, xhigh, max",
    explanation: "`thinking` sets the child's reasoning effort. Hosts handle an unknown level differently: herdr drops it silently, others clamp it to `off` or pass it on until pi rejects it. Use one of off, minimal, low, medium, high, xhigh, or max (pi 1.6 and later; pi 0.73 rejects it).",
    bad: "---\nthinking: med\n---\n",
    good: "---\nthinking: medium\n---\n",
};

use crate::role::thinking::LEVELS;

pub(crate) fn report(cx: &mut Checker<'_>, node: &Node) {
    let text = node.as_scalar().unwrap_or_default();
    let guess = match text.to_lowercase().as_str() {
        "none" | "false" | "no" | "disabled" => Some("off"),
        "maximum" | "extra-high" | "extra_high" | "very-high" => Some("xhigh"),
        "med" | "mid" | "normal" | "default" => Some("medium"),
        "min" => Some("minimal"),
        _ => did_you_mean(text, LEVELS.iter().copied()),
    };
    let help = match guess {
        Some(g) => format!("did you mean `{g}`? Levels: {}", LEVELS.join(", ")),
        None => format!("use one of {}", LEVELS.join(", ")),
    };
    let fix = guess.map(|g| {
        Fix::replace(
            format!("replace with `{g}`"),
            Safety::Unsafe,
            node.span.clone(),
            g,
        )
    });
    let d = cx.emit(
        &RULE,
        node.span.clone(),
        "unknown level",
        format!(
            "`thinking` must be one of {}, found {}",
            LEVELS.join(", "),
            describe(node)
        ),
        Some(help),
    );
    d.fixes.extend(fix);
}
