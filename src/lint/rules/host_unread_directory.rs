//! `host-unread-directory`: the chosen host never looks in this directory.

use std::path::Component;

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::hosts::host_id;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "host-unread-directory",
    severity: Severity::Warning,
    summary: "the chosen host does not discover roles in this directory",
    explanation: "pi-herdr-agents discovers bundled, global and project roles in its own directories and never reads `.agents/agents/`, so a role kept there is invisible to it. Keep roles for herdr under `.pi/agents/` (or its global directory). Only reported with `--host herdr`.",
    bad: ".agents/agents/reviewer.md   (linted with --host herdr)",
    good: ".pi/agents/reviewer.md",
};

pub(crate) fn check(cx: &mut Checker<'_>) {
    if cx.profile.reads_agents_agents {
        return;
    }
    let comps: Vec<_> = cx.doc.path.components().collect();
    let inside = comps.windows(2).any(|w| {
        w[0] == Component::Normal(".agents".as_ref())
            && w[1] == Component::Normal("agents".as_ref())
    });
    if inside {
        let host = host_id(cx.host);
        cx.emit(
            &RULE,
            0..0,
            "",
            format!("{host} never reads `.agents/agents/`: it will not find this role"),
            Some("move the role to `.pi/agents/`".into()),
        );
    }
}
