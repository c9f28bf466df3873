//! The mapping of one role file's entries onto the target host: the state of one
//! conversion ([`Convert`]), key by key, and the helpers the tool and model mappings
//! share.

use std::collections::BTreeMap;

use super::{Item, Outcome, comments, emit};
use crate::host::HostProfile;
use crate::host::effective::Grants;
use crate::role::Node;

/// Hook events that can refuse a tool call (Claude Code).
const GUARD_EVENTS: [&str; 2] = ["PreToolUse", "PermissionRequest"];

/// One entry of the output: its key, its text (whole lines) and the comments that
/// go with it. A slot is an entry the tool plan writes at the end ([`super::fit`]).
pub(super) struct Line {
    pub(super) key: String,
    pub(super) text: String,
    pub(super) notes: Vec<comments::Note>,
    pub(super) slot: bool,
}

/// What the output grants, gathered from the entries, in the target's names;
/// [`super::fit`] writes it last and checks it against the source.
#[derive(Debug, Default)]
pub(super) struct ToolPlan {
    /// The allow-list (`Some(empty)`: no tools), and its key.
    pub(super) allow: Option<Vec<String>>,
    pub(super) allow_key: Option<String>,
    /// The deny-list and its key.
    pub(super) deny: Vec<String>,
    pub(super) deny_key: Option<String>,
    /// Tools whose calls ask first (a ruleset target).
    pub(super) ask: Vec<String>,
    /// A permission mode to write (a target that reads one).
    pub(super) mode: Option<String>,
    /// The source's permission-mode key, when the role sets one the target
    /// cannot carry as such.
    pub(super) mode_key: Option<String>,
    /// The source key and the reason an allow-list became no tools.
    pub(super) none: Option<(String, String)>,
    /// The source's ruleset key that converted first, and the ruleset keys the
    /// source has.
    pub(super) ruleset_from: Option<String>,
    pub(super) ruleset_keys: Vec<String>,
}

pub(super) struct Convert {
    pub(super) from: &'static HostProfile,
    pub(super) to: &'static HostProfile,
    pub(super) items: Vec<Item>,
    /// The output entries, in order; each key once. Added through
    /// [`Convert::add_line`], which keeps [`Convert::line_of`]'s index.
    pub(super) lines: Vec<Line>,
    /// Each output key's line: a lookup per entry, not a pass over the lines
    /// written (a role of n keys converted in n lookups, not n² comparisons).
    pub(super) by_key: std::collections::HashMap<String, usize>,
    /// What the source role may do, as its host works it out.
    pub(super) source: Grants,
    /// The target's tools, deny-list and permissions, written at the end.
    pub(super) plan: ToolPlan,
    /// The line an entry wrote into that it did not add (a shared slot).
    pub(super) last_slot: Option<usize>,
    /// The target key the identity was written under, and the identity.
    pub(super) identity: Option<(String, String)>,
}

impl Convert {
    pub(super) fn item(&mut self, outcome: Outcome, key: &str, to: Option<&str>, note: String) {
        self.items.push(Item {
            outcome,
            key: key.to_string(),
            to: to.map(str::to_string),
            note,
            widens: false,
            limits: false,
        });
    }

    /// A decision without which the role could do more on the target than on
    /// the source: the run fails until the user decides.
    pub(super) fn widening(&mut self, key: &str, note: String) {
        self.item(Outcome::Decision, key, None, note);
        if let Some(i) = self.items.last_mut() {
            i.widens = true;
        }
    }

    /// Add an entry; `false` (and nothing added) when the output already has that
    /// key: no key is written twice.
    pub(super) fn push(&mut self, key: &str, text: String) -> bool {
        if self.written(key) {
            return false;
        }
        self.add_line(Line {
            key: key.to_string(),
            text,
            notes: Vec::new(),
            slot: false,
        });
        true
    }

    /// Append an output line (its key not yet written), indexed; its place.
    pub(super) fn add_line(&mut self, line: Line) -> usize {
        debug_assert!(!self.by_key.contains_key(&line.key), "{} twice", line.key);
        let i = self.lines.len();
        self.by_key.insert(line.key.clone(), i);
        self.lines.push(line);
        i
    }

    /// The output line of `key`, if written.
    pub(super) fn line_of(&self, key: &str) -> Option<usize> {
        self.by_key.get(key).copied()
    }

    /// Whether the output has an entry for `key`.
    pub(super) fn written(&self, key: &str) -> bool {
        self.by_key.contains_key(key)
    }

    /// The setting a source key carries.
    pub(super) fn setting_of(&self, key: &str) -> Option<String> {
        self.from
            .key(key)
            .and_then(|f| f.setting.map(str::to_string))
    }

    /// The source's key for a setting.
    pub(super) fn source_key(&self, setting: &str) -> Option<String> {
        key_for(self.from, setting)
    }

    /// The target's key for a setting.
    pub(super) fn target_key(&self, setting: &str) -> Option<String> {
        key_for(self.to, setting)
    }

    /// The comments of source entry `index`: put around the output line
    /// `carried` when the entry carried over, else reported as dropped.
    pub(super) fn comments(
        &mut self,
        notes: &comments::Placed,
        index: usize,
        carried: Option<usize>,
        key: &str,
    ) {
        let of = notes.of_entry(index);
        if of.is_empty() {
            return;
        }
        match carried.and_then(|i| self.lines.get_mut(i)) {
            Some(line) => line.notes.extend(of),
            None => {
                for n in of {
                    self.item(
                        Outcome::Dropped,
                        "comment",
                        None,
                        format!(
                            "`#{}` (line {}) went with `{key}`, which is not carried over",
                            n.text.trim_end(),
                            n.line
                        ),
                    );
                }
            }
        }
    }

    /// The comments of entries that ended up not written (a slot left empty):
    /// reported as dropped.
    pub(super) fn slot_comments(&mut self) {
        let gone: Vec<(String, Vec<comments::Note>)> = self
            .lines
            .iter_mut()
            .filter(|l| l.text.is_empty() && !l.notes.is_empty())
            .map(|l| (l.key.clone(), std::mem::take(&mut l.notes)))
            .collect();
        for (key, notes) in gone {
            for n in notes {
                self.item(
                    Outcome::Dropped,
                    "comment",
                    None,
                    format!(
                        "`#{}` (line {}) went with `{key}`, which is not written",
                        n.text.trim_end(),
                        n.line
                    ),
                );
            }
        }
    }

    /// The file-wide comments, before and after the entries. A `# model:` hint
    /// (pwk's placeholder for a model line) is kept where the target has a model
    /// key.
    pub(super) fn file_comments(&mut self, notes: &comments::Placed) -> (String, String) {
        let mut parts = (String::new(), String::new());
        let has_model = self.target_key("model").is_some();
        for (n, head) in notes.file_wide() {
            if n.is_model_hint() && !has_model {
                let to = self.to.label();
                self.item(
                    Outcome::Dropped,
                    "comment",
                    None,
                    format!(
                        "`#{}` (line {}): {to} has no model key",
                        n.text.trim_end(),
                        n.line
                    ),
                );
                continue;
            }
            let out = if head { &mut parts.0 } else { &mut parts.1 };
            out.push_str(&format!("#{}\n", n.text.trim_end()));
        }
        parts
    }

    pub(super) fn entry(&mut self, k: &str, node: &Node, model_map: &BTreeMap<String, String>) {
        let (from, to) = (self.from, self.to);
        // The tool ruleset (OpenCode's `tools` and `permission`) converts as one,
        // from what it grants; a permission mode goes through the tool plan.
        if let Some(rs) = &*from.tools.ruleset
            && (k == rs.tools_key || k == rs.permission_key)
        {
            self.ruleset_source(k, rs);
            return;
        }
        if from.permission_modes.as_ref().is_some_and(|pm| pm.key == k)
            && to
                .permission_modes
                .as_ref()
                .is_none_or(|pm| !to.reads(pm.key))
        {
            self.plan.mode_key = Some(k.to_string());
            return;
        }
        let Some(fact) = from.key(k) else {
            // A key the source host ignores: carried only when the target reads it
            // by the same name.
            if self.already(k, k, node) {
                return;
            }
            if to.reads(k) {
                self.push(k, emit::entry(k, node, 0));
                self.item(
                    Outcome::Converted,
                    k,
                    Some(k),
                    format!("{} ignores it, {} reads it", from.label(), to.label()),
                );
            } else {
                self.item(
                    Outcome::Dropped,
                    k,
                    None,
                    format!("neither {} nor {} reads it", from.label(), to.label()),
                );
            }
            return;
        };
        let setting = fact.setting;
        let target = match setting {
            // A target with a ruleset takes its tools and denials in one entry.
            Some("tools" | "deny-tools") if to.tools.ruleset.is_some() => to
                .tools
                .ruleset
                .as_ref()
                .map(|rs| rs.permission_key.to_string()),
            Some(s) => self.target_key(s),
            // A host-specific key without a setting: only the same key carries it.
            None => to.reads(k).then(|| k.to_string()),
        };
        if let Some(tk) = &target
            && !matches!(setting, Some("tools" | "deny-tools"))
            && self.already(k, tk, node)
        {
            return;
        }
        let Some(tk) = target else {
            let note = format!(
                "{} has no counterpart{}",
                to.label(),
                setting
                    .as_ref()
                    .map(|s| format!(" of the `{s}` setting"))
                    .unwrap_or_default()
            );
            // Leaving out a tool list widens what the role may do: the user decides.
            match setting {
                Some("tools") => self.widening(
                    k,
                    format!("{note}: without it the child gets {}", to.tools.missing),
                ),
                Some("deny-tools") => {
                    self.widening(k, format!("{note}: what it denies would be allowed"))
                }
                Some("hooks") => self.hooks(k, node, note),
                _ => self.item(Outcome::Dropped, k, None, note),
            }
            return;
        };
        match setting {
            Some("tools") => self.tools(k, &tk, node, false),
            Some("deny-tools") => self.tools(k, &tk, node, true),
            Some("model") => self.model(k, &tk, node, model_map),
            _ => self.plain(k, &tk, node),
        }
    }

    /// Whether the output already has `tk` (the identity, or another key that maps
    /// there): then source key `k` is not written again. Its value is reported
    /// unless it is the identity already written.
    fn already(&mut self, k: &str, tk: &str, node: &Node) -> bool {
        if !self.written(tk) {
            return false;
        }
        if let Some((key, identity)) = &self.identity
            && key == tk
        {
            if node.as_str() == Some(identity.as_str()) {
                // The identity line is this value: its comments go there too.
                self.last_slot = self.line_of(tk);
                return true;
            }
            let note = format!(
                "`{tk}` is written from the role's identity `{identity}`; `{}` would be a second `{tk}` line",
                short(&node.to_json().to_string())
            );
            self.item(Outcome::Dropped, k, None, note);
            return true;
        }
        let note = format!("`{tk}` is already written from another key; not written twice");
        self.item(Outcome::Dropped, k, None, note);
        true
    }

    /// Hooks the target cannot run: dropped, unless some can refuse a tool call
    /// (`PreToolUse`, `PermissionRequest`): then every call they refuse would run,
    /// and the user decides.
    fn hooks(&mut self, k: &str, node: &Node, note: String) {
        let guards: Vec<&str> = node
            .as_mapping()
            .map(|m| {
                m.iter()
                    .map(|(e, _)| e.text.as_str())
                    .filter(|e| GUARD_EVENTS.contains(e))
                    .collect()
            })
            .unwrap_or_default();
        if guards.is_empty() {
            self.item(Outcome::Dropped, k, None, note);
        } else {
            self.decision(
                k,
                format!(
                    "{note}: its `{}` hooks can refuse tool calls, and every call they refuse would run there",
                    guards.join("`, `")
                ),
            );
        }
    }

    /// A decision: the output does less than the source (or not what it meant)
    /// until the user decides; the run exits 1.
    pub(super) fn decision(&mut self, key: &str, note: String) {
        self.item(Outcome::Decision, key, None, note);
        if let Some(i) = self.items.last_mut() {
            i.limits = true;
        }
    }

    /// A value that carries over as it is, when the target accepts it.
    pub(super) fn plain(&mut self, k: &str, tk: &str, node: &Node) {
        let to = self.to;
        let fact = to.key(tk).expect("target key");
        let schema = if fact.schema.as_str() == Some("role") {
            crate::role::schema::schema()["properties"][tk].clone()
        } else {
            (*fact.schema).clone()
        };
        let ok = crate::role::validate::Validator::compile(&schema)
            .map(|v| v.is_valid(&node.to_json()))
            .unwrap_or(true);
        if !ok {
            let shown = short(&node.to_json().to_string());
            self.item(
                Outcome::Dropped,
                k,
                None,
                format!(
                    "{} reads `{tk}` as {}, not {shown}",
                    to.label(),
                    fact.note.unwrap_or("another kind of value")
                ),
            );
            return;
        }
        // Written from the parsed value, under the target's key.
        self.push(tk, emit::entry(tk, node, 0));
        let mut note = if tk == k {
            "as written".to_string()
        } else {
            format!("{} reads it as `{tk}`", to.label())
        };
        if to.key(tk).and_then(|f| f.setting) == Some("skills") {
            // nicobailon refuses to launch a role whose skill it cannot find.
            note.push_str(&format!(
                "; the skills must exist where {} looks for them",
                to.label()
            ));
        }
        self.item(Outcome::Converted, k, Some(tk), note);
    }
}

/// A list of names as the target reads it, as a whole entry: `key: a, b` (the
/// form every pi host and Claude Code read), or `key: [a, b]` where the key takes
/// no string (Gemini CLI).
pub(super) fn list_value(to: &HostProfile, key: &str, items: &[String]) -> String {
    let takes_string = to.key(key).is_none_or(|f| match &f.schema["type"] {
        serde_json::Value::String(t) => t == "string",
        serde_json::Value::Array(ts) => ts.iter().any(|t| t == "string"),
        _ => true,
    });
    if takes_string {
        emit::string_entry(key, &items.join(", "))
    } else {
        format!("{}: {}\n", emit::key(key), emit::flow_list(items))
    }
}

/// A host's key for a setting.
pub(super) fn key_for(p: &HostProfile, setting: &str) -> Option<String> {
    p.keys
        .iter()
        .find(|(_, f)| f.setting == Some(setting))
        .map(|(k, _)| k.to_string())
}

pub(super) fn short(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}
