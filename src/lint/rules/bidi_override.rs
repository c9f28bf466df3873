//! `bidi-override`: bidirectional override and isolate characters ("Trojan Source").

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::yaml::is_bidi_control;
use crate::text::escape_char;

pub(crate) const RULE: Rule = Rule {
    id: "bidi-override",
    severity: Severity::Error,
    also: None,
    summary: "a bidirectional override or isolate character (Trojan Source)",
    explanation: "The characters U+202A–U+202E and U+2066–U+2069 reorder how the text around them is displayed, so what a reviewer sees in an editor or a diff is not what the host and the model read (\"Trojan Source\"): a value or instruction can look harmless while meaning something else. Role files do not need them; right-to-left text displays correctly without them. Remove them.",
    bad: "---\nname: reviewer\ndescription: read only \\u{202e}etirw\n---\n",
    good: "---\nname: reviewer\ndescription: read only\n---\n",
};

/// Report every bidi control character in the file (frontmatter and body).
pub(crate) fn check(cx: &mut Checker<'_>) {
    let text = &cx.doc.text;
    // All of them are encoded as E2 80 AA–AE or E2 81 A6–A9: decode only at an E2
    // (an em dash or a curly quote starts with E2 too, so the byte alone says little).
    let found: Vec<(usize, char)> = crate::text::scan::byte_positions(0xE2, text.as_bytes())
        .filter_map(|at| {
            let c = text[at..].chars().next()?;
            is_bidi_control(c).then_some((at, c))
        })
        .collect();
    let total = found.len();
    for (n, &(at, c)) in found.iter().take(super::MAX_REPORTED).enumerate() {
        let more = super::capped_note(n, total);
        cx.emit(
            &RULE,
            at..at + c.len_utf8(),
            "bidi control",
            format!(
                "a bidirectional control character `{}`: the text around it displays in a different order than hosts and models read it{more}",
                escape_char(c)
            ),
            Some("remove it".into()),
        );
    }
}
