//! The role schema as one host reads it, derived from `schemas/role.schema.json`
//! and the host's profile; prepared on first use, for the profile in use only.
//!
//! - a real host: exactly the keys its loader reads, each with what the loader
//!   accepts (`"schema": "role"` keeps the role schema's definition); documented keys
//!   it does not read stay allowed (any value) and are marked `x-pwk-ignored` or
//!   `x-pwk-rejected`; `required` lists the keys without which it skips the role.
//! - `pwk` (portable): the shipped role schema, plus the keys some real host reads,
//!   marked `x-pwk-read-by` (they are host-specific, not unknown).

use std::sync::OnceLock;

use serde_json::{Value, json};

use super::{HostProfile, pi_profiles};
use crate::role::validate::Validator;

/// The derived schema for a profile.
pub fn host_schema(p: &'static HostProfile) -> &'static Value {
    p.schema_cell().get_or_init(|| derive(p))
}

/// The compiled validator for a profile's schema: the one compiled into the binary
/// (`src/role/validate/compiled.rs`), or, when that file is older than the schema
/// files this binary was built from, compiled now.
pub fn validator(p: &'static HostProfile) -> &'static Validator {
    p.caches.validator.get_or_init(|| {
        crate::role::validate::compiled(&p.label()).unwrap_or_else(|| {
            Box::leak(Box::new(
                Validator::compile(host_schema(p)).expect("host schemas compile (tested)"),
            ))
        })
    })
}

/// Which real pi host profiles (every version) read `key`.
pub fn readers(key: &str) -> Vec<&'static HostProfile> {
    pi_profiles().filter(|p| p.reads(key)).collect()
}

/// Every key `p` knows: its schema's properties, sorted (read from its compiled
/// validator, so no schema is derived).
pub fn known_keys(p: &'static HostProfile) -> Vec<&'static str> {
    validator(p).property_names().collect()
}

fn derive(p: &HostProfile) -> Value {
    let role = crate::role::schema::schema();
    let mut schema = role.clone();
    if p.is_portable() {
        // build.rs listed the keys (tested against `portable_extra_from_profiles`),
        // so no host profile is parsed for the portable schema.
        let props = schema["properties"].as_object_mut().expect("properties");
        for (key, who) in super::portable_extra_keys() {
            props.insert(
                key.to_string(),
                json!({
                    "description": format!("Read only by {}; other hosts ignore it.", who.join(", ")),
                    "x-pwk-read-by": who,
                }),
            );
        }
        return schema;
    }
    schema["title"] = format!("Agent role frontmatter, as {} reads it", p.title).into();
    schema["x-pwk-host"] = json!({
        "id": p.host.as_str(),
        "version": p.version,
        "applies": p.applies,
        "measured": p.measured,
        "source": p.source,
        "identity": p.identity.by.describe(),
        "discovers": p.discovery.dirs.iter().map(|d| d.path).collect::<Vec<_>>(),
    });
    let required: Vec<&str> = p.required.iter().map(|r| r.key).collect();
    schema["required"] = json!(required);
    let role_props = role["properties"].as_object().expect("properties");
    let mut props = serde_json::Map::new();
    for (key, role_prop) in role_props {
        if p.reads(key) {
            continue;
        }
        let desc = role_prop["description"].as_str().unwrap_or_default();
        let (marker, note) = match p.rejected.get(key.as_str()) {
            Some(f) => (
                "x-pwk-rejected",
                format!("[rejected by {}: {}]", p.label(), f.note),
            ),
            None => (
                "x-pwk-ignored",
                match p.instead.get(key.as_str()) {
                    Some(i) => format!("[ignored by {}: {i}]", p.label()),
                    None => format!("[ignored by {}]", p.label()),
                },
            ),
        };
        props.insert(
            key.clone(),
            json!({ "description": format!("{note} {desc}"), marker: true }),
        );
    }
    for (key, fact) in &p.keys {
        let mut prop = if fact.schema.as_str() == Some("role") {
            role_props.get(*key).cloned().unwrap_or_else(|| json!({}))
        } else {
            (*fact.schema).clone()
        };
        if let Some(note) = &fact.note {
            prop["description"] = format!("{}: {note}", p.label()).into();
        }
        prop["x-pwk-source"] = fact.cite.into();
        props.insert(key.to_string(), prop);
    }
    schema["properties"] = Value::Object(props);
    schema
}

/// Per-profile caches, so each profile is prepared at most once per process.
#[derive(Debug, Default)]
pub struct Caches {
    schema: OnceLock<Value>,
    /// Compiled in, or compiled once (and kept for the process).
    validator: OnceLock<&'static Validator>,
}

impl HostProfile {
    fn schema_cell(&self) -> &OnceLock<Value> {
        &self.caches.schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{ALL, HostId};

    #[test]
    fn portable_schema_is_the_role_schema_plus_host_keys() {
        let p = HostId::Pwk.newest();
        let s = host_schema(p);
        let role = crate::role::schema::schema();
        for (k, v) in role["properties"].as_object().unwrap() {
            assert_eq!(&s["properties"][k], v, "{k}");
        }
        assert_eq!(s["required"], role["required"]);
    }

    /// The portable schema's extra keys, derived from the parsed profiles: what
    /// build.rs compiled in must be this.
    fn portable_extra_from_profiles() -> Vec<(String, Vec<String>)> {
        let role = crate::role::schema::schema();
        let documented = role["properties"].as_object().unwrap();
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for h in pi_profiles() {
            for key in h.keys.keys() {
                if documented.contains_key(*key) || out.iter().any(|(k, _)| k == *key) {
                    continue;
                }
                let who = readers(key).iter().map(|r| r.label()).collect();
                out.push((key.to_string(), who));
            }
        }
        out
    }

    #[test]
    fn portable_extra_keys_are_derived_from_the_profiles() {
        let built: Vec<(String, Vec<String>)> = crate::host::portable_extra_keys()
            .iter()
            .map(|(k, who)| (k.to_string(), who.iter().map(|w| w.to_string()).collect()))
            .collect();
        let derived = portable_extra_from_profiles();
        assert!(!derived.is_empty());
        assert_eq!(built, derived);
    }

    /// `src/role/validate/compiled.rs` is what the shipped schemas compile to, and the
    /// binary holds exactly that. `PWK_WRITE_COMPILED=1` rewrites the file (then
    /// rebuild and run the test again).
    #[test]
    fn compiled_validators_are_current() {
        let mut owned = vec![(
            "role".to_string(),
            Validator::compile(crate::role::schema::schema()).unwrap(),
        )];
        for h in ALL {
            for p in h.profiles() {
                owned.push((p.label(), Validator::compile(&derive(p)).unwrap()));
            }
        }
        let rows: Vec<(String, &Validator)> = owned.iter().map(|(i, v)| (i.clone(), v)).collect();
        let inputs = crate::role::validate::schema_inputs();
        let text = crate::role::validate::emit(&rows, inputs);
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/role/validate/compiled.rs");
        if std::env::var_os("PWK_WRITE_COMPILED").is_some() {
            std::fs::write(&path, &text).unwrap();
            return;
        }
        let current = std::fs::read_to_string(&path).unwrap();
        assert!(
            current == text,
            "src/role/validate/compiled.rs is stale: run \
             `PWK_WRITE_COMPILED=1 cargo test --lib compiled_validators_are_current`"
        );
        for (id, v) in &rows {
            let built = crate::role::validate::compiled(id)
                .unwrap_or_else(|| panic!("{id} is compiled in"));
            assert_eq!(
                crate::role::validate::emit(&[(id.clone(), built)], inputs),
                crate::role::validate::emit(&[(id.clone(), *v)], inputs),
                "{id}"
            );
            assert!(
                std::ptr::eq(validator_for(id), built),
                "{id} is read from the binary"
            );
        }
    }

    /// The validator a run uses for `id`.
    fn validator_for(id: &str) -> &'static Validator {
        if id == "role" {
            return crate::role::schema::validator();
        }
        let p = ALL
            .iter()
            .flat_map(|h| h.profiles())
            .find(|p| p.label() == id)
            .unwrap();
        validator(p)
    }

    #[test]
    fn known_keys_are_the_schema_properties() {
        for h in ALL {
            for p in h.profiles() {
                let props: Vec<&str> = host_schema(p)["properties"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                assert_eq!(known_keys(p), props, "{}", p.label());
            }
        }
    }

    #[test]
    fn every_host_schema_compiles() {
        for h in ALL {
            for p in h.profiles() {
                let _ = validator(p);
            }
        }
    }
}
