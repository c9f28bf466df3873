//! `missing-frontmatter`: no opening `---`.

use std::ops::Range;

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "missing-frontmatter",
    severity: Severity::Error,
    also: None,
    summary: "the file has no YAML frontmatter",
    explanation: "A role file must start with a `---` line, the YAML keys, and a closing `---` line. Without them nicobailon and herdr skip the file silently, and tintinweb loads it as a role named after the file with all seven built-in tools (bash, edit and write included) and the whole file as its prompt. PWK's own roles once shipped like this.",
    bad: "# Reviewer\n\nYou review code.\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff and reports problems.\n---\n# Reviewer\n\nYou review code.\n",
};

/// What the host does with a file that has no frontmatter keys, as a clause.
pub(crate) fn effect(cx: &Checker<'_>) -> String {
    let p = cx.profile;
    if p.is_portable() {
        p.no_frontmatter.note.to_string()
    } else {
        format!("{} {}", p.label(), p.no_frontmatter.note)
    }
}

pub(crate) fn check(cx: &mut Checker<'_>, first_line: Range<usize>) {
    let shown = cx.doc.text[first_line.clone()].trim_end_matches('\r');
    let effect = effect(cx);
    let message = if cx.doc.text.trim().is_empty() {
        format!("the file is empty: a role needs `---` frontmatter; {effect}")
    } else if cx.doc.with_cr_newlines().is_some_and(|d| d.fences.is_ok()) {
        // Lines that end in a lone `\r`: YAML and pi's parseFrontmatter see the
        // fences; this host splits on `\n` only and sees one line.
        format!(
            "the file's lines end in a lone `\\r` (old Mac line endings) and {} splits lines on `\\n` only, so it finds no closing `---`: {effect}",
            cx.profile.label()
        )
    } else if shown.trim_start().starts_with("---") {
        format!(
            "the first line `{shown}` is not exactly `---`, so there is no frontmatter: {effect}"
        )
    } else {
        format!("the file does not start with `---` frontmatter: {effect}")
    };
    cx.emit(
        &RULE,
        first_line,
        "expected `---` here",
        message,
        Some(
            "start the file with `---`, the role's keys (`name`, `description`, …), then `---`"
                .into(),
        ),
    );
}
