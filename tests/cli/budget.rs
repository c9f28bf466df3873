//! Spend budgets on the real pi (both generations) at the fake LLM, which reports
//! usage (100 prompt tokens per call, plus the completion): `maxTokens`,
//! `maxCostUsd` (a model definition with a per-million cost) and `maxWallSeconds`
//! stop pi with `BUDGET_EXCEEDED`, leave no pi process, and put the usage in the
//! result; a report that was complete when the limit was crossed is kept.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::delegate_e2e::{FAST_FAIL, Gen, World, pi_bin, report_text};
use crate::provider::{Act, RoutedLlm, SPEC_REPORT, hazard_report, project, pwk_on, role_file};
use crate::support::fake_llm::Reply;

use crate::delegate_e2e::both_generations;

both_generations! {
    the_pwk_toml_budget_applies_to_delegate => pwk_toml_budget_applies;
    a_review_of_four_roles_reports_usage_per_role_and_in_total => review_usage_per_role_and_total;
    one_roles_budget_stops_that_role_and_the_others_complete => one_role_budget_stops_it;
    failed_tool_calls_are_counted_per_role => failed_tool_calls_per_role;
    max_tokens_stops_the_run => max_tokens_stops_the_run;
    max_cost_usd_stops_the_run => max_cost_stops_the_run;
    max_wall_seconds_stops_the_run => max_wall_stops_the_run;
    a_report_complete_before_the_limit_is_kept => complete_report_is_kept;
}

/// pi calling `ls` for ever; calls after the third are answered after 3 s, so a
/// budget crossed by the second or third call stops the run within one more.
fn endless_tools(generation: Gen, pi: PathBuf) -> World {
    let (script, then) = Reply::ls_for_ever(3, 3000);
    World::new(generation, pi, script, then, FAST_FAIL)
}

fn expect_budget_exceeded(w: &World, v: &Value, code: i32, what: &str) {
    assert_eq!(code, 1, "{what}: {v:#}");
    assert_eq!(v["status"], "failed", "{what}: {v:#}");
    assert_eq!(v["error"]["code"], "BUDGET_EXCEEDED", "{what}: {v:#}");
    assert!(v["usage"].is_object(), "{what}: usage in the result: {v:#}");
    let t = Instant::now();
    while !w.leftover_processes().is_empty() && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        w.leftover_processes().is_empty(),
        "{what}: pi processes left: {:?}",
        w.leftover_processes()
    );
}

fn max_tokens_stops_the_run(generation: Gen, pi: PathBuf) {
    let w = endless_tools(generation, pi);
    let mut req = w.request("List the files in the work directory and name them");
    req["budget"] = json!({"maxTokens": 250});
    let (out, v) = w.delegate(&req);
    expect_budget_exceeded(&w, &v, out.code, "maxTokens");
    let used = v["usage"]["totalTokens"].as_u64().unwrap();
    assert!(used > 250, "{v:#}");
    // Each call reports 100 prompt + 12 completion tokens: the third crosses 250.
    assert!(
        (3..=4).contains(&w.llm.requests().len()),
        "stopped at the crossing: {} requests",
        w.llm.requests().len()
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("token budget of 250"),
        "{v:#}"
    );
}

fn max_cost_stops_the_run(generation: Gen, pi: PathBuf) {
    let w = endless_tools(generation, pi);
    // $10,000 per million tokens: each call (112 tokens) costs $1.12.
    let models = json!({"providers": {"mock": {
        "baseUrl": w.llm.base_url(), "api": "openai-completions", "apiKey": "mock-key",
        "models": [{"id": "mock-model",
            "cost": {"input": 10000, "output": 10000, "cacheRead": 0, "cacheWrite": 0}}]}}});
    std::fs::write(w.agent.join("models.json"), models.to_string()).unwrap();
    let mut req = w.request("List the files in the work directory and name them");
    req["budget"] = json!({"maxCostUsd": 2.0});
    let (out, v) = w.delegate(&req);
    expect_budget_exceeded(&w, &v, out.code, "maxCostUsd");
    let cost = v["usage"]["cost"].as_f64().unwrap();
    assert!(cost > 2.0, "{v:#}");
    // pi's cost per call is about $1.12 (the generations differ in what they count):
    // the second or third call crosses $2.
    assert!(
        (2..=4).contains(&w.llm.requests().len()),
        "{} requests",
        w.llm.requests().len()
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cost budget of $2"),
        "{v:#}"
    );
}

fn max_wall_stops_the_run(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![],
        Reply::Delayed(60_000, Box::new(Reply::text("too late"))),
        FAST_FAIL,
    );
    let mut req = w.request("List the files in the work directory and name them");
    req["budget"] = json!({"maxWallSeconds": 3});
    req["stallTimeoutMs"] = json!(120_000);
    let t = Instant::now();
    let (out, v) = w.delegate(&req);
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    expect_budget_exceeded(&w, &v, out.code, "maxWallSeconds");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("wall-clock budget of 3 s"),
        "{v:#}"
    );
}

fn complete_report_is_kept(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![],
        Reply::Text(report_text("listed within budget")),
        FAST_FAIL,
    );
    let mut req = w.request("List the files in the work directory and name them");
    // The one call reports 100 prompt tokens: the report crosses the limit.
    req["budget"] = json!({"maxTokens": 50});
    let (out, v) = w.delegate(&req);
    assert_eq!(out.code, 0, "{v:#}\n{}", out.stderr);
    assert_eq!(v["status"], "completed", "{v:#}");
    assert_eq!(v["summary"], "listed within budget");
    assert_eq!(w.llm.requests().len(), 1, "nothing replayed");
    assert!(v["usage"]["totalTokens"].as_u64().unwrap() > 50, "{v:#}");
}

#[test]
fn a_budget_is_validated_with_located_problems() {
    let env = crate::support::TestEnv::new();
    let work = env.path("work");
    std::fs::create_dir_all(&work).unwrap();
    let req = json!({"action": "delegate", "taskId": "b-1", "cwd": work,
        "objective": "List the files in the work directory", "scope": ["."], "constraints": [],
        "acceptance": ["named"], "profile": "readonly",
        "budget": {"maxTokens": 0, "maxCostUsd": "1", "maxWallSecs": 5}});
    let out = crate::support::run_with_stdin(
        env.pwk()
            .arg("delegate")
            .env("PWK_PI_BIN", "/nonexistent/pi"),
        req.to_string().as_bytes(),
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["status"], "blocked", "{v:#}");
    let fields: Vec<&str> = v["validationErrors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "budget.maxCostUsd",
            "budget.maxTokens",
            "budget.maxWallSecs"
        ],
        "{v:#}"
    );
    assert!(
        v.to_string().contains("did you mean `maxWallSeconds`"),
        "{v:#}"
    );
}

fn pwk_toml_budget_applies(generation: Gen, pi: PathBuf) {
    let w = endless_tools(generation, pi);
    // The project's default; the request sets no budget of its own.
    w.env.write(
        "pwk.toml",
        "[delegate]\nbudget = { max_tokens = 250, max_wall_seconds = 600 }\n",
    );
    let req = w.request("List the files in the work directory and name them");
    let (out, v) = w.delegate(&req);
    expect_budget_exceeded(&w, &v, out.code, "pwk.toml maxTokens");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("token budget of 250"),
        "{v:#}"
    );
    // The request's own limit beats the file's, limit by limit.
    let w2 = World::new(
        generation,
        w.pi.clone(),
        vec![],
        Reply::Text(report_text("listed")),
        FAST_FAIL,
    );
    w2.env
        .write("pwk.toml", "[delegate]\nbudget = { max_tokens = 50 }\n");
    let mut req = w2.request("List the files in the work directory and name them");
    req["budget"] = json!({"maxTokens": 100000});
    let (out, v) = w2.delegate(&req);
    assert_eq!(out.code, 0, "{v:#}\n{}", out.stderr);
    assert_eq!(v["status"], "completed", "{v:#}");
}

/// A project whose four reviewers answer at once (spec: its table; the others:
/// "No findings" or the hazard list) — or, for `looping`, call `ls` for ever: the
/// first three calls are answered at once, later ones after 3 s, so a stop at the
/// third call's usage leaves at most one more request (pi may send it before the
/// stop lands), however loaded the machine.
fn review_project(looping: Option<&str>) -> (RoutedLlm, crate::support::TestEnv) {
    let mut routes = vec![
        ("ROUTE-SPEC", Act::Text(SPEC_REPORT.into())),
        ("ROUTE-TRACING", Act::Text("No findings".into())),
        ("ROUTE-SMELL", Act::Text("No findings".into())),
        ("ROUTE-HAZARD", Act::Text(hazard_report())),
    ];
    if let Some(marker) = looping {
        for (m, act) in routes.iter_mut() {
            if *m == marker {
                *act = Act::LoopSlowingAfter(3, 3000);
            }
        }
    }
    let llm = RoutedLlm::start(routes);
    let env = project(&llm);
    for (role, marker) in [
        ("pwk-spec-reviewer", "ROUTE-SPEC"),
        ("pwk-tracing-reviewer", "ROUTE-TRACING"),
        ("pwk-smell-reviewer", "ROUTE-SMELL"),
        ("pwk-hazard-reviewer", "ROUTE-HAZARD"),
    ] {
        role_file(&env, role, "max_turns: 40\n", marker);
    }
    (llm, env)
}

fn review(env: &crate::support::TestEnv, pi: &PathBuf, extra: &[&str]) -> (i32, Value, String) {
    let mut cmd = pwk_on(env, pi);
    cmd.args([
        "review",
        "--roles",
        "spec,tracing,smell,hazard",
        "--packet",
        "packet.md",
        "--timeout",
        "60",
        "--format",
        "json",
    ])
    .args(extra);
    let out = crate::support::run(&mut cmd);
    let v: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", out.stdout, out.stderr));
    (out.code, v, out.stderr)
}

fn review_usage_per_role_and_total(generation: Gen, pi: PathBuf) {
    let (_llm, env) = review_project(None);
    let (code, v, stderr) = review(&env, &pi, &[]);
    assert_eq!(code, 0, "{generation:?}: {v:#}\n{stderr}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    let mut sum = 0;
    let mut cost = 0.0;
    for r in results {
        assert_eq!(r["status"], "completed", "{generation:?}: {r:#}");
        // One model call each: 100 prompt tokens and the completion.
        let t = r["usage"]["totalTokens"].as_u64().unwrap();
        assert!(t > 100, "{generation:?}: {r:#}");
        assert_eq!(r["usage"]["input"], 100, "{generation:?}: {r:#}");
        assert_eq!(r["toolCallsFailed"], 0, "{generation:?}: {r:#}");
        sum += t;
        cost += r["usage"]["cost"].as_f64().unwrap();
    }
    assert_eq!(v["usage"]["totalTokens"].as_u64().unwrap(), sum, "{v:#}");
    assert_eq!(v["usage"]["input"], 400, "{v:#}");
    assert!((v["usage"]["cost"].as_f64().unwrap() - cost).abs() < 1e-12);
    assert_eq!(v["coverage"]["complete"], true);
}

fn one_role_budget_stops_it(generation: Gen, pi: PathBuf) {
    let (llm, env) = review_project(Some("ROUTE-HAZARD"));
    // Every role may spend 100000 tokens; the hazard reviewer only 250.
    let (code, v, stderr) = review(
        &env,
        &pi,
        &[
            "--budget",
            "max-tokens=100000",
            "--budget",
            "hazard:max-tokens=250",
        ],
    );
    assert_eq!(code, 1, "{generation:?}: {v:#}\n{stderr}");
    let results = v["results"].as_array().unwrap();
    for r in &results[..3] {
        assert_eq!(r["status"], "completed", "{generation:?}: {r:#}");
        assert!(
            r["notes"].to_string().contains("maxTokens 100000"),
            "{generation:?}: {r:#}"
        );
    }
    let hazard = &results[3];
    assert_eq!(hazard["role"], "pwk-hazard-reviewer");
    assert_eq!(hazard["status"], "failed", "{generation:?}: {hazard:#}");
    let error = hazard["error"].as_str().unwrap();
    assert!(
        error.starts_with("BUDGET_EXCEEDED: the token budget of 250"),
        "{generation:?}: {error}"
    );
    assert!(hazard["usage"]["totalTokens"].as_u64().unwrap() > 250);
    // Stopped at the crossing: the third call (100 prompt tokens + completion each).
    let calls = llm.requests_for("ROUTE-HAZARD").len();
    assert!((3..=4).contains(&calls), "{generation:?}: {calls} calls");
    assert_eq!(v["coverage"]["complete"], false);
    assert_eq!(v["coverage"]["missing"], json!(["pwk-hazard-reviewer"]));
    assert_eq!(v["coverage"]["retained"].as_array().unwrap().len(), 3);
    let total: u64 = results
        .iter()
        .map(|r| r["usage"]["totalTokens"].as_u64().unwrap())
        .sum();
    assert_eq!(v["usage"]["totalTokens"].as_u64().unwrap(), total);
}

#[test]
fn budget_flags_and_request_fields_are_checked_before_anything_runs() {
    let env = crate::support::TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write("packet.md", "## Requirement 1\nx\n");
    for (args, want) in [
        (
            vec!["--budget", "hazard:max-tokns=5"],
            "unknown limit `max-tokns` (did you mean `max-tokens`?)",
        ),
        (
            vec!["--budget", "scout:max-tokens=5"],
            "scout is not one of the roles this run starts",
        ),
        (
            vec!["--budget", "max-cost-usd=-1"],
            "`--budget.maxCostUsd` must be a positive number of US dollars",
        ),
        (vec!["--budget", "hazard:"], "no limit given"),
    ] {
        let out = crate::support::run(
            env.pwk()
                .args(["review", "--roles", "hazard", "--packet", "packet.md"])
                .args(&args)
                .env("PWK_PI_BIN", "/nonexistent/pi"),
        );
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(want), "{args:?}: {}", out.stderr);
    }
    // A bad `[delegate] budget` in pwk.toml is a located usage error.
    env.write("pwk.toml", "[delegate]\nbudget = { max_tokens = -3 }\n");
    let out = crate::support::run(
        env.pwk()
            .args(["review", "--roles", "hazard", "--packet", "packet.md"])
            .env("PWK_PI_BIN", "/nonexistent/pi"),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "pwk.toml:2:25: `[delegate] budget`: `max_tokens` must be a positive whole number"
        ),
        "{}",
        out.stderr
    );
    std::fs::remove_file(env.path("pwk.toml")).unwrap();
    // run-request: `budget` and `roleBudgets`, each problem naming its field.
    let req = json!({"operation": "feature-review", "roles": ["pwk-spec-reviewer"],
        "prompt": "p", "cwd": env.root(),
        "constraints": {"readOnly": true, "freshContext": true, "bounded": true, "parallel": true},
        "budget": {"maxTokens": 0},
        "roleBudgets": {"pwk-spec-reviewer": {"maxCostUsd": "x"}, "pwk-hazard-reviewer": {}}});
    let out = crate::support::run_with_stdin(
        env.pwk()
            .args(["run-request", "--format", "json"])
            .env("PWK_PI_BIN", "/nonexistent/pi"),
        req.to_string().as_bytes(),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let reason = v["refused"]["reason"].as_str().unwrap();
    for want in [
        "`budget.maxTokens` must be a positive whole number",
        "`roleBudgets.pwk-spec-reviewer.maxCostUsd` must be a positive number",
        "`roleBudgets.pwk-hazard-reviewer`: pwk-hazard-reviewer is not one of the request's roles",
    ] {
        assert!(reason.contains(want), "{want}: {reason}");
    }
}

#[test]
fn pwk_config_shows_the_delegate_budget() {
    let env = crate::support::TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(
        "pwk.toml",
        "[delegate]\nbudget = { max_tokens = 5000, max_cost_usd = 0.5 }\n",
    );
    let out = crate::support::run(env.pwk().arg("config"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "[delegate]\nbudget = { max_tokens = 5000, max_cost_usd = 0.5 }  # pwk.toml:2:10"
        ),
        "{}",
        out.stdout
    );
    let out = crate::support::run(env.pwk().args(["config", "--format", "json"]));
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        v["delegate"]["budget"],
        json!({"value": {"maxTokens": 5000, "maxCostUsd": 0.5}, "from": "pwk.toml:2:10"}),
        "{v:#}"
    );
}

/// Honest accounting in a review: a role whose tool calls mostly failed says so in
/// its own result (`toolCallsFailed`, and a warning note); the others count none.
fn failed_tool_calls_per_role(generation: Gen, pi: PathBuf) {
    let llm = RoutedLlm::start(vec![
        ("ROUTE-SPEC", Act::Text(SPEC_REPORT.into())),
        (
            "ROUTE-HAZARD",
            Act::Tools(
                vec![
                    ("read".into(), r#"{"path":"no-such-file.txt"}"#.into()),
                    ("read".into(), r#"{"path":"also-missing.txt"}"#.into()),
                    ("ls".into(), r#"{"path":"."}"#.into()),
                ],
                hazard_report(),
            ),
        ),
    ]);
    let env = project(&llm);
    role_file(&env, "pwk-spec-reviewer", "max_turns: 10\n", "ROUTE-SPEC");
    role_file(
        &env,
        "pwk-hazard-reviewer",
        "max_turns: 10\n",
        "ROUTE-HAZARD",
    );
    let mut cmd = pwk_on(&env, &pi);
    cmd.args([
        "review",
        "--roles",
        "spec,hazard",
        "--packet",
        "packet.md",
        "--timeout",
        "60",
        "--format",
        "json",
    ]);
    let out = crate::support::run(&mut cmd);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let r = v["results"].as_array().unwrap();
    assert_eq!(r[0]["toolCallsFailed"], 0, "{generation:?}: {v:#}");
    assert_eq!(r[1]["toolCalls"], 3, "{generation:?}: {:#}", r[1]);
    assert_eq!(r[1]["toolCallsFailed"], 2, "{generation:?}: {:#}", r[1]);
    assert!(
        r[1]["notes"]
            .to_string()
            .contains("2 of 3 tool call(s) failed"),
        "{generation:?}: {:#}",
        r[1]
    );
    assert!(!r[0]["notes"].to_string().contains("failed"), "{:#}", r[0]);
}

/// Usage a child reports, by class × budget kind × `onUnknownUsage`, end to end
/// through `pwk delegate` (the scripted fake pi prints the raw usage values): a
/// countable value is summed and a crossing stops pi (`BUDGET_EXCEEDED`, also when
/// the sum saturates); usage a limit cannot count (negative, `null`, a string, out of
/// range, missing) never drops the assistant message, and never switches a limit off
/// silently — the result lists it in `budgetUnenforced` and warns, or pi is stopped
/// (`BUDGET_UNENFORCEABLE`) when the budget says `"stop"`. A limit the bad field does
/// not feed (the wall clock, the other count) is untouched.
#[test]
fn usage_values_by_class_against_every_budget_kind() {
    const OK: &str = r#"{"input":10,"output":5,"totalTokens":15,"cost":{"total":0.001}}"#;
    // (class, the first messages' raw usage, which counts it leaves unknown
    // (tokens, cost), which limits it crosses (tokens, cost)).
    type Class = (&'static str, &'static str, (bool, bool), (bool, bool));
    let classes: Vec<Class> = vec![
        ("valid", OK, (false, false), (false, false)),
        (
            "negative tokens",
            r#"{"input":-1000,"totalTokens":-1000,"cost":{"total":0.001}}"#,
            (true, false),
            (false, false),
        ),
        (
            "negative cost",
            r#"{"totalTokens":15,"cost":{"total":-1000}}"#,
            (false, true),
            (false, false),
        ),
        (
            "null cost (NaN)",
            r#"{"totalTokens":15,"cost":{"total":null}}"#,
            (false, true),
            (false, false),
        ),
        (
            "null tokens",
            r#"{"input":null,"totalTokens":null,"cost":{"total":0.001}}"#,
            (true, false),
            (false, false),
        ),
        (
            "string tokens",
            r#"{"totalTokens":"15","cost":{"total":0.001}}"#,
            (true, false),
            (false, false),
        ),
        (
            "out of range (inf)",
            r#"{"totalTokens":1e400,"cost":{"total":0.001}}"#,
            (true, true),
            (false, false),
        ),
        ("usage missing", "OMIT", (true, true), (false, false)),
        ("usage null", "null", (true, true), (false, false)),
        ("usage a string", r#""lots""#, (true, true), (false, false)),
        (
            "cost missing",
            r#"{"totalTokens":15}"#,
            (false, true),
            (false, false),
        ),
        (
            "huge",
            r#"{"totalTokens":1e30,"cost":{"total":1e308}}"#,
            (false, false),
            (true, true),
        ),
        (
            "wrapping sum",
            r#"{"totalTokens":4096,"cost":{"total":0.001}}|{"totalTokens":18446744073709547520,"cost":{"total":0.001}}|{"totalTokens":4096,"cost":{"total":0.001}}"#,
            (false, false),
            (true, false),
        ),
    ];
    let kinds: [(&str, Value); 3] = [
        ("maxTokens", json!({"maxTokens": 1_000_000})),
        ("maxCostUsd", json!({"maxCostUsd": 100.0})),
        ("maxWallSeconds", json!({"maxWallSeconds": 600})),
    ];
    let env = crate::support::TestEnv::new();
    let work = env.path("work");
    std::fs::create_dir_all(&work).unwrap();
    let fake = crate::support::repo_root().join("tests/cli/support/fake_pi.py");
    let mut cases = 0;
    for (class, raw, (tok_unknown, cost_unknown), (tok_cross, cost_cross)) in &classes {
        for (kind, limits) in &kinds {
            for policy in ["warn", "stop"] {
                let mut budget = limits.clone();
                if policy == "stop" {
                    budget["onUnknownUsage"] = json!("stop");
                }
                let req = json!({"action": "delegate", "taskId": "u-1", "cwd": work,
                    "objective": "Summarise the README", "scope": ["README.md"],
                    "constraints": [], "acceptance": ["a summary"], "profile": "readonly",
                    "budget": budget});
                let out = crate::support::run_with_stdin(
                    env.pwk()
                        .arg("delegate")
                        .env("PWK_PI_BIN", &fake)
                        .env("PI_CODING_AGENT_DIR", env.path("agent"))
                        .env("FAKE_PI_MODE", "usage")
                        .env("FAKE_PI_USAGE_RAW", raw)
                        .env("FAKE_PI_USAGE_REST", OK)
                        .env("FAKE_PI_TURNS", "40"),
                    req.to_string().as_bytes(),
                );
                let v: Value = serde_json::from_str(&out.stdout)
                    .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
                let what = format!("{class} × {kind} × {policy}");
                let (unknown, crosses) = match *kind {
                    "maxTokens" => (*tok_unknown, *tok_cross),
                    "maxCostUsd" => (*cost_unknown, *cost_cross),
                    _ => (false, false),
                };
                let code = v["error"]["code"].as_str().unwrap_or("");
                let unenforced = v["budgetUnenforced"].to_string();
                if crosses {
                    assert_eq!(code, "BUDGET_EXCEEDED", "{what}: {v:#}");
                } else if unknown && policy == "stop" {
                    assert_eq!(code, "BUDGET_UNENFORCEABLE", "{what}: {v:#}");
                    assert_eq!(v["status"], "failed", "{what}");
                } else if unknown {
                    assert_eq!(v["status"], "completed", "{what}: {v:#}");
                    assert!(unenforced.contains(kind), "{what}: {v:#}");
                    assert!(
                        v["warnings"].to_string().contains("could not be enforced"),
                        "{what}: {v:#}"
                    );
                } else {
                    assert_eq!(v["status"], "completed", "{what}: {v:#}");
                    assert!(!unenforced.contains("max"), "{what}: {v:#}");
                }
                if v["status"] == "completed" {
                    assert_eq!(v["summary"], "usage 39", "{what}: the answer is kept");
                }
                let cost = v["usage"]["cost"].as_f64().unwrap_or(0.0);
                assert!(cost >= 0.0, "{what}: a negative cost was summed: {v:#}");
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 13 * 3 * 2);
}

/// A limit given twice is an error wherever it is given: in one `--budget`, in two
/// `--budget` flags for the same roles, with or without a role prefix; a role's own
/// limit beside the general one is not a repeat.
#[test]
fn a_repeated_budget_limit_is_an_error() {
    let env = crate::support::TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write("packet.md", "## Requirement 1\nThe answer is 42.\n");
    let base = [
        "review",
        "--roles",
        "smell,hazard",
        "--packet",
        "packet.md",
        "--format",
        "json",
        "--transport",
        "json",
    ];
    for flags in [
        vec!["max-tokens=1500,max-tokens=1000000"],
        vec!["max-tokens=1500", "max-tokens=1000000"],
        vec!["max_tokens=1500", "maxTokens=1000000"],
        vec!["hazard:max-tokens=1500,max-tokens=1000000"],
        vec!["hazard:max-tokens=1500", "hazard:max-tokens=1000000"],
        vec![
            "smell:max-wall-seconds=5",
            "pwk-smell-reviewer:max-wall-seconds=9",
        ],
        vec!["on-unknown-usage=stop", "on-unknown-usage=warn"],
        vec!["max-cost-usd=1,max-tokens=5", "max-cost-usd=2"],
    ] {
        let mut cmd = env.pwk();
        cmd.args(base).env("PWK_PI_BIN", "/nonexistent/pi");
        for f in &flags {
            cmd.args(["--budget", f]);
        }
        let out = crate::support::run(&mut cmd);
        assert_eq!(out.code, 2, "{flags:?}: {}\n{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains("twice") || out.stderr.contains("already given"),
            "{flags:?}: {}",
            out.stderr
        );
    }
    // Not a repeat: a role's own limit beside the general one.
    let mut cmd = env.pwk();
    cmd.args(base)
        .args([
            "--budget",
            "max-tokens=5000",
            "--budget",
            "hazard:max-tokens=900",
        ])
        .env("PWK_PI_BIN", "/nonexistent/pi");
    let out = crate::support::run(&mut cmd);
    assert!(
        !out.stderr.contains("twice") && !out.stderr.contains("already given"),
        "{}",
        out.stderr
    );
}
