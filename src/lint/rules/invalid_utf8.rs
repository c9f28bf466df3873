//! `invalid-utf8`: the file is not UTF-8.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "invalid-utf8",
    severity: Severity::Error,
    also: None,
    summary: "the file is not valid UTF-8",
    explanation: "Hosts read role files as UTF-8. A file in another encoding (Latin-1, UTF-16) or with a stray byte is misread or skipped, and pwk cannot check anything after the bad byte. Re-save the file as UTF-8.",
    bad: "---\nname: caf\\xe9-reviewer   # a Latin-1 byte\n---\n",
    good: "---\nname: cafe-reviewer\n---\n",
};

/// Report the first invalid byte; true when the file is not UTF-8 (nothing else is checked).
pub(crate) fn check(cx: &mut Checker<'_>) -> bool {
    let Some(at) = cx.doc.invalid_utf8_at else {
        return false;
    };
    // The replacement character sits at the same byte offset in the lossy text.
    let end = at + cx.doc.text[at..].chars().next().map_or(0, char::len_utf8);
    cx.emit(
        &RULE,
        at..end,
        "not UTF-8",
        format!("the file is not valid UTF-8 (first bad byte at offset {at})"),
        Some("re-save the file as UTF-8".into()),
    );
    true
}
