//! `readme-in-agents-dir`: a README without frontmatter in a directory hosts read roles
//! from is documentation, not a role.

use crate::host::{HostProfile, NoFrontmatterAction};
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "readme-in-agents-dir",
    severity: Severity::Warning,
    also: None,
    summary: "a README in an agents directory is documentation, not a role",
    explanation: "A `README.md` without frontmatter in a directory a host reads roles from (`.pi/agents/README.md`) is documentation. Hosts that skip a file without frontmatter (nicobailon, herdr, pi's example extension, Claude Code, Gemini CLI, each by its profile's `no_frontmatter`) never load it, so it is this warning instead of the `missing-frontmatter` error. When a host that reads the directory loads such a file anyway (tintinweb: a role named `README` with every built-in tool and the README as its prompt) it stays a `missing-frontmatter` error. Keep documentation outside the agents directory to silence it.",
    bad: ".pi/agents/README.md   (no frontmatter; linted with --host pi-example)",
    good: "docs/agents.md   (the documentation, outside the agents directory)",
};

/// Whether the file is a README: `README.md`, in any case.
fn is_readme(cx: &Checker<'_>) -> bool {
    cx.doc
        .path
        .file_name()
        .is_some_and(|n| n.eq_ignore_ascii_case("README.md"))
}

/// For a file without frontmatter: when it is a README in an agents directory that no
/// host reading it would load, says so (a warning) and returns true; the caller then
/// does not report `missing-frontmatter`.
pub(crate) fn check(cx: &mut Checker<'_>) -> bool {
    if !is_readme(cx) {
        return false;
    }
    let p = cx.profile;
    let skips = |h: &HostProfile| h.no_frontmatter.action == NoFrontmatterAction::SkipSilent;
    let (dir, readers) = if p.is_portable() {
        let Some(dir) = crate::host::project_dir_of(&cx.doc.path) else {
            return false;
        };
        let (readers, _) =
            crate::host::split_profiles(|h| crate::host::host_reads_dir(h.host, dir));
        if readers.iter().any(|h| !skips(h)) {
            return false;
        }
        (dir.to_string(), crate::host::name_profiles(&readers))
    } else {
        let Some(d) = super::host_unread_directory::reading_dir(p, &cx.doc.path) else {
            return false;
        };
        if !skips(p) {
            return false;
        }
        (d.path.to_string(), p.label())
    };
    let why = if p.is_portable() {
        format!("hosts that read `{dir}/` ({readers}) skip a file without frontmatter")
    } else {
        format!(
            "{readers} {} ({})",
            p.no_frontmatter.note, p.no_frontmatter.cite
        )
    };
    let open = cx.open_fence();
    cx.emit(
        &RULE,
        open,
        "documentation, not a role",
        format!("this README in `{dir}/` has no frontmatter, so it is documentation, not a role: {why}"),
        Some("keep documentation outside the agents directory, or give the file a role's frontmatter".into()),
    );
    true
}
