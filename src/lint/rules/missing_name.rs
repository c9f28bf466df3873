//! `missing-name`: no `name` key.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "missing-name",
    severity: Severity::Error,
    also: None,
    summary: "the frontmatter has no `name`",
    explanation: "`name` is the role's identity for hosts that call roles by name. nicobailon skips a file without one; tintinweb 0.14 never reads it (the file name is the identity), tintinweb 0.18 and herdr fall back to the file name. An error under a host that skips the role; under the portable profile a warning naming the hosts that skip it. Set it to the file name without `.md`.",
    bad: "---\ndescription: Reviews a diff.\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff.\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>) {
    let stem = cx.doc.stem().unwrap_or("my-role").to_string();
    let help = format!("add `name: {}`", super::name_not_slug::slugify(&stem));
    super::missing_description::report_required(cx, &RULE, "name", help);
}
