//! `host-ignored-key`: a key the chosen host never reads.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::hosts::host_id;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "host-ignored-key",
    severity: Severity::Warning,
    summary: "the chosen host ignores this key",
    explanation: "Each host reads its own subset of keys (see `pwk schema --host H`). nicobailon has no turn bound, so `max_turns` does nothing there (its bound is `toolBudget`); tintinweb reads `prompt_mode`, not `systemPromptMode`. The key is valid, but with `--host` for that host it has no effect. Not reported when the value is what the host does anyway (tintinweb replaces the system prompt by default, so `systemPromptMode: replace` is harmless there). Only reported with `--host tintinweb|nicobailon|herdr`.",
    bad: "---\nmax_turns: 20   # linted with --host nicobailon\n---\n",
    good: "---\nmax_turns: 20\ntoolBudget: {soft: 20, hard: 30}   # linted with --host nicobailon\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some(entries) = tree.as_mapping() else {
        return;
    };
    let host = host_id(cx.host);
    for (key, value) in entries {
        let Some(note) = cx.profile.ignored.get(&key.text) else {
            continue;
        };
        let default = cx.profile.default_values.get(&key.text);
        if default.is_some_and(|d| value.as_str() == Some(d.as_str())) {
            continue;
        }
        let note = note.clone();
        cx.emit(
            &RULE,
            key.span.clone(),
            format!("ignored by {host}"),
            format!("{host} ignores `{}`: {note}", key.text),
            None,
        );
    }
}
