//! `name-mismatch`: `name` differs from the file name.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::hosts::Identity;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "name-mismatch",
    severity: Severity::Error,
    summary: "`name` differs from the file name",
    explanation: "Hosts disagree on a role's identity: tintinweb uses the file name (it never reads `name`), nicobailon uses `name`. When they differ the role answers to different names per host; worse, tintinweb runs an unknown name as a general-purpose child with all seven tools (read, bash, edit, write, grep, find, ls), silently. Make `name` equal the file name without `.md`. An error for `--host pwk` and `--host tintinweb`, a warning for hosts that identify roles by `name`.",
    bad: "pwk-smell-reviewer.md:\n---\nname: pwk-smell-checker\n---\n",
    good: "pwk-smell-reviewer.md:\n---\nname: pwk-smell-reviewer\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some(node) = tree.get("name") else { return };
    let (Some(name), Some(stem)) = (node.as_str(), cx.doc.stem()) else {
        return;
    };
    if name == stem {
        return;
    }
    let message = match cx.profile.identity {
        Identity::Stem => format!(
            "tintinweb identifies this role as `{stem}` (its file name) and never reads `name`; calling it `{name}` silently runs a general-purpose child with all seven tools"
        ),
        Identity::Name => format!(
            "`name` is `{name}` but the file is `{stem}.md`; tintinweb calls the role `{stem}`, nicobailon calls it `{name}`"
        ),
    };
    cx.emit(
        &RULE,
        node.span.clone(),
        format!("file is `{stem}.md`"),
        message,
        Some(if super::name_not_slug::is_slug(name) {
            format!("rename the file to `{name}.md`, or set `name: {stem}`")
        } else {
            format!("set `name: {stem}`")
        }),
    );
}
