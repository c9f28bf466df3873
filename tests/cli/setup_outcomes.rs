//! `pwk setup` outcomes and flags: created / updated / unchanged / conflict /
//! refused, --dry-run, --check, --diff, --force, the manifest, the model hint
//! rules, --fast-model, --global, JSON, and the reload notice.

use std::os::unix::fs::{MetadataExt, symlink};

use pwk::install::hint::{with_model_line, without_model_lines};

use crate::setup::{ROLES, Scene, WATCHDOG, run_watched};
use crate::support::json;

/// The role as setup writes it with no host known (the portable profile: the
/// canonical role without `max_turns`).
fn canonical(name: &str) -> &'static str {
    let (rendered, _) = pwk::install::bundled::rendered_for(pwk::host::HostId::Pwk.newest());
    rendered.iter().find(|r| r.name == name).unwrap().content
}

fn outcome(doc: &serde_json::Value, name: &str) -> String {
    doc["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap()["outcome"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The placeholder roles of the first snapshot: an earlier canonical version.
fn placeholder(name: &str, fast: bool) -> String {
    let short = name.trim_start_matches("pwk-");
    let extra = if fast {
        "max_turns: 20\nthinking: low\n# model: <fast-tier> — set yours with pwk setup --fast-model\n"
    } else if name == "pwk-recon-scout" {
        ""
    } else {
        "max_turns: 40\n"
    };
    format!(
        "---\nname: {name}\ndescription: PWK {short} (placeholder text; the full role is written in the setup work).\ntools: read, grep, find, ls\nsystemPromptMode: replace\n{extra}---\n# PWK {short}\n\nPlaceholder body.\n"
    )
}

fn fake_pi(s: &Scene, models: &str) -> std::path::PathBuf {
    // pi prints the table on stderr when stdin is not a terminal.
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = --list-models ] || exit 9\necho 'provider  model  context  max-out  thinking  images' >&2\nfor m in {models}; do echo \"$2  $m  128K  16K  no  no\" >&2; done\n"
    );
    s.env.executable("fake-pi", script)
}

#[test]
fn fresh_install_creates_every_role_and_the_manifest() {
    let s = Scene::new();
    let out = s.setup(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    s.env
        .insta_settings()
        .bind(|| insta::assert_snapshot!("setup_fresh_human", out.stdout));
    s.assert_installed_except(&[]);
    let manifest: serde_json::Value =
        serde_json::from_str(&s.env.read(".agents/agents/.pwk-manifest.json")).unwrap();
    assert_eq!(manifest["version"], 1);
    assert_eq!(manifest["roles"].as_object().unwrap().len(), 5);
    assert!(out.stdout.ends_with(
        "Running Pi sessions need /reload (or a new session) to see the changed roles.\n"
    ));
}

#[test]
fn json_report_shape() {
    let s = Scene::new();
    let out = s.setup(&["--format", "json"]);
    assert_eq!(out.code, 0);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let doc = json(&out);
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for k in ["version", "target", "roles", "reload_needed"] {
        assert!(keys.contains(&k), "{k}");
    }
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["target"], ".agents/agents");
    assert_eq!(doc["reload_needed"], true);
    let roles = doc["roles"].as_array().unwrap();
    assert_eq!(roles.len(), 5);
    for (r, name) in roles.iter().zip(ROLES) {
        assert_eq!(r["name"], name);
        assert_eq!(r["path"], format!(".agents/agents/{name}.md"));
        assert_eq!(r["outcome"], "created");
        assert!(r.get("reason").is_none());
    }
    let again = json(&s.setup(&["--format", "json"]));
    assert_eq!(again["reload_needed"], false);
    assert!(
        again["roles"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["outcome"] == "unchanged")
    );
}

#[test]
fn unmodified_copy_recorded_in_the_manifest_is_updated() {
    let s = Scene::new();
    s.setup(&[]);
    // An older pwk wrote this text (not in the table of earlier versions) and
    // recorded its digest in the manifest.
    let old = canonical("pwk-tracing-reviewer").replace("Follow the changed", "Trace the changed");
    s.env.write(".agents/agents/pwk-tracing-reviewer.md", &old);
    let manifest_path = ".agents/agents/.pwk-manifest.json";
    let mut manifest: serde_json::Value = serde_json::from_str(&s.env.read(manifest_path)).unwrap();
    manifest["roles"]["pwk-tracing-reviewer"]["sha256"] =
        pwk::install::history::sha256_hex(old.as_bytes()).into();
    s.env
        .write(manifest_path, serde_json::to_vec_pretty(&manifest).unwrap());

    let doc = json(&s.setup(&["--format", "json"]));
    assert_eq!(outcome(&doc, "pwk-tracing-reviewer"), "updated");
    assert_eq!(
        s.env.read(".agents/agents/pwk-tracing-reviewer.md"),
        canonical("pwk-tracing-reviewer")
    );
    assert_eq!(doc["reload_needed"], true);
    // The manifest now records the new text.
    let manifest: serde_json::Value = serde_json::from_str(&s.env.read(manifest_path)).unwrap();
    assert_eq!(
        manifest["roles"]["pwk-tracing-reviewer"]["sha256"],
        pwk::install::history::sha256_hex(canonical("pwk-tracing-reviewer").as_bytes())
    );
}

#[test]
fn same_text_without_a_manifest_entry_is_the_users() {
    let s = Scene::new();
    s.setup(&[]);
    let old = canonical("pwk-tracing-reviewer").replace("Follow the changed", "Trace the changed");
    s.env.write(".agents/agents/pwk-tracing-reviewer.md", &old);
    let out = s.setup(&["--format", "json"]);
    assert_eq!(out.code, 1);
    assert_eq!(outcome(&json(&out), "pwk-tracing-reviewer"), "conflict");
    assert_eq!(s.env.read(".agents/agents/pwk-tracing-reviewer.md"), old);
}

#[test]
fn earlier_canonical_version_is_updated_without_a_manifest() {
    let s = Scene::new();
    s.mkdir_agents();
    for name in ROLES {
        let fast = name == "pwk-smell-reviewer" || name == "pwk-hazard-reviewer";
        std::fs::write(s.role(name), placeholder(name, fast)).unwrap();
    }
    let out = s.setup(&[]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    for name in ROLES {
        assert!(
            out.stdout.contains(&format!(
                "updated    {name}.md — it was an unedited earlier version"
            )),
            "{}",
            out.stdout
        );
    }
    s.assert_installed_except(&[]);
}

#[test]
fn model_line_only_difference_updates_and_keeps_the_users_model() {
    let s = Scene::new();
    s.mkdir_agents();
    // An earlier version where the user set their own model hint (placeholder replaced).
    let smell = placeholder("pwk-smell-reviewer", true).replace(
        "# model: <fast-tier> — set yours with pwk setup --fast-model",
        "model: acme/fast-one",
    );
    std::fs::write(s.role("pwk-smell-reviewer"), &smell).unwrap();
    // …and one where the user inserted a model line into a judgment reviewer.
    let spec = with_model_line(
        &placeholder("pwk-spec-reviewer", false),
        "model: acme/deep-one",
    );
    std::fs::write(s.role("pwk-spec-reviewer"), &spec).unwrap();
    let out = s.setup(&["--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc = json(&out);
    assert_eq!(outcome(&doc, "pwk-smell-reviewer"), "updated");
    assert_eq!(outcome(&doc, "pwk-spec-reviewer"), "updated");
    assert_eq!(
        s.env.read(".agents/agents/pwk-smell-reviewer.md"),
        with_model_line(canonical("pwk-smell-reviewer"), "model: acme/fast-one")
    );
    let spec_now = s.env.read(".agents/agents/pwk-spec-reviewer.md");
    assert!(
        spec_now.contains("systemPromptMode: replace\nmodel: acme/deep-one\n"),
        "{spec_now}"
    );
    assert_eq!(
        without_model_lines(&spec_now),
        canonical("pwk-spec-reviewer")
    );

    // The current text with the user's own model line is simply unchanged.
    let out = s.setup(&["--format", "json"]);
    let doc = json(&out);
    assert!(
        doc["roles"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["outcome"] == "unchanged"),
        "{doc}"
    );
    // Changing only the model line of the current text is not a conflict either.
    let mine = with_model_line(canonical("pwk-hazard-reviewer"), "model: other/x");
    s.env.write(".agents/agents/pwk-hazard-reviewer.md", &mine);
    let doc = json(&s.setup(&["--format", "json"]));
    assert_eq!(outcome(&doc, "pwk-hazard-reviewer"), "unchanged");
    assert_eq!(s.env.read(".agents/agents/pwk-hazard-reviewer.md"), mine);
}

#[test]
fn conflict_leaves_the_file_and_exits_1_with_a_partial_install() {
    let s = Scene::new();
    s.mkdir_agents();
    std::fs::write(
        s.role("pwk-smell-reviewer"),
        "---\nname: pwk-smell-reviewer\ndescription: mine\n---\nMy own.\n",
    )
    .unwrap();
    symlink(&s.victim, s.role("pwk-hazard-reviewer")).unwrap();
    let out = s.setup(&[]);
    assert_eq!(out.code, 1);
    s.env
        .insta_settings()
        .bind(|| insta::assert_snapshot!("setup_partial_human", out.stdout));
    assert!(
        s.env
            .read(".agents/agents/pwk-smell-reviewer.md")
            .contains("My own.")
    );
    s.assert_victim_untouched();
}

#[test]
fn force_keeps_the_users_copy_as_bak() {
    let s = Scene::new();
    s.setup(&[]);
    let mine = "---\nname: pwk-smell-reviewer\ndescription: mine\n---\nMy own.\n";
    s.env.write(".agents/agents/pwk-smell-reviewer.md", mine);
    let before = std::fs::metadata(s.role("pwk-smell-reviewer")).unwrap();
    let out = s.setup(&["--force", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc = json(&out);
    let r = doc["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "pwk-smell-reviewer")
        .unwrap()
        .clone();
    assert_eq!(r["outcome"], "updated");
    assert_eq!(r["backup"], ".agents/agents/pwk-smell-reviewer.md.bak");
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains(".agents/agents/pwk-smell-reviewer.md.bak"),
        "says where"
    );
    let bak = s.agents().join("pwk-smell-reviewer.md.bak");
    assert_eq!(std::fs::read_to_string(&bak).unwrap(), mine);
    assert_eq!(
        std::fs::metadata(&bak).unwrap().mtime(),
        before.mtime(),
        "backup keeps the mtime"
    );
    assert_eq!(
        s.env.read(".agents/agents/pwk-smell-reviewer.md"),
        canonical("pwk-smell-reviewer")
    );
    // A second forced replacement never overwrites the first backup.
    s.env
        .write(".agents/agents/pwk-smell-reviewer.md", "second edit\n");
    let doc = json(&s.setup(&["--force", "--format", "json"]));
    let r = doc["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "pwk-smell-reviewer")
        .unwrap()
        .clone();
    assert_eq!(r["backup"], ".agents/agents/pwk-smell-reviewer.md.bak.1");
    assert_eq!(std::fs::read_to_string(&bak).unwrap(), mine);
    // Backups never end in .md (hosts would load them as duplicate roles).
    for e in std::fs::read_dir(s.agents()).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            n.ends_with(".md") == ROLES.iter().any(|r| n == format!("{r}.md")),
            "{n}"
        );
    }
}

#[test]
fn dry_run_changes_nothing() {
    let s = Scene::new();
    let out = s.setup(&["--dry-run"]);
    assert_eq!(out.code, 0);
    assert!(
        !s.env.path(".agents").exists(),
        "a dry run creates no directory"
    );
    s.env
        .insta_settings()
        .bind(|| insta::assert_snapshot!("setup_dry_run_human", out.stdout));
    assert!(!out.stdout.contains("/reload"));

    s.setup(&[]);
    s.env
        .write(".agents/agents/pwk-spec-reviewer.md", "edited\n");
    std::fs::write(
        s.role("pwk-smell-reviewer"),
        placeholder("pwk-smell-reviewer", true),
    )
    .unwrap();
    let listing = |s: &Scene| {
        let mut v: Vec<_> = std::fs::read_dir(s.agents())
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let m = e.metadata().unwrap();
                (
                    e.file_name(),
                    m.ino(),
                    m.mtime_nsec(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = listing(&s);
    let doc = json(&s.setup(&["--dry-run", "--force", "--format", "json"]));
    assert_eq!(doc["dry_run"], true);
    assert_eq!(doc["reload_needed"], false);
    assert_eq!(outcome(&doc, "pwk-spec-reviewer"), "updated");
    assert_eq!(outcome(&doc, "pwk-smell-reviewer"), "updated");
    assert_eq!(listing(&s), before, "a dry run changed something");
}

#[test]
fn check_exit_codes() {
    let s = Scene::new();
    let out = s.setup(&["--check"]);
    assert_eq!(out.code, 1, "nothing installed yet: would change");
    assert!(!s.env.path(".agents").exists());
    assert_eq!(s.setup(&[]).code, 0);
    assert_eq!(s.setup(&["--check"]).code, 0, "up to date");
    std::fs::write(
        s.role("pwk-smell-reviewer"),
        placeholder("pwk-smell-reviewer", true),
    )
    .unwrap();
    let out = s.setup(&["--check"]);
    assert_eq!(out.code, 1, "an update is pending");
    assert!(out.stdout.contains("not up to date"));
    assert_eq!(
        s.env.read(".agents/agents/pwk-smell-reviewer.md"),
        placeholder("pwk-smell-reviewer", true)
    );
}

#[test]
fn diff_shows_a_unified_diff_for_each_differing_file() {
    let s = Scene::new();
    s.mkdir_agents();
    std::fs::write(
        s.role("pwk-spec-reviewer"),
        placeholder("pwk-spec-reviewer", false),
    )
    .unwrap();
    let out = s.setup(&["--dry-run", "--diff"]);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains("--- pwk-spec-reviewer.md (yours)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("+++ pwk-spec-reviewer.md (pwk)"));
    assert!(out.stdout.contains("-Placeholder body."));
    assert!(out.stdout.contains("+### Spec alignment"));
    let doc = json(&s.setup(&["--dry-run", "--diff", "--format", "json"]));
    let r = doc["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "pwk-spec-reviewer")
        .unwrap()
        .clone();
    assert!(r["diff"].as_str().unwrap().contains("@@"));
}

#[test]
fn fast_model_is_validated_before_anything_is_written() {
    let s = Scene::new();
    for bad in ["", "haiku", "anthropic/", "/x", "a b/c", "a/b\tc", "a/b#c"] {
        let out = s.setup(&["--fast-model", bad]);
        assert_eq!(out.code, 2, "{bad:?} accepted: {}", out.stdout);
        assert!(out.stderr.contains("--fast-model"), "{}", out.stderr);
        assert!(!s.env.path(".agents").exists());
    }
    let out = run_watched(s.env.pwk().args(["setup", "--all-roles"]), WATCHDOG);
    assert_eq!(out.code, 2, "--all-roles needs --fast-model");
}

#[test]
fn fast_model_goes_to_the_fast_reviewers_or_all_four_never_the_scout() {
    let s = Scene::new();
    let pi = fake_pi(&s, "mock-small mock-model");
    let out = run_watched(
        s.env
            .pwk()
            .env("PWK_PI_BIN", &pi)
            .args(["setup", "--fast-model", "mock/mock-small"]),
        WATCHDOG,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.is_empty(),
        "the model resolves: no warning\n{}",
        out.stderr
    );
    let has = |name: &str| {
        s.env
            .read(&format!(".agents/agents/{name}.md"))
            .contains("\nmodel: mock/mock-small\n")
    };
    assert!(has("pwk-smell-reviewer") && has("pwk-hazard-reviewer"));
    assert!(!has("pwk-spec-reviewer") && !has("pwk-tracing-reviewer") && !has("pwk-recon-scout"));
    assert!(
        !s.env
            .read(".agents/agents/pwk-smell-reviewer.md")
            .contains("# model:"),
        "placeholder replaced"
    );

    let out = run_watched(
        s.env.pwk().env("PWK_PI_BIN", &pi).args([
            "setup",
            "--fast-model",
            "mock/mock-model",
            "--all-roles",
            "--format",
            "json",
        ]),
        WATCHDOG,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = json(&out);
    for name in [
        "pwk-spec-reviewer",
        "pwk-tracing-reviewer",
        "pwk-smell-reviewer",
        "pwk-hazard-reviewer",
    ] {
        assert_eq!(outcome(&doc, name), "updated", "{name}");
        let text = s.env.read(&format!(".agents/agents/{name}.md"));
        assert_eq!(
            text.matches("\nmodel: mock/mock-model\n").count(),
            1,
            "{name}:\n{text}"
        );
        assert_eq!(
            without_model_lines(&text),
            without_model_lines(canonical(name)),
            "{name}: only the hint differs"
        );
    }
    assert_eq!(outcome(&doc, "pwk-recon-scout"), "unchanged");
    assert!(
        !s.env
            .read(".agents/agents/pwk-recon-scout.md")
            .contains("model")
    );
}

#[test]
fn fast_model_that_pi_cannot_resolve_warns_loudly() {
    let s = Scene::new();
    let pi = fake_pi(&s, "mock-small");
    let out = run_watched(
        s.env
            .pwk()
            .env("PWK_PI_BIN", &pi)
            .args(["setup", "--fast-model", "mock/no-such-model"]),
        WATCHDOG,
    );
    assert_eq!(out.code, 0, "a warning, not a failure");
    assert!(out.stderr.contains("pwk: warning:"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("does not list the model `mock/no-such-model`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("nicobailon"), "{}", out.stderr);
    assert!(
        out.stderr.contains("mock-small"),
        "lists what pi has: {}",
        out.stderr
    );

    let out = run_watched(
        s.env
            .pwk()
            .env("PWK_PI_BIN", s.env.path("no-such-pi"))
            .args(["setup", "--fast-model", "mock/x", "--format", "json"]),
        WATCHDOG,
    );
    assert_eq!(out.code, 0);
    assert!(out.stderr.contains("could not check"), "{}", out.stderr);
    let doc = json(&out);
    assert!(
        doc["warnings"][0].as_str().unwrap().contains("PWK_PI_BIN"),
        "{doc}"
    );
}

#[test]
fn global_installs_into_pi_coding_agent_dir() {
    let s = Scene::new();
    let agent_dir = s.env.path("pi-agent");
    let out = run_watched(
        s.env
            .pwk()
            .env("PI_CODING_AGENT_DIR", &agent_dir)
            .args(["setup", "--global", "--format", "json"]),
        WATCHDOG,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(json(&out)["target"], "pi-agent/agents");
    for name in ROLES {
        assert_eq!(
            std::fs::read_to_string(agent_dir.join(format!("agents/{name}.md"))).unwrap(),
            canonical(name)
        );
    }
    assert!(!s.env.path(".agents").exists(), "nothing in the project");
    // Without PI_CODING_AGENT_DIR: ~/.pi/agent/agents.
    let out = run_watched(s.env.pwk().args(["setup", "--global"]), WATCHDOG);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        s.env
            .home
            .join(".pi/agent/agents/pwk-recon-scout.md")
            .is_file()
    );
}

#[test]
fn dir_flag_and_missing_dir() {
    let s = Scene::new();
    std::fs::create_dir_all(s.env.path("proj")).unwrap();
    let out = s.setup(&["--dir", "proj"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        s.env
            .path("proj/.agents/agents/pwk-hazard-reviewer.md")
            .is_file()
    );
    assert!(out.stdout.contains("proj/.agents/agents"));
    let out = s.setup(&["--dir", "nowhere"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("does not exist"), "{}", out.stderr);
}

/// The model check against the real pi (0.73.1 and 1.6.0, provisioned by
/// `scripts/test.sh`): a model from models.json resolves without a warning, an
/// unknown one is reported. A pi that is not provisioned is skipped visibly (a
/// failure under CI).
#[test]
fn fast_model_check_against_the_real_pi() {
    for (_, pi) in crate::support::tools::pis() {
        let s = Scene::new();
        let agent = s.env.path("agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(
            agent.join("models.json"),
            r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"mock-key","models":[{"id":"mock-model"},{"id":"mock-small"}]}}}"#,
        )
        .unwrap();
        let run = |model: &str| {
            run_watched(
                s.env
                    .pwk()
                    .env("PWK_PI_BIN", &pi)
                    .env("PI_CODING_AGENT_DIR", &agent)
                    .args(["setup", "--fast-model", model]),
                WATCHDOG,
            )
        };
        let out = run("mock/mock-small");
        assert_eq!(out.code, 0, "{}: {}", pi.display(), out.stderr);
        assert!(out.stderr.is_empty(), "{}: {}", pi.display(), out.stderr);
        let out = run("mock/no-such-model");
        assert_eq!(out.code, 0);
        assert!(
            out.stderr
                .contains("does not list the model `mock/no-such-model`")
                && out.stderr.contains("mock-small"),
            "{}: {}",
            pi.display(),
            out.stderr
        );
    }
}
