//! Allow-lists and deny-lists: every host but OpenCode.

use std::collections::BTreeMap;

use super::{Access, Grant, Grants, entries, key_of};
use crate::host::{HostProfile, ListReading, ModeAccess};
use crate::role::Node;

/// Allow-lists, deny-lists, tokens, added tools and permission modes.
pub(super) fn lists(p: &HostProfile, m: Option<&Node>, text: &str) -> Grants {
    let label = p.label();
    let t = &p.tools;
    let tools_key = key_of(p, "tools", "tools");
    let raw = tools_key.as_deref().and_then(|k| m.and_then(|m| m.get(k)));
    // The host's own split of a `tools` string (Claude Code: white space too).
    let split = |n: &Node| entries(p, n);
    let declared = raw.and_then(split);
    let with_injected = |mut v: Vec<String>| {
        for i in &t.injected {
            if !v.iter().any(|x| x == i) {
                v.push(i.to_string());
            }
        }
        v
    };
    let full = |v: Vec<String>| -> Vec<Grant> {
        v.into_iter()
            .map(|tool| Grant {
                tool,
                access: Access::Full,
            })
            .collect()
    };
    let same = |a: &str, b: &str| {
        if t.case_insensitive {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    };
    // A flow list (`[a, b]`) that the host's parser does not read as a list.
    let flow = raw.is_some_and(|n| text.get(n.span.clone()).is_some_and(|s| s.starts_with('[')));
    let unread = flow && p.parser.flow_lists != ListReading::Read;
    let no_value = raw.is_some_and(|n| n.to_json().is_null());
    let open_access = || t.open.as_ref().map(|_| Access::Full);
    let mut provided: Vec<String> = Vec::new();
    let mut open: Option<Access> = None;
    let mut host_default = false;
    let (mut tools, mut note) = match &declared {
        None if no_value && t.no_value_is_none => (
            full(with_injected(Vec::new())),
            format!("`tools:` has no value: {label} gives the child no tools at all"),
        ),
        None => {
            host_default = true;
            open = open_access();
            (
                full(t.default.iter().map(|s| s.to_string()).collect()),
                format!("absent: {label} gives {}", t.missing),
            )
        }
        Some(_) if unread => (
            full(with_injected(Vec::new())),
            format!("{label} does not read a `[…]` list: the child gets no built-in tools"),
        ),
        Some(list) if list.iter().any(|x| t.all_tokens.iter().any(|a| same(a, x))) => {
            // The token gives what the child gets without `tools`.
            open = open_access();
            (
                full(with_injected(
                    t.default.iter().map(|s| s.to_string()).collect(),
                )),
                format!("every built-in tool ({label} expands the token)"),
            )
        }
        Some(list) if list.iter().any(|x| t.none_tokens.iter().any(|n| n == x)) => {
            (full(with_injected(Vec::new())), "no tools".to_string())
        }
        Some(list) => {
            let (grants, note, extra) = allow_list(p, list);
            provided = extra;
            (grants, note)
        }
    };
    // Tools a key adds to an allow-list (Claude Code's `memory`).
    if open.is_none() && !host_default {
        for (key, add) in &*t.added_by {
            if m.and_then(|m| m.get(key))
                .is_some_and(|n| !n.to_json().is_null())
            {
                let new: Vec<&str> = add
                    .tools
                    .iter()
                    .filter(|a| !tools.iter().any(|g| same(&g.tool, a)))
                    .copied()
                    .collect();
                if !new.is_empty() {
                    note.push_str(&format!("; `{key}` adds {}", new.join(", ")));
                    tools.extend(new.into_iter().map(|tool| Grant {
                        tool: tool.to_string(),
                        access: Access::Full,
                    }));
                }
            }
        }
    }
    // The deny-list: the tool an entry names goes, specifier or not.
    let deny_key = key_of(p, "deny-tools", "deny-tools");
    let deny_raw = deny_key.as_deref().and_then(|k| m.and_then(|m| m.get(k)));
    let denied = deny_raw.and_then(split);
    let mut open_except = Vec::new();
    if let Some(deny) = &denied {
        let canon = |x: &str| -> String {
            let b = t.base(x);
            t.aliases.get(b).copied().unwrap_or(b).to_string()
        };
        let gone: Vec<String> = deny
            .iter()
            .map(|d| canon(d))
            .filter(|d| !t.all_tokens.iter().any(|a| a == d))
            .collect();
        let before = tools.len();
        tools.retain(|g| !gone.iter().any(|d| same(d, &g.tool)));
        provided.retain(|x| !gone.iter().any(|d| same(d, x)));
        if open.is_some() {
            open_except = gone.clone();
        }
        if before != tools.len() || open.is_some() {
            note.push_str(&format!("; without {}", gone.join(", ")));
        }
    }
    if deny_raw.is_none()
        && let Some(d) = m.and_then(|m| m.get("deny-tools"))
        && crate::role::string_list(d).is_some()
        && !p.reads("deny-tools")
    {
        note.push_str(&format!("; `deny-tools` is not read by {label}"));
    }
    // The permission mode: what it lets each kind of tool do when called.
    let mut mode = None;
    if let Some(pm) = &*p.permission_modes
        && let Some(word) = m.and_then(|m| m.get(pm.key)).and_then(Node::as_str)
        && let Some(effect) = pm.modes.get(word)
    {
        let why = format!("`{}: {word}` {}", pm.key, effect.note);
        let access = |a: ModeAccess| match a {
            ModeAccess::Full => Access::Full,
            ModeAccess::Ask => Access::Ask(why.clone()),
            ModeAccess::ReadOnly => Access::ReadOnly(why.clone()),
            ModeAccess::Limited => Access::Limited(why.clone()),
            ModeAccess::Denied => Access::Denied(why.clone()),
        };
        for g in &mut tools {
            let a = if pm.read_only.iter().any(|r| r == &g.tool) {
                continue;
            } else if pm.edits.iter().any(|e| e == &g.tool) {
                access(effect.edits)
            } else if pm.shell.iter().any(|e| e == &g.tool) {
                access(effect.shell)
            } else {
                access(effect.other)
            };
            g.access = std::mem::replace(&mut g.access, Access::Full).and(a);
        }
        if let Some(o) = open.take() {
            open = Some(o.and(access(effect.other)));
        }
        if effect.edits != ModeAccess::Full
            || effect.shell != ModeAccess::Full
            || effect.other != ModeAccess::Full
        {
            note.push_str(&format!("; {why}"));
        }
        mode = Some(word.to_string());
    }
    Grants {
        declared,
        tools,
        open,
        provided,
        host_default,
        denied,
        open_except,
        mode,
        settings_denied: Vec::new(),
        settings_ignored: Vec::new(),
        note,
    }
}

/// An explicit allow-list: the names the host knows (a specifier grants some calls
/// of its tool, a namespaced entry its tool), folded tools, what the host adds,
/// and the names only an extension or MCP server can provide.
fn allow_list(p: &HostProfile, list: &[String]) -> (Vec<Grant>, String, Vec<String>) {
    let label = p.label();
    let t = &p.tools;
    let mut known: Vec<String> = Vec::new();
    // Tool → the specifiers it is limited to (empty: every call).
    let mut only: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut provided: Vec<String> = Vec::new();
    let mut dropped: Vec<&String> = Vec::new();
    let is_mcp = |x: &str| {
        t.mcp
            .as_ref()
            .is_some_and(|m| m.is_gateway(x) || x.starts_with("mcp__"))
            || t.extension_prefixes
                .iter()
                .any(|pre| !pre.is_empty() && x.starts_with(*pre))
    };
    for x in list {
        let mut base = t.base(x);
        if t.namespaced.is_some()
            && let Some((ns, _)) = x.split_once('/')
        {
            if p.knows_tool(ns) {
                base = ns;
            } else {
                provided.push(x.clone());
                continue;
            }
        }
        if !p.knows_tool(base) {
            if is_mcp(x) {
                provided.push(x.clone());
            } else {
                dropped.push(x);
            }
            continue;
        }
        let b = t.aliases.get(base).map_or(base, |s| *s).to_string();
        let spec = (base != x.as_str() && !x.contains('/')).then(|| x.clone());
        match only.get_mut(&b) {
            Some(specs) => match spec {
                Some(s) if !specs.is_empty() => specs.push(s),
                Some(_) => {}
                None => specs.clear(),
            },
            None => {
                only.insert(b.clone(), spec.into_iter().collect());
            }
        }
        if !known.contains(&b) {
            known.push(b);
        }
    }
    let mut note = "as declared".to_string();
    // Tools the host folds into another one that is granted.
    let folded: Vec<String> = t
        .folded_into
        .iter()
        .filter(|(into, _)| known.iter().any(|k| k == *into))
        .filter_map(|(into, gone)| {
            let g: Vec<&str> = gone
                .iter()
                .filter(|g| known.iter().any(|k| k == *g))
                .copied()
                .collect();
            (!g.is_empty())
                .then(|| format!("no separate {} (the child uses {into})", g.join(" or ")))
        })
        .collect();
    known.retain(|k| {
        !t.folded_into.iter().any(|(into, gone)| {
            gone.contains(&k.as_str()) && list.iter().any(|x| t.base(x) == *into)
        })
    });
    if !folded.is_empty() {
        note.push_str(&format!("; {label} gives {}", folded.join("; ")));
    }
    if !t.injected.is_empty() {
        note.push_str(&format!(" ({label} adds {})", t.injected.join(", ")));
    }
    let limited: Vec<String> = only
        .iter()
        .filter(|(tool, specs)| !specs.is_empty() && known.contains(tool))
        .map(|(_, specs)| specs.join(", "))
        .collect();
    if !limited.is_empty() {
        note.push_str(&format!("; only {}", limited.join("; ")));
    }
    // A prefix wildcard (Gemini CLI `mcp_*`, `mcp_<server>_*`) names MCP tools by
    // the server, not one tool an extension may provide.
    let wildcard = |x: &str| -> Option<String> {
        t.prefix_wildcards.as_ref()?;
        let rest = x.strip_prefix("mcp_")?.strip_suffix('*')?;
        Some(match rest.strip_suffix('_') {
            Some(server) if !server.is_empty() => {
                format!("`{x}`: every tool of the MCP server `{server}`")
            }
            _ if rest.is_empty() => format!("`{x}`: every MCP tool of the session"),
            _ => format!("`{x}`: the MCP tools whose names start `mcp_{rest}`"),
        })
    };
    let wildcards: Vec<String> = provided.iter().filter_map(|x| wildcard(x)).collect();
    if !wildcards.is_empty() {
        note.push_str(&format!("; {}", wildcards.join("; ")));
    }
    let names: Vec<&str> = provided
        .iter()
        .filter(|x| wildcard(x).is_none())
        .chain(dropped.iter().copied())
        .map(String::as_str)
        .collect();
    if !names.is_empty() {
        note.push_str(&format!(
            "; not built-in, kept only if an extension provides it: {}",
            names.join(", ")
        ));
    }
    let mut grants: Vec<Grant> = known
        .into_iter()
        .map(|tool| {
            let access = match only.get(&tool) {
                Some(specs) if !specs.is_empty() => {
                    Access::Limited(format!("only `{}`", specs.join("`, `")))
                }
                _ => Access::Full,
            };
            Grant { tool, access }
        })
        .collect();
    for i in &t.injected {
        if !grants.iter().any(|g| &g.tool == i) {
            grants.push(Grant {
                tool: i.to_string(),
                access: Access::Full,
            });
        }
    }
    (grants, note, provided)
}
