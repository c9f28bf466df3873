//! Host profiles: how each subagent host reads a role file.
//!
//! The profiles are data, in `schemas/hosts.json` (compiled in). The linter asks a
//! profile questions ("does this host read `max_turns`?"), never branches on the
//! host itself; `pwk schema --host H` prints the role schema with the profile merged in.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::cli::Host;
use crate::lint::Severity;
use crate::role::validate::Validator;

/// The profile file, exactly as shipped in `schemas/`.
pub const HOSTS_JSON: &str = include_str!("../../schemas/hosts.json");

/// How a host identifies a role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Identity {
    /// By the `name` key.
    Name,
    /// By the file name without `.md` (`name` is never read).
    Stem,
}

/// One host's profile.
#[derive(Debug, Deserialize)]
pub struct HostProfile {
    /// Human name with the version the profile was measured against.
    pub title: String,
    pub identity: Identity,
    /// Whether `tools` may be a YAML list (false: one comma-separated line only).
    pub tools_list: bool,
    /// Whether the host discovers roles in `.agents/agents/`.
    pub reads_agents_agents: bool,
    /// What the child gets when `tools` is absent or misspelt (completes a sentence).
    pub missing_tools: String,
    /// What the host does with a `model` it cannot resolve.
    pub unresolvable_model: String,
    /// Rule severities that differ for this host.
    pub severity: BTreeMap<String, Severity>,
    /// Keys the host never reads, with what it reads instead.
    pub ignored: BTreeMap<String, String>,
    /// For an ignored key, the value that matches what the host does anyway (e.g.
    /// tintinweb replaces the system prompt by default, so `systemPromptMode: replace`
    /// changes nothing there and is not worth a warning).
    #[serde(default)]
    pub default_values: BTreeMap<String, String>,
    /// Keys that make the host refuse the role.
    pub rejected: BTreeMap<String, String>,
    /// Keys only this host reads (JSON Schema fragments).
    pub extra_keys: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct HostsFile {
    hosts: BTreeMap<String, HostProfile>,
}

fn hosts() -> &'static HostsFile {
    static HOSTS: OnceLock<HostsFile> = OnceLock::new();
    HOSTS.get_or_init(|| {
        serde_json::from_str(HOSTS_JSON).expect("schemas/hosts.json is valid (tested)")
    })
}

/// The profile id as written in `hosts.json` and on the command line.
pub fn host_id(host: Host) -> &'static str {
    match host {
        Host::Pwk => "pwk",
        Host::Tintinweb => "tintinweb",
        Host::Nicobailon => "nicobailon",
        Host::Herdr => "herdr",
    }
}

/// The profile of one host.
pub fn profile(host: Host) -> &'static HostProfile {
    &hosts().hosts[host_id(host)]
}

impl HostProfile {
    /// The severity of `rule` under this host, given the rule's default.
    pub fn severity_of(&self, rule: &str, default: Severity) -> Severity {
        self.severity.get(rule).copied().unwrap_or(default)
    }

    /// Whether the host reads `key` (schema keys minus ignored/rejected, plus its own).
    pub fn reads(&self, key: &str) -> bool {
        !self.ignored.contains_key(key) && !self.rejected.contains_key(key)
    }
}

/// The role schema as `host` reads it: the shipped schema with the host's own keys
/// added, its ignored and rejected keys annotated (`x-pwk-ignored` / `x-pwk-rejected`
/// plus a note in `description`), and `tools` narrowed to a string where the host
/// takes no YAML list. For `pwk` this is the shipped schema unchanged.
pub fn host_schema(host: Host) -> &'static serde_json::Value {
    static SCHEMAS: [OnceLock<serde_json::Value>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    SCHEMAS[host as usize].get_or_init(|| derive_schema(host))
}

fn derive_schema(host: Host) -> serde_json::Value {
    let mut schema = crate::role::schema::schema().clone();
    if host == Host::Pwk {
        return schema;
    }
    let p = profile(host);
    schema["title"] = format!("PWK agent role frontmatter, as {} reads it", p.title).into();
    schema["x-pwk-host"] = serde_json::json!({
        "id": host_id(host),
        "title": p.title,
        "identity": match p.identity { Identity::Name => "name", Identity::Stem => "file stem" },
        "reads .agents/agents": p.reads_agents_agents,
    });
    let props = schema["properties"]
        .as_object_mut()
        .expect("schema has properties");
    for (key, note) in &p.ignored {
        if let Some(prop) = props.get_mut(key) {
            annotate(
                prop,
                "x-pwk-ignored",
                &format!("[ignored by {}: {note}]", host_id(host)),
            );
        }
    }
    for (key, note) in &p.rejected {
        if let Some(prop) = props.get_mut(key) {
            annotate(
                prop,
                "x-pwk-rejected",
                &format!("[rejected by {}: {note}]", host_id(host)),
            );
        }
    }
    if !p.tools_list {
        for key in ["tools", "deny-tools"] {
            if let Some(prop) = props.get_mut(key) {
                prop.as_object_mut().map(|o| o.remove("oneOf"));
                prop["type"] = "string".into();
                prop["pattern"] = "^[^\\n]*$".into();
            }
        }
    }
    for (key, fragment) in &p.extra_keys {
        props.insert(key.clone(), fragment.clone());
    }
    schema
}

fn annotate(prop: &mut serde_json::Value, marker: &str, note: &str) {
    let desc = prop["description"].as_str().unwrap_or_default();
    prop["description"] = format!("{note} {desc}").into();
    prop[marker] = true.into();
}

/// The compiled validator for `host`'s schema. For `pwk` this is
/// `role::schema::validator()`, built from `schemas/role.schema.json` itself.
pub fn validator(host: Host) -> &'static Validator {
    if host == Host::Pwk {
        return crate::role::schema::validator();
    }
    static VALIDATORS: [OnceLock<Validator>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    VALIDATORS[host as usize].get_or_init(|| {
        Validator::compile(host_schema(host)).expect("host schemas compile (tested)")
    })
}

/// Every key `host` knows: the schema's keys plus the host's own.
pub fn known_keys(host: Host) -> Vec<&'static str> {
    host_schema(host)["properties"]
        .as_object()
        .map(|props| props.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Host; 4] = [Host::Pwk, Host::Tintinweb, Host::Nicobailon, Host::Herdr];

    #[test]
    fn every_profile_loads_and_compiles() {
        for h in ALL {
            let p = profile(h);
            assert!(!p.title.is_empty());
            let _ = validator(h);
            let props = host_schema(h)["properties"].as_object().unwrap();
            for key in p.ignored.keys().chain(p.rejected.keys()) {
                assert!(
                    props.contains_key(key),
                    "{}: `{key}` is not a schema key",
                    host_id(h)
                );
            }
            for rule in p.severity.keys() {
                assert!(
                    crate::lint::rules::find(rule).is_some(),
                    "unknown rule {rule}"
                );
            }
        }
    }

    #[test]
    fn pwk_schema_is_the_shipped_file() {
        assert_eq!(host_schema(Host::Pwk), crate::role::schema::schema());
    }
}
