//! `missing-tools`: no `tools` allow-list.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "missing-tools",
    severity: Severity::Warning,
    also: None,
    summary: "the role has no `tools` allow-list, so hosts give it mutating tools",
    explanation: "Without `tools` (or with a misspelt one such as `tols`) no host restricts the child: tintinweb gives it all seven built-ins, nicobailon pi's defaults read, bash, edit, write. A read-only reviewer then can edit files. List exactly the tools the role needs.",
    bad: "---\nname: reviewer\ndescription: Read-only reviewer.\n---\n",
    good: "---\nname: reviewer\ndescription: Read-only reviewer.\ntools: read, grep, find, ls\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    if tree.get("tools").is_some() {
        return;
    }
    // A host whose tool control is a permission ruleset (OpenCode).
    let p = cx.profile;
    // A host whose agents take no tool list (goose: the session's extensions):
    // there is no allow-list to add.
    if !p.is_portable() && !p.reads("tools") {
        return;
    }
    // A kind of agent that takes no `tools` (a Gemini CLI remote agent).
    if let (Some(v), Some(f)) = (&p.variants, p.key("tools"))
        && !f.kinds.is_empty()
        && !f.kinds.iter().any(|k| k == v.kind_of(tree))
    {
        return;
    }
    if ["permissions", "permission"]
        .iter()
        .any(|k| p.reads(k) && tree.get(k).is_some())
    {
        return;
    }
    let span = cx.open_fence();
    let effect = if p.is_portable() {
        format!("the child then gets {}", p.tools.missing)
    } else {
        format!("{} then gives the child {}", p.label(), p.tools.missing)
    };
    // pi ≥ 1.0.4 declares the MCP tools of `mcp.json` (or a gateway to them) to a
    // run without an allow-list.
    let effect = match &p.tools.mcp {
        Some(m) if m.missing_reaches && !p.is_portable() => format!(
            "{effect}, and on pi {} every MCP tool configured in pi's `mcp.json`",
            m.pi
        ),
        _ => effect,
    };
    cx.emit(
        &RULE,
        span,
        "no `tools` in this frontmatter",
        format!("the role has no `tools` allow-list; {effect}"),
        Some(format!(
            "add `tools:` with exactly what the role needs, e.g. `tools: {}`",
            read_only(p)
        )),
    );
}

/// pi's read-only built-ins in the host's own names (`Read, Grep, Glob, LS` for
/// Claude Code).
/// A pi tool the host has no counterpart of (OpenCode 1.18.33 has no `ls`) is left
/// out, and a name two pi tools share is said once.
pub(crate) fn read_only(p: &crate::host::HostProfile) -> String {
    let mut names: Vec<String> = Vec::new();
    for t in ["read", "grep", "find", "ls"] {
        let own = match p.tools.own_name(t) {
            Some(own) => own,
            None if p.host.is_pi() => t.to_string(),
            None => continue,
        };
        if !names.contains(&own) {
            names.push(own);
        }
    }
    names.join(", ")
}
