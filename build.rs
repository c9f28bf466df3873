//! Resolve the host profiles once, at build time.
//!
//! `schemas/hosts/<host>.json` holds each host's versions as RFC 7396 merge patches
//! over the one before, with notes and sources for people. At run time pwk needs one
//! resolved profile (the host it lints for), or, for the portable profile, a light
//! view of every profile (which keys each reads, what it refuses, how it names roles).
//! Resolving and parsing all of that on every start would cost more than linting a
//! file, so this script writes, per version, the resolved profile (without the
//! `notes`) and its light view (key facts reduced to their schemas) in packed form
//! (`src/host/packed.rs`: lexed once, strings borrowed from one text), and
//! `src/host/mod.rs` reads only what a run asks for. The key tables a run looks
//! keys up in come with their slots laid out (`src/host/key_index.rs`). Each
//! profile and view is also laid out (`layout`): its strings' places, its keys' and
//! each part's packed extent, so making a row's profile runs no reader; a part is
//! read when a check first looks at it.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

#[path = "src/host/merge.rs"]
mod merge;
use merge::merge_patch;
#[path = "src/host/key_index.rs"]
#[allow(dead_code)] // `find` is pwk's
mod key_index;
#[path = "src/host/packed.rs"]
mod packed;

/// The host registry: one line per host, in the order `host::ALL` lists them (help
/// texts, `--host auto`'s search, the docs). Everything else about a host is in its
/// file, `schemas/hosts/<id>.json`.
const HOSTS: &[&str] = &[
    "pwk",
    "tintinweb",
    "nicobailon",
    "herdr",
    "claude-code",
    "gemini",
    "copilot",
    "opencode",
    "pi-example",
    "subagents-lite",
    "antigravity",
    "goose",
];

/// Blank every source string (`cite`) below `v`: the light view keeps the facts, not
/// where they come from (messages that cite a source use the full profile).
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
            let mut small = serde_json::Map::new();
            // What the light view's readers act on: the schema, and how the host
            // re-parses the value (the portable profile checks `parsed_as`).
            for field in ["schema", "parsed_as"] {
                if let Some(x) = fact.get(field) {
                    small.insert(field.into(), x.clone());
                }
            }
            small.insert("cite".into(), Value::String(String::new()));
            *fact = Value::Object(small);
        }
    }
    v
}

/// `host::Profile`'s fields, by how [`layout`] lays each out: a string as its place
/// in the text; `keys` as its facts' places and their slots; `notes` empty (left
/// out of the binary); every other field as its packed extent, or [`ABSENT`] where
/// the file leaves it out (`#[serde(default)]`: the field's default). A field of
/// `Profile` missing here, or one here that `Profile` lacks, does not compile; a
/// field a file has that is not here stops the build.
const PROFILE_STRINGS: [&str; 5] = ["version", "applies", "measured", "source", "title"];
const PROFILE_PARTS: [&str; 7] = [
    "discovery",
    "identity",
    "parser",
    "bad_file",
    "no_frontmatter",
    "tools",
    "unresolvable_model",
];
const PROFILE_DEFAULTED: [&str; 18] = [
    "required",
    "strict_lines",
    "unknown_keys",
    "instead",
    "default_values",
    "rejected",
    "misplaced_hooks",
    "strict_keys",
    "skill_dirs",
    "model_config",
    "settings",
    "models",
    "severity",
    "permission_modes",
    "equivalents",
    "confidence",
    "invocable",
    "variants",
];

/// A packed value's start and end in `profiles.packed`.
type Extent = (u32, u32);

/// A defaulted field the file leaves out, in a row's layout.
const ABSENT: (usize, usize) = (u32::MAX as usize, u32::MAX as usize);

/// The 4-byte little-endian number at `p` of a packed form.
fn packed_word(bytes: &[u8], p: usize) -> usize {
    u32::from_le_bytes(bytes[p..p + 4].try_into().expect("4 bytes")) as usize
}

/// A member of a packed object: its key, the key's place in the text, and its
/// value's extent.
struct Member<'t> {
    key: &'t str,
    place: (usize, usize),
    extent: (usize, usize),
}

/// The members of the packed object at `at` (its tag).
fn packed_members<'t>(bytes: &[u8], text: &'t str, at: usize) -> Vec<Member<'t>> {
    let word = |p: usize| packed_word(bytes, p);
    assert_eq!(bytes[at], packed::OBJECT, "an object");
    let mut p = at + 9;
    let mut members = Vec::new();
    for _ in 0..word(at + 1) {
        let place = (word(p), word(p + 4));
        p += 8;
        let len = match bytes[p] {
            packed::NULL | packed::FALSE | packed::TRUE => 1,
            packed::UINT | packed::INT | packed::FLOAT | packed::STR => 9,
            packed::ARRAY | packed::OBJECT => 9 + word(p + 5),
            t => panic!("unknown tag {t}"),
        };
        members.push(Member {
            key: &text[place.0..place.1],
            place,
            extent: (p, p + len),
        });
        p += len;
    }
    assert_eq!(p, at + 9 + word(at + 5), "the members fill the object");
    members
}

/// What build.rs lays the rows out in (`host::generated`): integers only, so the
/// tables need no relocation at start-up and a run reads the pages of the rows it
/// uses.
#[derive(Default)]
struct Layouts {
    /// Per row: each field's extent (strings: their place in the text), in the order
    /// of [`layout_fields`], then its keys' range in `keys` and its slots' in `slots`.
    rows: Vec<Vec<(usize, usize)>>,
    /// Each key's place in the text and its fact's extent.
    keys: Vec<(usize, usize, usize, usize)>,
    slots: Vec<u8>,
}

/// Every field a row's layout lists, in order.
fn layout_fields() -> impl Iterator<Item = &'static str> {
    PROFILE_STRINGS
        .into_iter()
        .chain(PROFILE_PARTS)
        .chain(PROFILE_DEFAULTED)
}

/// Lay out the packed row at `(start, end)` (`label` names it in messages).
fn layout(label: &str, &(start, end): &Extent, packed_all: &packed::Packer, out: &mut Layouts) {
    let (bytes, text) = (&packed_all.bytes[..], &packed_all.text[..]);
    let members = packed_members(bytes, text, start as usize);
    assert_eq!(
        members.last().map(|m| m.extent.1),
        Some(end as usize),
        "{label}: the row ends with its last member"
    );
    for m in &members {
        assert!(
            m.key == "keys" || layout_fields().any(|f| f == m.key),
            "{label}: `{}` is not a field of a profile laid out (`notes` are left out)",
            m.key
        );
    }
    let find = |k: &str| members.iter().find(|m| m.key == k).map(|m| m.extent);
    let mut row = Vec::new();
    for field in layout_fields() {
        row.push(match find(field) {
            Some(extent) if PROFILE_STRINGS.contains(&field) => {
                assert_eq!(
                    bytes[extent.0],
                    packed::STR,
                    "{label}: `{field}` is a string"
                );
                (
                    packed_word(bytes, extent.0 + 1),
                    packed_word(bytes, extent.0 + 5),
                )
            }
            Some(extent) => extent,
            None if PROFILE_DEFAULTED.contains(&field) => ABSENT,
            None => panic!("{label}: no `{field}`"),
        });
    }
    let facts = packed_members(bytes, text, find("keys").expect("keys").0);
    let names: Vec<&str> = facts.iter().map(|f| f.key).collect();
    assert!(names.is_sorted(), "{label}: keys sorted");
    assert!(names.len() <= 255, "{label}: at most 255 keys");
    row.push((out.keys.len(), out.keys.len() + facts.len()));
    out.keys.extend(
        facts
            .iter()
            .map(|f| (f.place.0, f.place.1, f.extent.0, f.extent.1)),
    );
    let slots = key_index::slots(&names);
    row.push((out.slots.len(), out.slots.len() + slots.len()));
    out.slots.extend(slots);
    out.rows.push(row);
}

/// The layouts as Rust: the tables, and `laid_out`, which makes a row's `Profile`
/// from them (no reader runs: each part is read when a check first looks at it).
fn layout_code(l: &Layouts, code: &mut String) {
    let n = layout_fields().count() + 2;
    let rows: Vec<String> = l.rows.iter().map(|r| format!("{r:?}")).collect();
    writeln!(
        code,
        "/// Each row's profile and light view (`2 * row`, `2 * row + 1`): its fields'\n\
         /// extents in `PACKED` (strings: in `PACKED_TEXT`), then its keys' range in\n\
         /// `KEY_PLACES` and its slots' in `KEY_SLOTS` (`layout` in build.rs).\n\
         static LAYOUT: [[(u32, u32); {n}]; {}] = [{}];",
        l.rows.len(),
        rows.join(", ")
    )
    .expect("write");
    writeln!(
        code,
        "/// Each key's place in `PACKED_TEXT` and its fact's extent in `PACKED`.\nstatic KEY_PLACES: [(u32, u32, u32, u32); {}] = {:?};",
        l.keys.len(),
        l.keys
    )
    .expect("write");
    writeln!(
        code,
        "/// Each row's key slots (`host::key_index`).\nstatic KEY_SLOTS: [u8; {}] = {:?};",
        l.slots.len(),
        l.slots
    )
    .expect("write");
    let mut fields = String::new();
    for (i, f) in layout_fields().enumerate() {
        let how = if PROFILE_STRINGS.contains(&f) {
            "text"
        } else if PROFILE_PARTS.contains(&f) {
            "part"
        } else {
            "part_or_default"
        };
        writeln!(fields, "        {f}: {how}(row[{i}]),").expect("write");
    }
    writeln!(
        code,
        "/// Row `n` of `LAYOUT` as a profile.\n\
         pub fn laid_out(n: usize) -> super::Profile {{\n    \
             let row = &LAYOUT[n];\n    \
             let (keys, slots) = (row[{keys}], row[{slots}]);\n    \
             let keys = KEY_PLACES[keys.0 as usize..keys.1 as usize]\n        \
                 .iter()\n        \
                 .map(|&(a, b, c, d)| (text((a, b)), part((c, d))))\n        \
                 .collect();\n    \
             super::Profile {{\n{fields}        \
                 keys: super::KeyMap::laid_out(keys, &KEY_SLOTS[slots.0 as usize..slots.1 as usize]),\n        \
                 notes: Vec::new(),\n    \
             }}\n\
         }}",
        keys = n - 2,
        slots = n - 1,
    )
    .expect("write");
}

fn main() {
    println!("cargo:rerun-if-changed=schemas/hosts");
    println!("cargo:rerun-if-changed=src/host/merge.rs");
    println!("cargo:rerun-if-changed=schemas/role.schema.json");
    // The real pi hosts' facts the portable profile consults on every run, as Rust
    // data: (host, version, keys read, keys rejected, instead, default_values, keys
    // required, keys whose text the host parses as JSON) per profile, oldest first per
    // host, in `host::PI_HOSTS` order.
    let mut pi_rows = String::from(
        "#[allow(clippy::type_complexity)] // generated data, read by `host::pi_rows`\npub static PI_ROWS: &[(&str, &str, &[&str], &[&str], &[(&str, &str)], &[(&str, &str)], &[&str], &[&str])] = &[\n",
    );
    // Every profile of each pi host, for the portable schema's extra keys (a key an
    // older profile reads is still read by a supported host).
    let mut every_pi: Vec<(String, Value)> = Vec::new();
    // The pi rows' keys (`PI_KEYS`): readers, refused, parsed as JSON, by key.
    let mut pi_keys: std::collections::BTreeMap<String, (u64, bool, u64)> = Default::default();
    let mut pi_row_count = 0;
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
         /// discovery dirs one a line), oldest first; a profile and a view are the\n\
         /// (start, end) of their packed form (`host::packed`) in [`PACKED`].\n\
         #[allow(clippy::type_complexity)] // generated data, read by `host`\n\
         pub static PROFILES: &[(&str, &str, &str, &str, (u32, u32), (u32, u32), &str)] = &[\n",
    );
    // Every profile and light view, packed, one after the other.
    let mut packed_all = packed::Packer::default();
    let mut pack = |v: &Value| -> (u32, u32) {
        let start = packed_all.bytes.len();
        packed::pack(v, &mut packed_all);
        let end = packed_all.bytes.len();
        (
            u32::try_from(start).expect("< 4 GiB"),
            u32::try_from(end).expect("< 4 GiB"),
        )
    };
    let files: Vec<(&str, Value)> = HOSTS
        .iter()
        .map(|&host| {
            let path = format!("schemas/hosts/{host}.json");
            println!("cargo:rerun-if-changed={path}");
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            inputs.write(text.as_bytes());
            let file: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(file["id"], host, "{path}: id");
            (host, file)
        })
        .collect();
    // The real pi hosts the portable profile is checked against (`host::PI_HOSTS`).
    let pi_hosts: Vec<&str> = files
        .iter()
        .filter(|(_, f)| f["in_portable"] == Value::Bool(true))
        .map(|(h, _)| *h)
        .collect();
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(
        Path::new(&out).join("host_ids.rs"),
        registry(&files, &pi_hosts),
    )
    .expect("write");
    // (host, profile, light view) of each row, to lay out (`layout`).
    let mut rows: Vec<(&str, Extent, Extent)> = Vec::new();
    for (host, file) in &files {
        let host = *host;
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
            let full_range = pack(&full);
            let light_range = pack(&light(&full));
            rows.push((host, full_range, light_range));
            // What `--host auto` matches a path against, without parsing a profile.
            let dirs: Vec<&str> = full["discovery"]["dirs"]
                .as_array()
                .expect("dirs")
                .iter()
                .filter(|d| d["layer"] == "project")
                .filter_map(|d| d["path"].as_str())
                .collect();
            let dirs = dirs.join("\n");
            if pi_hosts.contains(&host) {
                let row = 1u64 << pi_row_count;
                pi_row_count += 1;
                for k in full["keys"].as_object().into_iter().flat_map(|m| m.keys()) {
                    pi_keys.entry(k.clone()).or_default().0 |= row;
                }
                for k in full["rejected"]
                    .as_object()
                    .into_iter()
                    .flat_map(|m| m.keys())
                {
                    pi_keys.entry(k.clone()).or_default().1 = true;
                }
                for (k, f) in full["keys"].as_object().into_iter().flatten() {
                    if f["parsed_as"] == "json" {
                        pi_keys.entry(k.clone()).or_default().2 |= row;
                    }
                }
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
                let parsed_as_json: Vec<&String> = full["keys"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .filter(|(_, f)| f["parsed_as"] == "json")
                            .map(|(k, _)| k)
                            .collect()
                    })
                    .unwrap_or_default();
                writeln!(
                    pi_rows,
                    "    ({host:?}, {version:?}, &{:?}, &{:?}, &{:?}, &{:?}, &{:?}, &{:?}),",
                    names(&full["keys"]),
                    names(&full["rejected"]),
                    pairs(&full["instead"]),
                    pairs(&full["default_values"]),
                    required,
                    parsed_as_json,
                )
                .expect("write");
            }
            writeln!(
                code,
                "    ({host:?}, {package:?}, {version:?}, {applies:?}, {full_range:?}, {light_range:?}, {dirs:?}),"
            )
            .expect("write");
            if pi_hosts.contains(&host) {
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
    std::fs::write(Path::new(&out).join("profiles.packed"), &packed_all.bytes).expect("write");
    std::fs::write(Path::new(&out).join("profiles.text"), &packed_all.text).expect("write");
    code.push_str(
        "/// Every profile and light view, packed (`host::packed`).\npub static PACKED: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/profiles.packed\"));\n\
         /// Their strings, each once.\npub static PACKED_TEXT: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/profiles.text\"));\n\
         /// A defaulted field the file leaves out (`LAYOUT`).\nconst ABSENT: (u32, u32) = (u32::MAX, u32::MAX);\n\
         /// The string at `place` in `PACKED_TEXT`.\nfn text((start, end): (u32, u32)) -> &'static str {\n    &PACKED_TEXT[start as usize..end as usize]\n}\n\
         /// The part packed at `extent`, read on first use.\nfn part<T>((start, end): (u32, u32)) -> super::Lazy<T> {\n    super::Lazy::packed(&PACKED[start as usize..end as usize], PACKED_TEXT)\n}\n\
         /// The part packed at `extent`, or `T`'s default where the file leaves it out.\nfn part_or_default<T: Default>(extent: (u32, u32)) -> super::Lazy<T> {\n    match extent {\n        ABSENT => super::Lazy::by_default(),\n        _ => part(extent),\n    }\n}\n",
    );
    let mut layouts = Layouts::default();
    for (host, full, view) in &rows {
        layout(
            &format!("{host} (profile)"),
            full,
            &packed_all,
            &mut layouts,
        );
        layout(
            &format!("{host} (light view)"),
            view,
            &packed_all,
            &mut layouts,
        );
    }
    layout_code(&layouts, &mut code);
    pi_rows.push_str("];\n");
    code.push_str(&pi_rows);
    // Every key some pi row reads or refuses, sorted (a key's place is its id in
    // `host::KeySet`), with the rows that read it and that parse it as JSON as bits
    // over PI_ROWS, and whether some row refuses it: `host::pi_table` built this
    // with a BTreeMap at every start (~0.1M instructions).
    assert!(pi_row_count <= 64, "the pi rows fit one u64 bit set");
    code.push_str(
        "/// (key, rows reading it, some row refuses it, rows parsing it as JSON), sorted.\npub static PI_KEYS: &[(&str, u64, bool, u64)] = &[\n",
    );
    for (k, (readers, rejected, json)) in &pi_keys {
        writeln!(code, "    ({k:?}, {readers}, {rejected}, {json}),").expect("write");
    }
    code.push_str("];\n");
    let names: Vec<&str> = pi_keys.keys().map(String::as_str).collect();
    writeln!(
        code,
        "/// `PI_KEYS` indexed (`host::key_index`).\npub static PI_KEY_SLOTS: &[u8] = &{:?};",
        key_index::slots(&names)
    )
    .expect("write");
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

    // The same keys the other way round, for `--host auto`'s inference: each key,
    // sorted, with the hosts that read it as bits over `host::ALL` (the registry's
    // order), indexed.
    let mut readers: std::collections::BTreeMap<&str, u32> = Default::default();
    for (h, keys) in &host_keys {
        let bit = 1u32 << HOSTS.iter().position(|x| x == h).expect("a registry host");
        for k in keys {
            *readers.entry(k.as_str()).or_default() |= bit;
        }
    }
    code.push_str("/// (key, the hosts reading it as bits over `host::ALL`), sorted (`host::detect` infers a host from them).\n");
    code.push_str("pub static KEY_READERS: &[(&str, u32)] = &[\n");
    for (k, bits) in &readers {
        writeln!(code, "    ({k:?}, {bits}),").expect("write");
    }
    code.push_str("];\n");
    let names: Vec<&str> = readers.keys().copied().collect();
    writeln!(
        code,
        "/// `KEY_READERS` indexed (`host::key_index`).\npub static KEY_READER_SLOTS: &[u8] = &{:?};",
        key_index::slots(&names)
    )
    .expect("write");
    std::fs::write(Path::new(&out).join("host_profiles.rs"), code).expect("write");
    // The fingerprint of the schema inputs, for `role::validate`, which checks its
    // compiled-in validators against it (role sits below host: its own file).
    std::fs::write(
        Path::new(&out).join("schema_inputs.rs"),
        format!(
            "/// FNV-1a of `schemas/role.schema.json` and every host file, in order.\npub const INPUTS_HASH: u64 = {:#018x};\n",
            inputs.0
        ),
    )
    .expect("write");
    pi_facts(Path::new(&out));
    link_order();
}

/// Lay out the functions a start-up runs next to each other in the release binary
/// (`link/startup.order`, written by `scripts/startup-order.sh`: what `pwk
/// --version` and `pwk lint` execute). Scattered over the 8 MB of code, one-file
/// `pwk lint` took ~70 page faults in the text (each maps 16 pages the kernel looks
/// up in the page cache); laid out together, ~25, and `--version` fewer too. The
/// file names symbols, v0-mangled (`.cargo/config.toml`: a legacy name's hash moves
/// when unrelated code changes): names a newer build no longer has are skipped
/// (`lld`'s `--no-warn-symbol-ordering`), so a stale list makes start-up slower,
/// never wrong. Only where rustc links with its own `lld` (x86-64 Linux, glibc, no linker
/// of the user's own: none configured for the target, none chosen in RUSTFLAGS);
/// `PWK_LINK_ORDER=0` turns it off.
fn link_order() {
    const FILE: &str = "link/startup.order";
    println!("cargo:rerun-if-changed={FILE}");
    println!("cargo:rerun-if-env-changed=PWK_LINK_ORDER");
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    // Rust >= 1.90 links x86-64 Linux with its own lld; any sign of another linker
    // (one configured for the target, which cargo passes as RUSTC_LINKER, or flags
    // choosing one) and the lld-only flags stay out.
    let flags = env("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = ["linker", "fuse-ld", "link-self-contained"]
        .iter()
        .any(|f| flags.contains(f))
        || std::env::var_os("RUSTC_LINKER").is_some()
        || std::env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some();
    if env("TARGET") != "x86_64-unknown-linux-gnu"
        || env("PROFILE") != "release"
        || env("PWK_LINK_ORDER") == "0"
        || own_linker
    {
        return;
    }
    let path = Path::new(&env("CARGO_MANIFEST_DIR")).join(FILE);
    if path.is_file() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            path.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// pi's own facts (`schemas/pi.json`): its built-in and default tools for `host`, its
/// thinking levels per generation for `role::thinking`.
fn pi_facts(out: &Path) {
    let path = "schemas/pi.json";
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let pi: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let names = |v: &Value, what: &str| -> Vec<String> {
        v.as_array()
            .unwrap_or_else(|| panic!("{path}: {what} is a list"))
            .iter()
            .map(|t| t.as_str().expect("a name").to_string())
            .collect()
    };
    let builtins = names(&pi["builtins"]["tools"], "builtins.tools");
    let defaults = names(&pi["default_tools"]["tools"], "default_tools.tools");
    let mutating = names(&pi["mutating"]["tools"], "mutating.tools");
    for t in defaults.iter().chain(&mutating) {
        assert!(builtins.contains(t), "{path}: `{t}` is no built-in");
    }
    let tools = format!(
        "/// pi's built-in tools (`schemas/pi.json`).\npub(crate) static PI_BUILTINS: [&str; {}] = {builtins:?};\n\
         /// The tools a pi session starts with when no allow-list is given.\npub(crate) static PI_DEFAULT_TOOLS: [&str; {}] = {defaults:?};\n\
         /// The built-ins that change files or run commands.\npub(crate) static PI_MUTATING: [&str; {}] = {mutating:?};\n",
        builtins.len(),
        defaults.len(),
        mutating.len(),
    );
    std::fs::write(out.join("pi_tools.rs"), tools).expect("write");
    let mut thinking = String::from(
        "/// (pi package, generation, thinking levels), oldest first (`schemas/pi.json`).\n\
         pub(crate) static GENERATIONS: &[(&str, &str, &[&str])] = &[\n",
    );
    let mut before: Vec<String> = Vec::new();
    for g in pi["generations"].as_array().expect("generations") {
        let levels = names(&g["thinking"], "generations[].thinking");
        assert!(
            before.iter().all(|l| levels.contains(l)),
            "{path}: a generation's thinking levels contain the one before"
        );
        writeln!(
            thinking,
            "    ({:?}, {:?}, &{levels:?}),",
            g["package"].as_str().expect("package"),
            g["version"].as_str().expect("version"),
        )
        .expect("write");
        before = levels;
    }
    thinking.push_str("];\n");
    std::fs::write(out.join("pi_thinking.rs"), thinking).expect("write");
}

/// A host's `HostId` variant (`claude-code` → `ClaudeCode`).
fn variant(id: &str) -> String {
    id.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The host registry as Rust (`host::HostId`, `ALL`, `PI_HOSTS`, each host's name,
/// kind and repository, and, for the tests, its file as shipped).
fn registry(files: &[(&str, Value)], pi_hosts: &[&str]) -> String {
    let mut code = String::from(
        "/// The hosts pwk has profiles for (the registry in build.rs; each host's facts are\n\
         /// in `schemas/hosts/<id>.json`).\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]\n\
         pub enum HostId {\n",
    );
    for (id, file) in files {
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "host id `{id}`: lowercase letters, digits and `-` only"
        );
        let package = file["package"].as_str().filter(|p| !p.is_empty());
        let what = match package {
            Some(p) => format!("`{id}` (`{p}`)"),
            None => format!("`{id}`"),
        };
        writeln!(
            code,
            "    /// {what}: `schemas/hosts/{id}.json`.\n    #[serde(rename = {id:?})]\n    {},",
            variant(id)
        )
        .expect("write");
    }
    code.push_str("}\n\n");
    let list = |ids: &[&str]| {
        ids.iter()
            .map(|id| format!("HostId::{}", variant(id)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ids: Vec<&str> = files.iter().map(|(id, _)| *id).collect();
    writeln!(
        code,
        "/// Every host, in the registry's order.\npub const ALL: [HostId; {}] = [{}];\n",
        ids.len(),
        list(&ids)
    )
    .expect("write");
    writeln!(
        code,
        "/// The real pi subagent hosts the portable profile must be safe on (`\"in_portable\": true`).\npub const PI_HOSTS: [HostId; {}] = [{}];\n",
        pi_hosts.len(),
        list(pi_hosts)
    )
    .expect("write");
    let arms = |f: &dyn Fn(&str, &Value) -> String| -> String {
        files
            .iter()
            .map(|(id, file)| format!("            HostId::{} => {},\n", variant(id), f(id, file)))
            .collect()
    };
    code.push_str("impl HostId {\n");
    code.push_str("    /// The host's name (`claude-code`): its file's `id`.\n    pub fn as_str(self) -> &'static str {\n        match self {\n");
    code.push_str(&arms(&|id, _| format!("{id:?}")));
    code.push_str("        }\n    }\n\n");
    code.push_str("    /// What kind of host it is (its file's `kind`).\n    pub fn kind(self) -> HostKind {\n        match self {\n");
    code.push_str(&arms(&|id, file| {
        match file["kind"].as_str() {
            Some("portable") => "HostKind::Portable",
            Some("pi") => "HostKind::Pi",
            Some("cli") => "HostKind::Cli",
            other => panic!("schemas/hosts/{id}.json: kind {other:?} is not portable, pi or cli"),
        }
        .to_string()
    }));
    code.push_str("        }\n    }\n\n");
    code.push_str("    /// The host's public repository (`owner/name`), as a pi git source names it.\n    pub fn repository(self) -> Option<&'static str> {\n        match self {\n");
    code.push_str(&arms(&|_, file| match file["repository"].as_str() {
        Some(r) => format!("Some({r:?})"),
        None => "None".to_string(),
    }));
    code.push_str("        }\n    }\n}\n\n");
    code.push_str("/// The host's file, as shipped (what build.rs resolved).\n#[cfg(test)]\npub(crate) fn source(host: HostId) -> &'static str {\n    match host {\n");
    for (id, _) in files {
        writeln!(
            code,
            "        HostId::{} => include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/schemas/hosts/{id}.json\")),",
            variant(id)
        )
        .expect("write");
    }
    code.push_str("    }\n}\n");
    code
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
