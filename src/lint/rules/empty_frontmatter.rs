//! `empty-frontmatter`: `---` followed directly by `---`.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Fences;

pub(crate) const RULE: Rule = Rule {
    id: "empty-frontmatter",
    severity: Severity::Error,
    also: None,
    summary: "the frontmatter has no keys",
    explanation: "The fences are there but hold no keys (or only comments), so the role has no `name` or `description` and hosts skip it. Add at least `name` and `description`.",
    bad: "---\n---\n# Reviewer\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff and reports problems.\n---\n# Reviewer\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, fences: &Fences) {
    let stem = cx.doc.stem().unwrap_or("my-role").to_string();
    cx.emit(
        &RULE,
        fences.open.clone(),
        "no keys in this frontmatter",
        format!(
            "the frontmatter is empty: the role has no `name` and no `description`; {}",
            super::missing_frontmatter::effect(cx)
        ),
        Some(format!("add `name: {stem}` and a `description:` line")),
    );
}
