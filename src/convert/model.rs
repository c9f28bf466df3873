//! Model names: the hosts' own aliases, `inherit`, and full ids with or without
//! their provider, through the user's `--model-map`.

use std::collections::BTreeMap;

use super::map::Convert;
use super::{Outcome, emit};
use crate::role::Node;

impl Convert {
    pub(super) fn model(&mut self, k: &str, tk: &str, node: &Node, map: &BTreeMap<String, String>) {
        let (from, to) = (self.from, self.to);
        let Some(v) = node.as_str() else {
            self.item(Outcome::Dropped, k, None, "not a string".into());
            return;
        };
        let default = to.key(tk).and_then(|f| f.default).unwrap_or("its default");
        if let Some(m) = map.get(v) {
            self.push(tk, emit::string_entry(tk, m));
            self.item(
                Outcome::Converted,
                k,
                Some(tk),
                format!("`{v}` → `{m}` (--model-map)"),
            );
            return;
        }
        if from.models.inherit.contains(&v) {
            if to.models.inherit.contains(&v) {
                self.push(tk, emit::string_entry(tk, v));
                self.item(Outcome::Converted, k, Some(tk), "as written".into());
            } else {
                self.item(
                    Outcome::Converted,
                    k,
                    None,
                    format!("`{v}`: no `{tk}` line, so {} uses {default}", to.label()),
                );
            }
            return;
        }
        let to_own = !to.models.provider_form();
        let from_own = !from.models.provider_form();
        if from_own && from.models.aliases.contains(&v) {
            if to_own && to.models.aliases.contains(&v) {
                self.push(tk, emit::string_entry(tk, v));
                self.item(Outcome::Converted, k, Some(tk), "as written".into());
                return;
            }
            self.item(
                Outcome::Decision,
                k,
                None,
                format!(
                    "`{v}` is {}'s own alias, which {} does not resolve: the `{tk}` line is left out, so it uses {default}; `--model-map {v}=provider/id` to choose",
                    from.label(),
                    to.label()
                ),
            );
            return;
        }
        // A full id: `claude-sonnet-4-5` ↔ `anthropic/claude-sonnet-4-5`.
        let converted = match (from_own, to_own) {
            (true, false) => from.models.provider.as_ref().map(|p| format!("{p}/{v}")),
            (false, true) => v.split_once('/').and_then(|(p, id)| {
                (to.models.provider == Some(p)
                    && to.models.id_prefixes.iter().any(|x| id.starts_with(*x)))
                .then(|| id.to_string())
            }),
            _ => Some(v.to_string()),
        };
        match converted {
            Some(m) => {
                self.push(tk, emit::string_entry(tk, &m));
                let note = if m == v {
                    "as written".to_string()
                } else {
                    format!("`{v}` → `{m}`")
                };
                self.item(Outcome::Converted, k, Some(tk), note);
            }
            None => self.item(
                Outcome::Decision,
                k,
                None,
                format!(
                    "{} cannot name `{v}`: the `{tk}` line is left out, so it uses {default}; `--model-map {v}=<model>` to choose",
                    to.label()
                ),
            ),
        }
    }
}
