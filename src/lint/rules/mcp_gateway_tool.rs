//! `mcp-gateway-tool`: a read-only role whose `tools` names `codemode` or
//! `tool_search`, which on pi ≥ 1.0.4 open every configured MCP tool.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::lint::rules::unknown_tool::entries;
use crate::role::{Node, Value};

pub(crate) const RULE: Rule = Rule {
    id: "mcp-gateway-tool",
    severity: Severity::Warning,
    also: None,
    summary: "a read-only role's `tools` names `codemode` or `tool_search`, which reach every MCP tool",
    explanation: "Since pi 1.0.4 a `--tools` allow-list keeps every MCP tool configured in pi's `mcp.json` unless an entry starts with `mcp__`, and `codemode` (a script that calls any tool) or `tool_search` (which declares tools on demand) hands them to the model: measured on pi 1.6.0, `--tools read,grep,find,ls,codemode` let the child call a mutating MCP tool. A role whose other tools are read-only is then not read-only. Reported for hosts that hand `tools` to `pi --tools` (herdr, and the portable profile for its sake). Drop the gateway, or name the one MCP tool the role needs (`mcp__server__tool`): pi then keeps only the MCP tools named.",
    bad: "---\nname: reviewer\ndescription: Read-only reviewer.\ntools: read, grep, codemode\n---\n",
    good: "---\nname: reviewer\ndescription: Read-only reviewer.\ntools: read, grep, find, ls\n---\n",
};

/// pi's tools that change files or run commands.
const MUTATING: [&str; 4] = ["bash", "edit", "write", "powershell"];

/// Whether `needle` occurs in `hay`: a scan for its first byte, then a comparison.
/// Asked of every role's `tools`, a value of a few dozen bytes, where setting up
/// `str::contains`'s two-way search costs more than the scan.
fn mentions(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else {
        return true;
    };
    (0..h.len()).any(|i| h[i] == first && h[i..].starts_with(n))
}

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let p = cx.profile;
    let Some(mcp) = &*p.tools.mcp else { return };
    let Some(node) = tree.get("tools") else {
        return;
    };
    // Most roles name no gateway: every entry is a piece of one of these values, so a
    // value that does not contain a gateway's name cannot name it (and splitting the
    // list is skipped).
    let names_one = |v: &str| mcp.gateways.iter().any(|g| mentions(v, g));
    let may_name_one = match &node.value {
        Value::Sequence(items) => items.iter().any(|n| n.as_scalar().is_some_and(names_one)),
        Value::Scalar { text, .. } => names_one(text),
        Value::Mapping(_) => false,
    };
    if !may_name_one {
        return;
    }
    let all = entries(&cx.doc.text, node, &p.tools);
    let names: Vec<&str> = all.iter().map(|(n, _)| p.tools.base(n)).collect();
    // Already able to change things: the gateway adds reach, not a new kind of power.
    let otherwise_mutating = names.iter().any(|n| {
        MUTATING.contains(n) || p.tools.all_tokens.iter().any(|t| t.eq_ignore_ascii_case(n))
    });
    // An entry naming an MCP tool (`mcp__…`) narrows pi to the MCP tools named.
    let narrowed = names.iter().any(|n| n.starts_with("mcp__"));
    if otherwise_mutating || narrowed {
        return;
    }
    let label = if p.is_portable() {
        "herdr".to_string()
    } else {
        p.label()
    };
    for (name, span) in all {
        let name = p.tools.base(name);
        if !mcp.is_gateway(name) {
            continue;
        }
        let message = format!(
            "`{name}` in `tools` reaches every MCP tool configured in pi's `mcp.json`, mutating ones too: {label} hands `tools` to `pi --tools`, and on pi {} this otherwise read-only role can change things through them",
            mcp.pi
        );
        let d = cx.emit(
            &RULE,
            span,
            "reaches every MCP tool",
            message,
            Some(format!(
                "drop `{name}` from `tools`; if the role needs one MCP tool, name it (`mcp__<server>__<tool>`): pi then keeps only the MCP tools named"
            )),
        );
        if !mcp.confidence.may_error() {
            d.severity = Severity::Warning;
        }
    }
}
