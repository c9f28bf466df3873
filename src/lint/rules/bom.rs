//! `bom`: the file starts with a UTF-8 byte order mark.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "bom",
    severity: Severity::Error,
    summary: "the file starts with a byte order mark",
    explanation: "A UTF-8 byte order mark (U+FEFF, often added by Windows editors) sits before the opening `---`. Hosts that test whether the file starts with `---` then see no frontmatter and skip the role silently. Save the file as UTF-8 without BOM.",
    bad: "\\u{feff}---\nname: reviewer\n---\n",
    good: "---\nname: reviewer\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>) {
    if cx.doc.text.starts_with('\u{feff}') {
        cx.emit(
            &RULE,
            0..3,
            "byte order mark",
            "the file starts with a UTF-8 byte order mark; hosts that expect `---` first will not see the frontmatter",
            Some("save the file as UTF-8 without BOM".into()),
        );
    }
}
