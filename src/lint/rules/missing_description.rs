//! `missing-description`: no `description` key.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "missing-description",
    severity: Severity::Error,
    summary: "the frontmatter has no `description`",
    explanation: "The description is what the parent model reads when it picks a role: what the role takes and what it returns. nicobailon skips a role without one, silently.",
    bad: "---\nname: reviewer\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff and reports problems with file:line.\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>) {
    let span = cx.open_fence();
    cx.emit(
        &RULE,
        span,
        "no `description` in this frontmatter",
        "the frontmatter has no `description`; nicobailon skips such a role and the parent model cannot tell what it is for",
        Some("add `description: <what the role takes and returns>`".into()),
    );
}
