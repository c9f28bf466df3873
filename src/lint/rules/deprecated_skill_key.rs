//! `deprecated-skill-key`: `skill` instead of `skills`.

use crate::host;
use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "deprecated-skill-key",
    severity: Severity::Warning,
    also: None,
    summary: "`skill` instead of `skills`: not every host reads it",
    explanation: "nicobailon and herdr read both `skill` and `skills` (nicobailon prefers `skill` when both are set); tintinweb reads only `skills`, so a role with `skill` gets no skills there. No host's source sets a removal date. Rename it to `skills`, which takes the same comma-separated string or list. Reported under the portable profile; under `--host H` the host's own reading applies.",
    bad: "---\nskill: code-review\n---\n",
    good: "---\nskills: code-review\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    // Under a real host `skill` is either read (nicobailon, herdr) or ignored
    // (`host-ignored-key` says so); the advice to use `skills` is portable.
    if !cx.profile.is_portable() {
        return;
    }
    let Some((key, _)) = tree.entry("skill") else {
        return;
    };
    let both = tree.get("skills").is_some();
    let (readers, ignorers) = host::split_profiles(|h| h.reads("skill"));
    let message = if both {
        format!(
            "`skill` and `skills` are both set; {} read `skill` (nicobailon prefers it), {} read only `skills`",
            host::name_profiles(&readers),
            host::name_profiles(&ignorers)
        )
    } else {
        format!(
            "`skill` is the singular spelling of `skills`: {} ignore it (they read `skills`), {} read it",
            host::name_profiles(&ignorers),
            host::name_profiles(&readers)
        )
    };
    let span = key.span.clone();
    let d = cx.emit(
        &RULE,
        key.span.clone(),
        "use `skills`",
        message,
        Some(if both {
            "merge the two into `skills`".into()
        } else {
            "rename the key to `skills`".into()
        }),
    );
    // Merging two values is a judgement; a rename is not.
    if !both {
        d.fixes.push(
            Fix::replace("rename `skill` to `skills`", Safety::Safe, span, "skills")
                .creating_key("skills"),
        );
    }
}
