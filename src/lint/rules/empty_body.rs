//! `empty-body`: no system prompt after the frontmatter.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Fences;

pub(crate) const RULE: Rule = Rule {
    id: "empty-body",
    severity: Severity::Warning,
    also: None,
    summary: "the role has no instructions after the frontmatter",
    explanation: "The Markdown body is the role's system prompt. With `systemPromptMode: replace` (the hosts' default) an empty body leaves the child with no instructions beyond the host's preamble. Write what the role does, what it reads, and what it reports.",
    bad: "---\nname: reviewer\ndescription: Reviews a diff.\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff.\n---\nYou review the diff you are given and report problems with file:line.\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, fences: &Fences) {
    // A kind of agent without a prompt (a Gemini CLI remote agent).
    if let (Some(v), Some(Ok(tree))) = (&*cx.profile.variants, &cx.doc.tree)
        && !v.has_prompt(v.kind_of(tree))
    {
        return;
    }
    if cx.doc.text[fences.body.clone()].trim().is_empty() {
        cx.emit(
            &RULE,
            fences.close.clone(),
            "nothing after this line",
            "the role has no body: its system prompt is empty",
            Some("write the role's instructions below the closing `---`".into()),
        );
    }
}
