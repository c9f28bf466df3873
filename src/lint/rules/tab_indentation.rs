//! `tab-indentation`: a tab used to indent frontmatter.

use crate::lint::Severity;
use crate::lint::fix::{Edit, Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Fences;

pub(crate) const RULE: Rule = Rule {
    id: "tab-indentation",
    severity: Severity::Error,
    also: None,
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
            let fix = spaces_fix(&cx.doc.text, fences);
            let d = cx.emit(
                &RULE,
                pos + i..pos + i + 1,
                "tab",
                "a tab indents this line; YAML allows only spaces for indentation",
                Some("replace the tab with spaces".into()),
            );
            d.fixes.push(fix);
            return true;
        }
    }
    false
}

/// Every tab in the frontmatter's indentation becomes two spaces. Safe when tabs
/// are the file's only indentation (each tab is one level); a guess when tabs and
/// spaces are mixed (the levels a person meant are not known).
fn spaces_fix(text: &str, fences: &Fences) -> Fix {
    let mut edits = Vec::new();
    let mut mixed = false;
    let mut spaces = false;
    for (pos, line) in crate::role::frontmatter::lines_in(text, fences.yaml.clone()) {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let lead = &line[..indent];
        if lead.contains('\t') && lead.contains(' ') {
            mixed = true;
        } else if lead.contains(' ') {
            spaces = true;
        }
        for (i, _) in lead.match_indices('\t') {
            edits.push(Edit {
                range: pos + i..pos + i + 1,
                replacement: "  ".into(),
            });
        }
    }
    let safety = if mixed || spaces {
        Safety::Unsafe
    } else {
        Safety::Safe
    };
    Fix::new("indent with two spaces per tab", safety, edits)
}
