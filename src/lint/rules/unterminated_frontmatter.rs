//! `unterminated-frontmatter`: an opening `---` that is never closed.

use std::ops::Range;

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "unterminated-frontmatter",
    severity: Severity::Error,
    also: None,
    summary: "the frontmatter has no closing `---` line",
    explanation: "The frontmatter starts with `---` but no later line is `---`, so hosts either skip the file or read the whole Markdown body as YAML. Add a `---` line after the last key.",
    bad: "---\nname: reviewer\ndescription: Reviews a diff.\n# Reviewer\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff.\n---\n# Reviewer\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, open: Range<usize>) {
    cx.emit(
        &RULE,
        open,
        "opened here, never closed",
        format!(
            "the frontmatter is never closed: no `---` line follows the opening one, so there is no frontmatter and {}",
            super::missing_frontmatter::effect(cx)
        ),
        Some("add a `---` line after the last frontmatter key".into()),
    );
}
