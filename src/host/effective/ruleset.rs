//! OpenCode's ruleset: a `tools` map and a `permission` map, one list of rules.

use super::{Access, Grant, Grants};
use crate::host::{HostProfile, Ruleset};
use crate::role::{Node, Value};

/// One rule of OpenCode's ruleset: permission pattern, input pattern, action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub permission: String,
    pub pattern: String,
    pub action: String,
}

/// The rules a role's `tools` and `permission` maps make, after the host's base
/// rule, in the order the host evaluates them (the last match decides).
pub fn rules(rs: &Ruleset, m: Option<&Node>) -> Vec<Rule> {
    // JavaScript object semantics: a later value for a key replaces the earlier one
    // where that key first stood.
    let mut obj: Vec<(String, PermValue)> = Vec::new();
    let set = |obj: &mut Vec<(String, PermValue)>, k: String, v: PermValue| match obj
        .iter_mut()
        .find(|(x, _)| *x == k)
    {
        Some(e) => e.1 = v,
        None => obj.push((k, v)),
    };
    if let Some(map) = m
        .and_then(|m| m.get(rs.tools_key))
        .and_then(Node::as_mapping)
    {
        for (k, v) in map {
            let perm = rs
                .tools_as
                .get(k.text.as_str())
                .map_or_else(|| k.text.clone(), |s| s.to_string());
            let action = if truthy(v) { "allow" } else { "deny" };
            set(&mut obj, perm, PermValue::Action(action.into()));
        }
    }
    if let Some(n) = m.and_then(|m| m.get(rs.permission_key)) {
        match &n.value {
            Value::Mapping(map) => {
                for (k, v) in map.iter() {
                    let value = match &v.value {
                        Value::Mapping(pats) => PermValue::Patterns(
                            pats.iter()
                                .filter_map(|(pk, pv)| {
                                    pv.as_scalar().map(|a| (pk.text.clone(), a.to_string()))
                                })
                                .collect(),
                        ),
                        _ => match v.as_scalar() {
                            Some(a) => PermValue::Action(a.to_string()),
                            None => continue,
                        },
                    };
                    set(&mut obj, k.text.clone(), value);
                }
            }
            _ => {
                if let Some(a) = n.as_scalar() {
                    set(&mut obj, "*".into(), PermValue::Action(a.to_string()));
                }
            }
        }
    }
    let mut out = vec![Rule {
        permission: "*".into(),
        pattern: "*".into(),
        action: rs.base.to_string(),
    }];
    for (perm, v) in obj {
        match v {
            PermValue::Action(action) => out.push(Rule {
                permission: perm,
                pattern: "*".into(),
                action,
            }),
            PermValue::Patterns(pats) => {
                for (pattern, action) in pats {
                    out.push(Rule {
                        permission: perm.clone(),
                        pattern,
                        action,
                    })
                }
            }
        }
    }
    out
}

enum PermValue {
    Action(String),
    Patterns(Vec<(String, String)>),
}

/// JavaScript truthiness of a YAML value.
fn truthy(n: &Node) -> bool {
    match n.to_json() {
        serde_json::Value::Null => false,
        serde_json::Value::Bool(b) => b,
        serde_json::Value::Number(x) => x.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        serde_json::Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// OpenCode's wildcard match: `*` any run, `?` one character, the whole name.
pub fn wildcard(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Iterative glob with one backtrack point: linear in practice, never exponential.
    let (mut i, mut j) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

/// How far the ruleset lets the calls of `permission` go; `None` when the tool is
/// not handed over (the last rule that matches it denies every call).
pub fn rule_access(rules: &[Rule], permission: &str) -> Option<Access> {
    let matching: Vec<&Rule> = rules
        .iter()
        .filter(|r| wildcard(&r.permission, permission))
        .collect();
    let last = matching.last()?;
    if last.pattern == "*" && last.action == "deny" {
        return None;
    }
    let star = matching.iter().rposition(|r| r.pattern == "*");
    let (base, later) = match star {
        Some(i) => (matching[i].action.as_str(), &matching[i + 1..]),
        None => ("allow", &matching[..]),
    };
    let listed = |action: &str| -> Vec<String> {
        later
            .iter()
            .filter(|r| r.action == action)
            .map(|r| format!("`{}`", r.pattern))
            .collect()
    };
    Some(match base {
        "allow" if later.iter().all(|r| r.action == "allow") => Access::Full,
        "allow" => {
            let mut not = listed("deny");
            not.extend(listed("ask"));
            Access::Limited(format!("every call but {}", not.join(", ")))
        }
        // A call a later rule denies is never made, asked or not: asking for
        // every call is then more than the ruleset lets the child do.
        "ask" => match listed("deny") {
            never if never.is_empty() => Access::Ask(format!("`{permission}: ask`")),
            never => Access::Limited(format!("`{permission}: ask`, never {}", never.join(", "))),
        },
        _ => {
            let mut only = listed("allow");
            only.extend(
                listed("ask")
                    .into_iter()
                    .map(|p| format!("{p} (asks first)")),
            );
            Access::Limited(format!("only {}", only.join(", ")))
        }
    })
}

/// OpenCode's ruleset.
pub(super) fn ruleset(p: &HostProfile, rs: &Ruleset, m: Option<&Node>) -> Grants {
    let label = p.label();
    let t = &p.tools;
    let rules = rules(rs, m);
    let tools_map = m.and_then(|m| m.get(rs.tools_key));
    let perm = m.and_then(|m| m.get(rs.permission_key));
    let host_default = tools_map.is_none() && perm.is_none();
    let declared = (!host_default).then(|| {
        rules[1..]
            .iter()
            .map(|r| {
                if r.pattern == "*" {
                    format!("{}: {}", r.permission, r.action)
                } else {
                    format!("{} `{}`: {}", r.permission, r.pattern, r.action)
                }
            })
            .collect::<Vec<_>>()
    });
    // Every built-in, and every other tool the maps name that is no pattern.
    let mut names: Vec<String> = t.builtins.iter().map(|s| s.to_string()).collect();
    for r in &rules[1..] {
        if !r.permission.contains(['*', '?']) && !names.contains(&r.permission) {
            names.push(r.permission.clone());
        }
    }
    let mut tools = Vec::new();
    let mut provided = Vec::new();
    let mut gone = Vec::new();
    for name in names {
        match rule_access(&rules, rs.permission(&name)) {
            Some(access) if t.builtins.contains(&name.as_str()) => {
                tools.push(Grant { tool: name, access })
            }
            Some(_) => provided.push(name),
            None => gone.push(name),
        }
    }
    // Any other tool of the session: a name no rule but `*` matches.
    let open = rule_access(&rules, "\u{1}");
    let open_except = if open.is_some() {
        gone.clone()
    } else {
        Vec::new()
    };
    let note = if host_default {
        format!("absent: {label} gives {}", t.missing)
    } else {
        let mut n = format!("the ruleset {label} makes of `{}`", {
            let mut keys = Vec::new();
            if tools_map.is_some() {
                keys.push(rs.tools_key);
            }
            if perm.is_some() {
                keys.push(rs.permission_key);
            }
            keys.join("` and `")
        });
        if !gone.is_empty() {
            n.push_str(&format!("; without {}", gone.join(", ")));
        }
        let asks: Vec<&str> = tools
            .iter()
            .filter(|g| matches!(g.access, Access::Ask(_)))
            .map(|g| g.tool.as_str())
            .collect();
        if !asks.is_empty() {
            n.push_str(&format!("; asks before {}", asks.join(", ")));
        }
        if open.is_some() {
            n.push_str("; and every other tool of the session");
        }
        n
    };
    Grants {
        declared,
        tools,
        open,
        provided,
        host_default,
        denied: None,
        open_except,
        mode: None,
        settings_denied: Vec::new(),
        settings_ignored: Vec::new(),
        note,
    }
}
