//! `yaml-too-deep`: lists and mappings nested deeper than pwk reads.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::yaml::MAX_DEPTH;

pub(crate) const RULE: Rule = Rule {
    id: "yaml-too-deep",
    severity: Severity::Error,
    also: None,
    summary: "the frontmatter nests lists or mappings more than 64 levels deep",
    explanation: "Role frontmatter needs two or three levels (a list of tools, a mapping of settings). Nesting beyond 64 levels, block (`- - - x`) or flow (`[[[x]]]`), is refused before parsing: recursive YAML readers, hosts included, run out of stack on a few kilobytes of such input and crash. Flatten the value.",
    bad: "---\nname: reviewer\nx:\n  - - - - - - - - (… 64 levels) x\n---\n",
    good: "---\nname: reviewer\nx:\n  - - x\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, at: usize) {
    let text = &cx.doc.text;
    let at = at.min(text.len());
    let end = text[at..]
        .chars()
        .next()
        .filter(|c| *c != '\n' && *c != '\r')
        .map_or(at, |c| at + c.len_utf8());
    cx.emit(
        &RULE,
        at..end,
        format!("level {}", MAX_DEPTH + 1),
        format!(
            "lists and mappings nest more than {MAX_DEPTH} levels deep here; pwk stops reading the frontmatter"
        ),
        Some("flatten the value: role frontmatter needs at most three levels".into()),
    );
}
