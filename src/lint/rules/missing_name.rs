//! `missing-name`: no `name` key.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "missing-name",
    severity: Severity::Error,
    summary: "the frontmatter has no `name`",
    explanation: "`name` is the role's identity: nicobailon and pwk call a role by it, and nicobailon skips a file without one. Set it to the file name without `.md` (tintinweb identifies the role by its file name, so the two must agree).",
    bad: "---\ndescription: Reviews a diff.\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff.\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>) {
    let stem = cx.doc.stem().unwrap_or("my-role").to_string();
    let span = cx.open_fence();
    cx.emit(
        &RULE,
        span,
        "no `name` in this frontmatter",
        "the frontmatter has no `name`; hosts that call roles by name will not find this one",
        Some(format!(
            "add `name: {}`",
            super::name_not_slug::slugify(&stem)
        )),
    );
}
