//! `host-rejected-key`: a key that makes the chosen host refuse the role.

use crate::host;
use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "host-rejected-key",
    severity: Severity::Error,
    summary: "the chosen host refuses roles with this key",
    explanation: "Some keys make a host refuse the role outright: pi-herdr-agents rejects the legacy `cli` and `cli-model` keys (`external-cli-unsupported`). Remove the key, or keep such adapters out of that host's directories. Only reported with `--host`.",
    bad: "---\ncli: claude   # linted with --host herdr\n---\n",
    good: "---\nname: reviewer\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some(entries) = tree.as_mapping() else {
        return;
    };
    let p = cx.profile;
    for (key, _) in entries {
        let k = key.text.as_str();
        if p.is_portable() {
            // The compiled-in facts first: most keys no host rejects, and then no
            // host profile is parsed.
            if !host::pi_rows().any(|h| h.rejects(k)) {
                continue;
            }
            let (rejecting, rest) = host::split_profiles(|h| h.rejected.contains_key(k));
            let Some(fact) = rejecting.first().and_then(|h| h.rejected.get(k)) else {
                continue;
            };
            let who = host::name_profiles(&rejecting);
            let note = fact.note.clone();
            let d = cx.emit(
                &RULE,
                key.span.clone(),
                format!("rejected by {who}"),
                format!("{who} refuses this role because of `{k}`: {note}"),
                Some(format!("remove `{k}` if the role must run on {who}")),
            );
            // An error only when no host would run it.
            if !rest.is_empty() {
                d.severity = Severity::Warning;
            }
            continue;
        }
        let Some(fact) = p.rejected.get(k) else {
            continue;
        };
        let (label, note) = (p.label(), fact.note.clone());
        cx.emit(
            &RULE,
            key.span.clone(),
            format!("rejected by {label}"),
            format!("{label} refuses this role because of `{k}`: {note}"),
            Some(format!("remove `{k}` for {label}")),
        );
    }
}
