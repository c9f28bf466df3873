//! `bom`: the file starts with a UTF-8 byte order mark.

use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "bom",
    severity: Severity::Error,
    also: Some((
        Severity::Warning,
        "when the host reads a file with a BOM on some pi versions only",
    )),
    summary: "the file starts with a byte order mark",
    explanation: "A UTF-8 byte order mark (U+FEFF, often added by Windows editors) sits before the opening `---`. nicobailon and herdr then see no frontmatter and skip the role silently; tintinweb reads it on pi 1.6 (whose parser strips the mark) but not on pi 0.73.1. Save the file as UTF-8 without BOM.",
    bad: "\\u{feff}---\nname: reviewer\n---\n",
    good: "---\nname: reviewer\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>) {
    use crate::host::BomReading;
    if !cx.doc.text.starts_with('\u{feff}') {
        return;
    }
    let p = cx.profile;
    let (message, severity) = if p.is_portable() {
        let (hiding, rest) = crate::host::split_profiles(|h| h.parser.bom != BomReading::Stripped);
        let _ = rest;
        (
            format!(
                "the file starts with a UTF-8 byte order mark: {} may not see the frontmatter: {}",
                crate::host::name_profiles(&hiding),
                p.parser.bom_note
            ),
            Severity::Error,
        )
    } else {
        let sev = match p.parser.bom {
            BomReading::HidesFrontmatter => Severity::Error,
            BomReading::Varies => Severity::Warning,
            BomReading::Stripped => return,
        };
        (
            format!(
                "the file starts with a UTF-8 byte order mark: {}: {}",
                p.label(),
                p.parser.bom_note
            ),
            sev,
        )
    };
    let d = cx.emit(
        &RULE,
        0..3,
        "byte order mark",
        message,
        Some("save the file as UTF-8 without BOM".into()),
    );
    d.severity = p.severity_of(RULE.id, severity);
    d.fixes.push(Fix::replace(
        "remove the byte order mark",
        Safety::Safe,
        0..3,
        "",
    ));
}
