//! Who reads the shared `.agents/agents/` directory, and what each does with the
//! roles `pwk setup` writes there.
//!
//! `.agents/agents/` is the PWK contract's directory, and other hosts read it too
//! (tintinweb and nicobailon, and others with a profile whose project directories
//! include it). With no host detected, setup renders the canonical roles for the
//! portable profile; this module lints each rendered role under every such reader's
//! own profile, where it is written, so the summary can say what each reader does
//! with them (a reader that would skip a role shows an error there), from the same
//! facts `pwk lint --host <reader>` uses.

use crate::host::{ALL, HostId, HostProfile};
use crate::lint::Severity;

use crate::roles::BundledRole;

/// What one reader does with the rendered roles.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Reader {
    /// The reader's profile (`tintinweb@0.25`).
    pub(crate) profile: String,
    /// Roles it loads.
    pub(crate) loads: Vec<String>,
    /// Roles it skips or refuses, each with the reason (`pwk lint`'s error).
    pub(crate) skips: Vec<(String, String)>,
    /// Loaded roles the reader never delegates to (`not-invocable`: Antigravity
    /// CLI without `subagent: true`), and what it needs.
    pub(crate) uncallable: Vec<String>,
    /// What those roles lack, completing "… to none of them: …" (`no `subagent:
    /// true``).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) uncallable_why: Option<String>,
    /// Rules `pwk lint --host <reader>` warns about on the loaded roles, with how
    /// many roles each.
    pub(crate) warns: Vec<(String, usize)>,
}

impl Reader {
    /// `loads all 5 as written`, `loads 3 of 5; skips pwk-x (…)`, ….
    pub(crate) fn summary(&self) -> String {
        let total = self.loads.len() + self.skips.len();
        let mut out = if self.skips.is_empty() {
            format!("loads all {total}")
        } else {
            format!("loads {} of {total}", self.loads.len())
        };
        if self.warns.is_empty() && self.skips.is_empty() {
            out.push_str(" as written");
        }
        if !self.uncallable.is_empty() {
            let which = if self.uncallable.len() == self.loads.len() {
                "none of them".to_string()
            } else {
                self.uncallable.join(", ")
            };
            out.push_str(&format!(
                " but delegates to {which} ({})",
                self.uncallable_why.as_deref().unwrap_or("not-invocable")
            ));
        }
        let warns: Vec<&(String, usize)> = self
            .warns
            .iter()
            .filter(|(r, _)| r != crate::lint::rules::not_invocable::RULE.id)
            .collect();
        if !warns.is_empty() {
            let w: Vec<String> = warns.iter().map(|(r, n)| format!("{r} ×{n}")).collect();
            out.push_str(&format!("; `pwk lint` warns: {}", w.join(", ")));
        }
        for (role, why) in &self.skips {
            out.push_str(&format!(
                "; skips {role}: {}",
                crate::text::escape_line(why)
            ));
        }
        out
    }
}

/// Every host (but the portable profile) whose newest profile reads project roles
/// in `dir` (`.agents/agents`), with what it does with `roles` written there.
pub(crate) fn readers(roles: &[BundledRole], dir: [&str; 2]) -> Vec<Reader> {
    let rel = dir.join("/");
    ALL.into_iter()
        .filter(|h| *h != HostId::Pwk && crate::host::host_reads_dir(*h, &rel))
        .map(|h| reader(h.newest(), roles, dir))
        .collect()
}

/// The pi hosts pwk knows that do not read `dir`, each with the project
/// directories it reads instead (`herdr@1.3: reads .pi/agents/`).
pub(crate) fn not_readers(dir: [&str; 2]) -> Vec<String> {
    let rel = dir.join("/");
    ALL.into_iter()
        .filter(|h| *h != HostId::Pwk && h.is_pi() && !crate::host::host_reads_dir(*h, &rel))
        .map(|h| {
            let dirs: Vec<String> = h.project_dirs().map(|d| format!("{d}/")).collect();
            format!(
                "{}: does not read it (reads {})",
                h.newest().label(),
                dirs.join(", ")
            )
        })
        .collect()
}

fn reader(profile: &'static HostProfile, roles: &[BundledRole], dir: [&str; 2]) -> Reader {
    let mut r = Reader {
        profile: profile.label(),
        loads: Vec::new(),
        skips: Vec::new(),
        uncallable: Vec::new(),
        uncallable_why: None,
        warns: Vec::new(),
    };
    for role in roles {
        let path: std::path::PathBuf = dir.iter().chain([&role.file_name().as_str()]).collect();
        let doc = crate::role::RoleDoc::parse(path, role.content.as_bytes());
        let found = crate::lint::lint_doc(&doc, profile, &Default::default());
        match found.iter().find(|d| d.severity == Severity::Error) {
            Some(e) => r.skips.push((role.name.to_string(), e.message.clone())),
            None => r.loads.push(role.name.to_string()),
        }
        if let Some(d) = found
            .iter()
            .find(|d| d.rule == crate::lint::rules::not_invocable::RULE.id)
        {
            r.uncallable.push(role.name.to_string());
            r.uncallable_why = Some(format!("{}: {}", d.rule, d.label));
        }
        for d in found.iter().filter(|d| d.severity == Severity::Warning) {
            match r.warns.iter_mut().find(|(rule, _)| rule == d.rule) {
                Some((_, n)) => *n += 1,
                None => r.warns.push((d.rule.to_string(), 1)),
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With no host known, the roles setup writes into `.agents/agents/` break no
    /// reader pwk knows of: each loads all of them (no error under its profile).
    /// Asked of every profile that reads the directory, so a new reader's profile
    /// is covered when it is added.
    #[test]
    fn no_reader_of_the_shared_directory_skips_the_portable_roles() {
        let (roles, dir) = crate::install::bundled::rendered_for(HostId::Pwk.newest());
        assert_eq!(dir, crate::install::PROJECT_AGENTS_DIR);
        let readers = readers(&roles, dir);
        let names: Vec<&str> = readers.iter().map(|r| r.profile.as_str()).collect();
        assert!(
            names.iter().any(|n| n.starts_with("tintinweb@"))
                && names.iter().any(|n| n.starts_with("nicobailon@")),
            "{names:?}"
        );
        // herdr reads only `.pi/agents/`; Antigravity CLI and goose read it too.
        assert!(!names.iter().any(|n| n.starts_with("herdr@")), "{names:?}");
        for host in [HostId::Antigravity, HostId::Goose] {
            assert!(
                crate::host::host_reads_dir(host, ".agents/agents"),
                "{host}"
            );
            assert!(
                names.iter().any(|n| n.starts_with(&format!("{host}@"))),
                "{host}: {names:?}"
            );
        }
        // Every reader pwk has a profile for is listed, and only those.
        let want: Vec<HostId> = crate::host::ALL
            .into_iter()
            .filter(|h| *h != HostId::Pwk && crate::host::host_reads_dir(*h, ".agents/agents"))
            .collect();
        assert_eq!(readers.len(), want.len(), "{names:?}");
        // Antigravity CLI loads them but delegates to none without `subagent: true`,
        // and the summary says so; the others delegate to every one.
        for r in &readers {
            let s = r.summary();
            if r.profile.starts_with("antigravity@") {
                assert_eq!(r.uncallable.len(), roles.len(), "{s}");
                assert!(
                    s.contains(
                        "but delegates to none of them (not-invocable: no `subagent: true`)"
                    ),
                    "{s}"
                );
            } else {
                assert!(r.uncallable.is_empty(), "{s}");
            }
        }
        for r in &readers {
            assert!(r.skips.is_empty(), "{}: {:?}", r.profile, r.skips);
            assert_eq!(r.loads.len(), roles.len(), "{}", r.profile);
        }
    }

    /// A reader that refuses a role says so, with the reason.
    #[test]
    fn a_refused_role_is_named_with_the_reason() {
        let roles = [BundledRole {
            name: "x",
            content: "---\ndescription: d\n---\nBody\n",
        }];
        let r = reader(HostId::Nicobailon.newest(), &roles, [".agents", "agents"]);
        assert_eq!(r.loads.len(), 0);
        assert_eq!(r.skips.len(), 1, "{r:?}");
        assert!(r.summary().contains("skips x: "), "{}", r.summary());
    }
}
