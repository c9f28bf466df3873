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
    explanation: "Some keys make a host refuse the role outright: pi-herdr-agents rejects the legacy `cli` and `cli-model` keys (`external-cli-unsupported`); Gemini CLI refuses a key of the other kind of agent (`tools` in a `kind: remote` agent, `agent_card_url` in a local one) and a remote agent without exactly one of `agent_card_url` and `agent_card_json`. Remove the key, or keep such adapters out of that host's directories. Under the portable profile (no host named) an error when a host that reads the file's directory refuses it.",
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
            let note = fact.note;
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
        // A key of another kind of agent (Gemini CLI: `tools` in a remote agent).
        if let (Some(v), Some(f)) = (&*p.variants, p.key(k))
            && !f.kinds.is_empty()
            && !f.kinds.iter().any(|x| *x == v.kind_of(tree))
        {
            let (label, kind, of) = (p.label(), v.kind_of(tree), f.kinds.join(" or "));
            cx.emit(
                &RULE,
                key.span.clone(),
                format!("only in {of} agents"),
                format!(
                    "{label} refuses this {kind} agent because of `{k}`: only a `{}: {of}` agent may have it",
                    v.key
                ),
                Some(format!("remove `{k}`, or make the agent `{}: {of}`", v.key)),
            );
            continue;
        }
        let Some(fact) = p.rejected.get(k) else {
            continue;
        };
        let (label, note) = (p.label(), fact.note);
        cx.emit(
            &RULE,
            key.span.clone(),
            format!("rejected by {label}"),
            format!("{label} refuses this role because of `{k}`: {note}"),
            Some(format!("remove `{k}` for {label}")),
        );
    }
}

/// A kind of agent that needs exactly one key of a group (a Gemini CLI remote agent:
/// `agent_card_url` or `agent_card_json`): an error when it has none or several.
pub(crate) fn check_one_of(cx: &mut Checker<'_>, tree: &Node) {
    let p = cx.profile;
    let Some(v) = &*p.variants else { return };
    let kind = v.kind_of(tree);
    for group in v.one_of.iter().filter(|g| g.kinds.contains(&kind)) {
        let present: Vec<&&str> = group
            .keys
            .iter()
            .filter(|k| tree.get(k).is_some())
            .collect();
        if present.len() == 1 {
            continue;
        }
        let quoted: Vec<String> = group.keys.iter().map(|k| format!("`{k}`")).collect();
        let keys = quoted.join(" or ");
        let (span, what) = match present.as_slice() {
            [] => (
                cx.mapping_key_span(v.key)
                    .unwrap_or_else(|| cx.open_fence()),
                format!("has neither {}", quoted.join(" nor ")),
            ),
            [_, second, ..] => (
                cx.mapping_key_span(second)
                    .unwrap_or_else(|| cx.open_fence()),
                format!("has both {}", quoted.join(" and ")),
            ),
            [_] => unreachable!(),
        };
        let label = p.label();
        cx.emit(
            &RULE,
            span,
            format!("needs one of {keys}"),
            format!(
                "{label} refuses this {kind} agent: it {what}; {label} {}",
                group.note
            ),
            Some(format!("give the agent exactly one of {keys}")),
        );
    }
}
