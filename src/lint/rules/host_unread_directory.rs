//! `host-unread-directory`: the chosen host never looks in this directory (one it
//! does not read at all, or a subdirectory of one it reads only one level deep).

use std::path::{Component, Path};

use crate::host::{DirLayer, DiscoveryDir, HostProfile};
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "host-unread-directory",
    severity: Severity::Warning,
    also: None,
    summary: "the chosen host does not discover roles in this directory",
    explanation: "pi-herdr-agents discovers bundled, global and project roles in its own directories and never reads `.agents/agents/`, so a role kept there is invisible to it. Keep roles for herdr under `.pi/agents/` (or its global directory). Hosts that read only the files directly in their directory (pi's example extension, herdr, tintinweb, Gemini CLI) never see a role in a subdirectory of it (`.pi/agents/review/security.md`): move it up. Reported for the host being linted for (not under the portable profile), from the directories its profile lists and whether it reads each recursively.",
    bad: ".agents/agents/reviewer.md   (linted with --host herdr)\n.pi/agents/review/security.md   (linted with --host pi-example)",
    good: ".pi/agents/reviewer.md",
};

pub(crate) fn check(cx: &mut Checker<'_>) {
    let p = cx.profile;
    // The portable profile is pwk's own layout; `--host H` says what H sees.
    if p.is_portable() {
        return;
    }
    let comps: Vec<_> = cx.doc.path.components().collect();
    let in_pair = |a: &str, b: &str| {
        comps
            .windows(3)
            .any(|w| w[0] == Component::Normal(a.as_ref()) && w[1] == Component::Normal(b.as_ref()))
    };
    // Only the well-known project directories are judged; other paths are the
    // user's own layout (a role pack, a test fixture).
    for (a, b) in [(".agents", "agents"), (".pi", "agents")] {
        if !in_pair(a, b) {
            continue;
        }
        let dir = format!("{a}/{b}");
        let read = p.discovery.dirs.iter().any(|d| {
            d.layer == DirLayer::Project && (d.path == dir || (d.recursive && d.path == a))
        });
        if !read {
            let label = p.label();
            let cite = p.discovery.cite;
            cx.emit(
                &RULE,
                0..0,
                "",
                format!("{label} never reads `{dir}/`: it will not find this role ({cite})"),
                Some(format!(
                    "move the role to a directory {label} reads: {}",
                    p.discovery
                        .dirs
                        .iter()
                        .map(|d| format!("`{}`", d.display()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
        }
    }
    in_subdirectory(cx, &comps);
}

/// Where `dir` (a path relative to the project) sits in a file's path `comps`: the
/// index just after it.
fn after(comps: &[Component<'_>], dir: &str) -> Option<usize> {
    // The rest of `dir` is parsed only where its first component matches (asked
    // for each of the profile's directories, for every file of a run).
    let mut want = Path::new(dir).components();
    let first = want.next()?;
    (0..comps.len())
        .filter(|&i| comps[i] == first)
        .find_map(|i| {
            let n = 1 + want.clone().count();
            (i + n < comps.len() && comps[i + 1..i + n].iter().copied().eq(want.clone()))
                .then_some(i + n)
        })
}

/// The project directory of `p` from which the host reads the file at `path` (one it
/// reads recursively that holds it, or one it reads one level deep that holds it
/// directly), if any.
pub(crate) fn reading_dir<'p>(p: &'p HostProfile, path: &Path) -> Option<&'p DiscoveryDir> {
    let comps: Vec<_> = path.components().collect();
    reading_dir_of(p, &comps)
}

/// [`reading_dir`] for a path already split into its components.
fn reading_dir_of<'p>(p: &'p HostProfile, comps: &[Component<'_>]) -> Option<&'p DiscoveryDir> {
    let project = || {
        p.discovery
            .dirs
            .iter()
            .filter(|d| d.layer == DirLayer::Project)
    };
    project()
        .find(|d| d.recursive && after(comps, d.path).is_some())
        .or_else(|| project().find(|d| after(comps, d.path).is_some_and(|i| i + 1 == comps.len())))
}

/// A role in a subdirectory of a project directory the host reads only one level
/// deep (pi's example extension: `readdirSync` of the directory alone, its own
/// `*.md` files), when no directory it reads recursively holds the file.
fn in_subdirectory(cx: &mut Checker<'_>, comps: &[Component<'_>]) {
    let p = cx.profile;
    if reading_dir_of(p, comps).is_some() {
        return;
    }
    for d in p
        .discovery
        .dirs
        .iter()
        .filter(|d| d.layer == DirLayer::Project && !d.recursive)
    {
        let Some(i) = after(comps, d.path) else {
            continue;
        };
        // Directly inside: comps[i] is the file itself.
        if comps.len() <= i + 1 {
            continue;
        }
        let sub = comps[i].as_os_str().to_string_lossy();
        let (label, dir, cite) = (p.label(), &d.path, &d.cite);
        cx.emit(
            &RULE,
            0..0,
            "",
            format!(
                "{label} reads only the files directly in `{dir}/`, never `{dir}/{sub}/`: it will not find this role ({cite})"
            ),
            Some(format!("move the file up into `{dir}/`")),
        );
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The search `after` replaced: every start tried, the whole of `dir` parsed
    /// before the first comparison.
    fn after_by_every_start(comps: &[Component<'_>], dir: &str) -> Option<usize> {
        let mut want = Path::new(dir).components();
        let first = want.next()?;
        let n = 1 + want.clone().count();
        (0..comps.len().saturating_sub(n))
            .find(|&i| comps[i] == first && comps[i + 1..i + n].iter().copied().eq(want.clone()))
            .map(|i| i + n)
    }

    fn part() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just(".agents"),
            Just("agents"),
            Just(".pi"),
            Just("a"),
            Just("."),
            Just(".."),
            Just(""),
        ]
    }

    proptest! {
        /// Wherever a directory sits in a path (at its start, its end, twice,
        /// partly, written with `//`, `.` or a leading `/`), or does not,
        /// `after` finds the place trying every start finds.
        #[test]
        fn after_finds_what_trying_every_start_finds(
            path in proptest::collection::vec(part(), 0..9),
            dir in proptest::collection::vec(part(), 0..4),
            absolute in any::<bool>(),
        ) {
            let path = format!("{}{}", if absolute { "/" } else { "" }, path.join("/"));
            let dir = dir.join("/");
            let comps: Vec<_> = Path::new(&path).components().collect();
            prop_assert_eq!(after(&comps, &dir), after_by_every_start(&comps, &dir));
        }
    }
}
