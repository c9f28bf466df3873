//! `missing-frontmatter`: no opening `---`.

use std::ops::Range;

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "missing-frontmatter",
    severity: Severity::Error,
    summary: "the file has no YAML frontmatter",
    explanation: "A role file must start with a `---` line, the YAML keys, and a closing `---` line. Without them hosts do not see a role at all: the file is skipped silently (PWK's own roles once shipped like this, and never ran).",
    bad: "# Reviewer\n\nYou review code.\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff and reports problems.\n---\n# Reviewer\n\nYou review code.\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, first_line: Range<usize>) {
    let shown = cx.doc.text[first_line.clone()].trim_end_matches('\r');
    let message = if cx.doc.text.trim().is_empty() {
        "the file is empty: a role needs `---` frontmatter".to_string()
    } else if shown.trim_start().starts_with("---") {
        format!("the first line `{shown}` is not exactly `---`, so hosts see no frontmatter")
    } else {
        "the file does not start with `---` frontmatter, so hosts do not see a role".to_string()
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
