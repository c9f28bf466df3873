//! `host-unread-directory`: the chosen host never looks in this directory.

use std::path::Component;

use crate::host::DirLayer;
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "host-unread-directory",
    severity: Severity::Warning,
    also: None,
    summary: "the chosen host does not discover roles in this directory",
    explanation: "pi-herdr-agents discovers bundled, global and project roles in its own directories and never reads `.agents/agents/`, so a role kept there is invisible to it. Keep roles for herdr under `.pi/agents/` (or its global directory). Reported for the host being linted for (not under the portable profile), from the directories its profile lists.",
    bad: ".agents/agents/reviewer.md   (linted with --host herdr)",
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
            let cite = p.discovery.cite.clone();
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
}
