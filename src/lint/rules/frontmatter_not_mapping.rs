//! `frontmatter-not-mapping`: the frontmatter is a list or a plain value.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Fences;

pub(crate) const RULE: Rule = Rule {
    id: "frontmatter-not-mapping",
    severity: Severity::Error,
    also: None,
    summary: "the frontmatter is not a set of `key: value` lines",
    explanation: "The frontmatter must be a YAML mapping (`key: value` lines). A list (`- item`) or a bare sentence is valid YAML but holds no keys, so hosts find no `name` or `description` and skip the role.",
    bad: "---\n- name: reviewer\n- description: Reviews a diff.\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff.\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, fences: &Fences, at: usize) {
    let at = if at < fences.yaml.start {
        fences.yaml.start
    } else {
        at
    };
    let first = cx.doc.text[at..].trim_start();
    let at = cx.doc.text.len() - first.len();
    let end = at + first.find(['\n', '\r']).unwrap_or(first.len());
    let what = if first.starts_with('-') {
        "a list"
    } else {
        "a plain value"
    };
    cx.emit(
        &RULE,
        at..end,
        "expected `key: value`",
        format!(
            "the frontmatter is {what}, not a mapping of `key: value` lines: it has no keys, and {}",
            super::missing_frontmatter::effect(cx)
        ),
        Some("write each setting as `key: value` on its own line".into()),
    );
}
