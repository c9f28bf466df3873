//! `crlf`: Windows line endings.

use crate::lint::Severity;
use crate::lint::fix::{Edit, Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "crlf",
    severity: Severity::Warning,
    also: None,
    summary: "the file uses CRLF line endings",
    explanation: "Hosts with hand-written frontmatter readers split on `\\n` and keep the `\\r`, so `tools: read, grep\\r` names a tool `grep\\r` and a `---\\r` fence may not be recognised. Use LF line endings (`git config core.autocrlf input`, or a `.gitattributes` line `*.md text eol=lf`).",
    bad: "---\\r\\nname: reviewer\\r\\n---\\r\\n",
    good: "---\\nname: reviewer\\n---\\n",
};

pub(crate) fn check(cx: &mut Checker<'_>) {
    // A byte search first: most files have no `\r` at all.
    let Some(first_cr) = crate::text::scan::find_byte(b'\r', cx.doc.text.as_bytes()) else {
        return;
    };
    let Some(at) = cx.doc.text[first_cr..].find("\r\n").map(|i| first_cr + i) else {
        return;
    };
    let count = cx.doc.text.matches("\r\n").count();
    let edits: Vec<Edit> = crate::text::scan::find_iter(cx.doc.text.as_bytes(), b"\r\n")
        .map(|i| Edit {
            range: i..i + 1,
            replacement: String::new(),
        })
        .collect();
    let d = cx.emit(
        &RULE,
        at..at + 1,
        "CR before LF",
        format!(
            "the file uses CRLF line endings ({count} line{}); some hosts keep the `\\r` in values",
            if count == 1 { "" } else { "s" }
        ),
        Some("convert the file to LF line endings".into()),
    );
    d.fixes.push(Fix::new(
        "convert CRLF line endings to LF",
        Safety::Safe,
        edits,
    ));
}
