//! Tool lists: each entry through pi's built-in names to the target's, host words
//! (`*`, `none`) as the source host means them, and an absent list as the source
//! host's default.

use super::Outcome;
use super::map::Convert;
use crate::host::HostProfile;
use crate::role::Node;

impl Convert {
    /// No tools key in the source: the child gets the source host's default. If
    /// the target's default grants more of pi's built-ins, those the source grants
    /// are listed, so nothing widens; if the target cannot list tools, the user
    /// decides.
    pub(super) fn absent_tools(&mut self) {
        let (from, to) = (self.from, self.to);
        // Every tool of the session: no default of the target's is more (what the
        // source denies, the fit denies there too).
        if self.source.open.is_some() {
            return;
        }
        let pi = |p: &HostProfile| -> Vec<String> {
            let mut v: Vec<String> = Vec::new();
            for t in &p.tools.default {
                for n in p.tools.pi_names(t) {
                    if !v.contains(&n) {
                        v.push(n);
                    }
                }
            }
            v
        };
        let (granted, target) = (pi(from), pi(to));
        let wider: Vec<&String> = target.iter().filter(|t| !granted.contains(t)).collect();
        if wider.is_empty() {
            return;
        }
        let shown = wider
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let Some(tk) = self.tools_key() else {
            self.widening(
                "tools",
                format!(
                    "no `tools`: on {} the child gets {}; {} has no tools key, and its default also grants pi's {shown}",
                    from.label(),
                    from.tools.missing,
                    to.label()
                ),
            );
            return;
        };
        let own: Vec<String> = crate::host::pi_builtins()
            .iter()
            .filter(|t| granted.iter().any(|g| g == *t))
            .filter_map(|t| to.tools.own_name(t))
            .collect();
        self.plan_allow(&tk, own);
        self.item(
            Outcome::Converted,
            "tools",
            Some(&tk),
            format!(
                "no `tools`: on {} the child gets {}; {} would also grant {shown} without it, so the tools are listed",
                from.label(),
                from.tools.missing,
                to.label()
            ),
        );
    }

    pub(super) fn tools(&mut self, k: &str, tk: &str, node: &Node, deny: bool) {
        let (from, to) = (self.from, self.to);
        let Some(entries) = crate::host::effective::entries(from, node) else {
            self.item(
                Outcome::Dropped,
                k,
                None,
                "not a list of tool names".to_string(),
            );
            return;
        };
        let mut out: Vec<String> = Vec::new();
        let mut push = |s: String| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        let mut lost = 0;
        let mut none = false;
        let same = |a: &str, b: &str| {
            if from.tools.case_insensitive {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        };
        for e in &entries {
            let label = format!("{k}: {e}");
            if from.tools.all_tokens.iter().any(|t| same(t, e)) {
                // Every built-in, in the target's names.
                for pi in crate::host::pi_builtins() {
                    if let Some(own) = to.tools.own_name(pi) {
                        push(own);
                    }
                }
                self.item(
                    Outcome::Converted,
                    &label,
                    Some(tk),
                    format!(
                        "`{e}` is every built-in on {}: listed by name",
                        from.label()
                    ),
                );
                continue;
            }
            if from.tools.none_tokens.iter().any(|t| same(t, e)) {
                none = true;
                continue;
            }
            let mut base = from.tools.base(e);
            // A namespaced entry (Copilot `search/codebase`) is its tool.
            if from.tools.namespaced.is_some()
                && let Some((ns, _)) = e.split_once('/')
                && from.knows_tool(ns)
            {
                base = ns;
            }
            if base != e.as_str() && deny && !e.contains('/') {
                // A denied `Bash(rm *)` takes the whole tool away on the source
                // host: so it does on the target.
                let owns = self.target_names(base);
                if !owns.is_empty() {
                    for own in &owns {
                        push(own.clone());
                    }
                    self.item(
                        Outcome::Converted,
                        &label,
                        Some(&owns.join(", ")),
                        format!(
                            "{} denies all of `{base}` for it, and so does {}",
                            from.label(),
                            to.label()
                        ),
                    );
                    continue;
                }
            }
            if base != e.as_str() && !e.contains('/') {
                // `Bash(git *)`: a restriction pi hosts cannot express; carrying the
                // bare tool would widen it.
                lost += 1;
                self.decision(
                    &label,
                    format!(
                        "{} cannot restrict a tool to `{}`; left out rather than granting all of `{base}`",
                        to.label(),
                        &e[base.len()..]
                    ),
                );
                continue;
            }
            let pis = from.tools.pi_names(base);
            let owns: Vec<String> = pis.iter().filter_map(|pi| to.tools.own_name(pi)).collect();
            if !owns.is_empty() {
                for own in &owns {
                    push(own.clone());
                }
                let shown = owns.join(", ");
                // What the target's tool grants beyond the source's (Copilot's
                // `search` is pi's grep and find).
                let wider: Vec<String> = owns
                    .iter()
                    .flat_map(|o| to.tools.pi_names(o))
                    .filter(|p| !pis.contains(p))
                    .collect();
                let mut note = if shown == *e {
                    "as written".to_string()
                } else {
                    format!("{} calls it `{shown}`", to.label())
                };
                if !wider.is_empty() {
                    note.push_str(&format!(" (which also grants pi's {})", wider.join(", ")));
                }
                let missing: Vec<&String> = pis
                    .iter()
                    .filter(|p| to.tools.own_name(p).is_none())
                    .collect();
                if !missing.is_empty() {
                    note.push_str(&format!(
                        "; {} has no counterpart of its {}",
                        to.label(),
                        missing
                            .iter()
                            .map(|m| m.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                self.item(Outcome::Converted, &label, Some(&shown), note);
                continue;
            }
            // A word that is a token of the target's (`*`, `all`, `none`) but not
            // of the source's means something else there: never carried as it is.
            let token_there = to.tools.all_tokens.iter().any(|t| t == e)
                || to.tools.none_tokens.iter().any(|t| t == e);
            if token_there {
                lost += 1;
                self.item(
                    Outcome::Dropped,
                    &label,
                    None,
                    format!(
                        "`{e}` is no tool on {} ({}); on {} it would mean {}",
                        from.label(),
                        from.tools.unknown,
                        to.label(),
                        if to.tools.none_tokens.iter().any(|t| t == e) {
                            "no tools"
                        } else {
                            "every built-in"
                        }
                    ),
                );
                continue;
            }
            if to.knows_tool(e) {
                push(e.clone());
                self.item(Outcome::Converted, &label, Some(e), "as written".into());
                continue;
            }
            lost += 1;
            self.item(
                Outcome::Dropped,
                &label,
                None,
                format!("{} has no such tool: {}", to.label(), to.tools.unknown),
            );
        }
        if out.is_empty() {
            if (entries.is_empty() || lost == 0) && !none {
                return;
            }
            if deny {
                return;
            }
            let why = if none {
                format!(
                    "`{k}: {}` means no tools on {}",
                    entries.join(", "),
                    from.label()
                )
            } else {
                format!("no listed tool exists on {}", to.label())
            };
            self.plan_none(tk, k, why);
            return;
        }
        if deny {
            self.plan_deny(tk, out);
        } else {
            self.plan_allow(tk, out);
        }
    }
}

impl Convert {
    /// The source's tool ruleset (OpenCode's `tools` and `permission`), converted
    /// as one from what it grants: the tools its child may call, or every tool but
    /// those it takes away. What the rules only let ask or run in part is left to
    /// the fit ([`super::fit`]), which knows what the target can say.
    pub(super) fn ruleset_source(&mut self, k: &str, rs: &crate::host::Ruleset) {
        let (from, to) = (self.from, self.to);
        if let Some(first) = self.plan.ruleset_from.clone() {
            let at = self.plan.allow_key.clone().or(self.plan.deny_key.clone());
            self.last_slot = at.as_deref().and_then(|key| self.line_of(key));
            self.item(
                Outcome::Converted,
                k,
                at.as_deref(),
                format!(
                    "one ruleset with `{first}` on {}: converted with it",
                    from.label()
                ),
            );
            return;
        }
        self.plan.ruleset_from = Some(k.to_string());
        let _ = rs;
        let keys: Vec<String> = self
            .plan
            .ruleset_keys
            .iter()
            .map(|k| format!("`{k}`"))
            .collect();
        let src = self.source.clone();
        let names = |c: &Convert, tools: &mut dyn Iterator<Item = &String>| -> Vec<String> {
            let mut out: Vec<String> = Vec::new();
            for t in tools {
                for n in c.target_names(t) {
                    if !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
            out
        };
        if src.open.is_some() {
            let gone = names(self, &mut src.open_except.iter());
            if gone.is_empty() {
                self.item(
                    Outcome::Converted,
                    k,
                    None,
                    format!(
                        "the ruleset of {} takes no built-in tool away on {}: nothing to write",
                        keys.join(" and "),
                        from.label()
                    ),
                );
                return;
            }
            let Some(dk) = self.deny_key() else {
                // No deny-list there: the fit lists what is left.
                self.item(
                    Outcome::Converted,
                    k,
                    None,
                    format!(
                        "{} takes away {} on {}; {} has no deny-list, so its tools are listed",
                        keys.join(" and "),
                        src.open_except.join(", "),
                        from.label(),
                        to.label()
                    ),
                );
                return;
            };
            self.plan_deny(&dk, gone.clone());
            self.item(
                Outcome::Converted,
                k,
                Some(&dk),
                format!(
                    "{} gives every tool but {} on {}: `{dk}` denies {} on {}",
                    keys.join(" and "),
                    src.open_except.join(", "),
                    from.label(),
                    gone.join(", "),
                    to.label()
                ),
            );
            return;
        }
        let Some(tk) = self.tools_key() else {
            return;
        };
        let granted: Vec<&String> = src
            .tools
            .iter()
            .filter(|g| !matches!(g.access, crate::host::effective::Access::Denied(_)))
            .map(|g| &g.tool)
            .collect();
        let out = names(self, &mut granted.iter().copied());
        let shown = if out.is_empty() {
            "no tools".to_string()
        } else {
            out.join(", ")
        };
        let lost: Vec<&str> = granted
            .iter()
            .filter(|t| self.target_names(t).is_empty())
            .map(|t| t.as_str())
            .collect();
        let given = if granted.is_empty() {
            "no tool".to_string()
        } else {
            format!(
                "only {}",
                granted
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let mut note = format!(
            "the ruleset gives {given} on {}: {shown} on {}",
            from.label(),
            to.label()
        );
        if !lost.is_empty() {
            note.push_str(&format!("; {} has no {}", to.label(), lost.join(", ")));
        }
        if out.is_empty() {
            self.plan_none(
                &tk,
                k,
                format!("the ruleset gives no tool on {}", from.label()),
            );
        } else {
            self.plan_allow(&tk, out);
        }
        self.item(Outcome::Converted, k, Some(&tk), note);
    }
}
