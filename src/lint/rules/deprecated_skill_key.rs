//! `deprecated-skill-key`: `skill` instead of `skills`.

use std::sync::OnceLock;

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "deprecated-skill-key",
    severity: Severity::Warning,
    summary: "`skill` is deprecated; use `skills`",
    explanation: "The singular `skill` is kept for compatibility until the date the schema documents (2027-06-30, see `pwk schema`); after that it is removed. Rename it to `skills`, which takes the same comma-separated string or list.",
    bad: "---\nskill: code-review\n---\n",
    good: "---\nskills: code-review\n---\n",
};

/// The removal date, read from the schema's description of `skill`.
pub(crate) fn removal_date() -> &'static str {
    static DATE: OnceLock<String> = OnceLock::new();
    DATE.get_or_init(|| {
        let desc = crate::role::schema::key_description("skill").unwrap_or_default();
        let b = desc.as_bytes();
        (0..b.len().saturating_sub(9))
            .map(|i| &desc[i..i + 10])
            .find(|w| {
                w.bytes().enumerate().all(|(j, c)| {
                    if j == 4 || j == 7 {
                        c == b'-'
                    } else {
                        c.is_ascii_digit()
                    }
                })
            })
            .unwrap_or("a documented date")
            .to_string()
    })
}

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some((key, _)) = tree.entry("skill") else {
        return;
    };
    let both = tree.get("skills").is_some();
    let date = removal_date();
    cx.emit(
        &RULE,
        key.span.clone(),
        "use `skills`",
        if both {
            format!("`skill` is deprecated (removed after {date}) and `skills` is also set; hosts may read either")
        } else {
            format!("`skill` is deprecated and will stop working after {date}")
        },
        Some(if both { "merge the two into `skills`".into() } else { "rename the key to `skills`".into() }),
    );
}
