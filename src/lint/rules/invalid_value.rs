//! `invalid-value`: a value outside what the key allows.

use crate::role::validate::ValidationErrorKind as Kind;

use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::{Checker, describe};
use crate::lint::rules::Rule;
use crate::role::Node;
use crate::suggest::did_you_mean;

pub(crate) const RULE: Rule = Rule {
    id: "invalid-value",
    severity: Severity::Error,
    also: None,
    summary: "a value is not one the key allows",
    explanation: "Keys with a fixed set of values (`systemPromptMode`, `system-prompt`, `session-mode`) or a minimum (`cwd`, `cli` must not be empty) are checked against the schema. A value a host does not recognise is ignored or replaced by its default, silently.",
    bad: "---\nsystemPromptMode: replaced\n---\n",
    good: "---\nsystemPromptMode: replace\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>, top: &str, kind: &Kind, node: &Node) {
    let found = describe(node);
    let mut fix = None;
    let (message, help) = match kind {
        Kind::Enum { options } => {
            let opts: Vec<&str> = options
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            let guess = node
                .as_scalar()
                .and_then(|t| did_you_mean(t, opts.iter().copied()));
            fix = guess.filter(|g| plain_safe(g)).map(|g| {
                Fix::replace(
                    format!("replace with `{g}`"),
                    Safety::Unsafe,
                    node.span.clone(),
                    g,
                )
            });
            (
                format!("`{top}` must be one of {}, found {found}", opts.join(", ")),
                Some(match guess {
                    Some(g) => format!("did you mean `{g}`?"),
                    None => format!("use one of {}", opts.join(", ")),
                }),
            )
        }
        Kind::MinLength { .. } => (
            format!("`{top}` must not be empty"),
            Some(format!("set `{top}` or remove it")),
        ),
        Kind::Minimum { limit } => (
            format!("`{top}` must be at least {limit}, found {found}"),
            None,
        ),
        _ => (
            format!("`{top}` has a value the schema does not allow ({found})"),
            Some("see `pwk schema`".into()),
        ),
    };
    let d = cx.emit(&RULE, node.span.clone(), "not allowed", message, help);
    d.fixes.extend(fix);
}

/// A word that reads back as the same string when written as a plain YAML scalar.
pub(crate) fn plain_safe(s: &str) -> bool {
    s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./@".contains(&b))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off"
        )
}
