//! `host-rejected-key`: a key that makes the chosen host refuse the role.

use crate::host;
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "host-rejected-key",
    severity: Severity::Error,
    also: None,
    summary: "the chosen host refuses roles with this key",
    explanation: "Some keys make a host refuse the role outright: pi-herdr-agents rejects the legacy `cli` and `cli-model` keys (`external-cli-unsupported`). Remove the key, or keep such adapters out of that host's directories. Under the portable profile (no host named) an error when a host that reads the file's directory refuses it.",
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
            if !host::pi_table().rejected_somewhere(k) {
                continue;
            }
            // Only the hosts that look where the file is (herdr never reads
            // `.agents/agents/`, so its refusal is moot there).
            let dir = crate::host::project_dir_of(&cx.doc.path);
            let looks = |h: &crate::host::HostProfile| {
                dir.is_none_or(|d| crate::host::host_reads_dir(h.host, d))
            };
            let (rejecting, _) = host::split_profiles(|h| looks(h) && h.rejected.contains_key(k));
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
            // A supported host refuses it: an error wherever no host is named.
            d.severity = p.severity_of(RULE.id, Severity::Error);
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
