//! Grants in one vocabulary across hosts, and what one grants beyond another.

use std::collections::{BTreeMap, BTreeSet};

use super::{Access, Grants, pi_read_only};
use crate::host::HostProfile;

impl Grants {
    /// These grants in the vocabulary shared by every host.
    pub fn reach(&self, p: &HostProfile) -> Reach {
        let mut caps: BTreeMap<String, Access> = BTreeMap::new();
        let mut add = |cap: String, access: &Access| {
            let access = if pi_read_only(&cap) && matches!(access, Access::ReadOnly(_)) {
                Access::Full
            } else {
                access.clone()
            };
            match caps.get(&cap) {
                Some(have) if access.within(have) => {}
                _ => {
                    caps.insert(cap, access);
                }
            }
        };
        for g in &self.tools {
            if matches!(g.access, Access::Denied(_)) {
                continue;
            }
            // The host's own tools that come with its default (nicobailon's
            // `bg_wait`) are the host's, as those it adds to every child are.
            if self.host_default && p.tools.provided.contains(&g.tool.as_str()) {
                continue;
            }
            for cap in caps_of(p, &g.tool) {
                add(cap, &g.access);
            }
        }
        for x in &self.provided {
            for cap in caps_of(p, x) {
                add(cap, &Access::Full);
            }
        }
        // pi's MCP tools: a role without an allow-list reaches every one on the pi
        // generation that has them, where the host hands `tools` to pi.
        if let Some(mcp) = &*p.tools.mcp
            && self.declared.is_none()
            && mcp.missing_reaches
        {
            add("mcp:*".to_string(), &Access::Full);
        }
        let open = self
            .open
            .as_ref()
            .filter(|a| !matches!(a, Access::Denied(_)));
        Reach {
            caps,
            open: open.map(|a| {
                (
                    a.clone(),
                    self.open_except
                        .iter()
                        .flat_map(|t| caps_of(p, t))
                        .collect(),
                )
            }),
        }
    }
}

/// The capabilities one of `p`'s tool names stands for: pi's built-ins it is, an
/// MCP tool or server, or the tool itself by its folded name. None for a tool the
/// host adds to every child.
pub fn caps_of(p: &HostProfile, tool: &str) -> Vec<String> {
    let t = &p.tools;
    if t.injected.contains(&tool) {
        return Vec::new();
    }
    let pi = t.pi_names(tool);
    if !pi.is_empty() {
        return pi;
    }
    if t.mcp.as_ref().is_some_and(|m| m.is_gateway(tool)) || tool == "mcp_*" {
        return vec!["mcp:*".to_string()];
    }
    let fold = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    if let Some(rest) = tool.strip_prefix("mcp__") {
        return vec![match rest.split_once("__") {
            Some((server, "*")) => format!("mcp:{}:*", fold(server)),
            Some((server, name)) => format!("mcp:{}:{}", fold(server), fold(name)),
            None => format!("mcp:{}:*", fold(rest)),
        }];
    }
    if t.prefix_wildcards.is_some()
        && let Some(rest) = tool.strip_prefix("mcp_")
    {
        return vec![match rest.strip_suffix("_*") {
            Some(server) => format!("mcp:{}:*", fold(server)),
            None => format!("mcp:{}", fold(rest)),
        }];
    }
    if t.namespaced.is_some()
        && let Some((server, name)) = tool.split_once('/')
    {
        return vec![if name == "*" {
            format!("mcp:{}:*", fold(server))
        } else {
            format!("mcp:{}:{}", fold(server), fold(name))
        }];
    }
    let folded = fold(tool);
    match SHARED.iter().find(|(name, _)| *name == folded) {
        Some((_, caps)) => caps.iter().map(|c| c.to_string()).collect(),
        None => vec![format!("tool:{folded}")],
    }
}

/// Tools outside pi's built-ins that hosts name differently, by folded name, in one
/// word each, so that what one host denies is seen under another's name: Copilot's
/// `web` is both `WebSearch` and `WebFetch` and its `agent` is `Task` (github/docs@03e038c
/// content/copilot/reference/custom-agents-configuration.md:52-73, the alias table
/// schemas/hosts/copilot.json cites); Gemini's `google_web_search` and `write_todos`,
/// OpenCode's `task`, `todowrite`/`todoread` are the same capabilities as Claude Code's
/// `WebSearch`, `TodoWrite`, `Agent`. A name left out here is its own capability
/// (`tool:<name>`): never equal to another host's, so a denial of it is lost only
/// towards a host that names it differently, which the fit then cannot see.
const SHARED: [(&str, &[&str]); 7] = [
    ("web", &["tool:webfetch", "tool:websearch"]),
    ("googlewebsearch", &["tool:websearch"]),
    ("task", &["tool:agent"]),
    ("todowrite", &["tool:todo"]),
    ("todoread", &["tool:todo"]),
    ("writetodos", &["tool:todo"]),
    ("customagent", &["tool:agent"]),
];

/// Grants in the vocabulary shared by every host ([`Grants::reach`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    /// Capability → how far.
    pub caps: BTreeMap<String, Access>,
    /// Every other capability too, with this access, except these.
    pub open: Option<(Access, BTreeSet<String>)>,
}

/// One thing a reach grants beyond another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beyond {
    /// The capability (`bash`, `tool:webfetch`, `mcp:*`), or `*` for every other
    /// tool of the session.
    pub cap: String,
    pub access: Access,
    /// How far the other reach lets it go (`None`: not at all).
    pub other: Option<Access>,
}

impl Reach {
    /// How far this reach lets `cap` go.
    pub fn access(&self, cap: &str) -> Option<Access> {
        let mut best: Option<Access> = self.caps.get(cap).cloned();
        let mut consider = |a: &Access| match &best {
            Some(b) if a.within(b) => {}
            _ => best = Some(a.clone()),
        };
        // Commands can do what every other built-in does; read-only commands what
        // the read-only built-ins do.
        if crate::host::pi_builtins().contains(&cap) && cap != "bash" {
            match self.caps.get("bash") {
                Some(Access::Full) => consider(&Access::Full),
                Some(Access::ReadOnly(_)) if pi_read_only(cap) => consider(&Access::Full),
                _ => {}
            }
        }
        if let Some(rest) = cap.strip_prefix("mcp:") {
            if let Some(a) = self.caps.get("mcp:*") {
                consider(&a.clone());
            }
            if let Some((server, _)) = rest.split_once(':')
                && let Some(a) = self.caps.get(&format!("mcp:{server}:*"))
            {
                consider(&a.clone());
            }
        }
        // The rest of the session: what the grants do not name.
        if let Some((a, except)) = &self.open
            && !except.contains(cap)
            && !self.caps.contains_key(cap)
        {
            consider(a);
        }
        best
    }

    /// What this reach grants that `other` does not.
    pub fn beyond(&self, other: &Reach) -> Vec<Beyond> {
        let mut out = Vec::new();
        for (cap, access) in &self.caps {
            let theirs = other.access(cap);
            if !theirs.as_ref().is_some_and(|t| access.within(t)) {
                out.push(Beyond {
                    cap: cap.clone(),
                    access: access.clone(),
                    other: theirs,
                });
            }
        }
        if let Some((access, except)) = &self.open {
            match &other.open {
                Some((theirs, their_except)) => {
                    if !access.within(theirs) {
                        out.push(Beyond {
                            cap: "*".into(),
                            access: access.clone(),
                            other: Some(theirs.clone()),
                        });
                    }
                    // What the other leaves out of its open set must stay out.
                    for cap in their_except.difference(except) {
                        if !self.caps.contains_key(cap) && other.access(cap).is_none() {
                            out.push(Beyond {
                                cap: cap.clone(),
                                access: access.clone(),
                                other: None,
                            });
                        }
                    }
                }
                None => out.push(Beyond {
                    cap: "*".into(),
                    access: access.clone(),
                    other: None,
                }),
            }
        }
        out
    }
}
