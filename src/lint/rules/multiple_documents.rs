//! `multiple-documents`: a second YAML document inside the frontmatter.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Fences;

pub(crate) const RULE: Rule = Rule {
    id: "multiple-documents",
    severity: Severity::Error,
    also: None,
    summary: "a `--- …` line starts a second YAML document inside the frontmatter",
    explanation: "A line such as `--- notes` inside the frontmatter starts a new YAML document. YAML readers keep only the first document, so every key after that line is silently dropped. Remove the line, or make it a comment (`# notes`).",
    bad: "---\nname: reviewer\n--- extra\ndescription: Reviews a diff.\n---\n",
    good: "---\nname: reviewer\n# extra\ndescription: Reviews a diff.\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, fences: &Fences) {
    for (pos, line) in crate::role::frontmatter::lines_in(&cx.doc.text, fences.yaml.clone()) {
        let marker = line.starts_with("---") || line.starts_with("...");
        if marker && line[3..].starts_with([' ', '\t']) && !line[3..].trim().is_empty() {
            cx.emit(
                &RULE,
                pos..pos + 3,
                "starts a second document",
                format!(
                    "`{}` starts a second YAML document; every key after it is ignored",
                    line.trim_end()
                ),
                Some("remove this line or turn it into a comment (`# …`)".into()),
            );
            return;
        }
    }
}
