//! The fast validator (`pwk::role::validate`) against `jsonschema`, the general
//! JSON Schema 2020-12 validator pwk used before: on generated frontmatters, valid
//! and invalid, under the role schema and every host variant, both report exactly
//! the same failures (location, kind, value, details) and agree on validity.
//!
//! 100,000 frontmatters by default, each checked against all four host schemas, with
//! the fast validator run over the YAML tree itself and over its JSON copy;
//! `PROPTEST_CASES=N` scales it. A second property does the same for random schemas
//! built from the whole supported subset, over random JSON.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use pwk::host::schema::{host_schema, known_keys, validator};
use pwk::host::{ALL, HostId, HostProfile};
use pwk::role::RoleDoc;
use pwk::role::validate::{ValidationErrorKind as Fast, Validator};
use serde_json::{Value, json};

/// Every profile of every host, each version.
fn hosts() -> Vec<&'static HostProfile> {
    ALL.iter().flat_map(|h| h.profiles()).collect()
}

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One failure, in words both validators can be brought to.
type Canon = (String, String, Value);

fn canon_fast(errors: impl Iterator<Item = pwk::role::validate::ValidationError>) -> Vec<Canon> {
    let mut out: Vec<Canon> = errors
        .map(|e| {
            let kind = match e.kind() {
                Fast::AdditionalProperties { unexpected } => {
                    let mut u = unexpected.clone();
                    u.sort();
                    format!("additionalProperties {u:?}")
                }
                Fast::AnyOf {} => "anyOf".into(),
                Fast::Constant { expected_value } => format!("const {expected_value}"),
                Fast::Enum { options } => format!("enum {options}"),
                Fast::FalseSchema => "false".into(),
                Fast::Maximum { limit } => format!("maximum {limit}"),
                Fast::MaxLength { limit } => format!("maxLength {limit}"),
                Fast::Minimum { limit } => format!("minimum {limit}"),
                Fast::MinLength { limit } => format!("minLength {limit}"),
                Fast::OneOfMultipleValid {} => "oneOf multiple".into(),
                Fast::OneOfNotValid {} => "oneOf none".into(),
                Fast::Pattern { pattern } => format!("pattern {pattern}"),
                Fast::Required { property } => format!("required {property}"),
                Fast::Type { kind } => format!("type {:?}", kind.names().collect::<Vec<_>>()),
            };
            (
                e.instance_path().as_str().to_string(),
                kind,
                e.instance().clone(),
            )
        })
        .collect();
    // Objects are walked in document order by one and key order by the other; within
    // one location the keyword order must agree.
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn canon_reference(v: &jsonschema::Validator, instance: &Value) -> Vec<Canon> {
    use jsonschema::error::{TypeKind, ValidationErrorKind as K};
    let mut out: Vec<Canon> = v
        .iter_errors(instance)
        .map(|e| {
            let kind = match e.kind() {
                K::AdditionalProperties { unexpected } => {
                    let mut u = unexpected.clone();
                    u.sort();
                    format!("additionalProperties {u:?}")
                }
                K::AnyOf { .. } => "anyOf".into(),
                K::Constant { expected_value } => format!("const {expected_value}"),
                K::Enum { options } => format!("enum {options}"),
                K::FalseSchema => "false".into(),
                K::Maximum { limit } => format!("maximum {limit}"),
                K::MaxLength { limit } => format!("maxLength {limit}"),
                K::Minimum { limit } => format!("minimum {limit}"),
                K::MinLength { limit } => format!("minLength {limit}"),
                K::OneOfMultipleValid { .. } => "oneOf multiple".into(),
                K::OneOfNotValid { .. } => "oneOf none".into(),
                K::Pattern { pattern } => format!("pattern {pattern}"),
                K::Required { property } => format!("required {property}"),
                K::Type { kind } => {
                    let names: Vec<String> = match kind {
                        TypeKind::Single(t) => vec![t.to_string()],
                        TypeKind::Multiple(ts) => ts.iter().map(|t| t.to_string()).collect(),
                    };
                    let order = [
                        "null", "boolean", "object", "array", "number", "string", "integer",
                    ];
                    let mut names = names;
                    names.sort_by_key(|n| order.iter().position(|o| o == n));
                    format!("type {names:?}")
                }
                other => format!("unexpected kind {other:?}"),
            };
            (
                e.instance_path().as_str().to_string(),
                kind,
                e.instance().clone().into_owned(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

// ---------------------------------------------------------------------------------
// Frontmatters

/// Every key any host schema has, plus unknown and extension-shaped keys.
fn keys() -> Vec<String> {
    // The role schema's keys first (`frontmatter` picks those more often).
    let mut keys: Vec<String> = Vec::new();
    for h in hosts() {
        for k in known_keys(h) {
            if !keys.iter().any(|x| x == k) {
                keys.push(k.to_string());
            }
        }
    }
    for k in [
        "tols",
        "owner",
        "Name",
        "x-owner",
        "x-",
        "x-a.b",
        "x-ü",
        "acme.team",
        "acme.",
        ".team",
        "Acme.team",
        "a_b.c-d",
        "-a.b",
        "a/b",
        "a~b",
        "~1",
        "prompt_mode2",
        "\"quoted key\"",
    ] {
        keys.push(k.to_string());
    }
    keys
}

/// Plain scalars: every YAML 1.2 core type, the schema's enum values and near misses.
const PLAIN: &[&str] = &[
    "r",
    "my-role",
    "My-Role",
    "a--b",
    "-a",
    "a-",
    "role1",
    "x y",
    "20",
    "0",
    "1",
    "-1",
    "+3",
    "007",
    "1.0",
    "1.5",
    "-0.0",
    "2.0",
    "1e3",
    "1e999",
    ".inf",
    "-.inf",
    ".nan",
    "0x1F",
    "0o17",
    "0x",
    "~",
    "null",
    "Null",
    "NULL",
    "true",
    "false",
    "True",
    "FALSE",
    "yes",
    "no",
    "on",
    "off",
    "low",
    "med",
    "medium",
    "xhigh",
    "minimal",
    "high",
    "fork",
    "standalone",
    "lineage-only",
    "append",
    "replace",
    "replaced",
    "fresh",
    "read",
    "read, grep, find, ls",
    "anthropic/claude-haiku-4-5",
    "claude",
    "sonnet",
    "worktree",
    "all",
    "*",
    "9007199254740993",
    "-9223372036854775809",
    "18446744073709551615",
    "é",
    "日本",
];

/// Pieces of double-quoted strings, including whitespace ECMA-262 and Rust disagree on.
const QUOTED: &[&str] = &[
    "", " ", "a", "20", "true", "low", "x y", "\\t", "\\n", "\\r", "\\u00a0", "\\u0085", "\\ufeff",
    "\\u2028", "\\u3000", "\\u1680", "\\u200b", "\\u000b", "\\u000c", "é", "-", "my", "role", "/",
    "\\\\", "\\\"",
];

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        5 => proptest::sample::select(PLAIN).prop_map(str::to_string),
        3 => proptest::collection::vec(proptest::sample::select(QUOTED), 0..4)
            .prop_map(|parts| format!("\"{}\"", parts.concat())),
        1 => proptest::sample::select(PLAIN).prop_map(|s| format!("'{s}'")),
    ]
}

/// A value: a scalar, a flow or block list, a flow mapping, or a block literal.
fn value() -> impl Strategy<Value = String> {
    let leaf = scalar();
    let flow_seq = proptest::collection::vec(scalar(), 0..4)
        .prop_map(|items| format!("[{}]", items.join(", ")));
    let block_seq = proptest::collection::vec(scalar(), 1..4).prop_map(|items| {
        items
            .iter()
            .map(|i| format!("\n  - {i}"))
            .collect::<String>()
    });
    let nested = proptest::collection::vec(
        prop_oneof![
            scalar(),
            proptest::collection::vec(scalar(), 0..3)
                .prop_map(|items| format!("[{}]", items.join(", "))),
        ],
        0..3,
    )
    .prop_map(|items| format!("[{}]", items.join(", ")));
    let flow_map = proptest::collection::vec((proptest::sample::select(PLAIN), scalar()), 0..3)
        .prop_map(|entries| {
            let e: Vec<String> = entries.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("{{{}}}", e.join(", "))
        });
    prop_oneof![
        12 => leaf,
        3 => flow_seq,
        2 => block_seq,
        1 => nested,
        1 => flow_map,
        1 => Just("|\n  line one\n  line two".to_string()),
        1 => Just(">-\n  folded".to_string()),
        1 => Just("".to_string()),
    ]
}

/// A value some host accepts for `key` (mostly; a few are deliberately not).
fn good_value(key: &str, pick: usize) -> String {
    let choices: &[&str] = match key {
        "name" => &["my-role", "r", "role1", "a-b-c"],
        "description" => &["Reviews code.", "\"Flags smells.\"", "x", "é"],
        "tools" | "deny-tools" | "skills" | "skill" | "disallowed_tools" => {
            &["read, grep, find, ls", "[read, grep]", "bash", "\"a\\nb\""]
        }
        "model" | "cli-model" => &["anthropic/claude-haiku-4-5", "sonnet"],
        "thinking" => &["off", "minimal", "low", "medium", "high", "xhigh"],
        "max_turns" | "timeoutMs" | "toolTimeoutMs" | "maxSubagentDepth" => &["20", "1", "0"],
        "session-mode" => &["standalone", "lineage-only", "fork"],
        "system-prompt" | "systemPromptMode" | "prompt_mode" => &["append", "replace"],
        "defaultContext" => &["fresh", "fork"],
        "cwd" | "cli" | "display_name" | "color" | "isolation" | "memory" | "skillPath"
        | "package" | "alias" | "output" => &["claude", ".", "\"\""],
        "toolBudget" => &["{soft: 20, hard: 30}"],
        "extensions" | "exclude_extensions" | "fallbackModels" | "aliases" => &["a", "[a, b]"],
        "allowed_subagents" | "inherit_skills" => &["true", "all"],
        _ if key.starts_with("x-") || key.contains('.') => &["anything", "[1, 2]"],
        _ => &["true", "false"],
    };
    choices[pick % choices.len()].to_string()
}

/// A frontmatter: mostly the shape of a real role (name and description first), then
/// keys drawn from everything any host knows and more; values often ones the key
/// takes, otherwise anything.
fn frontmatter(keys: Vec<String>) -> impl Strategy<Value = String> {
    let n = keys.len();
    let keys_for_values = keys.clone();
    let entry = move |key: String| {
        prop_oneof![
            6 => any::<usize>().prop_map({
                let key = key.clone();
                move |i| good_value(&key, i)
            }),
            1 => value(),
        ]
    };
    let name = proptest::option::weighted(0.9, entry("name".into()));
    let description = proptest::option::weighted(0.9, entry("description".into()));
    // Mostly keys of the role schema itself (every host reads those), some of all.
    let common = known_keys(HostId::Pwk.newest()).len().min(n);
    let index = prop_oneof![4 => 0..common, 1 => 0..n];
    let rest = proptest::collection::vec(index, 0..6).prop_flat_map(move |idx| {
        idx.into_iter()
            .map(|i| {
                let key = keys_for_values[i].clone();
                entry(key.clone()).prop_map(move |v| (key.clone(), v))
            })
            .collect::<Vec<_>>()
    });
    (name, description, rest).prop_map(move |(name, description, rest)| {
        let mut seen = Vec::new();
        let mut text = String::new();
        let mut push = |k: &str, v: &str| {
            if !seen.iter().any(|s: &String| s == k) {
                seen.push(k.to_string());
                text.push_str(&format!("{k}: {v}\n"));
            }
        };
        if let Some(v) = &name {
            push("name", v);
        }
        if let Some(v) = &description {
            push("description", v);
        }
        for (k, v) in &rest {
            push(k, v);
        }
        text
    })
}

#[test]
fn fast_validator_matches_jsonschema_on_generated_frontmatters() {
    let fast: Vec<&Validator> = hosts().into_iter().map(validator).collect();
    let reference: Vec<jsonschema::Validator> = hosts()
        .iter()
        .map(|h| jsonschema::draft202012::new(host_schema(h)).unwrap())
        .collect();
    // A few generated texts are not YAML (and are skipped): generate 5% more.
    let total = cases(100_000);
    let mut runner = TestRunner::new(Config {
        cases: total + total / 20,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x7e11_da7e),
        ..Config::default()
    });
    let checked = std::cell::Cell::new(0u64);
    let invalid = std::cell::Cell::new(0u64);
    let result = runner.run(&frontmatter(keys()), |yaml| {
        let text = format!("---\n{yaml}---\nBody\n");
        let doc = RoleDoc::parse("gen/role.md", text.as_bytes());
        let Some(tree) = doc.mapping() else {
            return Ok(()); // not YAML (e.g. a generated duplicate); nothing to validate
        };
        let json = tree.to_json();
        checked.set(checked.get() + 1);
        for (i, host) in hosts().iter().enumerate() {
            let expected = canon_reference(&reference[i], &json);
            let over_tree = canon_fast(fast[i].iter_errors(tree));
            let over_json = canon_fast(fast[i].iter_errors(&json));
            let valid = reference[i].is_valid(&json);
            if !valid {
                invalid.set(invalid.get() + 1);
            }
            let ctx = || format!("host {}\n{yaml}\njson: {json}", host.label());
            prop_assert_eq!(&over_tree, &expected, "over the tree: {}", ctx());
            prop_assert_eq!(&over_json, &expected, "over JSON: {}", ctx());
            prop_assert_eq!(fast[i].is_valid(tree), valid, "is_valid: {}", ctx());
            prop_assert_eq!(fast[i].is_valid(&json), valid, "is_valid JSON: {}", ctx());
            prop_assert_eq!(valid, expected.is_empty(), "{}", ctx());
        }
        Ok::<(), TestCaseError>(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (checked, invalid) = (checked.get(), invalid.get());
    eprintln!(
        "validate_equiv: {checked} frontmatters compared, x{} host profiles; {invalid} of {} validations invalid",
        fast.len(),
        checked * fast.len() as u64
    );
    // At least `total` frontmatters compared, and plenty of both outcomes.
    assert!(
        checked >= u64::from(total),
        "only {checked} of {total} parsed"
    );
    let validations = checked * fast.len() as u64;
    assert!(
        invalid * 5 >= validations && invalid * 5 <= validations * 4,
        "{invalid} of {validations} invalid: the generator is lopsided"
    );
}

// ---------------------------------------------------------------------------------
// Random schemas over the whole subset

const PATTERNS: &[&str] = &[
    "^[a-z0-9]+(-[a-z0-9]+)*$",
    "\\S",
    "^\\S+$",
    "^[^\\n]*$",
    "^x-[A-Za-z0-9_.-]+$",
    "a|b",
    "^[\\s]*$",
    "\\s",
    "^[a-z0-9][a-z0-9_-]*\\.[A-Za-z0-9_.-]+$",
    "^ab+c?\\.",
    "b\\-",
];

fn schema_strategy() -> impl Strategy<Value = Value> {
    let types = prop_oneof![
        proptest::sample::select(vec![
            "null", "boolean", "object", "array", "number", "string", "integer"
        ])
        .prop_map(|t| json!(t)),
        proptest::sample::subsequence(
            vec![
                "null", "boolean", "object", "array", "number", "string", "integer"
            ],
            1..3
        )
        .prop_map(|t| json!(t)),
    ];
    let leaf = prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        types.prop_map(|t| json!({ "type": t })),
        proptest::sample::select(PATTERNS).prop_map(|p| json!({ "pattern": p })),
        (0u64..3).prop_map(|n| json!({ "minLength": n })),
        (0u64..3).prop_map(|n| json!({ "maxLength": n })),
        (-2i64..3).prop_map(|n| json!({ "minimum": n })),
        (-2i64..3).prop_map(|n| json!({ "maximum": n })),
        Just(json!({ "enum": ["a", 1, null, 1.5, [1], {"a": 1}] })),
        Just(json!({ "const": 1 })),
        Just(json!({ "const": "a" })),
        Just(json!({ "required": ["a", "b"] })),
        Just(json!({ "description": "d", "title": "t", "x-note": true, "deprecated": true })),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|s| json!({ "items": s })),
            proptest::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({ "oneOf": v })),
            proptest::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({ "anyOf": v })),
            (
                proptest::collection::btree_map(
                    proptest::sample::select(vec!["a", "b", "x-y", "c/d"]),
                    inner.clone(),
                    0..3
                ),
                proptest::option::of(inner.clone()),
                proptest::option::of(inner.clone()),
            )
                .prop_map(|(props, pattern, additional)| {
                    let mut s = json!({ "properties": props });
                    if let Some(p) = pattern {
                        s["patternProperties"] = json!({ "^x-[A-Za-z0-9_.-]+$": p });
                    }
                    if let Some(a) = additional {
                        s["additionalProperties"] = a;
                    }
                    s
                }),
            (inner.clone(), inner).prop_map(|(a, b)| {
                // Two keyword sets merged into one schema object.
                let mut m = a.as_object().cloned().unwrap_or_default();
                if let Some(b) = b.as_object() {
                    for (k, v) in b {
                        m.insert(k.clone(), v.clone());
                    }
                }
                Value::Object(m)
            }),
        ]
    })
}

fn json_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..4).prop_map(|n| json!(n)),
        proptest::sample::select(vec![0.0, 1.0, 1.5, -2.0, 2.5, 1e300]).prop_map(|f: f64| json!(f)),
        Just(json!(u64::MAX)),
        proptest::sample::select(vec![
            "",
            "a",
            "b",
            "ab",
            "x y",
            " ",
            "a\nb",
            "é",
            "éé",
            "\u{a0}",
            "\u{85}",
            "\u{feff}",
            "my-role",
            "x-y",
            "\t",
            "日本語",
            "acme.team",
            "a.b",
            "abbc.",
            "abc",
            "xb-",
            "x-",
            "a--b",
            "-a",
            "a-",
            "Ab",
            "1-2",
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(
                proptest::sample::select(vec![
                    "a",
                    "b",
                    "x-y",
                    "c/d",
                    "e~f",
                    "z",
                    "acme.team",
                    "x-"
                ])
                .prop_map(str::to_string),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn fast_validator_matches_jsonschema_on_random_schemas() {
    let total = cases(100_000) / 10;
    let mut runner = TestRunner::new(Config {
        cases: total,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x5c4e_3a00),
        ..Config::default()
    });
    let result = runner.run(
        &(
            schema_strategy(),
            proptest::collection::vec(json_strategy(), 1..6),
        ),
        |(schema, instances)| {
            let fast = Validator::compile(&schema).expect("the generator stays in the subset");
            let reference = jsonschema::draft202012::new(&schema).unwrap();
            for instance in &instances {
                let expected = canon_reference(&reference, instance);
                let got = canon_fast(fast.iter_errors(instance));
                prop_assert_eq!(&got, &expected, "schema {} instance {}", schema, instance);
                prop_assert_eq!(
                    fast.is_valid(instance),
                    reference.is_valid(instance),
                    "schema {} instance {}",
                    schema,
                    instance
                );
            }
            Ok(())
        },
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn keywords_outside_the_subset_do_not_compile() {
    for schema in [
        json!({ "format": "email" }),
        json!({ "$ref": "#/$defs/a", "$defs": { "a": {} } }),
        json!({ "properties": { "a": { "minItems": 1 } } }),
        json!({ "items": [{}] }),
        json!({ "pattern": "^.$" }),
        json!({ "pattern": "\\d" }),
        json!({ "pattern": "(?=a)" }),
        json!({ "type": "float" }),
        json!({ "$schema": "http://json-schema.org/draft-07/schema#" }),
        json!({ "minimum": 1.5 }),
        json!({ "additionalProperties": false }),
    ] {
        let err = Validator::compile(&schema).expect_err(&schema.to_string());
        assert!(!err.to_string().is_empty());
    }
    for h in hosts() {
        Validator::compile(host_schema(h)).unwrap();
    }
}
