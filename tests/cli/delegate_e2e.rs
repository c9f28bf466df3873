//! `pwk delegate` end to end against the REAL pi, both generations (0.73.1 and 1.6),
//! pointed at the Rust fake LLM server through an isolated agent dir.
//!
//! The pi launchers come from `PWK_TEST_PI073` / `PWK_TEST_PI16` (set by
//! scripts/test.sh), else from `.pi-test/bin/` ([`crate::support::tools`]: a missing
//! one is skipped visibly, a failure under CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::fake_llm::{FakeLlm, Reply};
use crate::support::tools::{Tool, tool};
use crate::support::{Output, TestEnv, run_with_stdin};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gen {
    Pi073,
    Pi16,
}

/// The launcher for a generation, or `None` (after recording the skip).
pub fn pi_bin(generation: Gen) -> Option<PathBuf> {
    tool(match generation {
        Gen::Pi073 => Tool::Pi073,
        Gen::Pi16 => Tool::Pi16,
    })
}

/// Fast-fail settings: no agent retries, no SDK retries, 5 s to headers.
pub const FAST_FAIL: &str =
    r#"{"retry":{"enabled":false,"provider":{"maxRetries":0,"timeoutMs":5000}}}"#;

/// One test's world: temp dirs, the fake LLM, and an agent dir pointing pi at it.
pub struct World {
    pub env: TestEnv,
    pub llm: FakeLlm,
    pub agent: PathBuf,
    pub work: PathBuf,
    pub pi: PathBuf,
    pub generation: Gen,
}

impl World {
    pub fn new(
        generation: Gen,
        pi: PathBuf,
        script: Vec<Reply>,
        default: Reply,
        settings: &str,
    ) -> World {
        let env = TestEnv::new();
        let llm = FakeLlm::start(script, default);
        let agent = env.path("agent");
        let work = env.path("work");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        let models = json!({"providers": {"mock": {
            "baseUrl": llm.base_url(), "api": "openai-completions", "apiKey": "mock-key",
            "models": [{"id": "mock-model"}, {"id": "mock-reasoner", "reasoning": true}]}}});
        std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
        std::fs::write(agent.join("settings.json"), settings).unwrap();
        World {
            env,
            llm,
            agent,
            work,
            pi,
            generation,
        }
    }

    /// `pwk` with pi pointed at this world.
    pub fn pwk(&self) -> Command {
        let mut cmd = self.env.pwk();
        for k in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"] {
            cmd.env_remove(k);
        }
        cmd.env("PWK_PI_BIN", &self.pi)
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .env("PI_OFFLINE", "1")
            .env(
                "NODE_COMPILE_CACHE",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("pi-node-compile-cache"),
            );
        cmd
    }

    /// The same environment for an in-process `run_pi`.
    pub fn spec_env(&self) -> Vec<(String, String)> {
        vec![
            (
                "PI_CODING_AGENT_DIR".into(),
                self.agent.display().to_string(),
            ),
            ("PI_OFFLINE".into(), "1".into()),
            ("HOME".into(), self.env.home.display().to_string()),
            (
                "NODE_COMPILE_CACHE".into(),
                Path::new(env!("CARGO_TARGET_TMPDIR"))
                    .join("pi-node-compile-cache")
                    .display()
                    .to_string(),
            ),
        ]
    }

    pub fn request(&self, objective: &str) -> Value {
        json!({
            "action": "delegate", "taskId": "task-1", "cwd": self.work,
            "objective": objective, "scope": ["."], "constraints": [],
            "acceptance": ["the answer names the files"], "profile": "readonly",
            "provider": "mock", "model": "mock-model"
        })
    }

    pub fn delegate(&self, req: &Value) -> (Output, Value) {
        let out = run_with_stdin(self.pwk().arg("delegate"), req.to_string().as_bytes());
        let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{:?}: stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
                self.generation, out.stdout, out.stderr
            )
        });
        (out, v)
    }

    /// pids of live processes whose environment names this world's agent dir.
    pub fn leftover_processes(&self) -> Vec<u32> {
        let needle = format!("PI_CODING_AGENT_DIR={}", self.agent.display());
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            if let Ok(env) = std::fs::read(e.path().join("environ"))
                && env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes())
                && !std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| s.contains(") Z "))
            {
                out.push(pid);
            }
        }
        out
    }
}

pub fn report_text(summary: &str) -> String {
    format!(
        "All done.\n---PI_TASK_REPORT---\n{}\n---END_PI_TASK_REPORT---",
        json!({"summary": summary, "changedFiles": [], "validation": ["read the files -> ok"],
               "remainingIssue": null, "decisionNeeded": null, "writeScope": [], "scopeExceeded": false,
               "outOfScopeFindings": []})
    )
}

/// Each scenario runs once per pi generation (also used by `budget` and `children`).
macro_rules! both_generations {
    ($($name:ident => $f:ident;)*) => {$(
        mod $name {
            #[test]
            fn pi073() {
                if let Some(pi) = super::pi_bin(super::Gen::Pi073) { super::$f(super::Gen::Pi073, pi) }
            }
            #[test]
            fn pi16() {
                if let Some(pi) = super::pi_bin(super::Gen::Pi16) { super::$f(super::Gen::Pi16, pi) }
            }
        }
    )*};
}
pub(crate) use both_generations;

both_generations! {
    text_answer_with_report => text_answer_with_report;
    tool_call_round_trip => tool_call_round_trip;
    readonly_profile_denies_write_and_bash => readonly_profile_denies_write_and_bash;
    http_401_is_auth_error => http_401_is_auth_error;
    http_429_is_rate_limit => http_429_is_rate_limit;
    http_500_fast_fail => http_500_fast_fail;
    http_500_with_pi_retries => http_500_with_pi_retries;
    http_500_then_ok_after_pi_retry => http_500_then_ok_after_pi_retry;
    stall_after_headers_times_out => stall_after_headers_times_out;
    drop_mid_stream => drop_mid_stream;
    unknown_model_with_provider => unknown_model_with_provider;
    unknown_model_without_provider => unknown_model_without_provider;
    missing_api_key => missing_api_key;
    continuation_same_and_conflicting_model => continuation_same_and_conflicting_model;
    task_text_arrives_verbatim => task_text_arrives_verbatim;
    prompt_starting_with_dash_or_at => prompt_starting_with_dash_or_at;
    length_and_content_filter => length_and_content_filter;
    unsupported_option_consults_help => unsupported_option_consults_help;
    unknown_provider => unknown_provider;
}

fn text_answer_with_report(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![],
        Reply::Text(report_text("listed the files")),
        FAST_FAIL,
    );
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    assert_eq!(out.code, 0, "{generation:?}: {v:#}\n{}", out.stderr);
    assert_eq!(v["status"], "completed");
    assert_eq!(v["reportParsed"], true);
    assert_eq!(v["summary"], "listed the files");
    assert_eq!(v["validation"], json!(["read the files -> ok"]));
    assert_eq!(v["provider"], "mock");
    assert_eq!(v["model"], "mock-model");
    assert_eq!(
        v["usage"]["input"], 100,
        "usage comes from the server's usage chunk: {v:#}"
    );
    assert_eq!(v["exitCode"], 0);
    assert_eq!(v["promptTransport"], "stdin");
    let session = PathBuf::from(v["sessionFile"].as_str().expect("sessionFile"));
    assert!(session.starts_with(&w.agent), "{session:?}");
    assert!(session.is_file());
    assert!(v["sessionId"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(
        out.stderr.contains("[task-1] turn 1"),
        "progress on stderr: {}",
        out.stderr
    );
    let reqs = w.llm.requests();
    assert_eq!(reqs.len(), 1);
    let tools: Vec<&str> = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    let mut sorted = tools.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["find", "grep", "ls", "read"],
        "readonly profile tools"
    );
}

fn tool_call_round_trip(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![Reply::tool("read", r#"{"path":"hello.txt"}"#)],
        Reply::Text(report_text("read hello.txt")),
        FAST_FAIL,
    );
    std::fs::write(w.work.join("hello.txt"), "greetings from the file\n").unwrap();
    let (out, v) = w.delegate(&w.request("Read hello.txt and quote its first line"));
    assert_eq!(out.code, 0, "{generation:?}: {v:#}");
    assert_eq!(v["toolCalls"], 1);
    assert_eq!(v["turns"], 2);
    assert!(out.stderr.contains("[task-1] tool read"), "{}", out.stderr);
    let reqs = w.llm.requests();
    assert_eq!(reqs.len(), 2);
    let tool_msg = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("tool result sent");
    assert!(
        tool_msg.to_string().contains("greetings from the file"),
        "{tool_msg}"
    );
}

fn readonly_profile_denies_write_and_bash(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![
            Reply::tool("bash", r#"{"command":"touch pwned-by-bash"}"#),
            Reply::tool("write", r#"{"path":"pwned-by-write","content":"x"}"#),
        ],
        Reply::Text(report_text("could not write")),
        FAST_FAIL,
    );
    let (out, v) = w.delegate(&w.request("Inspect the work directory without changing it"));
    assert_eq!(out.code, 0, "{generation:?}: {v:#}");
    assert!(!w.work.join("pwned-by-bash").exists() && !w.work.join("pwned-by-write").exists());
    let reqs = w.llm.requests();
    assert_eq!(reqs.len(), 3);
    let sent = reqs[2].to_string();
    assert!(sent.contains("Tool bash not found"), "{sent}");
    assert!(sent.contains("Tool write not found"), "{sent}");
}

fn expect_failure(v: &Value, out: &Output, code: &str) {
    assert_eq!(out.code, 1, "{v:#}\n{}", out.stderr);
    assert_eq!(v["status"], "failed", "{v:#}");
    assert_eq!(v["error"]["code"], code, "{v:#}");
}

fn http_401_is_auth_error(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::status(401), FAST_FAIL);
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    expect_failure(&v, &out, "AUTH_ERROR");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("401 Incorrect API key"),
        "{v:#}"
    );
    assert_eq!(w.llm.requests().len(), 1, "no retry, no login attempt");
}

fn http_429_is_rate_limit(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::status(429), FAST_FAIL);
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    expect_failure(&v, &out, "RATE_LIMIT");
    assert_eq!(w.llm.requests().len(), 1);
}

fn http_500_fast_fail(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::status(500), FAST_FAIL);
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    expect_failure(&v, &out, "PROVIDER_ERROR");
    assert_eq!(w.llm.requests().len(), 1);
}

/// pi's own agent-level retries (default count 3; delays shortened for the test).
const PI_RETRIES: &str =
    r#"{"retry":{"enabled":true,"baseDelayMs":100,"provider":{"maxRetries":0,"timeoutMs":5000}}}"#;

fn http_500_with_pi_retries(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::status(500), PI_RETRIES);
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    expect_failure(&v, &out, "PROVIDER_ERROR");
    assert_eq!(w.llm.requests().len(), 4, "1 attempt + pi's 3 retries");
    assert!(out.stderr.contains("retry 1/3"), "{}", out.stderr);
}

fn http_500_then_ok_after_pi_retry(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![Reply::status(500)],
        Reply::Text(report_text("second try")),
        PI_RETRIES,
    );
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    assert_eq!(out.code, 0, "{v:#}");
    assert_eq!(v["summary"], "second try");
    assert_eq!(w.llm.requests().len(), 2);
}

fn stall_after_headers_times_out(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::StallAfterHeaders, FAST_FAIL);
    let mut req = w.request("List the files in the work directory and name them");
    req["stallTimeoutMs"] = json!(2000);
    let (out, v) = w.delegate(&req);
    assert_eq!(out.code, 1, "{v:#}");
    assert_eq!(v["status"], "timed_out");
    assert_eq!(v["error"]["code"], "TIMEOUT");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("no event"),
        "{v:#}"
    );
    assert_eq!(
        w.llm.requests().len(),
        1,
        "the stall came after the request reached the server"
    );
    assert!(
        w.leftover_processes().is_empty(),
        "pi's process group was not killed: {:?}",
        w.leftover_processes()
    );
}

fn drop_mid_stream(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::DropMidStream, FAST_FAIL);
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    match generation {
        // 0.73.1 reports the cut as an ordinary stop with the truncated text.
        Gen::Pi073 => {
            assert_eq!(v["status"], "completed", "{v:#}");
            assert_eq!(v["reportParsed"], false);
            assert_eq!(v["summary"], Value::Null, "no invented report");
            assert_eq!(v["finalText"], "Partial");
        }
        // 1.6 reports `Stream ended without finish_reason`.
        Gen::Pi16 => {
            expect_failure(&v, &out, "PROVIDER_ERROR");
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("Stream ended without finish_reason"),
                "{v:#}"
            );
        }
    }
}

fn unknown_model_with_provider(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::ModelNotFound, FAST_FAIL);
    let mut req = w.request("List the files in the work directory and name them");
    req["model"] = json!("nope-model");
    let (out, v) = w.delegate(&req);
    expect_failure(&v, &out, "UNKNOWN_MODEL");
    let disc = v["error"]["discovery"].as_str().expect("discovery ran");
    assert!(
        disc.contains("pi --list-models mock") && disc.contains("mock-model"),
        "{disc}"
    );
}

fn unknown_model_without_provider(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi.clone(),
        vec![],
        Reply::text("unused"),
        FAST_FAIL,
    );
    let mut spec = pwk::delegate::PiRunSpec::new(&w.work, "Say hello");
    spec.model = Some("nope-model".into());
    spec.env = w.spec_env();
    let env = pwk::env::Env {
        pi_bin: Some(pi),
        ..Default::default()
    };
    let o = pwk::delegate::run_pi(&spec, &env, &|_| {});
    let e = o.error.expect("an error");
    assert_eq!(
        e.code,
        pwk::delegate::ErrorCode::UnknownModel,
        "{e:?}\n{}",
        o.stderr
    );
    assert!(!o.started);
    let disc = e.discovery.expect("discovery ran");
    assert!(
        disc.contains("pi --list-models") && disc.contains("mock-model"),
        "{disc}"
    );
    assert!(w.llm.requests().is_empty());
}

fn missing_api_key(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::text("unused"), FAST_FAIL);
    let mut req = w.request("List the files in the work directory and name them");
    req["provider"] = json!("openai");
    req["model"] = json!("gpt-4o-mini");
    let (out, v) = w.delegate(&req);
    expect_failure(&v, &out, "AUTH_ERROR");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("No API key found for openai"),
        "{v:#}"
    );
    assert_eq!(v["executionStarted"], false);
    assert!(w.llm.requests().is_empty());
}

fn continuation_same_and_conflicting_model(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![],
        Reply::Text(report_text("first")),
        FAST_FAIL,
    );
    let (_, first) = w.delegate(&w.request("List the files in the work directory and name them"));
    assert_eq!(first["status"], "completed", "{first:#}");
    let session = first["sessionFile"].as_str().unwrap().to_string();
    let cont = json!({"action": "continue", "taskId": "task-1", "cwd": w.work, "sessionFile": session,
        "objective": "Also give the size of each file you listed", "profile": "readonly"});
    let (out, v) = w.delegate(&cont);
    assert_eq!(out.code, 0, "{v:#}\n{}", out.stderr);
    assert_eq!(v["model"], "mock-model");
    assert_eq!(v["sessionFile"], json!(session));
    assert_eq!(v["sessionId"], first["sessionId"]);
    let reqs = w.llm.requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs[1]
            .to_string()
            .contains("List the files in the work directory"),
        "history replayed"
    );

    let mut conflict = cont.clone();
    conflict["provider"] = json!("mock");
    conflict["model"] = json!("mock-reasoner");
    let (out, v) = w.delegate(&conflict);
    assert_eq!(out.code, 1);
    assert_eq!(v["status"], "blocked");
    assert_eq!(v["error"]["code"], "NEEDS_DECISION");
    assert!(
        v["decisionNeeded"].as_str().unwrap().contains("mock-model"),
        "{v:#}"
    );
    assert_eq!(w.llm.requests().len(), 2, "nothing launched");

    let other = w.env.path("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    let mut moved = cont.clone();
    moved["cwd"] = json!(other);
    let (_, v) = w.delegate(&moved);
    assert_eq!(v["status"], "blocked", "{v:#}");
    assert_eq!(v["validationErrors"][0]["field"], "cwd");
}

const NASTY: &str = "Explain what `rm -rf $(pwd)` and $HOME would do in scripts/x.sh, \"quoted\" 'single' \\backslash\nsecond line: naïve café 日本語 🚀 — done";

fn task_text_arrives_verbatim(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![],
        Reply::Text(report_text("explained")),
        FAST_FAIL,
    );
    let mut req = w.request(NASTY);
    req["scope"] = json!(["scripts/x.sh (the `$(…)` part)"]);
    req["constraints"] = json!(["Do not run `$(anything)`"]);
    let (_, v) = w.delegate(&req);
    assert_eq!(v["status"], "completed", "{v:#}");
    let texts = w.llm.user_texts();
    assert!(
        texts[0].contains(NASTY),
        "objective changed on the way:\n{}",
        texts[0]
    );
    assert!(texts[0].contains("scripts/x.sh (the `$(…)` part)"));
    assert!(texts[0].contains("Do not run `$(anything)`"));
}

fn prompt_starting_with_dash_or_at(generation: Gen, pi: PathBuf) {
    for prompt in [
        "-x --help $(id) `id` \"q\"\nline 2 ünïcødé",
        "@hello.txt is not a file reference $(id)",
    ] {
        let w = World::new(generation, pi.clone(), vec![], Reply::text("ok"), FAST_FAIL);
        let mut spec = pwk::delegate::PiRunSpec::new(&w.work, prompt);
        spec.provider = Some("mock".into());
        spec.model = Some("mock-model".into());
        spec.env = w.spec_env();
        let env = pwk::env::Env {
            pi_bin: Some(pi.clone()),
            ..Default::default()
        };
        let o = pwk::delegate::run_pi(&spec, &env, &|_| {});
        assert_eq!(
            o.status,
            pwk::delegate::RunStatus::Completed,
            "{:?}\n{}",
            o.error,
            o.stderr
        );
        assert_eq!(w.llm.user_texts(), [prompt.to_string()]);
    }
}

fn length_and_content_filter(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi.clone(),
        vec![],
        Reply::Length("cut short".into()),
        FAST_FAIL,
    );
    let (_, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    assert_eq!(v["status"], "completed", "{v:#}");
    assert_eq!(v["stopReason"], "length");
    assert_eq!(v["reportParsed"], false);
    assert!(v["warnings"].to_string().contains("output limit"), "{v:#}");
    let w = World::new(
        generation,
        pi,
        vec![],
        Reply::ContentFilter("blocked".into()),
        FAST_FAIL,
    );
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    expect_failure(&v, &out, "PROVIDER_ERROR");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("content_filter"),
        "{v:#}"
    );
}

/// `--exclude-tools` exists only in pi 1.6: 0.73.1 rejects it before starting, and the
/// runner then consults `pi --help` (capability discovery, not a version check).
fn unsupported_option_consults_help(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi.clone(), vec![], Reply::text("ok"), FAST_FAIL);
    let mut spec = pwk::delegate::PiRunSpec::new(&w.work, "Say hello");
    spec.provider = Some("mock".into());
    spec.model = Some("mock-model".into());
    spec.extra_args = vec!["--exclude-tools".into(), "bash".into()];
    spec.env = w.spec_env();
    let env = pwk::env::Env {
        pi_bin: Some(pi),
        ..Default::default()
    };
    let o = pwk::delegate::run_pi(&spec, &env, &|_| {});
    match generation {
        Gen::Pi073 => {
            let e = o.error.expect("rejected");
            assert_eq!(e.code, pwk::delegate::ErrorCode::UnsupportedOption, "{e:?}");
            assert!(!o.started);
            let d = e.discovery.expect("pi --help consulted");
            assert!(
                d.contains("--exclude-tools is not listed by `pi --help`"),
                "{d}"
            );
            assert!(d.contains("--tools"), "{d}");
            assert!(w.llm.requests().is_empty());
        }
        Gen::Pi16 => {
            assert_eq!(
                o.status,
                pwk::delegate::RunStatus::Completed,
                "{:?}",
                o.error
            );
            let tools = w.llm.requests()[0]["tools"].to_string();
            assert!(!tools.contains("\"bash\""), "{tools}");
        }
    }
}

fn unknown_provider(generation: Gen, pi: PathBuf) {
    let w = World::new(generation, pi, vec![], Reply::text("unused"), FAST_FAIL);
    let mut req = w.request("List the files in the work directory and name them");
    req["provider"] = json!("nosuchprovider");
    let (out, v) = w.delegate(&req);
    expect_failure(&v, &out, "UNKNOWN_MODEL");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nosuchprovider"),
        "{v:#}"
    );
    let disc = v["error"]["discovery"].as_str().expect("discovery ran");
    assert!(disc.contains("mock-model"), "{disc}");
    assert!(w.llm.requests().is_empty());
}
