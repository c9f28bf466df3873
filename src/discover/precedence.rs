//! Which definition of a name wins under a host (its layers' precedence), what it
//! shadows, and what the user should know about the winner there.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Host, HostId, IdentityBy, ResolvedRole, RoleFile, Shadowed, SourceDir};

/// Group loadable files the host reads by identity; the highest-ranked wins.
pub(super) fn pick_winners(
    host: Host,
    cwd: &Path,
    sources: &[SourceDir],
    files: &[RoleFile],
) -> Vec<ResolvedRole> {
    let mut groups: BTreeMap<&str, Vec<&RoleFile>> = BTreeMap::new();
    for f in files {
        if f.loadable && sources[f.source].read_by_host {
            groups.entry(f.identity.as_str()).or_default().push(f);
        }
    }
    let mut roles = Vec::new();
    for (name, mut candidates) in groups {
        // Highest rank first; within one source the first path in sorted order wins.
        candidates.sort_by(|a, b| {
            sources[b.source]
                .rank
                .cmp(&sources[a.source].rank)
                .then_with(|| a.path.cmp(&b.path))
        });
        let winner = candidates[0];
        let (Some(doc), Some(role)) = (winner.doc.clone(), winner.role.clone()) else {
            continue;
        };
        let shadows = candidates[1..]
            .iter()
            .map(|f| Shadowed {
                source: f.layer,
                path: f.path.display(cwd),
                role_path: f.path.clone(),
            })
            .collect();
        let mut notes = Vec::new();
        let same_dir = candidates[1..]
            .iter()
            .filter(|f| f.source == winner.source)
            .count();
        if same_dir > 0 {
            notes.push(format!(
                "{} files in {} answer to `{name}`; hosts pick one by directory order, which is not stable: rename or remove the others",
                same_dir + 1,
                sources[winner.source].display(cwd)
            ));
        }
        notes.extend(identity_notes(host, winner));
        if winner.declares_hidden && !host.reads("disable-model-invocation") {
            notes.push(format!(
                "{} ignores `disable-model-invocation`: this adapter is offered to the model like any other role",
                host.as_str()
            ));
        }
        if host.host == HostId::Herdr && role.cli.is_some() {
            notes.push(
                "herdr refuses to launch roles that set `cli` (external CLI adapters are unsupported there)"
                    .to_string(),
            );
        }
        let winner_rank = sources[winner.source].rank;
        for f in files {
            if !f.loadable
                && f.identity == name
                && sources[f.source].read_by_host
                && sources[f.source].rank >= winner_rank
                && f.path != winner.path
            {
                notes.push(format!(
                    "{} would override this definition but is broken, so hosts skip it",
                    f.path.display(cwd)
                ));
            }
        }
        roles.push(ResolvedRole {
            name: name.to_string(),
            path: winner.path.clone(),
            layer: winner.layer,
            source: winner.source,
            doc,
            role,
            hidden: winner.hidden,
            shadows,
            notes,
        });
    }
    roles
}

/// Notes about how the host names this file.
fn identity_notes(host: Host, f: &RoleFile) -> Vec<String> {
    let label = host.label();
    let unknown = host.identity.on_unknown.unwrap_or("finds no role");
    let Some(name) = f.role.as_ref().and_then(|r| r.name.as_deref()) else {
        return match host.identity.by {
            IdentityBy::NameThenStem => {
                vec![format!("no `name`: known by its file stem `{}`", f.stem)]
            }
            IdentityBy::Stem | IdentityBy::Name => Vec::new(),
        };
    };
    if name == f.stem {
        return Vec::new();
    }
    match host.identity.by {
        IdentityBy::Stem => vec![format!(
            "{label} ignores `name: {name}` and answers to the file stem `{}`; calling `{name}` {unknown}",
            f.stem
        )],
        IdentityBy::Name | IdentityBy::NameThenStem if host.is_portable() => vec![format!(
            "`name: {name}` differs from the file stem `{}`: tintinweb before 0.17 would call it `{}`",
            f.stem, f.stem
        )],
        IdentityBy::Name | IdentityBy::NameThenStem => vec![format!(
            "{label} answers to `name: {name}`, not to the file stem `{}`; calling `{}` {unknown}",
            f.stem, f.stem
        )],
    }
}
