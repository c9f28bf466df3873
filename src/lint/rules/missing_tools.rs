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
    if let (Some(v), Some(f)) = (&*p.variants, p.key("tools"))
        && !f.kinds.is_empty()
        && !f.kinds.iter().any(|k| *k == v.kind_of(tree))
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
    let effect = match &*p.tools.mcp {
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
        Some(match read_only(p) {
            Some(tools) => {
                format!("add `tools:` with exactly what the role needs, e.g. `tools: {tools}`")
            }
            None => "add `tools:` with exactly what the role needs".to_string(),
        }),
    );
}

/// pi's read-only built-ins in the host's own names (`Read, Grep, Glob, LS` for
/// Claude Code): each named once, and only those the host has (OpenCode has no
/// `ls`; Copilot's `search` covers both grep and find). `None` when the host has
/// none of them under any name.
pub(crate) fn read_only(p: &crate::host::HostProfile) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    for t in ["read", "grep", "find", "ls"] {
        if let Some(own) = p.tools.own_name(t)
            && !names.contains(&own)
        {
            names.push(own);
        }
    }
    (!names.is_empty()).then(|| names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::read_only;
    use crate::host::ALL;

    /// The help's example allow-list, for every profile of every host: each tool
    /// named once, and each one the host has (a built-in of its own), so that
    /// following the help never earns an `unknown-tool` finding.
    #[test]
    fn the_example_names_only_tools_the_host_has_once_each() {
        for host in ALL {
            for p in host.profiles() {
                let Some(example) = read_only(p) else {
                    continue;
                };
                let names: Vec<&str> = example.split(", ").collect();
                let mut unique = names.clone();
                unique.sort_unstable();
                unique.dedup();
                assert_eq!(unique.len(), names.len(), "{}: {example}", p.label());
                for n in names {
                    assert!(
                        p.tools.builtins.contains(&n),
                        "{}: `{n}` in `{example}` is not a built-in of the host",
                        p.label()
                    );
                }
            }
        }
    }
}
