//! `shadowed-role`: two discovery directories of the host define the same role; the
//! host loads the one from the higher-priority directory and never the other.

use std::path::Path;

use crate::host::DirLayer;
use crate::host::HostProfile;
use crate::lint::Severity;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "shadowed-role",
    severity: Severity::Warning,
    also: None,
    summary: "a role is defined in two of the host's directories; one shadows the other",
    explanation: "A host reads several directories (for pwk: the global agents directory, then the project's `.agents/agents/`, then `.pi/agents/`) and, when two of them define the same role, keeps the one from the later directory. The other file never runs. This is how a project overrides a shared role on purpose, so it is a warning that names the winner; remove or rename the loser if the override is not intended. Two files with the same name in one directory are `duplicate-name`.",
    bad: ".agents/agents/reviewer.md: name: reviewer\n.pi/agents/reviewer.md:     name: reviewer   # wins\n",
    good: ".agents/agents/reviewer.md:          name: reviewer\n.pi/agents/security-reviewer.md:     name: security-reviewer\n",
};

/// The precedence of the project discovery directory that holds `file` under
/// `profile` (higher wins), or `None` when no project directory of the host does.
pub(crate) fn rank(profile: &HostProfile, file: &Path) -> Option<usize> {
    let parent = file.parent()?;
    profile
        .discovery
        .dirs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.layer == DirLayer::Project && !d.path.contains('{'))
        .filter(|(_, d)| {
            let dir = Path::new(&d.path);
            if d.recursive {
                parent.ancestors().any(|a| a.ends_with(dir))
            } else {
                parent.ends_with(dir)
            }
        })
        .map(|(i, _)| i)
        .max()
}
