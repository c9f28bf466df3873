//! The documented frontmatter schema, `schemas/role.schema.json`.
//!
//! This is the one copy: it is compiled into the binary, printed by `pwk schema`,
//! and it is what validation runs against.

use std::sync::OnceLock;

/// The schema file's text, exactly as shipped in `schemas/`.
pub const ROLE_SCHEMA: &str = include_str!("../../schemas/role.schema.json");

/// The parsed schema document.
pub fn schema() -> &'static serde_json::Value {
    static SCHEMA: OnceLock<serde_json::Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        serde_json::from_str(ROLE_SCHEMA).expect("schemas/role.schema.json is valid JSON (tested)")
    })
}

/// A compiled validator for the schema (compiled into the binary, see
/// `host::schema::validator`).
pub fn validator() -> &'static super::validate::Validator {
    if let Some(v) = super::validate::compiled("role") {
        return v;
    }
    static VALIDATOR: OnceLock<super::validate::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        super::validate::Validator::compile(schema())
            .expect("schemas/role.schema.json compiles (tested)")
    })
}

/// Every key the schema documents, in schema order.
pub fn known_keys() -> Vec<&'static str> {
    schema()["properties"]
        .as_object()
        .map(|props| props.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Whether the schema documents `key` (without parsing the schema).
pub fn documents(key: &str) -> bool {
    validator().has_property(key)
}

/// The schema's description of one key.
pub fn key_description(key: &str) -> Option<&'static str> {
    schema()["properties"][key]["description"].as_str()
}

/// Whether `key` is a namespaced extension key (always allowed, never checked).
pub fn is_extension_key(key: &str) -> bool {
    if let Some(rest) = key.strip_prefix("x-") {
        return !rest.is_empty();
    }
    match key.split_once('.') {
        Some((vendor, k)) => {
            !vendor.is_empty()
                && !k.is_empty()
                && vendor
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
                && vendor.as_bytes()[0].is_ascii_alphanumeric()
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_compiles_and_documents_every_key() {
        let _ = validator();
        let keys = known_keys();
        for k in [
            "name",
            "description",
            "tools",
            "deny-tools",
            "model",
            "thinking",
            "max_turns",
            "skills",
            "skill",
            "spawning",
            "auto-exit",
            "interactive",
            "session-mode",
            "system-prompt",
            "cwd",
            "cli",
            "cli-model",
            "disable-model-invocation",
            "systemPromptMode",
        ] {
            assert!(keys.contains(&k), "{k} missing from the schema");
            assert!(documents(k), "{k}");
            assert!(
                key_description(k).is_some_and(|d| !d.is_empty()),
                "{k} has no description"
            );
        }
    }

    #[test]
    fn documents_exactly_the_schema_keys() {
        let keys = known_keys();
        for k in &keys {
            assert!(documents(k), "{k}");
        }
        for k in ["toolBudget", "prompt_mode", "x-owner", "", "Name"] {
            assert_eq!(documents(k), keys.contains(&k), "{k}");
        }
    }

    #[test]
    fn extension_keys() {
        assert!(is_extension_key("x-owner"));
        assert!(is_extension_key("acme.owner"));
        assert!(!is_extension_key("x-"));
        assert!(!is_extension_key("owner"));
        assert!(!is_extension_key(".owner"));
    }
}
