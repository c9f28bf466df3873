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
            .any(|(k, _)| p.rejected.contains_key(&k.text))
    {
        return;
    }
    // Under the portable profile, the rows (as bits of the pi table) whose host looks
    // where the file is: worked out once per file, not per key.
    let looking = p.is_portable().then(|| {
        let table = host::pi_table();
        match project_dir_of(&cx.doc.path) {
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
            .is_some_and(|d| value.as_scalar() == Some(d.as_str()))
        {
            continue;
        }
        let why = match p.instead.get(k) {
            Some(note) => format!(": {note}"),
            None => String::new(),
        };
        match &p.strict_keys {
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
        .find(|e| e.keys.iter().any(|x| x == k))
        .map(|e| {
            e.keys
                .iter()
                .map(String::as_str)
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
    // Not a per-file finding: the run's summary names these keys once, with how to
    // name the host (`host` in pwk.toml, `--host`).
    cx.host_specific.insert(facts);
}

/// The rows (as bits of `table`) whose host discovers project roles in `dir` (one of
/// [`project_dir_of`]'s directories), worked out once per process.
fn dir_rows(table: &host::PiTable, dir: &str) -> u64 {
    static MASKS: std::sync::OnceLock<[(&str, u64); 2]> = std::sync::OnceLock::new();
    let masks = MASKS.get_or_init(|| {
        [".agents/agents", ".pi/agents"].map(|d| {
            let mask = table
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| host_reads_dir(r.host, d))
                .fold(0, |m, (i, _)| m | 1 << i);
            (d, mask)
        })
    });
    masks.iter().find(|(d, _)| *d == dir).map_or(0, |(_, m)| *m)
}

/// The well-known pi project directory holding `path` (`.agents/agents`,
/// `.pi/agents`), if it is in one.
pub(crate) fn project_dir_of(path: &std::path::Path) -> Option<&'static str> {
    const DIRS: [&str; 2] = [".agents/agents", ".pi/agents"];
    // Asked for every file, so bytes first: `Path::parent` and `Path::ends_with`
    // parse components, at ~10x the cost. The parent of `dir/name` (a plain file
    // name) is `dir`.
    let bytes = match crate::fs::plain_parent(path) {
        Some((dir, _)) => dir,
        None => path.parent()?.as_os_str().as_encoded_bytes(),
    };
    let open_end = bytes.ends_with(b"/") || bytes.ends_with(b".");
    if !open_end && !bytes.ends_with(b"agents") {
        return None;
    }
    // Written plainly (no `//`, no `.` component), comparing bytes means comparing
    // components.
    let plain = !open_end
        && !bytes.windows(2).any(|w| w == b"//")
        && !bytes.windows(3).any(|w| w == b"/./");
    if plain {
        return DIRS.into_iter().find(|d| {
            bytes
                .strip_suffix(d.as_bytes())
                .is_some_and(|head| head.is_empty() || head.ends_with(b"/"))
        });
    }
    let parent = path.parent()?;
    DIRS.into_iter().find(|d| parent.ends_with(d))
}

/// Whether `host`'s newest profile discovers project roles in `dir` (itself, or a
/// directory it reads below: nicobailon reads `.agents/` throughout).
pub(crate) fn host_reads_dir(host: host::HostId, dir: &str) -> bool {
    host.project_dirs().any(|d| {
        d == dir
            || dir
                .strip_prefix(d)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

#[cfg(test)]
mod tests {
    use super::project_dir_of;
    use std::path::Path;

    /// The byte comparison answers as comparing components does, on every way of
    /// writing a parent directory.
    #[test]
    fn project_dir_of_agrees_with_path_components() {
        let parents = [
            "",
            ".",
            "/",
            "agents",
            ".agents/agents",
            ".pi/agents",
            "x/.agents/agents",
            "/x/.pi/agents",
            "x.agents/agents",
            "x/a.pi/agents",
            ".agents//agents",
            ".agents/./agents",
            "./.agents/agents",
            ".agents/agents/",
            ".agents/agents/.",
            "x//.pi/agents",
            ".pi/agents//",
            "/.pi/agents",
            "pi/agents",
            ".pi/xagents",
            ".pi/agents/x",
            "a/.agents/agents/../agents",
            "./x/.pi/agents",
            "./.pi/agents",
            "..agents/agents",
        ];
        let mut paths: Vec<std::path::PathBuf> = parents
            .iter()
            .map(|p| Path::new(p).join("role.md"))
            .collect();
        // Written as they come, not as `join` writes them.
        paths.extend(
            [
                "role.md",
                "/role.md",
                "x//role.md",
                ".agents/agents//role.md",
                ".pi/agents/./role.md",
                ".pi/agents/.",
                ".pi/agents/..",
                ".pi/agents/",
                ".pi/agents/x/..",
                "a/.pi/agents/role.md/",
            ]
            .map(std::path::PathBuf::from),
        );
        for path in paths {
            let slow = path.parent().and_then(|p| {
                [".agents/agents", ".pi/agents"]
                    .into_iter()
                    .find(|d| p.ends_with(d))
            });
            assert_eq!(project_dir_of(&path), slow, "{path:?}");
        }
    }
}
