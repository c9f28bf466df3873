//! The target's tool grants: gathered while the entries convert (an allow-list,
//! a deny-list, calls that ask, a permission mode), written last in the target's
//! own form (lists, or OpenCode's `permission` ruleset), and then checked against
//! the source with the hosts' own computation ([`crate::host::effective`]): what
//! the output would let the child do beyond the source role is taken out (a tool
//! left out, a denial added, a call made to ask). Where that loses something the
//! source allowed in part (a specifier, plan mode's read-only commands), the user
//! decides; where the target cannot be narrowed at all, the file would widen the
//! role and is not written.

use super::map::{Convert, list_value};
use super::{Outcome, emit};
use crate::host::HostProfile;
use crate::host::effective::{Access, Beyond, Grants, Reach, caps_of, grants};
use crate::role::RoleDoc;

/// How many rounds of narrowing before giving up: each round only takes away.
const ROUNDS: usize = 6;

#[cfg(test)]
thread_local! {
    /// Tests only: write the plan without checking it (what convert did before it
    /// compared the grants), to show the class test fails without the fit.
    pub(super) static SKIP_FIT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Convert {
    /// The target key the tools are written under (OpenCode: `permission`).
    pub(super) fn tools_key(&self) -> Option<String> {
        match &*self.to.tools.ruleset {
            Some(rs) => Some(rs.permission_key.to_string()),
            None => self.target_key("tools"),
        }
    }

    /// The target key denials are written under.
    pub(super) fn deny_key(&self) -> Option<String> {
        match &*self.to.tools.ruleset {
            Some(rs) => Some(rs.permission_key.to_string()),
            None => self.target_key("deny-tools"),
        }
    }

    /// The output line for `key` that the plan writes: an existing slot, else a new
    /// one here. A carried entry of the same key gives way (reported).
    fn slot(&mut self, key: &str) -> usize {
        if let Some(i) = self.line_of(key) {
            if !self.lines[i].slot {
                self.lines[i].slot = true;
                self.item(
                    Outcome::Dropped,
                    key,
                    None,
                    format!(
                        "`{key}` is where {} takes the role's tools: the value carried there is not written",
                        self.to.label()
                    ),
                );
            }
            self.last_slot = Some(i);
            return i;
        }
        self.add_line(super::map::Line {
            key: key.to_string(),
            text: String::new(),
            notes: Vec::new(),
            slot: true,
        })
    }

    /// The allow-list, under `key`.
    pub(super) fn plan_allow(&mut self, key: &str, names: Vec<String>) {
        self.slot(key);
        self.plan.allow_key = Some(key.to_string());
        let allow = self.plan.allow.get_or_insert_with(Vec::new);
        for n in names {
            if !allow.contains(&n) {
                allow.push(n);
            }
        }
    }

    /// No tools at all (`k` said so, for `why`).
    pub(super) fn plan_none(&mut self, key: &str, k: &str, why: String) {
        self.slot(key);
        self.plan.allow_key = Some(key.to_string());
        self.plan.allow = Some(Vec::new());
        self.plan.none = Some((k.to_string(), why));
    }

    /// Denials, under `key`.
    pub(super) fn plan_deny(&mut self, key: &str, names: Vec<String>) {
        self.slot(key);
        self.plan.deny_key = Some(key.to_string());
        for n in names {
            if !self.plan.deny.contains(&n) {
                self.plan.deny.push(n);
            }
        }
    }

    /// Write the plan into its slots.
    fn render(&mut self) {
        let to = self.to;
        let set = |c: &mut Convert, key: &str, text: String| {
            let i = c.slot(key);
            c.lines[i].text = text;
        };
        if let Some(rs) = &*to.tools.ruleset {
            let key = rs.permission_key;
            if self.plan.allow.is_none() && self.plan.deny.is_empty() && self.plan.ask.is_empty() {
                if self.line_of(key).is_some() {
                    set(self, key, String::new());
                }
                return;
            }
            let text = match &self.plan.allow {
                Some(v) if v.is_empty() => emit::string_entry(key, "deny"),
                _ => {
                    let mut rules: Vec<(String, &str)> = Vec::new();
                    let mut put = |perm: String, action: &'static str| {
                        match rules.iter_mut().find(|(p, _)| *p == perm) {
                            // Deny beats ask beats allow for one permission.
                            Some(r) => {
                                let rank = |a: &str| match a {
                                    "deny" => 2,
                                    "ask" => 1,
                                    _ => 0,
                                };
                                if rank(action) > rank(r.1) {
                                    r.1 = action;
                                }
                            }
                            None => rules.push((perm, action)),
                        }
                    };
                    if let Some(allow) = &self.plan.allow {
                        put("*".into(), "deny");
                        for t in allow {
                            put(rs.permission(t).to_string(), "allow");
                        }
                    }
                    for t in &self.plan.ask {
                        put(rs.permission(t).to_string(), "ask");
                    }
                    for t in &self.plan.deny {
                        put(rs.permission(t).to_string(), "deny");
                    }
                    let mut s = format!("{}:\n", emit::key(key));
                    for (perm, action) in rules {
                        s.push_str(&format!("  {}: {action}\n", emit::key(&perm)));
                    }
                    s
                }
            };
            set(self, key, text);
            return;
        }
        if let (Some(key), Some(allow)) = (self.plan.allow_key.clone(), self.plan.allow.clone()) {
            let text = if !allow.is_empty() {
                list_value(to, &key, &allow)
            } else if let Some(token) = to.tools.none_tokens.first() {
                emit::string_entry(&key, token)
            } else {
                String::new()
            };
            set(self, &key, text);
        }
        if let Some(key) = self.plan.deny_key.clone() {
            let text = if self.plan.deny.is_empty() {
                String::new()
            } else {
                list_value(to, &key, &self.plan.deny)
            };
            set(self, &key, text);
        }
        if let (Some(mode), Some(pm)) = (self.plan.mode.clone(), &*to.permission_modes) {
            let key = pm.key;
            set(self, key, emit::string_entry(key, &mode));
        }
    }

    /// Check the output against the source and narrow it until it grants nothing
    /// more; `assemble` gives the output text as it stands.
    pub(super) fn fit(&mut self, assemble: &dyn Fn(&Convert) -> String) {
        let (from, to) = (self.from, self.to);
        #[cfg(test)]
        if SKIP_FIT.with(std::cell::Cell::get) {
            self.render();
            return;
        }
        let source = self.source.reach(from);
        let mut beyond = Vec::new();
        for round in 0..ROUNDS {
            self.render();
            let target = grants(to, &RoleDoc::parse("out.md", assemble(self).as_bytes()));
            beyond = target.reach(to).beyond(&source);
            if beyond.is_empty() {
                break;
            }
            if round == 0 && self.try_modes(&source, assemble) {
                beyond.clear();
                break;
            }
            if round + 1 == ROUNDS || !self.narrow(&beyond, &target, &source) {
                break;
            }
        }
        self.render();
        // What could not be taken out: the file would widen the role.
        for b in &beyond {
            let what = cap_words(&b.cap);
            self.widening(
                "tools",
                format!(
                    "{} would give the child {what} ({}), and {}; {} cannot be made to say less",
                    to.label(),
                    b.access.word(),
                    source_words(from, b),
                    to.label()
                ),
            );
        }
        // The mode is a decision when something it allowed in part was left out.
        let lost_to_mode = self.plan.mode_key.as_ref().is_some_and(|k| {
            self.items
                .iter()
                .any(|i| i.outcome == Outcome::Decision && i.note.contains(&format!("`{k}:")))
        });
        self.mode_item(lost_to_mode);
        if let Some((k, why)) = self.plan.none.clone()
            && to.tools.ruleset.is_none()
        {
            let key = self.plan.allow_key.clone().unwrap_or_default();
            match to.tools.none_tokens.first() {
                Some(token) => self.item(
                    Outcome::Converted,
                    &k,
                    Some(&key),
                    format!("{why}: `{token}` on {}", to.label()),
                ),
                None if beyond.is_empty() => {}
                None => self.widening(
                    &k,
                    format!(
                        "{why}, {} has no word for no tools, and without `{key}` the child gets {}",
                        to.label(),
                        to.tools.missing
                    ),
                ),
            }
        }
    }

    /// A target with permission modes: the least restrictive mode with which the
    /// output grants nothing more, when there is one.
    fn try_modes(&mut self, source: &Reach, assemble: &dyn Fn(&Convert) -> String) -> bool {
        let Some(pm) = &*self.to.permission_modes else {
            return false;
        };
        if self.plan.mode.is_some() || !self.to.reads(pm.key) {
            return false;
        }
        let restrictive = |e: &crate::host::ModeEffect| {
            [e.edits, e.shell, e.other]
                .iter()
                .filter(|a| **a != crate::host::ModeAccess::Full)
                .count()
        };
        let mut modes: Vec<(&&str, &crate::host::ModeEffect)> = pm.modes.iter().collect();
        modes.sort_by_key(|(_, e)| restrictive(e));
        for (mode, effect) in modes {
            if restrictive(effect) == 0 {
                continue;
            }
            self.plan.mode = Some(mode.to_string());
            self.render();
            let target = grants(
                self.to,
                &RoleDoc::parse("out.md", assemble(self).as_bytes()),
            );
            if target.reach(self.to).beyond(source).is_empty() {
                let key = pm.key;
                self.item(
                    Outcome::Converted,
                    "tools",
                    Some(key),
                    format!(
                        "{} asks before the calls the source role makes ask: `{key}: {mode}` ({})",
                        self.to.label(),
                        effect.note
                    ),
                );
                return true;
            }
        }
        self.plan.mode = None;
        let key = pm.key;
        if let Some(i) = self.line_of(key).filter(|&i| self.lines[i].slot) {
            self.lines[i].text.clear();
        }
        false
    }

    /// Take out of the plan what grants `beyond`; `false` when nothing changed.
    fn narrow(&mut self, beyond: &[Beyond], target: &Grants, source: &Reach) -> bool {
        let (from, to) = (self.from, self.to);
        let same = |a: &str, b: &str| {
            if to.tools.case_insensitive {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        };
        let mut changed = false;
        for b in beyond {
            if b.cap == "*" {
                // Every other tool of the session: list what the source grants.
                if self.plan.allow.is_some() {
                    continue;
                }
                let Some(key) = self.tools_key() else {
                    continue;
                };
                let names = if self.source.open.is_some() {
                    self.target_default_names()
                } else {
                    self.source_names()
                };
                let note = if self.source.open.is_some() {
                    format!(
                        "{} gives every tool of the session {} on {}: listed as {}'s own tools, {}",
                        from.label(),
                        b.other.as_ref().map_or("", Access::word),
                        from.label(),
                        to.label(),
                        names.join(", ")
                    )
                } else {
                    format!(
                        "without a list {} gives {}: the tools {} grants are listed",
                        to.label(),
                        to.tools.missing,
                        from.label()
                    )
                };
                self.plan_allow(&key, names);
                self.item(Outcome::Converted, "tools", Some(&key), note);
                changed = true;
                continue;
            }
            let mut offending: Vec<String> = target
                .tools
                .iter()
                .filter(|g| !matches!(g.access, Access::Denied(_)))
                .map(|g| g.tool.clone())
                .chain(target.provided.iter().cloned())
                .filter(|t| caps_of(to, t).contains(&b.cap))
                .collect();
            offending.dedup();
            let exact = b
                .other
                .as_ref()
                .is_none_or(|a| matches!(a, Access::Denied(_)));
            let mut did = false;
            if let Some(rs) = &*to.tools.ruleset {
                let perms: Vec<&str> = offending.iter().map(|t| rs.permission(t)).collect();
                if matches!(b.other, Some(Access::Ask(_))) {
                    for t in &offending {
                        if !self.plan.ask.contains(t) {
                            self.plan.ask.push(t.clone());
                            did = true;
                        }
                    }
                    if did {
                        self.item(
                            Outcome::Converted,
                            "tools",
                            self.tools_key().as_deref(),
                            format!(
                                "{}: asks first on {}, as on {} ({})",
                                offending.join(", "),
                                to.label(),
                                from.label(),
                                b.other.as_ref().and_then(Access::why).unwrap_or_default()
                            ),
                        );
                        changed = true;
                    }
                    continue;
                }
                if let Some(allow) = &mut self.plan.allow {
                    let before = allow.len();
                    allow.retain(|a| !perms.contains(&rs.permission(a)));
                    did = allow.len() != before;
                }
                if !did {
                    let key = rs.permission_key;
                    let new: Vec<String> = offending
                        .iter()
                        .filter(|t| !self.plan.deny.contains(t))
                        .cloned()
                        .collect();
                    did = !new.is_empty();
                    self.plan_deny(key, new);
                }
            } else if let Some(allow) = &mut self.plan.allow
                && allow.iter().any(|a| offending.iter().any(|o| same(a, o)))
            {
                allow.retain(|a| !offending.iter().any(|o| same(a, o)));
                did = true;
            } else if let Some(key) = self.target_key("deny-tools") {
                let new: Vec<String> = offending
                    .iter()
                    .filter(|t| !self.plan.deny.iter().any(|d| same(d, t)))
                    .cloned()
                    .collect();
                did = !new.is_empty();
                self.plan_deny(&key, new);
            } else if self.plan.allow.is_none()
                && let Some(key) = self.tools_key()
            {
                let names: Vec<String> = target
                    .tools
                    .iter()
                    .map(|g| g.tool.clone())
                    .filter(|t| !to.tools.injected.contains(&t.as_str()))
                    .filter(|t| !offending.iter().any(|o| same(o, t)))
                    .collect();
                if target.open.is_some() && self.source.open.is_some() {
                    // "Everything but" becomes a list: the rest of the session's
                    // tools are lost.
                    self.decision(
                        "tools",
                        format!(
                            "{} cannot deny single tools: it is given {} only, not every other tool of the session it has on {}",
                            to.label(),
                            names.join(", "),
                            from.label()
                        ),
                    );
                }
                self.plan_allow(&key, names);
                did = true;
            }
            if !did {
                continue;
            }
            changed = true;
            let shown = if offending.is_empty() {
                cap_words(&b.cap)
            } else {
                offending.join(", ")
            };
            if exact {
                self.item(
                    Outcome::Converted,
                    "tools",
                    self.tools_key().as_deref(),
                    format!("{shown} left out: {}", source_words(from, b)),
                );
            } else {
                self.decision(
                    "tools",
                    format!(
                        "{shown} left out: {}, which {} cannot say; add it back only if that is what you mean",
                        source_words(from, b),
                        to.label()
                    ),
                );
            }
        }
        let _ = source;
        changed
    }

    /// The source's tools (those it may call at all) in the target's names.
    fn source_names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for g in &self.source.tools {
            if matches!(g.access, Access::Denied(_)) {
                continue;
            }
            for n in self.target_names(&g.tool) {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// The target's default tools by name (without the ones it adds to every child).
    fn target_default_names(&self) -> Vec<String> {
        self.to
            .tools
            .default
            .iter()
            .filter(|t| !self.to.tools.injected.contains(t))
            .map(|t| t.to_string())
            .collect()
    }

    /// One source tool in the target's names: through pi's built-ins, else the
    /// same name when the target has such a tool.
    pub(super) fn target_names(&self, tool: &str) -> Vec<String> {
        let (from, to) = (self.from, self.to);
        let owns: Vec<String> = from
            .tools
            .pi_names(tool)
            .iter()
            .filter_map(|pi| to.tools.own_name(pi))
            .collect();
        if !owns.is_empty() {
            return owns;
        }
        if to.knows_tool(tool)
            && !to.tools.all_tokens.contains(&tool)
            && !to.tools.none_tokens.contains(&tool)
        {
            return vec![tool.to_string()];
        }
        Vec::new()
    }

    /// The report's line for the source's permission mode.
    fn mode_item(&mut self, narrowed: bool) {
        let Some(k) = self.plan.mode_key.clone() else {
            return;
        };
        let from = self.from;
        let to = self.to;
        let word = self.source.mode.clone().unwrap_or_default();
        let effect = from
            .permission_modes
            .as_ref()
            .and_then(|pm| pm.modes.get(word.as_str()));
        let note = effect.map_or("is not a mode the host knows".to_string(), |e| {
            e.note.to_string()
        });
        let none = effect.is_none_or(|e| {
            [e.edits, e.shell, e.other]
                .iter()
                .all(|a| *a == crate::host::ModeAccess::Full)
        });
        if none {
            self.item(
                Outcome::Dropped,
                &k,
                None,
                format!(
                    "`{k}: {word}` {note}: {} has no permission modes, and needs none for that",
                    to.label()
                ),
            );
        } else if narrowed {
            self.decision(
                &k,
                format!(
                    "`{k}: {word}` {note}; {} has no permission modes: what it limits is left out (see tools)",
                    to.label()
                ),
            );
        } else {
            self.item(
                Outcome::Converted,
                &k,
                self.tools_key().as_deref(),
                format!(
                    "`{k}: {word}` {note}; {} has no permission modes, and the tools it gets allow no more",
                    to.label()
                ),
            );
        }
    }
}

/// A capability in words.
fn cap_words(cap: &str) -> String {
    match cap {
        "*" => "every other tool of the session (MCP tools included)".to_string(),
        "mcp:*" => "every MCP tool".to_string(),
        c => match c.strip_prefix("mcp:") {
            Some(rest) => match rest.split_once(':') {
                Some((server, "*")) => format!("every tool of the MCP server `{server}`"),
                Some((server, tool)) => format!("the MCP tool `{tool}` of `{server}`"),
                None => format!("the MCP tool `{rest}`"),
            },
            None => match c.strip_prefix("tool:") {
                Some(t) => format!("`{t}`"),
                None => format!("pi's `{c}`"),
            },
        },
    }
}

/// What the source lets `b` do, in words.
fn source_words(from: &HostProfile, b: &Beyond) -> String {
    match &b.other {
        None => format!("the role may not use it on {}", from.label()),
        Some(a) => format!(
            "on {} the role may make {} ({})",
            from.label(),
            match a {
                Access::Ask(_) => "calls that ask first",
                _ => a.word(),
            },
            a.why().unwrap_or("every call")
        ),
    }
}
