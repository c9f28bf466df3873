//! `host-rejected-key`: a key that makes the chosen host refuse the role.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::hosts::host_id;
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
    let host = host_id(cx.host);
    for (key, _) in entries {
        let Some(note) = cx.profile.rejected.get(&key.text) else {
            continue;
        };
        let note = note.clone();
        cx.emit(
            &RULE,
            key.span.clone(),
            format!("rejected by {host}"),
            format!("{host} refuses this role because of `{}`: {note}", key.text),
            Some(format!("remove `{}` for {host}", key.text)),
        );
    }
}
