//! The model that really runs: `pwk show` / `pwk smoke` resolve a role's `model`
//! against the real pi's `--list-models` (both generations, a models.json in the
//! agent dir) and the `enabledModels` of pi's settings; `pwk lint --check-models`
//! (`unresolved-model`) over fixtures and the corpus roles with a fake
//! `pi --list-models` in the real table format.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::delegate_e2e::{Gen, pi_bin};
use crate::support::{TestEnv, of_rule, repo_root, run};

/// A project with three roles and an agent dir whose models.json lists
/// `mock/mock-model` and `mock/mock-small`; `enabled`: settings' `enabledModels`.
fn world(enabled: Option<Value>) -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(
        "agent/models.json",
        json!({"providers": {"mock": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "mock-key",
            "models": [{"id": "mock-model"}, {"id": "mock-small"}]}}})
        .to_string(),
    );
    let mut settings = json!({"defaultProvider": "mock", "defaultModel": "mock-model"});
    if let Some(e) = enabled {
        settings["enabledModels"] = e;
    }
    env.write("agent/settings.json", settings.to_string());
    for (name, model) in [
        ("resolves", "mock/mock-small"),
        ("typo", "mock/mock-smal"),
        ("elsewhere", "nowhere/fast-model"),
    ] {
        env.write(
            &format!(".pi/agents/{name}.md"),
            format!("---\nname: {name}\ndescription: Role {name}.\nmodel: {model}\ntools: read, ls\n---\nBody.\n"),
        );
    }
    // pi lists mock-model without thinking (no `reasoning` in models.json).
    env.write(
        ".pi/agents/thinks.md",
        "---\nname: thinks\ndescription: Role thinks.\nmodel: mock/mock-model\nthinking: high\n---\nBody.\n",
    );
    env
}

fn show(env: &TestEnv, pi: &Path, cmd: &str, name: &str, host: &str) -> Value {
    let out = run(env
        .pwk()
        .args([cmd, name, "--host", host, "--format", "json"])
        .env("PWK_PI_BIN", pi)
        .env("PI_CODING_AGENT_DIR", env.path("agent"))
        .env("PI_OFFLINE", "1"));
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{cmd} {name}: not JSON ({e}): {}\n{}",
            out.stdout, out.stderr
        )
    });
    v["model_check"].clone()
}

crate::delegate_e2e::both_generations! {
    show_and_smoke_say_which_model_runs => show_and_smoke_say_which_model_runs;
    a_model_outside_enabled_models_is_said => outside_enabled_models;
}

fn show_and_smoke_say_which_model_runs(generation: Gen, pi: PathBuf) {
    let env = world(None);
    for cmd in ["show", "smoke"] {
        let c = show(&env, &pi, cmd, "resolves", "tintinweb");
        assert_eq!(c["checked"], true, "{generation:?} {cmd}: {c:#}");
        assert_eq!(c["resolves"], true, "{generation:?} {cmd}: {c:#}");
        assert_eq!(c["resolved"], "mock/mock-small");
        assert_eq!(c["runs"], "mock/mock-small");
        assert!(c.get("in_enabled_models").is_none(), "{c:#}");

        // A typo: did-you-mean from the listed ids; tintinweb runs the parent's model,
        // which on this machine is the settings default.
        let c = show(&env, &pi, cmd, "typo", "tintinweb");
        assert_eq!(c["resolves"], false, "{generation:?} {cmd}: {c:#}");
        assert_eq!(c["candidates"], json!(["mock/mock-small"]), "{c:#}");
        assert_eq!(c["runs"], "mock/mock-model", "{c:#}");
        let note = c["note"].as_str().unwrap();
        assert!(note.contains("did you mean mock/mock-small?"), "{note}");
        assert!(note.contains("parent's model"), "{note}");

        // nicobailon refuses the role: nothing runs.
        let c = show(&env, &pi, cmd, "elsewhere", "nicobailon");
        assert_eq!(c["resolves"], false, "{c:#}");
        assert!(c.get("runs").is_none(), "{c:#}");
        assert!(
            c["note"].as_str().unwrap().contains("refuses the role"),
            "{c:#}"
        );

        // `thinking: high` on a model pi lists without thinking runs as `off`.
        let c = show(&env, &pi, cmd, "thinks", "pwk");
        assert_eq!(c["thinking"], "high", "{generation:?} {cmd}: {c:#}");
        assert_eq!(c["thinking_runs"], "off", "{generation:?} {cmd}: {c:#}");
    }
    // Human output says it too.
    let out = run(env
        .pwk()
        .args(["show", "typo", "--host", "tintinweb"])
        .env("PWK_PI_BIN", &pi)
        .env("PI_CODING_AGENT_DIR", env.path("agent"))
        .env("PI_OFFLINE", "1"));
    assert!(
        out.stdout
            .contains("The model that runs:\n  model       mock/mock-smal (does not resolve)\n  runs        mock/mock-model\n"),
        "{}",
        out.stdout
    );
}

fn outside_enabled_models(generation: Gen, pi: PathBuf) {
    let env = world(Some(json!(["mock/mock-model"])));
    let c = show(&env, &pi, "show", "resolves", "pwk");
    assert_eq!(c["resolves"], true, "{generation:?}: {c:#}");
    assert_eq!(c["in_enabled_models"], false, "{c:#}");
    assert_eq!(c["runs"], "mock/mock-small", "{c:#}");
    assert!(
        c["note"]
            .as_str()
            .unwrap()
            .contains("outside pi's `enabledModels`"),
        "{c:#}"
    );
    // In the scope (a glob, without case).
    let env = world(Some(json!(["MOCK/*"])));
    let c = show(&env, &pi, "smoke", "resolves", "pwk");
    assert_eq!(c["in_enabled_models"], true, "{generation:?}: {c:#}");
}

/// A fake `pi` that answers `--list-models` with the real table format (pi 0.73.1 /
/// 1.6: `provider  model  context  max-out  thinking  images`) and counts its calls.
fn fake_pi(env: &TestEnv, rows: &[(&str, &str)]) -> PathBuf {
    let mut table =
        String::from("provider   model                      context  max-out  thinking  images\n");
    for (p, m) in rows {
        table.push_str(&format!(
            "{p:<10} {m:<26} 200K     64K      yes       yes\n"
        ));
    }
    let count = env.path("pi-calls");
    let script = format!(
        "#!/bin/sh\necho x >> '{}'\nif [ \"$1\" = --list-models ]; then\ncat <<'TABLE'\n{table}TABLE\nexit 0\nfi\necho 'unexpected' >&2\nexit 1\n",
        count.display()
    );
    env.executable("bin/pi", script)
}

fn lint_json(env: &TestEnv, pi: Option<&Path>, args: &[&str]) -> (i32, Value, String) {
    let mut cmd = env.pwk();
    cmd.args(["lint", "--format", "json"]).args(args);
    match pi {
        Some(p) => cmd.env("PWK_PI_BIN", p),
        None => cmd.env("PWK_PI_BIN", "/nonexistent/pi"),
    };
    cmd.env("PI_CODING_AGENT_DIR", env.path("agent"));
    let out = run(&mut cmd);
    let v = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    (out.code, v, out.stderr)
}

#[test]
fn check_models_fires_on_an_unlisted_model_and_not_on_a_listed_one() {
    let env = TestEnv::new();
    let pi = fake_pi(
        &env,
        &[
            ("anthropic", "claude-haiku-4-5"),
            ("anthropic", "claude-sonnet-4-5"),
        ],
    );
    let fx = repo_root().join("fixtures/models");
    let bad = fx.join("unresolved-model.md");
    let good = fx.join("resolved-model.md");
    let (code, v, stderr) = lint_json(
        &env,
        Some(&pi),
        &[
            "--check-models",
            "--host",
            "pwk",
            bad.to_str().unwrap(),
            good.to_str().unwrap(),
        ],
    );
    let f = of_rule(&v, "unresolved-model");
    assert_eq!(f.len(), 1, "{v:#}\n{stderr}");
    assert_eq!(code, 1);
    assert!(
        f[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("unresolved-model.md")
    );
    assert_eq!(f[0]["severity"], "error");
    assert_eq!(
        f[0]["help"], "did you mean `anthropic/claude-haiku-4-5`?",
        "{:#}",
        f[0]
    );
    assert_eq!(f[0]["line"], 4, "{:#}", f[0]);
    // One `pi --list-models` for the whole run.
    assert_eq!(
        std::fs::read_to_string(env.path("pi-calls"))
            .unwrap()
            .lines()
            .count(),
        1
    );
    // Never by default, and never without pi.
    let (_, v, _) = lint_json(&env, Some(&pi), &["--host", "pwk", bad.to_str().unwrap()]);
    assert!(of_rule(&v, "unresolved-model").is_empty(), "{v:#}");
    let (code, _, stderr) = lint_json(&env, None, &["--check-models", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--check-models needs pi"), "{stderr}");
    // Outside enabledModels: a warning.
    env.write(
        "agent/settings.json",
        r#"{"enabledModels": ["anthropic/claude-sonnet-*"]}"#,
    );
    let (_, v, _) = lint_json(
        &env,
        Some(&pi),
        &["--check-models", "--host", "pwk", good.to_str().unwrap()],
    );
    let f = of_rule(&v, "unresolved-model");
    assert_eq!(f.len(), 1, "{v:#}");
    assert_eq!(f[0]["severity"], "warning");
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .contains("outside the `enabledModels`")
    );
}

/// The corpus roles, read in place: every `model` the fake pi does not list is
/// reported, and none that it lists.
#[test]
fn check_models_over_the_corpus_roles() {
    let corpus = PathBuf::from("/work/shared/corpus");
    let corpus = std::env::var_os("PWK_TEST_CORPUS")
        .map(PathBuf::from)
        .unwrap_or(corpus);
    if !corpus.is_dir() {
        crate::support::tools::skip(&format!("no corpus at {}", corpus.display()));
        return;
    }
    let env = TestEnv::new();
    let listed = [
        ("anthropic", "claude-sonnet-4-20250514"),
        ("anthropic", "claude-haiku-4-5"),
        ("zai", "glm-5.1"),
        ("openrouter", "free"),
    ];
    let pi = fake_pi(&env, &listed);
    let (_, v, stderr) = lint_json(
        &env,
        Some(&pi),
        &[
            "--check-models",
            "--host",
            "pwk",
            "--recursive",
            corpus.to_str().unwrap(),
        ],
    );
    let f = of_rule(&v, "unresolved-model");
    let model_of = |d: &Value| -> String {
        let m = d["message"].as_str().unwrap();
        m.split('`')
            .nth(1)
            .unwrap()
            .trim_start_matches("model: ")
            .to_string()
    };
    let reported: Vec<String> = f.iter().map(|d| model_of(d)).collect();
    for m in &reported {
        let bare = m.rsplit('/').next().unwrap();
        assert!(
            !listed
                .iter()
                .any(|(p, id)| *m == format!("{p}/{id}") || (!m.contains('/') && *id == bare)),
            "a listed model was reported: {m}"
        );
    }
    // What the corpus holds (grep `^model:`): sonnet ×17, opus ×3 and two unlisted
    // provider/ids; the listed ones (claude-sonnet-4-20250514, glm-5.1,
    // openrouter/free) are not reported.
    for want in ["sonnet", "opus", "openrouter-free/explore"] {
        assert!(
            reported.iter().any(|m| m == want),
            "{want} not reported: {reported:?}\n{stderr}"
        );
    }
    for never in [
        "claude-sonnet-4-20250514",
        "glm-5.1",
        "openrouter/free",
        "inherit",
    ] {
        assert!(!reported.iter().any(|m| m == never), "{never} reported");
    }
    assert!(
        reported.len() >= 20,
        "{} findings: {reported:?}",
        reported.len()
    );
    eprintln!("corpus: {} unresolved-model findings", reported.len());
}
