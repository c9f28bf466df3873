//! `pwk lint --fix`, `--unsafe-fixes`, `--diff`, and fixes in JSON and SARIF.
//!
//! Every fix has a fixture pair under `fixtures/fix/<host>/`: `<rule>[.<case>].md`
//! (before) and `<rule>[.<case>].fixed.md` (after).

use std::path::PathBuf;

use crate::support::{
    TestEnv, diagnostics, first_of_rule, json, lint_json, of_rule, repo_root, run,
};

/// (host, rule, before, after), sorted.
fn fix_fixtures() -> Vec<(String, String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for host in std::fs::read_dir(repo_root().join("fixtures/fix")).unwrap() {
        let host = host.unwrap().path();
        let spec = host.file_name().unwrap().to_str().unwrap().to_string();
        for entry in std::fs::read_dir(&host).unwrap() {
            let p = entry.unwrap().path();
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            if name.ends_with(".fixed.md") {
                continue;
            }
            let rule = name.split('.').next().unwrap().to_string();
            let after = p.with_file_name(name.replace(".md", ".fixed.md"));
            assert!(after.exists(), "{spec}/{name}: no .fixed.md");
            out.push((spec.clone(), rule, p, after));
        }
    }
    out.sort();
    out
}

fn findings(env: &TestEnv, host: &str, file: &str) -> serde_json::Value {
    json(&lint_json(env, &["--host", host, file]))
}

fn has_rule(doc: &serde_json::Value, rule: &str) -> bool {
    !of_rule(doc, rule).is_empty()
}

/// Before → after for each fix; a second `--fix` changes nothing; the fixed file
/// lints clean of the rule for the host it was fixed for; `--diff` says the same
/// and writes nothing.
#[test]
fn each_fix_turns_its_fixture_into_the_fixed_one() {
    let fixtures = fix_fixtures();
    assert!(fixtures.len() >= 12, "{fixtures:?}");
    for (host, rule, before, after) in fixtures {
        let case = before.file_name().unwrap().to_string_lossy().into_owned();
        let env = TestEnv::new();
        // The file is named after the rule (`name-mismatch` needs the stem).
        let file = format!("{rule}.md");
        let input = std::fs::read(&before).unwrap();
        env.write(&file, &input);
        // It fires, and carries its fix as data.
        let doc = findings(&env, &host, &file);
        let fixes: Vec<_> = of_rule(&doc, rule.as_str())
            .into_iter()
            .flat_map(|d| d["fixes"].as_array().cloned().unwrap_or_default())
            .collect();
        assert!(!fixes.is_empty(), "{host}/{case}: no fix offered:\n{doc:#}");
        let unsafe_only = fixes.iter().all(|f| f["safety"] == "unsafe");
        // --diff: exit 1, the file untouched.
        let diff =
            run(env
                .pwk()
                .args(["lint", "--host", &host, "--diff", "--unsafe-fixes", &file]));
        assert_eq!(diff.code, 1, "{host}/{case}: {}", diff.stderr);
        assert!(
            diff.stdout
                .starts_with(&format!("--- a/{file}\n+++ b/{file}\n")),
            "{}",
            diff.stdout
        );
        assert_eq!(
            std::fs::read(env.path(&file)).unwrap(),
            input,
            "{case}: --diff wrote"
        );
        // An unsafe fix is not applied by --fix alone.
        if unsafe_only {
            run(env.pwk().args(["lint", "--host", &host, "--fix", &file]));
            assert_eq!(
                std::fs::read(env.path(&file)).unwrap(),
                input,
                "{case}: unsafe fix applied by --fix"
            );
        }
        let fix = run(env
            .pwk()
            .args(["lint", "--host", &host, "--fix", "--unsafe-fixes", &file]));
        assert!(fix.code == 0 || fix.code == 1, "{case}: {}", fix.stderr);
        assert!(
            fix.stderr.contains(&format!("pwk: fixed `{file}`")),
            "{case}: {}",
            fix.stderr
        );
        let fixed = std::fs::read_to_string(env.path(&file)).unwrap();
        assert_eq!(
            fixed,
            std::fs::read_to_string(&after).unwrap(),
            "{host}/{case}"
        );
        // Idempotent.
        let again =
            run(env
                .pwk()
                .args(["lint", "--host", &host, "--fix", "--unsafe-fixes", &file]));
        assert!(
            again.stderr.contains("applied 0 fixes in 0 files"),
            "{case}: {}",
            again.stderr
        );
        assert_eq!(std::fs::read_to_string(env.path(&file)).unwrap(), fixed);
        let diff =
            run(env
                .pwk()
                .args(["lint", "--host", &host, "--diff", "--unsafe-fixes", &file]));
        assert_eq!((diff.code, diff.stdout.as_str()), (0, ""), "{case}");
        // Clean of the rule for that host.
        let doc = findings(&env, &host, &file);
        assert!(
            !has_rule(&doc, &rule),
            "{host}/{case}: still reported:\n{doc:#}"
        );
    }
}

#[test]
fn fix_reports_what_remains_and_exits_on_it() {
    let env = TestEnv::new();
    env.write(
        ".agents/agents/r.md",
        "---\r\nname: r\r\ndescription: d\r\ntools: read\r\nmax_turns: \"20\"\r\ntols: me\r\n---\r\nBody\r\n",
    );
    let out = run(env.pwk().args(["lint", "--fix", "--format", "json"]));
    // `tols` (a typo of `tools`, which the file sets) has no fix: it remains, an error.
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = json(&out);
    let rules: Vec<_> = diagnostics(&doc)
        .iter()
        .map(|d| d["rule"].clone())
        .collect();
    assert!(
        rules.contains(&"unknown-key".into()) && !rules.contains(&"crlf".into()),
        "{doc:#}"
    );
    assert_eq!(
        env.read(".agents/agents/r.md"),
        "---\nname: r\ndescription: d\ntools: read\nmax_turns: 20\ntols: me\n---\nBody\n"
    );
    assert!(out.stderr.contains("pwk: fixed `.agents/agents/r.md`: convert CRLF line endings to LF; remove the quotes: `max_turns: 20`"), "{}", out.stderr);
}

#[test]
fn fixes_in_json_and_sarif_are_byte_edits() {
    let env = TestEnv::new();
    let text = "---\nname: r\ndescription: d\ntools: read\nmax_turns: \"20\"\n---\nBody\n";
    env.write("r.md", text);
    let doc = json(&run(env.pwk().args(["lint", "--format", "json", "r.md"])));
    let d = first_of_rule(&doc, "invalid-type").clone();
    assert_eq!(
        d["fixes"],
        serde_json::json!([{
            "title": "remove the quotes: `max_turns: 20`",
            "safety": "safe",
            "edits": [{"range": {"start": 50, "end": 54}, "replacement": "20"}]
        }])
    );
    assert_eq!(&text[50..54], "\"20\"");
    let sarif = json(&run(env.pwk().args(["lint", "--format", "sarif", "r.md"])));
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "invalid-type")
        .unwrap()
        .clone();
    assert_eq!(
        result["fixes"][0]["artifactChanges"][0],
        serde_json::json!({
            "artifactLocation": {"uri": "r.md"},
            "replacements": [{"deletedRegion": {"byteOffset": 50, "byteLength": 4}, "insertedContent": {"text": "20"}}]
        })
    );
    // A finding without a fix has no `fixes` key.
    assert!(
        diagnostics(&doc)
            .iter()
            .filter(|d| d["rule"] != "invalid-type")
            .all(|d| d.get("fixes").is_none())
    );
}

#[test]
fn a_symlinked_role_is_never_fixed() {
    let env = TestEnv::new();
    let target = env.write(
        "outside/t.md",
        "---\nname: t\ndescription: d\ntools: read\nmax_turns: \"20\"\n---\nBody\n",
    );
    std::fs::create_dir_all(env.path("roles")).unwrap();
    std::os::unix::fs::symlink(&target, env.path("roles/t.md")).unwrap();
    let before = std::fs::read(&target).unwrap();
    let out = run(env.pwk().args(["lint", "--fix", "roles/"]));
    assert!(out.stdout.contains("not-a-regular-file"), "{}", out.stdout);
    assert_eq!(std::fs::read(&target).unwrap(), before);
}

const QUOTED_TURNS: &str =
    "---\nname: r\ndescription: d\ntools: read\nmax_turns: \"20\"\n---\nBody\n";

/// A cloned repository's `.agents -> /elsewhere`: `--fix` rewrote every `*.md`
/// behind the link (f98aee5). Now the directory is refused, nothing is written.
#[test]
fn fix_never_writes_through_a_symlinked_agents_directory() {
    for (link, target) in [
        (".agents", "elsewhere"),
        (".agents/agents", "elsewhere/agents"),
        (".pi/agents", "elsewhere/agents"),
    ] {
        let env = TestEnv::new();
        std::fs::create_dir(env.path(".git")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim_dir = outside.path().join(target);
        std::fs::create_dir_all(victim_dir.join("agents")).unwrap();
        std::fs::write(victim_dir.join("r.md"), QUOTED_TURNS).unwrap();
        std::fs::write(victim_dir.join("agents/r.md"), QUOTED_TURNS).unwrap();
        std::fs::create_dir_all(env.path(link).parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&victim_dir, env.path(link)).unwrap();
        for args in [&["lint", "--fix"][..], &["lint", "--fix", link]] {
            let out = run(env.pwk().args(args));
            assert_eq!(out.code, 2, "{link} {args:?}: {}{}", out.stdout, out.stderr);
            assert!(
                out.stderr.contains("symbolic link"),
                "{link} {args:?}: {}",
                out.stderr
            );
        }
        assert_eq!(
            std::fs::read_to_string(victim_dir.join("r.md")).unwrap(),
            QUOTED_TURNS
        );
        assert_eq!(
            std::fs::read_to_string(victim_dir.join("agents/r.md")).unwrap(),
            QUOTED_TURNS
        );
    }
}

/// A file with two names: `--fix` said it "changed while pwk was replacing it"
/// (f98aee5); now it says what the file is and why pwk leaves it.
#[test]
fn a_hard_link_is_named_as_such() {
    let env = TestEnv::new();
    let p = env.write("roles/r.md", QUOTED_TURNS);
    std::fs::hard_link(&p, env.path("other.md")).unwrap();
    let out = run(env.pwk().args(["lint", "--fix", "roles/r.md"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("2 hard links"), "{}", out.stderr);
    assert!(!out.stderr.contains("changed while"), "{}", out.stderr);
    assert_eq!(env.read("roles/r.md"), QUOTED_TURNS);
}

#[test]
fn unsafe_fixes_never_rename_two_keys_to_the_same_key() {
    let env = TestEnv::new();
    // `tool` and `tols` are both one edit from `tools`.
    env.write(
        "r.md",
        "---\nname: r\ndescription: d\ntool: read\ntols: grep\n---\nBody\n",
    );
    let out = run(env.pwk().args([
        "lint",
        "--host",
        "tintinweb",
        "--fix",
        "--unsafe-fixes",
        "r.md",
    ]));
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let fixed = env.read("r.md");
    assert_eq!(fixed.matches("\ntools:").count(), 1, "{fixed}");
    let doc = pwk::role::RoleDoc::parse("r.md", fixed.as_bytes());
    assert!(
        matches!(doc.tree, Some(Ok(_))),
        "the fixed file parses: {fixed}"
    );
    // The other stays, reported.
    let doc = findings(&env, "tintinweb", "r.md");
    assert!(has_rule(&doc, "unknown-key"), "{doc:#}");
}

#[test]
fn diff_covers_every_host_group() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    // Clean for the portable profile; `zz/` (the second host group: files are
    // grouped in path order) is linted for tintinweb by an override, and has a
    // safe fix (CRLF).
    env.write(
        "pwk.toml",
        "host = \"pwk\"\n\n[[overrides]]\nfiles = [\"zz/\"]\nhost = \"tintinweb\"\n",
    );
    env.write(
        "roles/a.md",
        "---\nname: a\ndescription: Reviews.\ntools: read\n---\nBody\n",
    );
    env.write(
        "zz/b.md",
        "---\r\nname: b\r\ndescription: Reviews.\r\ntools: read\r\n---\r\nBody\r\n",
    );
    let before = env.read("zz/b.md");
    let diff = run(env.pwk().args(["lint", "--diff", "roles", "zz"]));
    assert_eq!(diff.code, 1, "{}\n{}", diff.stdout, diff.stderr);
    assert!(diff.stdout.contains("+++ b/zz/b.md"), "{}", diff.stdout);
    assert!(
        diff.stderr.contains("would change 1 file"),
        "{}",
        diff.stderr
    );
    assert_eq!(env.read("zz/b.md"), before, "--diff wrote");
    // `--fix` changes exactly what `--diff` showed.
    let fix = run(env.pwk().args(["lint", "--fix", "roles", "zz"]));
    assert!(
        fix.stderr.contains("applied 1 fix in 1 file"),
        "{}",
        fix.stderr
    );
    let again = run(env.pwk().args(["lint", "--diff", "roles", "zz"]));
    assert_eq!(
        (again.code, again.stdout.as_str()),
        (0, ""),
        "{}",
        again.stderr
    );
}
