//! Resolve the host profiles once, at build time.
//!
//! `schemas/hosts/<host>.json` holds each host's versions as RFC 7396 merge patches
//! over the one before, with notes and sources for people. At run time pwk needs one
//! resolved profile (the host it lints for), or, for the portable profile, a light
//! view of every profile (which keys each reads, what it refuses, how it names roles).
//! Resolving and parsing all of that on every start would cost more than linting a
//! file, so this script writes, per version, the resolved profile (without the
//! `notes`) and its light view (key facts reduced to their schemas) as minified JSON,
//! and `src/host/mod.rs` parses only what a run asks for.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

#[path = "src/host/merge.rs"]
mod merge;
use merge::merge_patch;

const HOSTS: [&str; 9] = [
    "pwk",
    "tintinweb",
    "nicobailon",
    "herdr",
    "claude-code",
    "gemini",
    "copilot",
    "opencode",
    "pi-example",
];

/// Blank every source string (`cite`) below `v`: the light view keeps the facts, not
/// where they come from (messages that cite a source use the full profile).
/// The real pi subagent hosts (`host::PI_HOSTS`).
const PI_HOSTS: [&str; 3] = ["tintinweb", "nicobailon", "herdr"];

fn drop_cites(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "cite" {
                    *x = Value::String(String::new());
                } else {
                    drop_cites(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(drop_cites),
        _ => {}
    }
}

/// The light view: every field kept, key facts reduced to their `schema`, sources
/// blanked.
fn light(full: &Value) -> Value {
    let mut v = full.clone();
    drop_cites(&mut v);
    v["source"] = Value::String(String::new());
    if let Some(keys) = v["keys"].as_object_mut() {
        for fact in keys.values_mut() {
            let schema = fact.get("schema").cloned();
            let mut small = serde_json::Map::new();
            if let Some(s) = schema {
                small.insert("schema".into(), s);
            }
            small.insert("cite".into(), Value::String(String::new()));
            *fact = Value::Object(small);
        }
    }
    v
}

fn main() {
    println!("cargo:rerun-if-changed=schemas/hosts");
    println!("cargo:rerun-if-changed=src/host/merge.rs");
    println!("cargo:rerun-if-changed=schemas/role.schema.json");
    // The real pi hosts' facts the portable profile consults on every run, as Rust
    // data: (host, version, keys read, keys rejected, instead, default_values, keys
    // required) per profile, oldest first per host, in `host::PI_HOSTS` order.
    let mut pi_rows = String::from(
        "#[allow(clippy::type_complexity)] // generated data, read by `host::pi_rows`\npub static PI_ROWS: &[(&str, &str, &[&str], &[&str], &[(&str, &str)], &[(&str, &str)], &[&str])] = &[\n",
    );
    // Every profile of each pi host, for the portable schema's extra keys (a key an
    // older profile reads is still read by a supported host).
    let mut every_pi: Vec<(String, Value)> = Vec::new();
    // What the compiled-in validators (`src/role/validate/compiled.rs`) are derived
    // from: when these bytes change, pwk compiles validators at run time until the
    // file is regenerated (and its freshness test fails until then).
    let mut inputs = Fnv::default();
    inputs.write(&std::fs::read("schemas/role.schema.json").expect("role schema"));
    // What `--host auto` infers a file's host from when nothing else says
    // (`host::infer_from_keys`): per host, every key some version of it reads that the
    // role schema (the PWK contract) does not document, sorted.
    let documented: std::collections::BTreeSet<String> = {
        let role: Value = serde_json::from_str(
            &std::fs::read_to_string("schemas/role.schema.json").expect("role schema"),
        )
        .expect("role schema JSON");
        role["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .cloned()
            .collect()
    };
    let mut host_keys: Vec<(&str, std::collections::BTreeSet<String>)> = Vec::new();
    let mut code = String::from(
        "/// (host, package, version, applies, resolved profile, light view, project\n\
         /// discovery dirs one a line), oldest first.\n\
         pub static PROFILES: &[(&str, &str, &str, &str, &str, &str, &str)] = &[\n",
    );
    for host in HOSTS {
        let path = format!("schemas/hosts/{host}.json");
        println!("cargo:rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        inputs.write(text.as_bytes());
        let file: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(file["id"], host, "{path}: id");
        let package = file["package"].as_str().unwrap_or_default();
        let mut current = Value::Null;
        for patch in file["versions"]
            .as_array()
            .expect("versions")
            .iter()
            .cloned()
        {
            merge_patch(&mut current, patch);
            let mut full = current.clone();
            full.as_object_mut().expect("object").remove("notes");
            let version = full["version"].as_str().expect("version").to_string();
            let applies = full["applies"].as_str().expect("applies").to_string();
            let full_text = serde_json::to_string(&full).expect("json");
            let light_text = serde_json::to_string(&light(&full)).expect("json");
            // What `--host auto` matches a path against, without parsing a profile.
            let dirs: Vec<&str> = full["discovery"]["dirs"]
                .as_array()
                .expect("dirs")
                .iter()
                .filter(|d| d["layer"] == "project")
                .filter_map(|d| d["path"].as_str())
                .collect();
            let dirs = dirs.join("\n");
            if PI_HOSTS.contains(&host) {
                let names = |v: &Value| -> Vec<String> {
                    v.as_object()
                        .map(|m| m.keys().cloned().collect())
                        .unwrap_or_default()
                };
                let pairs = |v: &Value| -> Vec<(String, String)> {
                    v.as_object()
                        .map(|m| {
                            m.iter()
                                .map(|(k, x)| {
                                    (k.clone(), x.as_str().expect("a string").to_string())
                                })
                                .collect()
                        })
                        .unwrap_or_default()
                };
                let required: Vec<&str> = full["required"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|r| r["key"].as_str()).collect())
                    .unwrap_or_default();
                writeln!(
                    pi_rows,
                    "    ({host:?}, {version:?}, &{:?}, &{:?}, &{:?}, &{:?}, &{:?}),",
                    names(&full["keys"]),
                    names(&full["rejected"]),
                    pairs(&full["instead"]),
                    pairs(&full["default_values"]),
                    required,
                )
                .expect("write");
            }
            writeln!(
                code,
                "    ({host:?}, {package:?}, {version:?}, {applies:?}, {full_text:?}, {light_text:?}, {dirs:?}),"
            )
            .expect("write");
            if PI_HOSTS.contains(&host) {
                every_pi.push((host.to_string(), current.clone()));
            }
            if host != "pwk" {
                let keys = full["keys"].as_object().expect("keys").keys();
                let own = keys.filter(|k| !documented.contains(*k)).cloned();
                match host_keys.iter_mut().find(|(h, _)| *h == host) {
                    Some((_, set)) => set.extend(own),
                    None => host_keys.push((host, own.collect())),
                }
            }
        }
    }
    code.push_str("];\n");
    pi_rows.push_str("];\n");
    code.push_str(&pi_rows);
    // The portable schema's extra properties: every key some pi host profile (any
    // version) reads that the role schema does not document, with the labels of the
    // profiles that read it (`host::schema::derive` for `pwk`; a test compares it with the derivation
    // from the parsed profiles).
    let role: Value = serde_json::from_str(
        &std::fs::read_to_string("schemas/role.schema.json").expect("role schema"),
    )
    .expect("role schema JSON");
    let documented = role["properties"].as_object().expect("properties");
    let mut extra: Vec<(String, Vec<String>)> = Vec::new();
    for (_, p) in &every_pi {
        for key in p["keys"].as_object().expect("keys").keys() {
            if documented.contains_key(key) || extra.iter().any(|(k, _)| k == key) {
                continue;
            }
            let who = every_pi
                .iter()
                .filter(|(_, q)| q["keys"].get(key).is_some())
                .map(|(h, q)| format!("{h}@{}", q["version"].as_str().expect("version")))
                .collect();
            extra.push((key.clone(), who));
        }
    }
    code.push_str("/// (key, read by) for the portable schema.\n");
    code.push_str("pub static PORTABLE_EXTRA: &[(&str, &[&str])] = &[\n");
    for (k, who) in &extra {
        writeln!(code, "    ({k:?}, &{who:?}),").expect("write");
    }
    code.push_str("];\n");
    code.push_str(
        "/// (host, keys some version of it reads that the role schema does not document).\n",
    );
    code.push_str("pub static HOST_KEYS: &[(&str, &[&str])] = &[\n");
    for (h, keys) in &host_keys {
        let keys: Vec<&String> = keys.iter().collect();
        writeln!(code, "    ({h:?}, &{keys:?}),").expect("write");
    }
    code.push_str("];\n");
    writeln!(
        code,
        "/// FNV-1a of `schemas/role.schema.json` and every host file, in order.\npub const INPUTS_HASH: u64 = {:#018x};",
        inputs.0
    )
    .expect("write");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(Path::new(&out).join("host_profiles.rs"), code).expect("write");
}

/// FNV-1a, 64 bits: a stable fingerprint of the schema inputs (not a security hash).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
