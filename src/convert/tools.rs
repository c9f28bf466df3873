//! Tool lists: each entry through pi's built-in names to the target's, host words
//! (`*`, `none`) as the source host means them, and an absent list as the source
//! host's default.

use super::map::{Convert, list_value};
use super::{Outcome, emit};
use crate::host::HostProfile;
use crate::role::Node;

impl Convert {
    /// No tools key in the source: the child gets the source host's default. If
    /// the target's default grants more of pi's built-ins, those the source grants
    /// are listed, so nothing widens; if the target cannot list tools, the user
    /// decides.
    pub(super) fn absent_tools(&mut self) {
        let (from, to) = (self.from, self.to);
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
        let Some(tk) = self.target_key("tools") else {
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
        let value = list_value(to, &tk, &own);
        self.push(&tk, value);
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
        let Some(entries) = crate::role::string_list(node) else {
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
            let base = from.tools.base(e);
            if base != e.as_str() {
                // `Bash(git *)`: a restriction pi hosts cannot express; carrying the
                // bare tool would widen it.
                lost += 1;
                self.item(
                    Outcome::Decision,
                    &label,
                    None,
                    format!(
                        "{} cannot restrict a tool to `{}`; left out rather than granting all of `{base}`",
                        to.label(),
                        &e[base.len()..]
                    ),
                );
                continue;
            }
            let pis = from.tools.pi_names(e);
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
            let why = if none {
                format!(
                    "`{k}: {}` means no tools on {}",
                    entries.join(", "),
                    from.label()
                )
            } else {
                format!("no listed tool exists on {}", to.label())
            };
            match (deny, to.tools.none_tokens.first()) {
                (false, Some(token)) => {
                    self.push(tk, emit::string_entry(tk, token));
                    self.item(
                        Outcome::Converted,
                        k,
                        Some(tk),
                        format!("{why}: `{token}` on {}", to.label()),
                    );
                }
                (false, None) => self.widening(
                    k,
                    format!(
                        "{why}, {} has no word for no tools, and without `{tk}` the child gets {}",
                        to.label(),
                        to.tools.missing
                    ),
                ),
                (true, _) => {}
            }
            return;
        }
        let value = list_value(to, tk, &out);
        self.push(tk, value);
    }
}
