//! `host-ignored-key`: a key the chosen host never reads.

use crate::host;
use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::{Key, Node};

pub(crate) const RULE: Rule = Rule {
    id: "host-ignored-key",
    severity: Severity::Warning,
    also: Some((
        Severity::Error,
        "when the host refuses roles with a key it does not read instead of ignoring it",
    )),
    summary: "the chosen host ignores this key",
    explanation: "Each host reads its own subset of keys (see `pwk schema --host H`). nicobailon has no turn bound, so `max_turns` does nothing there (its bound is `toolBudget`); tintinweb reads `prompt_mode`, not `systemPromptMode`. The key is valid, but with `--host` for that host it has no effect. Not reported when the value is what the host does anyway (tintinweb replaces the system prompt by default, so `systemPromptMode: replace` is harmless there). Reported with `--host tintinweb|nicobailon|herdr` (or `host` in pwk.toml); when no host is known, the run's summary names the keys only some hosts read, once, instead.",
    bad: "---\nmax_turns: 20   # linted with --host nicobailon\n---\n",
    good: "---\n# linted with --host nicobailon\ntoolBudget: {\"soft\": 20, \"hard\": 30}\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some(entries) = tree.as_mapping() else {
        return;
    };
    let p = cx.profile;
    // A role the host refuses: its other keys are moot (`host-rejected-key` says why).
    if !p.is_portable()
        && entries
            .iter()
            .any(|(k, _)| p.rejected.contains_key(k.text.as_str()))
    {
        return;
    }
    // Under the portable profile, the rows (as bits of the pi table) whose host looks
    // where the file is: worked out once per file, not per key.
    let looking = p.is_portable().then(|| {
        let table = host::pi_table();
        match host::project_dir_of(&cx.doc.path) {
            None => table.all(),
            Some(d) => dir_rows(table, d),
        }
    });
    for (key, value) in entries {
        let k = key.text.as_str();
        // The identity key is `name-mismatch`'s: where `name` is unread, only a
        // `name` that differs from the file name changes anything.
        if k == "name" || (p.is_portable() && k == "skill") {
            continue; // `skill`: `deprecated-skill-key` says who reads it
        }
        if let Some(looking) = looking {
            portable(cx, key, value, looking);
            continue;
        }
        // Documented keys this host does not read (others are `unknown-key`).
        if p.reads(k) || p.rejected.contains_key(k) || !crate::role::schema::documents(k) {
            continue;
        }
        if p.default_values
            .get(k)
            .is_some_and(|d| value.as_scalar() == Some(*d))
        {
            continue;
        }
        let why = match p.instead.get(k) {
            Some(note) => format!(": {note}"),
            None => String::new(),
        };
        match &*p.strict_keys {
            // A host with a strict schema does not ignore the key: it refuses the
            // role.
            Some(strict) => {
                let d = cx.emit(
                    &RULE,
                    key.span.clone(),
                    format!("refused by {}", p.label()),
                    format!(
                        "{} does not read `{k}`{why}, and {}",
                        p.label(),
                        strict.note
                    ),
                    Some(format!("remove `{k}` for {}", p.label())),
                );
                d.severity = p.severity_of(RULE.id, crate::lint::Severity::Error);
            }
            None => {
                // `skill` where this host reads only `skills`: the same value, renamed.
                let fix = (k == "skill" && p.reads("skills") && tree.get("skills").is_none()).then(
                    || {
                        Fix::replace(
                            "rename `skill` to `skills`",
                            Safety::Safe,
                            key.span.clone(),
                            "skills",
                        )
                        .creating_key("skills")
                    },
                );
                let d = cx.emit(
                    &RULE,
                    key.span.clone(),
                    format!("ignored by {}", p.label()),
                    format!("{} ignores `{k}`{why}", p.label()),
                    None,
                );
                d.fixes.extend(fix);
            }
        }
    }
}

/// Under the portable profile: a key some real hosts read and others ignore. Asks
/// the compiled-in facts of every real pi host profile ([`host::pi_table`]), as bit
/// sets over its rows, so no host profile is parsed. `looking`: the rows whose host
/// looks where the file is (a role in `.agents/agents/` is none of herdr's business:
/// it reads only `.pi/agents/`).
fn portable(cx: &mut Checker<'_>, key: &Key, value: &Node, looking: u64) {
    let k = key.text.as_str();
    // Asked for every key of every file.
    let table = host::pi_table();
    let Some(facts) = table.key(k) else {
        return; // no host reads it (`unknown-key`)
    };
    if facts.rejected {
        return; // `host-rejected-key` names who refuses it
    }
    let readers = facts.readers;
    let reading = readers & looking;
    let ignoring = !readers & looking;
    if reading == 0 || ignoring == 0 {
        return; // every host reads it, or none does (`unknown-key`)
    }
    // The same setting in each host's own spelling: a host that reads one of the
    // role's spellings is served.
    let siblings: Vec<&str> = cx
        .profile
        .equivalents
        .iter()
        .find(|e| e.keys.contains(&k))
        .map(|e| {
            e.keys
                .iter()
                .copied()
                .filter(|x| cx.doc.mapping().is_some_and(|m| m.get(x).is_some()))
                .collect()
        })
        .unwrap_or_default();
    let served = siblings.iter().fold(0, |m, s| m | table.readers(s));
    // Harmless where ignored: the value is what that host does anyway.
    let ignored = table.select(ignoring & !served).any(|h| {
        h.default_value(k)
            .is_none_or(|d| value.as_scalar() != Some(d))
    });
    if !ignored {
        return;
    }
    // One finding per setting: on the first of the role's spellings.
    if siblings.first().is_some_and(|first| *first != k) {
        return;
    }
    // A key of the PWK contract (the role schema documents it): not a per-file
    // finding, the run's summary names these keys once, with how to name the host
    // (`host` in pwk.toml, `--host`).
    if crate::role::schema::documents(k) {
        cx.host_specific.insert(facts);
        return;
    }
    // Outside the contract, one host honours what another silently drops (tintinweb
    // applies `disallowed_tools`; nicobailon files it under extra fields and never
    // applies it): said where it is written, naming both.
    let versions = |mask: u64| -> Vec<(host::HostId, &'static str)> {
        table.select(mask).map(|r| (r.host, r.version)).collect()
    };
    let dropping = ignoring & !served;
    let readers_named = host::name_versions(&versions(reading));
    let droppers_named = host::name_versions(&versions(dropping));
    let spellings = cx
        .profile
        .equivalents
        .iter()
        .find(|e| e.keys.contains(&k))
        .map(|e| format!("; {}", e.note))
        .unwrap_or_default();
    let first_reader = table
        .select(reading)
        .next()
        .map_or("tintinweb", |r| r.host.as_str());
    cx.emit(
        &RULE,
        key.span.clone(),
        format!("read by {readers_named} only"),
        format!(
            "`{k}` is read by {readers_named} and silently ignored by {droppers_named}: a role that relies on it behaves differently there"
        ),
        Some(format!(
            "name the host the role is for: `--host {first_reader}`, or `host = \"{first_reader}\"` in pwk.toml{spellings}"
        )),
    );
}

/// The rows (as bits of `table`) whose host discovers project roles in `dir` (one of
/// [`host::project_dir_of`]'s directories), worked out once per process.
fn dir_rows(table: &host::PiTable, dir: &str) -> u64 {
    static MASKS: std::sync::OnceLock<[(&str, u64); 2]> = std::sync::OnceLock::new();
    let masks = MASKS.get_or_init(|| {
        [".agents/agents", ".pi/agents"].map(|d| {
            let mask = table
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| host::host_reads_dir(r.host, d))
                .fold(0, |m, (i, _)| m | 1 << i);
            (d, mask)
        })
    });
    masks.iter().find(|(d, _)| *d == dir).map_or(0, |(_, m)| *m)
}
