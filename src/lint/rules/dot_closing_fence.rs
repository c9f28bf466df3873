//! `dot-closing-fence`: frontmatter closed with `...`.

use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::{CloseKind, Fences};

pub(crate) const RULE: Rule = Rule {
    id: "dot-closing-fence",
    severity: Severity::Error,
    also: None,
    summary: "the frontmatter is closed with `...` instead of `---`",
    explanation: "YAML allows `...` to end a document, but pi's frontmatter reader and the subagent hosts look for a closing `---`. With `...` they find no end to the frontmatter and skip or misread the role.",
    bad: "---\nname: reviewer\n...\n",
    good: "---\nname: reviewer\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, fences: &Fences) {
    if fences.close_kind == CloseKind::Dots {
        let at = fences.close.start..fences.close.start + 3;
        let d = cx.emit(
            &RULE,
            at.clone(),
            "use `---`",
            "the frontmatter is closed with `...`; hosts only recognise `---`",
            Some("replace `...` with `---`".into()),
        );
        d.fixes.push(Fix::replace(
            "close the frontmatter with `---`",
            Safety::Safe,
            at,
            "---",
        ));
    }
}
