//! `tab-indentation`: a tab used to indent frontmatter.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::Rule;
use crate::role::Fences;

pub(crate) const RULE: Rule = Rule {
    id: "tab-indentation",
    severity: Severity::Error,
    summary: "a tab indents a frontmatter line",
    explanation: "YAML forbids tabs for indentation, so a tab-indented list item or continuation line is a syntax error and hosts skip the role. Indent with spaces.",
    bad: "---\nname: reviewer\ntools:\n\t- read\n---\n",
    good: "---\nname: reviewer\ntools:\n  - read\n---\n",
};

/// Report the first tab in a line's indentation when the YAML failed to parse.
/// Returns whether one was found (then it is the reported cause).
pub(crate) fn check(cx: &mut Checker<'_>, fences: &Fences) -> bool {
    for (pos, line) in crate::role::frontmatter::lines_in(&cx.doc.text, fences.yaml.clone()) {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some(i) = line[..indent].find('\t') {
            cx.emit(
                &RULE,
                pos + i..pos + i + 1,
                "tab",
                "a tab indents this line; YAML allows only spaces for indentation",
                Some("replace the tab with spaces".into()),
            );
            return true;
        }
    }
    false
}
