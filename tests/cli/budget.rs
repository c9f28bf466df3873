//! Spend budgets on the real pi (both generations) at the fake LLM, which reports
//! usage (100 prompt tokens per call, plus the completion): `maxTokens`,
//! `maxCostUsd` (a model definition with a per-million cost) and `maxWallSeconds`
//! stop pi with `BUDGET_EXCEEDED`, leave no pi process, and put the usage in the
//! result; a report that was complete when the limit was crossed is kept.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::delegate_e2e::{FAST_FAIL, Gen, World, pi_bin, report_text};
use crate::support::fake_llm::Reply;

use crate::delegate_e2e::both_generations;

both_generations! {
    max_tokens_stops_the_run => max_tokens_stops_the_run;
    max_cost_usd_stops_the_run => max_cost_stops_the_run;
    max_wall_seconds_stops_the_run => max_wall_stops_the_run;
    a_report_complete_before_the_limit_is_kept => complete_report_is_kept;
}

/// A model that calls `ls` for ever.
fn endless_tools(generation: Gen, pi: PathBuf) -> World {
    World::new(
        generation,
        pi,
        vec![],
        Reply::tool("ls", r#"{"path":"."}"#),
        FAST_FAIL,
    )
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
