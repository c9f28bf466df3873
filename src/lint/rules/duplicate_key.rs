//! `duplicate-key`: the same key twice.

use std::ops::Range;

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "duplicate-key",
    severity: Severity::Error,
    also: None,
    summary: "a key appears twice in the frontmatter",
    explanation: "YAML forbids duplicate keys. Lenient readers keep one of the two values (which one differs per host), strict ones reject the role. Keep one.",
    bad: "---\nname: reviewer\ntools: read\ntools: read, grep\n---\n",
    good: "---\nname: reviewer\ntools: read, grep\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, key: &str, first: Range<usize>, second: Range<usize>) {
    let first_line = cx.doc.position(first.start).line;
    let related = cx.related(first, "first here");
    let d = cx.emit(
        &RULE,
        second,
        "again here",
        format!(
            "`{key}` appears twice (first on line {first_line}); hosts disagree on which value wins"
        ),
        Some(format!("keep one `{key}` line")),
    );
    d.related.push(related);
}
