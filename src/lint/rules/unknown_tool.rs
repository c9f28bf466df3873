//! `unknown-tool`: a `tools` entry that is not a pi tool.

use crate::host::{self, HostProfile};
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::{Node, Value};
use crate::suggest::did_you_mean;

pub(crate) const RULE: Rule = Rule {
    id: "unknown-tool",
    severity: Severity::Warning,
    also: Some((
        Severity::Error,
        "for a misspelt built-in or another host's name for one (`Read`, `grpe`, `Glob`), a token the host does not expand (`*` under nicobailon), or a `tools` list the host knows no entry of",
    )),
    summary: "a `tools` entry is not a tool the host knows",
    explanation: "pi's built-in tools are read, bash, edit, write, grep, find and ls (lowercase); each host adds its own (nicobailon injects `contact_supervisor`, herdr provides `subagent`) and some read tokens (tintinweb: `*` for every built-in, `none` for no tools). A name the host accepts but never hands to a child (Claude Code 2.1.332: `TaskCreate`, `Search`, `Workflow`; Gemini CLI 0.61: `read_many_files`) is a warning that says it is dropped. A misspelt built-in (`Read`, `grpe`, Claude Code's `Glob`) is dropped and the child starts without it: an error. A token the host does not expand (`*` under nicobailon) leaves the child without tools: an error. Other names may be an extension's tools: a warning, or nothing when the role loads extensions (`extensions:`). Entries with `ext:`, `mcp:` or a `/` are extension tools and are not checked. Under the portable profile the finding names what each host does.",
    bad: "---\ntools: Read, Glob\n---\n",
    good: "---\ntools: read, find, grep, ls\n---\n",
};

/// Claude Code and Gemini names, and what pi calls them.
const FOREIGN: &[(&str, &str)] = &[
    ("glob", "find"),
    ("multiedit", "edit"),
    ("read_file", "read"),
    ("write_file", "write"),
    ("grep_search", "grep"),
    ("run_shell_command", "bash"),
    ("shell", "bash"),
    ("list_directory", "ls"),
    ("search", "grep"),
];

/// Each entry of `tools` with its byte span: list items, or the parts of a
/// comma-separated string.
pub(crate) fn entries<'a>(
    text: &'a str,
    node: &'a Node,
    tools: &crate::host::Tools,
) -> Vec<(&'a str, std::ops::Range<usize>)> {
    match &node.value {
        Value::Sequence(items) => items
            .iter()
            .filter_map(|n| Some((n.as_scalar()?.trim(), n.span.clone())))
            .collect(),
        Value::Scalar { text: value, .. } => {
            let raw = &text[node.span.clone()];
            // Spans of the parts are exact only when the value is written as-is (plain
            // or simply quoted on one line); otherwise all entries point at the value.
            let quoted =
                raw.len() == value.len() + 2 && raw.get(1..raw.len() - 1) == Some(value.as_str());
            let offset = if raw == value {
                Some(0)
            } else if quoted {
                Some(1)
            } else {
                None
            };
            let mut out = Vec::new();
            let mut pos = 0;
            for name in tools.split(value) {
                // Each entry is a slice of `value`, in order: its place is where it
                // starts in `value` (no search).
                let at = (name.as_ptr() as usize)
                    .checked_sub(value.as_ptr() as usize)
                    .filter(|&at| value.get(at..at + name.len()) == Some(name))
                    .unwrap_or(pos);
                let span = match offset {
                    Some(o) => {
                        let s = node.span.start + o + at;
                        s..s + name.len()
                    }
                    None => node.span.clone(),
                };
                out.push((name, span));
                pos = at + name.len();
            }
            out
        }
        Value::Mapping(_) => Vec::new(),
    }
}

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let p = cx.profile;
    // Extension tools: a role that loads extensions may name their tools plainly.
    let loads_extensions = |h: &HostProfile| {
        h.tools.extension_key.as_ref().is_some_and(|k| {
            tree.get(k)
                .is_some_and(|v| v.to_json() != serde_json::Value::Bool(false))
        })
    };
    for key in [
        "tools",
        "deny-tools",
        "disallowed_tools",
        "excludeTools",
        "disallowedTools",
    ] {
        if !(p.reads(key) || p.is_portable() && key == "tools") {
            continue;
        }
        let Some(node) = tree.get(key) else { continue };
        let all = entries(&cx.doc.text, node, &p.tools);
        // Every entry unknown: the host may refuse the child outright.
        let refuses = key == "tools"
            && !all.is_empty()
            && p.tools.all_unknown.is_some()
            && all.iter().all(|(n, _)| !p.knows_tool(p.tools.base(n)));
        for (name, span) in all {
            let name = p.tools.base(name);
            // pi's MCP gateways (`codemode`): `mcp-gateway-tool` says what they do.
            if key == "tools" && p.tools.mcp.as_ref().is_some_and(|m| m.is_gateway(name)) {
                continue;
            }
            if p.tools.builtins.contains(&name)
                || (p.tools.case_insensitive && p.knows_tool(name))
                || p.tools
                    .extension_prefixes
                    .iter()
                    .any(|x| name.starts_with(*x))
                || name.contains(':')
                || name.contains('/')
            {
                continue;
            }
            if p.is_portable() {
                portable(cx, key, name, span, &loads_extensions);
                continue;
            }
            if let Some(d) = p.tools.dropped.as_ref().filter(|_| p.tools.drops(name)) {
                let label = p.label();
                let d = cx.emit(
                    &RULE,
                    span,
                    "dropped",
                    format!(
                        "`{name}` in `{key}` is dropped: {label} {}; the child runs without it",
                        d.note
                    ),
                    Some(format!(
                        "remove `{name}`; the tools {label} gives a child are {}",
                        p.tools.builtins.join(", ")
                    )),
                );
                d.severity = Severity::Warning;
                continue;
            }
            if p.knows_tool(name) {
                continue;
            }
            let label = p.label();
            let lower = name.to_lowercase();
            // A builtin in another case (`Read`, Claude Code's `read`), another
            // host's name for one (`Glob` → `find`; pi's `find` → Claude Code's
            // `Glob`), or a near miss.
            let guess = if let Some(b) = p
                .tools
                .builtins
                .iter()
                .find(|b| b.eq_ignore_ascii_case(name))
            {
                Some(b.to_string())
            } else if let Some((_, pi)) = FOREIGN.iter().find(|(f, _)| *f == lower) {
                p.tools.own_name(pi)
            } else if let Some(own) = p.tools.own_name(&lower) {
                Some(own)
            } else {
                did_you_mean(name, p.tools.builtins.iter().copied()).map(str::to_string)
            };
            let is_token = ["*", "all", "none"].contains(&lower.as_str());
            if loads_extensions(p) && guess.is_none() && !is_token {
                continue; // an extension's tool, named next to the key that loads it
            }
            let builtins = p.tools.builtins.join(", ");
            let (message, help, severity) = if is_token {
                let injected = if p.tools.injected.is_empty() {
                    "no tools at all".to_string()
                } else {
                    format!("only {}", p.tools.injected.join(", "))
                };
                (
                    format!(
                        "{label} does not expand `{name}` in `{key}`: {}; the child gets {injected}",
                        p.tools.unknown
                    ),
                    format!("list the tools by name, e.g. `{key}: read, grep, find, ls`"),
                    Severity::Error,
                )
            } else if let Some(g) = &guess {
                (
                    format!(
                        "`{name}` in `{key}` is not a tool {label} knows: {}",
                        p.tools.unknown
                    ),
                    format!("did you mean `{g}`? the built-in tools are {builtins}"),
                    Severity::Error,
                )
            } else {
                (
                    format!(
                        "`{name}` in `{key}` is not a tool {label} knows: {}",
                        p.tools.unknown
                    ),
                    format!(
                        "the built-in tools are {builtins}; an extension's tool works only when that extension is loaded into the child"
                    ),
                    Severity::Warning,
                )
            };
            let (message, severity) = match &p.tools.all_unknown {
                Some(what) if refuses => (
                    format!("{message}; no entry of `{key}` is a tool {label} knows: {what}"),
                    Severity::Error,
                ),
                _ => (message, p.severity_of(RULE.id, severity)),
            };
            let d = cx.emit(&RULE, span, "unknown tool", message, Some(help));
            d.severity = severity;
        }
    }
}

/// Under the portable profile: what each real host makes of a non-built-in name.
fn portable(
    cx: &mut Checker<'_>,
    key: &str,
    name: &str,
    span: std::ops::Range<usize>,
    loads_extensions: &dyn Fn(&HostProfile) -> bool,
) {
    let (knowing, rest) = host::split_profiles(|h| h.knows_tool(name) || loads_extensions(h));
    if rest.is_empty() {
        return;
    }
    let lower = name.to_lowercase();
    let builtins = &cx.profile.tools.builtins;
    let guess = if builtins.contains(&lower.as_str()) {
        Some(lower.clone())
    } else if let Some((_, pi)) = FOREIGN.iter().find(|(f, _)| *f == lower) {
        Some((*pi).to_string())
    } else {
        did_you_mean(name, builtins.iter().copied()).map(str::to_string)
    };
    let meaning = |h: &HostProfile| {
        if h.tools.all_tokens.contains(&name) {
            "every built-in tool (bash, edit and write included)".to_string()
        } else if h.tools.none_tokens.contains(&name) {
            "no tools".to_string()
        } else {
            h.tools.unknown.to_string()
        }
    };
    let message = if knowing.is_empty() {
        format!(
            "`{name}` in `{key}` is not a tool any supported host knows: hosts drop unknown names, and the child runs without it"
        )
    } else {
        // Group the hosts that know it by what it means to them.
        let mut groups: Vec<(String, Vec<&HostProfile>)> = Vec::new();
        for h in &knowing {
            let m = meaning(h);
            match groups.iter_mut().find(|(g, _)| *g == m) {
                Some((_, hs)) => hs.push(h),
                None => groups.push((m, vec![h])),
            }
        }
        let known: Vec<String> = groups
            .iter()
            .map(|(m, hs)| format!("{}: {m}", host::name_profiles(hs)))
            .collect();
        format!(
            "`{name}` in `{key}` is not a tool on every host ({}); {} drop it, and the child runs without it",
            known.join("; "),
            host::name_profiles(&rest)
        )
    };
    let help = match &guess {
        Some(g) => format!("did you mean `{g}`?"),
        None => "list built-in tools by name, e.g. `tools: read, grep, find, ls`; `--host H` lints for the host that provides it".to_string(),
    };
    // A misspelt built-in is lost on every host: an error. Anything else is
    // fine somewhere (or an extension's tool): a warning that says where.
    let severity = if guess.is_some() && knowing.is_empty() {
        Severity::Error
    } else {
        Severity::Warning
    };
    let d = cx.emit(&RULE, span, "not a tool on every host", message, Some(help));
    d.severity = severity;
}
