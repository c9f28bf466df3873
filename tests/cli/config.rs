//! `pwk.toml`: every key, precedence, located errors, `pwk config`, `pwk schema --config`.

use crate::support::{Finding, Output, TestEnv, json, lint_json as lint, run};

/// A role with a quoted `max_turns` (invalid-type, an error), a CRLF line (crlf,
/// a warning) and `max_turns` (ignored by nicobailon).
const ROLE: &str = "---\nname: NAME\ndescription: d\ntools: read\nmax_turns: \"20\"\r\n---\nBody\n";

fn project() -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    for name in ["a", "b"] {
        env.write(&format!("roles/{name}.md"), ROLE.replace("NAME", name));
    }
    env.write("roles/legacy/old.md", ROLE.replace("NAME", "old"));
    env.write("drafts/wip.md", ROLE.replace("NAME", "wip"));
    env
}

/// Every finding of a lint run's JSON output.
fn findings(out: &Output) -> Vec<Finding> {
    crate::support::findings(&json(out))
}

fn has(f: &[Finding], path: &str, rule: &str, sev: &str) -> bool {
    f.iter()
        .any(|f| f.path == path && f.rule == rule && f.severity == sev)
}

#[test]
fn rules_set_levels_and_turn_rules_off() {
    let env = project();
    let before = findings(&lint(&env, &["--host", "pwk", "roles/a.md"]));
    assert!(
        has(&before, "roles/a.md", "invalid-type", "error"),
        "{before:?}"
    );
    assert!(has(&before, "roles/a.md", "crlf", "warning"), "{before:?}");
    env.write(
        "pwk.toml",
        "[rules]\ninvalid-type = \"warn\"\ncrlf = \"off\"\nhost-ignored-key = \"error\"\n",
    );
    let out = lint(&env, &["--host", "pwk", "roles/a.md"]);
    let after = findings(&out);
    assert!(
        has(&after, "roles/a.md", "invalid-type", "warning"),
        "{after:?}"
    );
    assert!(!after.iter().any(|f| f.rule == "crlf"), "{after:?}");
    // `host-ignored-key` set to error: no host is named, so the keys only some
    // hosts read are the summary's note, not findings.
    assert!(
        !after.iter().any(|f| f.rule == "host-ignored-key"),
        "{after:?}"
    );
    assert_eq!(out.code, 0);
}

#[test]
fn host_in_the_file_and_the_flag_over_it() {
    let env = project();
    env.write("pwk.toml", "host = \"nicobailon@0.67\"\n");
    let out = lint(&env, &["roles/a.md"]);
    assert_eq!(json(&out)["host"]["profile"], "nicobailon@0.67");
    let out = lint(&env, &["--host", "tintinweb@0.14", "roles/a.md"]);
    assert_eq!(json(&out)["host"]["profile"], "tintinweb@0.14");
}

#[test]
fn paths_choose_the_files_and_exclude_leaves_some_out() {
    let env = project();
    env.write(
        "pwk.toml",
        "paths = [\"roles/\", \"drafts/*.md\"]\nexclude = [\"legacy/\"]\n",
    );
    let out = lint(&env, &["--host", "pwk"]);
    let paths: std::collections::BTreeSet<String> =
        findings(&out).into_iter().map(|f| f.path).collect();
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        ["drafts/wip.md", "roles/a.md", "roles/b.md"]
    );
    // A directory walk honours `exclude`; a file named on the command line is linted.
    let out = lint(&env, &["--host", "pwk", "-r", "roles"]);
    assert!(!findings(&out).iter().any(|f| f.path.contains("legacy")));
    let out = lint(&env, &["--host", "pwk", "roles/legacy/old.md"]);
    assert!(
        findings(&out)
            .iter()
            .any(|f| f.path == "roles/legacy/old.md")
    );
    // `paths` that match nothing: exit 2, said so.
    env.write("pwk.toml", "paths = [\"nowhere/\"]\n");
    let out = lint(&env, &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("`paths` in `pwk.toml` matches no `*.md` file"),
        "{}",
        out.stderr
    );
}

#[test]
fn overrides_set_host_and_rules_for_their_files() {
    let env = project();
    env.write(
        "pwk.toml",
        "host = \"pwk\"\n\n[[overrides]]\nfiles = [\"legacy/\"]\nhost = \"nicobailon\"\nrules = { invalid-type = \"off\" }\n",
    );
    let out = lint(&env, &["-r", "roles"]);
    let f = findings(&out);
    assert!(has(&f, "roles/a.md", "invalid-type", "error"), "{f:?}");
    assert!(
        !f.iter()
            .any(|f| f.path == "roles/legacy/old.md" && f.rule == "invalid-type"),
        "{f:?}"
    );
    // Linted for nicobailon: it ignores `max_turns` (a nicobailon-only wording).
    let old: Vec<String> = f
        .iter()
        .filter(|f| f.path == "roles/legacy/old.md" && f.rule == "host-ignored-key")
        .map(|f| f.message.clone())
        .collect();
    assert!(old.iter().any(|m| m.starts_with("nicobailon@")), "{old:?}");
    assert!(
        json(&out)["host"]["profile"]
            .as_str()
            .unwrap()
            .contains("nicobailon")
    );
}

#[test]
fn extend_reads_the_base_file_and_the_file_beats_it() {
    let env = project();
    env.write(
        "config/base.toml",
        "host = \"tintinweb\"\n[rules]\ncrlf = \"off\"\ninvalid-type = \"off\"\n",
    );
    env.write(
        "pwk.toml",
        "extend = \"config/base.toml\"\n[rules]\ninvalid-type = \"warn\"\n",
    );
    let f = findings(&lint(&env, &["roles/a.md"]));
    assert!(!f.iter().any(|f| f.rule == "crlf"), "{f:?}");
    assert!(has(&f, "roles/a.md", "invalid-type", "warning"), "{f:?}");
    let out = run(env.pwk().args(["config", "--format", "json", "roles/a.md"]));
    let doc = json(&out);
    assert_eq!(
        doc["host"],
        serde_json::json!({"value": "tintinweb", "from": "config/base.toml:1:8"})
    );
    assert_eq!(doc["rules"]["crlf"]["from"], "config/base.toml:3:8");
    assert_eq!(
        doc["rules"]["invalid-type"],
        serde_json::json!({"level": "warn", "from": "pwk.toml:3:16"})
    );
    assert_eq!(doc["extends"], serde_json::json!(["config/base.toml"]));
}

/// flag > override > file > extended file > default, each visible in `pwk config`.
#[test]
fn precedence_is_flag_override_file_extended_default() {
    let env = project();
    env.write("base.toml", "host = \"herdr\"\n[rules]\ncrlf = \"off\"\nyaml-anchor = \"warn\"\n[[overrides]]\nfiles = [\"legacy/\"]\nrules = { crlf = \"warn\" }\n");
    env.write(
        "pwk.toml",
        "extend = \"base.toml\"\nhost = \"tintinweb\"\n[rules]\ncrlf = \"error\"\n[[overrides]]\nfiles = [\"legacy/\"]\nhost = \"nicobailon\"\n",
    );
    let config = |args: &[&str]| {
        json(&run(env
            .pwk()
            .args(["config", "--format", "json"])
            .args(args)))
    };
    // The file beats the extended file; the extended file beats the default.
    let a = config(&["roles/a.md"]);
    assert_eq!(
        a["host"],
        serde_json::json!({"value": "tintinweb", "from": "pwk.toml:2:8"})
    );
    assert_eq!(
        a["rules"]["crlf"],
        serde_json::json!({"level": "error", "from": "pwk.toml:4:8"})
    );
    assert_eq!(a["rules"]["yaml-anchor"]["from"], "base.toml:4:15");
    assert!(a["rules"].get("invalid-type").is_none());
    // An override beats the file (even the extended file's override).
    let old = config(&["roles/legacy/old.md"]);
    assert_eq!(
        old["host"],
        serde_json::json!({"value": "nicobailon", "from": "pwk.toml:7:8"})
    );
    assert_eq!(
        old["rules"]["crlf"],
        serde_json::json!({"level": "warn", "from": "base.toml:7:18"})
    );
    // The flag beats everything.
    let flagged = config(&["--host", "pwk", "roles/legacy/old.md"]);
    assert_eq!(
        flagged["host"],
        serde_json::json!({"value": "pwk", "from": "flag --host"})
    );
    // No file at all: defaults.
    std::fs::remove_file(env.path("pwk.toml")).unwrap();
    let none = config(&["roles/a.md"]);
    assert_eq!(
        none["host"],
        serde_json::json!({"value": "auto", "from": "default"})
    );
    assert_eq!(none["config"], serde_json::Value::Null);
    // And the lint run agrees: `crlf = "warn"` from the override for legacy.
    env.write("pwk.toml", "extend = \"base.toml\"\n");
    let f = findings(&lint(&env, &["roles/legacy/old.md", "roles/a.md"]));
    assert!(has(&f, "roles/legacy/old.md", "crlf", "warning"), "{f:?}");
    assert!(
        !f.iter().any(|f| f.path == "roles/a.md" && f.rule == "crlf"),
        "{f:?}"
    );
}

#[test]
fn the_config_is_found_walking_up_to_the_project_root_and_not_above() {
    let env = project();
    env.write(".pwk.toml", "[rules]\ninvalid-type = \"off\"\n");
    let f = findings(&run(env
        .pwk()
        .current_dir(env.path("roles/legacy"))
        .args(["lint", "--format", "json", "--host", "pwk", "old.md"])));
    assert!(!f.iter().any(|f| f.rule == "invalid-type"), "{f:?}");
    // Above the project root (`.git` in `inner/`) it is not seen.
    env.write("inner/.git/HEAD", "");
    env.write("inner/r.md", ROLE.replace("NAME", "r"));
    let f = findings(&lint(&env, &["--host", "pwk", "inner/r.md"]));
    assert!(f.iter().any(|f| f.rule == "invalid-type"), "{f:?}");
    // Both names in one directory: refused.
    env.write("pwk.toml", "");
    let out = lint(&env, &["--host", "pwk", "roles/a.md"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("both `pwk.toml` and `.pwk.toml` exist; keep one"),
        "{}",
        out.stderr
    );
}

#[test]
fn bad_config_files_are_located_errors_with_exit_2() {
    let cases: &[(&str, &str)] = &[
        (
            "hosts = \"herdr\"\n",
            "pwk.toml:1:1: unknown key `hosts` in a pwk configuration\n  help: did you mean `host`?",
        ),
        (
            "host = \"herdr@9.9\"\n",
            "pwk.toml:1:8: `host = \"herdr@9.9\"`: pwk has no profile of herdr for version 9.9",
        ),
        (
            "[rules]\ncrlf = \"warning\"\n",
            "pwk.toml:2:8: the level of `crlf` must be \"error\", \"warn\" or \"off\", found `\"warning\"`\n  help: did you mean `\"warn\"`?",
        ),
        (
            "[rules]\ncrfl = \"off\"\n",
            "pwk.toml:2:1: no rule `crfl`\n  help: did you mean `crlf`?",
        ),
        (
            "[rules]\ncrlf = 1\n",
            "pwk.toml:2:8: the level of `crlf` must be \"error\", \"warn\" or \"off\", found integer",
        ),
        (
            "exclude = \"drafts\"\n",
            "pwk.toml:1:11: `exclude` must be a list of glob strings, found string",
        ),
        (
            "paths = [\"roles/[\"]\n",
            "pwk.toml:1:10: `roles/[` is not a valid glob",
        ),
        (
            "[[overrides]]\nfiles = [\"a/\"]\nrule = {}\n",
            "pwk.toml:3:1: unknown key `rule` in `[[overrides]]`\n  help: did you mean `rules`?",
        ),
        (
            "extend = \"missing.toml\"\n",
            "pwk.toml:1:10: cannot read the extended file",
        ),
        (
            "extend = \"pwk.toml\"\n",
            "pwk.toml:1:10: `extend` makes a cycle",
        ),
        (
            "host = \"pwk\"\nhost = \"herdr\"\n",
            "pwk.toml:2:1: invalid TOML: duplicate key",
        ),
    ];
    for (text, want) in cases {
        let env = project();
        env.write("pwk.toml", text);
        for cmd in [&["lint", "roles/a.md"][..], &["config", "roles/a.md"][..]] {
            let out = run(env.pwk().args(cmd));
            assert_eq!(out.code, 2, "{text}: {}", out.stderr);
            assert!(
                out.stderr.starts_with(&format!("pwk: error: {want}")),
                "{text}\nwant: {want}\ngot:  {}",
                out.stderr
            );
        }
    }
}

#[test]
fn pwk_config_human_output_says_where_values_came_from() {
    let env = project();
    env.write(
        "pwk.toml",
        "host = \"tintinweb\"\n\n[rules]\ncrlf = \"off\"\n",
    );
    let out = run(env.pwk().args(["config", "roles/a.md"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "# The effective configuration for `roles/a.md`\n# project root: .\n# linted for: tintinweb@0.25 (pwk.toml:1:8)\n# config: pwk.toml\nhost = \"tintinweb\"  # pwk.toml:1:8\npaths = []          # default\nexclude = []        # default\n\n[rules]\ncrlf = \"off\"        # pwk.toml:4:8\n"
    );
}

#[test]
fn schema_config_lists_every_key_and_rule() {
    let env = TestEnv::new();
    let out = run(env.pwk().args(["schema", "--config"]));
    assert_eq!(out.code, 0);
    let schema = json(&out);
    let props: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        props,
        [
            "baseline",
            "delegate",
            "exclude",
            "extend",
            "host",
            "overrides",
            "paths",
            "rules"
        ]
    );
    let rules = json(&run(env.pwk().args(["rules", "--format", "json"])));
    for r in rules["rules"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        assert!(
            schema["properties"]["rules"]["properties"][id].is_object(),
            "{id}"
        );
    }
    // A valid configuration validates against it; a bad level does not.
    let validator = jsonschema::validator_for(&schema).unwrap();
    let good = serde_json::json!({"host": "tintinweb@0.14", "rules": {"crlf": "off"}, "overrides": [{"files": ["a/"], "rules": {"bom": "warn"}}]});
    assert!(validator.is_valid(&good));
    assert!(!validator.is_valid(&serde_json::json!({"rules": {"crlf": "warning"}})));
    assert!(!validator.is_valid(&serde_json::json!({"hots": "x"})));
}

#[test]
fn an_extended_files_globs_are_relative_to_that_file() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(
        "base.toml",
        "exclude = [\"legacy/\"]\n\n[[overrides]]\nfiles = [\"sub/roles/a.md\"]\nrules = { invalid-type = \"off\" }\n",
    );
    env.write("sub/pwk.toml", "extend = \"../base.toml\"\n");
    for name in ["a", "b"] {
        env.write(&format!("sub/roles/{name}.md"), ROLE.replace("NAME", name));
    }
    env.write("sub/roles/legacy/old.md", ROLE.replace("NAME", "old"));
    let f = findings(&lint(&env, &["--host", "pwk", "-r", "sub/roles"]));
    assert!(!f.iter().any(|f| f.path.contains("legacy")), "{f:?}");
    assert!(
        !f.iter()
            .any(|f| f.path == "sub/roles/a.md" && f.rule == "invalid-type"),
        "{f:?}"
    );
    assert!(has(&f, "sub/roles/b.md", "invalid-type", "error"), "{f:?}");
}

/// `pwk config` prints any value whatever its length (N10: a format width is at
/// most 65,535, and one long value once padded every line to it): generated over
/// the keys that hold free text × lengths around the limit. The comments line up
/// for short values; a long one is printed whole and pads nothing.
#[test]
fn pwk_config_prints_values_of_any_length() {
    for n in [65_535usize, 65_536] {
        let long = "a".repeat(n);
        for (key, text) in [
            ("exclude", format!("exclude = [\"{long}\"]\n")),
            ("paths", format!("paths = [\"{long}\"]\n")),
            ("baseline", format!("baseline = \"{long}\"\n")),
            (
                "paths (many entries)",
                format!(
                    "paths = [{}]\n",
                    vec![format!("\"{}\"", "x".repeat(998)); n / 1000 + 1].join(", ")
                ),
            ),
        ] {
            let env = project();
            env.write("pwk.toml", &text);
            let out = run(env.pwk().arg("config"));
            assert_eq!(out.code, 0, "{key} at {n}: {}", out.stderr);
            assert!(!out.stderr.contains("panicked"), "{key} at {n}");
            // No line is padded towards the long one.
            for line in out.stdout.lines() {
                if let Some((value, _)) = line.split_once("  #") {
                    assert!(
                        !value.ends_with(' ') || value.chars().count() <= 60,
                        "{key} at {n}: padded {:?}",
                        &value[value.len().saturating_sub(40)..]
                    );
                }
            }
            assert!(out.stdout.len() < 2 * text.len() + 4096, "{key} at {n}");
            let out = run(env.pwk().args(["config", "--format", "json"]));
            assert_eq!(out.code, 0, "{key} at {n} (json)");
        }
    }
}

/// `extend` through a symbolic link means what the same `extend` through the real
/// path means (N23: the extended file's globs were relative to the link's path, so
/// they matched nothing while `pwk config` showed them in force). Generated: where
/// the link is (the parent, a sibling directory, two levels up, `./`, the middle of
/// a chain) × the key whose globs apply (`exclude`, `paths`, `[[overrides]]`): the
/// findings through the link equal those through the real path, and in the
/// parent's case the globs do apply.
#[test]
fn extend_through_a_symlinked_directory_means_the_real_path() {
    struct Shape {
        name: &'static str,
        /// (link in team/, its target)
        link: (&'static str, &'static str),
        /// `extend` through the link, and through the real path (from team/).
        via_link: &'static str,
        via_real: &'static str,
        /// Where base.toml really is, from the repository.
        base_at: &'static str,
        /// An intermediate file in team/ extends the base (a chain).
        chain: bool,
    }
    let shapes = [
        Shape {
            name: "up -> ..",
            link: ("up", ".."),
            via_link: "up/base.toml",
            via_real: "../base.toml",
            base_at: "base.toml",
            chain: false,
        },
        Shape {
            name: "./up -> ..",
            link: ("up", ".."),
            via_link: "./up/base.toml",
            via_real: "./../base.toml",
            base_at: "base.toml",
            chain: false,
        },
        Shape {
            name: "shared -> ../conf",
            link: ("shared", "../conf"),
            via_link: "shared/base.toml",
            via_real: "../conf/base.toml",
            base_at: "conf/base.toml",
            chain: false,
        },
        Shape {
            name: "a/b -> ../..",
            link: ("a/b", "../.."),
            via_link: "a/b/base.toml",
            via_real: "../base.toml",
            base_at: "base.toml",
            chain: false,
        },
        Shape {
            name: "chain: mid.toml extends up/base.toml",
            link: ("up", ".."),
            via_link: "up/base.toml",
            via_real: "../base.toml",
            base_at: "base.toml",
            chain: true,
        },
    ];
    let keys = [
        ("exclude", "exclude = [\"legacy/\"]\n"),
        ("paths", "paths = [\"**/new.md\"]\n"),
        (
            "overrides",
            "[[overrides]]\nfiles = [\"legacy/\"]\nrules = { unknown-key = \"off\" }\n",
        ),
    ];
    let role = |name: &str| {
        format!("---\nname: {name}\ndescription: d\ntools: read\nowner: me\n---\nBody\n")
    };
    let mut cases = 0;
    for shape in &shapes {
        for (key, base) in keys {
            cases += 1;
            let findings = |extend: &str| {
                let env = TestEnv::new();
                std::fs::create_dir_all(env.path(".git")).unwrap();
                env.write(shape.base_at, base);
                env.write("team/new.md", role("new"));
                env.write("team/legacy/old.md", role("old"));
                let (link, target) = shape.link;
                if let Some(parent) = std::path::Path::new(link).parent() {
                    std::fs::create_dir_all(env.path("team").join(parent)).unwrap();
                }
                std::os::unix::fs::symlink(target, env.path("team").join(link)).unwrap();
                if shape.chain {
                    env.write("team/pwk.toml", "extend = \"mid.toml\"\n");
                    env.write("team/mid.toml", format!("extend = \"{extend}\"\n"));
                } else {
                    env.write("team/pwk.toml", format!("extend = \"{extend}\"\n"));
                }
                let mut cmd = env.pwk();
                cmd.current_dir(env.path("team")).args([
                    "lint",
                    "--host",
                    "pwk",
                    "--format",
                    "json",
                    "--allow-empty",
                ]);
                if key != "paths" {
                    cmd.args(["-r", "."]);
                }
                let out = run(&mut cmd);
                let mut got: Vec<(String, String)> =
                    findings(&out).iter().map(Finding::at_rule).collect();
                got.sort();
                got
            };
            let through_link = findings(shape.via_link);
            let through_real = findings(shape.via_real);
            assert_eq!(
                through_link, through_real,
                "{} × {key}: through the link vs the real path",
                shape.name
            );
            // Non-vacuous: with the base in the parent, its globs apply.
            if shape.base_at == "base.toml" {
                let old = through_link
                    .iter()
                    .any(|(p, _)| p.contains("legacy/old.md"));
                assert!(
                    !old,
                    "{} × {key}: legacy/old.md reported: {through_link:?}",
                    shape.name
                );
            }
        }
    }
    assert_eq!(cases, 15);
}
