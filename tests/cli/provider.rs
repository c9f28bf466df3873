//! `pwk capabilities`, `coverage`, `run-request`, `recon` and `review`.
//!
//! The end-to-end tests drive the real pi (both generations: `PWK_TEST_PI073`,
//! `PWK_TEST_PI16`, else `.pi-test/bin/*` when provisioned) against [`RoutedLlm`], a
//! fake OpenAI-compatible server that answers each role according to a marker in its
//! system prompt (the role body comes from a project-layer role file in the test's
//! temp project) and records what arrived and how many requests were in flight.
//! A missing pi is skipped visibly ([`crate::support::tools`]), a failure under CI.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::tools::pis;
use crate::support::{Output, TestEnv, run, run_with_stdin};

// ---------------------------------------------------------------------------
// The shared fake LLM (support/fake_llm.rs), routing by a marker in the system prompt.

pub(crate) mod routed {
    use serde_json::Value;

    pub use crate::support::fake_llm::text_of;
    use crate::support::fake_llm::{self, FakeLlm, Reply};

    /// How one role's model behaves.
    #[derive(Debug, Clone)]
    pub enum Act {
        /// Answer with this text.
        Text(String),
        /// Send headers and a partial chunk, then stall until the client goes away.
        Stall,
        /// The k-th request of the conversation (counted by tool results so far)
        /// calls the k-th tool; after the last one, answer `text`.
        Tools(Vec<(String, String)>, String),
        /// Call `ls` until a user message says "turn limit", then answer `text`.
        LoopUntilSteered(String),
        /// Wait this long (ms), then answer `text`.
        Delay(u64, String),
        /// `Reply::ls_for_ever(fast, ms)`, the k-th request of the conversation
        /// counted by tool results so far.
        LoopSlowingAfter(usize, u64),
    }

    impl Act {
        fn reply(&self, body: &Value) -> Reply {
            match self {
                Act::Text(t) => Reply::text(t),
                Act::Stall => Reply::StallAfterHeaders,
                Act::Tools(calls, t) => match calls.get(fake_llm::tool_results(body)) {
                    Some((name, args)) => Reply::tool(name, args),
                    None => Reply::text(t),
                },
                Act::LoopUntilSteered(t) => {
                    if fake_llm::texts_of(body, &["user"]).contains("turn limit") {
                        Reply::text(t)
                    } else {
                        Reply::tool("ls", r#"{"path":"."}"#)
                    }
                }
                Act::Delay(ms, t) => Reply::Delayed(*ms, Box::new(Reply::text(t))),
                Act::LoopSlowingAfter(fast, ms) => {
                    let (script, then) = Reply::ls_for_ever(*fast, *ms);
                    script
                        .get(fake_llm::tool_results(body))
                        .cloned()
                        .unwrap_or(then)
                }
            }
        }
    }

    /// The route (marker) a request belongs to: the first marker in its system prompt.
    fn route<'a>(routes: &'a [(String, Act)], body: &Value) -> Option<&'a (String, Act)> {
        let system = fake_llm::system_text(body);
        routes.iter().find(|(m, _)| system.contains(m.as_str()))
    }

    pub struct RoutedLlm {
        llm: FakeLlm,
        routes: Vec<(String, Act)>,
    }

    impl RoutedLlm {
        /// `routes`: (marker in the system prompt, behaviour). Unrouted: "No findings".
        pub fn start(routes: Vec<(&str, Act)>) -> RoutedLlm {
            let routes: Vec<(String, Act)> = routes
                .into_iter()
                .map(|(m, a)| (m.to_string(), a))
                .collect();
            let table = routes.clone();
            let llm = FakeLlm::responding(Box::new(move |body| match route(&table, body) {
                Some((_, act)) => act.reply(body),
                None => Reply::text("No findings"),
            }));
            RoutedLlm { llm, routes }
        }

        pub fn base_url(&self) -> String {
            self.llm.base_url()
        }

        /// Every chat request body so far.
        pub fn requests(&self) -> Vec<Value> {
            self.llm.requests()
        }

        /// The chat request bodies of one route.
        pub fn requests_for(&self, marker: &str) -> Vec<Value> {
            self.requests()
                .into_iter()
                .filter(|b| route(&self.routes, b).is_some_and(|(m, _)| m == marker))
                .collect()
        }

        /// The most chat requests that were open at the same time.
        pub fn peak_in_flight(&self) -> usize {
            self.llm.peak_in_flight()
        }
    }
}

pub(crate) use routed::{Act, RoutedLlm};

// ---------------------------------------------------------------------------
// Helpers.

/// A temp project with `.git`, an agent dir pointing pi at `llm`, and role files.
pub(crate) fn project(llm: &RoutedLlm) -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.write(
        "agent/models.json",
        json!({"providers": {"mock": {"baseUrl": llm.base_url(), "api": "openai-completions", "apiKey": "mock-key",
            "models": [{"id": "mock-model"}, {"id": "mock-small"}]}}})
        .to_string(),
    );
    env.write(
        "agent/settings.json",
        r#"{"defaultProvider":"mock","defaultModel":"mock-model","retry":{"enabled":false,"provider":{"maxRetries":0,"timeoutMs":30000}}}"#,
    );
    env.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    env.write(
        "packet.md",
        "## Requirement 1\nanswer() returns 42.\n\nChanged files: src/lib.rs\n",
    );
    env
}

/// A project-layer role file whose body carries `marker` (the fake routes on it).
pub(crate) fn role_file(env: &TestEnv, role: &str, extra_frontmatter: &str, marker: &str) {
    env.write(
        &format!(".agents/agents/{role}.md"),
        format!(
            "---\nname: {role}\ndescription: Test role {marker}.\ntools: read, grep, find, ls\n{extra_frontmatter}---\n# Test role\n\n{marker}\n\nRead-only reporter.\n"
        ),
    );
}

pub(crate) fn pwk_on(env: &TestEnv, pi: &PathBuf) -> Command {
    let mut cmd = env.pwk();
    cmd.env("PWK_PI_BIN", pi)
        .env("PI_CODING_AGENT_DIR", env.path("agent"))
        .env("PI_OFFLINE", "1")
        .env("NODE_COMPILE_CACHE", env.path("node-cache"));
    cmd
}

fn json_out(out: &Output) -> Value {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\n{}", out.stdout, out.stderr))
}

fn statuses(doc: &Value) -> Vec<(String, String)> {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["role"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub(crate) const SPEC_REPORT: &str =
    "| R# | Verdict | Evidence |\n|---|---|---|\n| R1 | covered | src/lib.rs:1 |\n";
const SCOUT_REPORT: &str = "### Relevant files\n- src/lib.rs:1 — the answer\n\n### Existing patterns\n- none\n\n### Call sites\n- none\n\n### Test layout\n- none\n\n### Gotchas\n- none\n\nScout: complete\n";

pub(crate) fn hazard_report() -> String {
    (1..=7)
        .map(|n| format!("{n}. item — [SAFE] src/lib.rs:1 is constant\n"))
        .collect()
}

// ---------------------------------------------------------------------------
// No pi needed.

#[test]
fn capabilities_json_claims_the_seven_with_notes() {
    let env = TestEnv::new();
    let out = run(env.pwk().arg("capabilities"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = json_out(&out);
    assert_eq!(v["version"], 1);
    assert_eq!(v["provider"], "pwk");
    let caps = v["capabilities"].as_array().unwrap();
    assert_eq!(caps.len(), 7);
    for c in caps {
        assert!(
            v["notes"][c.as_str().unwrap()]
                .as_str()
                .is_some_and(|s| s.len() > 20),
            "{c}"
        );
    }
    let human = run(env.pwk().args(["capabilities", "--format", "human"]));
    assert_eq!(human.code, 0);
    assert!(human.stdout.contains("read-only-enforcement"));
    assert!(human.stdout.contains("--tools read,grep,find,ls"));
}

#[test]
fn coverage_over_stdin() {
    let env = TestEnv::new();
    let complete = json!({"required": ["a", "b"], "outcomes": [
        {"role": "a", "status": "completed", "report": "A"},
        {"role": "b", "status": "completed", "report": "B"}]});
    let out = run_with_stdin(env.pwk().arg("coverage"), complete.to_string().as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(json_out(&out)["complete"], true);

    let partial = json!({"required": ["a", "b", "c", "d"], "outcomes": [
        {"role": "a", "status": "completed", "report": "A"},
        {"role": "b", "status": "completed", "report": ""},
        {"role": "c", "status": "timed-out", "error": "slow"}]});
    let out = run_with_stdin(env.pwk().arg("coverage"), partial.to_string().as_bytes());
    assert_eq!(out.code, 1);
    assert_eq!(
        json_out(&out),
        json!({"version": 1, "complete": false, "missing": ["b", "c", "d"], "retained": [{"role": "a", "report": "A"}]})
    );

    let out = run_with_stdin(env.pwk().arg("coverage"), b"{\"required\": [");
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("stdin:1:14: not valid JSON: EOF while parsing a list"),
        "{}",
        out.stderr
    );
    // One JSON document on stdout too, the position said once.
    let v = json_out(&out);
    assert_eq!(v["complete"], false);
    assert_eq!(v["error"]["code"], "INVALID_REQUEST");
    assert_eq!(
        (v["error"]["line"].as_u64(), v["error"]["column"].as_u64()),
        (Some(1), Some(14))
    );
    assert_eq!(v["error"]["message"].to_string().matches("1:14").count(), 1);

    let wrong = br#"{"required":["a"],"outcomes":[{"role":"a","status":"timed_out"}]}"#;
    let out = run_with_stdin(env.pwk().arg("coverage"), wrong);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("timed-out"), "{}", out.stderr);
}

fn request(env: &TestEnv, operation: &str, roles: &[&str]) -> Value {
    json!({"operation": operation, "roles": roles, "prompt": "Review the packet in packet.md.",
           "cwd": env.root().display().to_string(),
           "constraints": {"readOnly": true, "freshContext": true, "parallel": true, "bounded": true}})
}

#[test]
fn run_request_refusals_exit_1_with_the_reason() {
    let env = TestEnv::new();
    let cases: Vec<(Value, &str)> = vec![
        (
            request(
                &env,
                "feature-review",
                &["pwk-spec-reviewer", "pwk-nope-reviewer"],
            ),
            "not a logical PWK role",
        ),
        (
            request(&env, "codebase-recon", &["pwk-spec-reviewer"]),
            "exactly one role",
        ),
        (
            request(&env, "feature-review", &[]),
            "at least one reviewer",
        ),
        (
            request(&env, "deploy", &["pwk-spec-reviewer"]),
            "not supported",
        ),
        (
            {
                let mut r = request(&env, "feature-review", &["pwk-spec-reviewer"]);
                r["constraints"]["readOnly"] = json!(false);
                r
            },
            "constraints.readOnly is false",
        ),
        (
            {
                let mut r = request(&env, "feature-review", &["pwk-spec-reviewer"]);
                r["cwd"] = json!("relative/path");
                r
            },
            "not absolute",
        ),
    ];
    for (req, why) in cases {
        // No pi anywhere: a refusal must not need it.
        let out = run_with_stdin(
            env.pwk()
                .arg("run-request")
                .env("PWK_PI_BIN", "/nonexistent/pi"),
            req.to_string().as_bytes(),
        );
        assert_eq!(out.code, 1, "{why}: {}", out.stderr);
        let v = json_out(&out);
        assert!(
            v["refused"]["reason"].as_str().unwrap().contains(why),
            "{why}: {v}"
        );
        assert_eq!(v["results"], json!([]));
        assert_eq!(v["coverage"]["complete"], false);
        assert!(out.stderr.contains("fall back inline"), "{}", out.stderr);
    }
}

#[test]
fn run_request_input_that_is_not_a_json_object_exits_2() {
    let env = TestEnv::new();
    for (input, msg) in [
        (
            &b"{\"operation\": \n oops"[..],
            "stdin:2:2: not valid JSON: expected value",
        ),
        (b"[]", "not an object"),
        (b"", "stdin:1:1: not valid JSON"),
        (
            br#"{"operation":"feature-review","operation":"codebase-recon"}"#,
            "stdin:1:31: duplicate key \"operation\" (first at 1:2)",
        ),
    ] {
        let out = run_with_stdin(env.pwk().arg("run-request"), input);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(out.stderr.contains(msg), "{msg}: {}", out.stderr);
        // Exactly one JSON document on stdout, with the located error.
        let v = json_out(&out);
        assert_eq!(v["results"], json!([]), "{v}");
        assert_eq!(v["error"]["code"], "INVALID_REQUEST");
        assert!(v["error"]["message"].as_str().unwrap().contains(msg), "{v}");
    }
}

#[test]
fn review_usage_errors_exit_2() {
    let env = TestEnv::new();
    env.write("packet.md", "diff\n");
    for (args, want) in [
        (
            &["--roles", "spec,scout", "--packet", "packet.md"][..],
            "\"scout\" is not a reviewer role",
        ),
        (&["--roles", "spec,spec", "--packet", "packet.md"], "twice"),
        (&["--packet", "missing.md"], "missing.md does not exist"),
        (
            &["--packet", "packet.md", "--max-parallel", "0"],
            "--max-parallel must be at least 1",
        ),
        (
            &["--packet", "packet.md", "--stall-timeout", "soon"],
            "--stall-timeout",
        ),
    ] {
        let out = run(env.pwk().arg("review").args(args));
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(want), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn recon_without_pi_fails_the_scout_and_prints_the_fallback_line() {
    let env = TestEnv::new();
    let out = run(env
        .pwk()
        .args(["recon", "--topic", "sessions", "--intent", "add expiry"])
        .env("PWK_PI_BIN", env.path("no-pi")));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stdout.contains("pwk-recon-scout: failed"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("PI_NOT_FOUND"), "{}", out.stdout);
    assert!(
        out.stdout
            .trim_end()
            .ends_with("Scout: unavailable — inline recon used."),
        "{}",
        out.stdout
    );
    let out = run(env
        .pwk()
        .args(["recon", "--topic", "s", "--intent", "i", "--format", "json"])
        .env("PWK_PI_BIN", env.path("no-pi")));
    let v = json_out(&out);
    assert_eq!(v["results"][0]["status"], "failed");
    assert!(
        v["results"][0]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "fallback: Scout: unavailable — inline recon used.")
    );
}

// ---------------------------------------------------------------------------
// End to end on the real pi.

#[test]
fn four_reviewers_in_parallel_with_a_timeout_an_empty_report_and_an_unresolvable_hint() {
    for (name, pi) in pis() {
        let llm = RoutedLlm::start(vec![
            ("ROUTE-SPEC", Act::Text(SPEC_REPORT.into())),
            ("ROUTE-TRACING", Act::Stall),
            ("ROUTE-SMELL", Act::Text(String::new())),
            ("ROUTE-HAZARD", Act::Text(hazard_report())),
        ]);
        let env = project(&llm);
        role_file(&env, "pwk-spec-reviewer", "max_turns: 10\n", "ROUTE-SPEC");
        role_file(
            &env,
            "pwk-tracing-reviewer",
            "max_turns: 10\n",
            "ROUTE-TRACING",
        );
        role_file(
            &env,
            "pwk-smell-reviewer",
            "max_turns: 10\nmodel: mock/mock-small\n",
            "ROUTE-SMELL",
        );
        role_file(
            &env,
            "pwk-hazard-reviewer",
            "max_turns: 10\nmodel: nowhere/fast-model\n",
            "ROUTE-HAZARD",
        );
        let out = run(pwk_on(&env, &pi).args([
            "review",
            "--roles",
            "spec,tracing,smell,hazard",
            "--packet",
            "packet.md",
            "--timeout",
            "30",
            "--format",
            "json",
        ]));
        assert_eq!(out.code, 1, "{name}: {}\n{}", out.stdout, out.stderr);
        let v = json_out(&out);
        assert_eq!(
            statuses(&v),
            [
                ("pwk-spec-reviewer".into(), "completed".into()),
                ("pwk-tracing-reviewer".into(), "timed-out".into()),
                ("pwk-smell-reviewer".into(), "failed".into()),
                ("pwk-hazard-reviewer".into(), "completed".into()),
            ],
            "{name}: {v:#}\n{}",
            out.stderr
        );
        let r = &v["results"];
        assert!(
            r[1]["error"]
                .as_str()
                .unwrap()
                .contains("did not finish within 30 s"),
            "{name}: {}",
            r[1]
        );
        assert_eq!(
            r[2]["error"], "the role ended with an empty report",
            "{name}"
        );
        let hazard_notes = r[3]["notes"].to_string();
        assert!(
            hazard_notes.contains("nowhere/fast-model") && hazard_notes.contains("default model"),
            "{name}: {hazard_notes}"
        );
        assert_eq!(r[3]["model"], "mock/mock-model", "{name}");
        for res in r.as_array().unwrap() {
            assert_eq!(res["provider"], "pwk");
            assert!(
                res["runId"].as_str().is_some_and(|s| !s.is_empty()),
                "{name}: {res}"
            );
        }
        assert_eq!(v["coverage"]["complete"], false);
        assert_eq!(
            v["coverage"]["missing"],
            json!(["pwk-tracing-reviewer", "pwk-smell-reviewer"]),
            "{name}"
        );
        assert_eq!(
            v["coverage"]["retained"],
            json!([{"role": "pwk-spec-reviewer", "report": SPEC_REPORT}, {"role": "pwk-hazard-reviewer", "report": hazard_report()}]),
            "{name}"
        );
        // The resolvable hint reached the model; the unresolvable one ran on the default.
        assert!(
            llm.requests_for("ROUTE-SMELL")
                .iter()
                .all(|b| b["model"] == "mock-small"),
            "{name}"
        );
        assert!(
            llm.requests_for("ROUTE-HAZARD")
                .iter()
                .all(|b| b["model"] == "mock-model"),
            "{name}"
        );
        // (Overlap itself is proven by the_concurrency_cap_is_observed, with slow replies.)
        // Progress on stderr: plain lines when not a terminal.
        assert!(
            out.stderr.contains("pwk-tracing-reviewer  timed-out"),
            "{name}: {}",
            out.stderr
        );
    }
}

#[test]
fn read_only_is_enforced_by_pi_not_by_the_prompt() {
    for (name, pi) in pis() {
        let llm = RoutedLlm::start(vec![(
            "ROUTE-SMELL",
            Act::Tools(
                vec![
                    (
                        "write".into(),
                        r#"{"path":"pwned.txt","content":"x"}"#.into(),
                    ),
                    (
                        "bash".into(),
                        r#"{"command":"touch pwned-by-bash.txt"}"#.into(),
                    ),
                    (
                        "edit".into(),
                        r#"{"path":"src/lib.rs","edits":[{"oldText":"42","newText":"0"}]}"#.into(),
                    ),
                ],
                "No findings".into(),
            ),
        )]);
        let env = project(&llm);
        env.write(
            ".agents/agents/pwk-smell-reviewer.md",
            "---\nname: pwk-smell-reviewer\ndescription: d\ntools: read, write, edit, bash\n---\n# Test\n\nROUTE-SMELL\n",
        );
        let req = request(&env, "feature-review", &["pwk-smell-reviewer"]);
        let out = run_with_stdin(
            pwk_on(&env, &pi).arg("run-request"),
            req.to_string().as_bytes(),
        );
        assert_eq!(out.code, 0, "{name}: {}\n{}", out.stdout, out.stderr);
        let v = json_out(&out);
        assert_eq!(v["results"][0]["status"], "completed", "{name}: {v:#}");
        assert!(
            v["results"][0]["notes"]
                .to_string()
                .contains("removed tool(s) write, edit, bash"),
            "{name}: {v:#}"
        );
        let reqs = llm.requests_for("ROUTE-SMELL");
        assert_eq!(reqs.len(), 4, "{name}");
        let offered: Vec<&str> = reqs[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(offered, ["read"], "{name}");
        for (i, tool) in ["write", "bash", "edit"].iter().enumerate() {
            let last = reqs[i + 1]["messages"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()
                .clone();
            let text = routed::text_of(&last["content"]);
            assert!(
                text.contains(&format!("Tool {tool} not found")),
                "{name}: {last}"
            );
        }
        assert!(
            !env.path("pwned.txt").exists() && !env.path("pwned-by-bash.txt").exists(),
            "{name}"
        );
        assert_eq!(
            env.read("src/lib.rs"),
            "pub fn answer() -> u32 { 42 }\n",
            "{name}"
        );
    }
}

#[test]
fn the_concurrency_cap_is_observed() {
    for (name, pi) in pis() {
        let routes = ["ROUTE-SPEC", "ROUTE-TRACING", "ROUTE-SMELL", "ROUTE-HAZARD"];
        let texts = [
            SPEC_REPORT.to_string(),
            "No findings".into(),
            "No findings".into(),
            hazard_report(),
        ];
        for (cap, parallel_flag) in [(2usize, Some("2")), (1, None)] {
            let llm = RoutedLlm::start(
                routes
                    .iter()
                    .zip(&texts)
                    .map(|(r, t)| (*r, Act::Delay(3000, t.clone())))
                    .collect(),
            );
            let env = project(&llm);
            for (role, marker) in [
                "pwk-spec-reviewer",
                "pwk-tracing-reviewer",
                "pwk-smell-reviewer",
                "pwk-hazard-reviewer",
            ]
            .iter()
            .zip(routes)
            {
                role_file(&env, role, "max_turns: 5\n", marker);
            }
            let mut req = request(
                &env,
                "feature-review",
                &[
                    "pwk-spec-reviewer",
                    "pwk-tracing-reviewer",
                    "pwk-smell-reviewer",
                    "pwk-hazard-reviewer",
                ],
            );
            let mut cmd = pwk_on(&env, &pi);
            cmd.arg("run-request");
            match parallel_flag {
                Some(n) => {
                    cmd.args(["--max-parallel", n]);
                }
                None => req["constraints"]["parallel"] = json!(false),
            }
            let out = run_with_stdin(&mut cmd, req.to_string().as_bytes());
            assert_eq!(
                out.code, 0,
                "{name} cap {cap}: {}\n{}",
                out.stdout, out.stderr
            );
            assert_eq!(llm.requests().len(), 4);
            assert!(
                llm.peak_in_flight() <= cap,
                "{name}: peak {} over cap {cap}",
                llm.peak_in_flight()
            );
            if cap == 2 {
                assert_eq!(
                    llm.peak_in_flight(),
                    2,
                    "{name}: two roles should overlap under cap 2"
                );
            }
        }
    }
}

#[test]
fn the_turn_budget_steers_the_role_to_report_over_rpc_and_stops_it_over_json() {
    for (name, pi) in pis() {
        let llm = RoutedLlm::start(vec![(
            "ROUTE-SMELL",
            Act::LoopUntilSteered("No findings (wrapped up)".into()),
        )]);
        let env = project(&llm);
        role_file(&env, "pwk-smell-reviewer", "max_turns: 2\n", "ROUTE-SMELL");
        let req = request(&env, "feature-review", &["pwk-smell-reviewer"]);
        let out = run_with_stdin(
            pwk_on(&env, &pi).arg("run-request"),
            req.to_string().as_bytes(),
        );
        assert_eq!(out.code, 0, "{name}: {}\n{}", out.stdout, out.stderr);
        let v = json_out(&out);
        let r = &v["results"][0];
        assert_eq!(r["status"], "completed", "{name}: {r:#}");
        assert_eq!(r["report"], "No findings (wrapped up)");
        assert_eq!(r["turns"], 3, "{name}: budget 2 + the wrap-up turn: {r:#}");
        assert!(r["notes"].to_string().contains("steered"), "{name}: {r:#}");
        let steer_seen = llm.requests_for("ROUTE-SMELL").iter().any(|b| {
            b["messages"].as_array().unwrap().iter().any(|m| {
                routed::text_of(&m["content"]).contains("You have reached your turn limit")
            })
        });
        assert!(
            steer_seen,
            "{name}: the steer message never reached the model"
        );

        let llm2 = RoutedLlm::start(vec![("ROUTE-SMELL", Act::LoopUntilSteered("never".into()))]);
        let env2 = project(&llm2);
        role_file(&env2, "pwk-smell-reviewer", "max_turns: 2\n", "ROUTE-SMELL");
        let req2 = request(&env2, "feature-review", &["pwk-smell-reviewer"]);
        let out = run_with_stdin(
            pwk_on(&env2, &pi).args(["run-request", "--transport", "json"]),
            req2.to_string().as_bytes(),
        );
        assert_eq!(out.code, 1, "{name}: {}\n{}", out.stdout, out.stderr);
        let v = json_out(&out);
        assert_eq!(v["results"][0]["status"], "failed", "{name}: {v:#}");
        assert_eq!(
            v["results"][0]["error"], "turn budget reached before a report",
            "{name}: {v:#}"
        );
    }
}

#[test]
fn a_stalled_model_stream_times_the_role_out_on_both_transports() {
    for (name, pi) in pis() {
        for transport in ["rpc", "json"] {
            let llm = RoutedLlm::start(vec![("ROUTE-SMELL", Act::Stall)]);
            let env = project(&llm);
            role_file(&env, "pwk-smell-reviewer", "max_turns: 5\n", "ROUTE-SMELL");
            let req = request(&env, "feature-review", &["pwk-smell-reviewer"]);
            let started = std::time::Instant::now();
            let out = run_with_stdin(
                pwk_on(&env, &pi).args([
                    "run-request",
                    "--transport",
                    transport,
                    "--timeout",
                    "120",
                    "--stall-timeout",
                    "2",
                ]),
                req.to_string().as_bytes(),
            );
            let took = started.elapsed();
            assert_eq!(
                out.code, 1,
                "{name}/{transport}: {}\n{}",
                out.stdout, out.stderr
            );
            let r = &json_out(&out)["results"][0];
            assert_eq!(r["status"], "timed-out", "{name}/{transport}: {r:#}");
            let error = r["error"].as_str().unwrap_or_default();
            assert!(
                error.contains("no event from pi for 2 s") && error.contains("stalled stream"),
                "{name}/{transport}: {error}"
            );
            // Stopped by the watchdog, long before the 120 s wall clock.
            assert!(
                took < std::time::Duration::from_secs(60),
                "{name}/{transport}: took {took:?}"
            );
            assert_eq!(
                llm.requests_for("ROUTE-SMELL").len(),
                1,
                "{name}/{transport}"
            );
        }
    }
}

#[test]
fn recon_runs_the_scout_and_checks_its_five_sections() {
    for (name, pi) in pis() {
        let llm = RoutedLlm::start(vec![("ROUTE-SCOUT", Act::Text(SCOUT_REPORT.into()))]);
        let env = project(&llm);
        role_file(&env, "pwk-recon-scout", "", "ROUTE-SCOUT");
        let out = run(pwk_on(&env, &pi).args([
            "recon",
            "--topic",
            "the answer",
            "--intent",
            "make it configurable",
        ]));
        assert_eq!(out.code, 0, "{name}: {}\n{}", out.stdout, out.stderr);
        assert!(
            out.stdout.contains("pwk-recon-scout: completed"),
            "{name}: {}",
            out.stdout
        );
        assert!(out.stdout.contains("Scout: complete"));
        assert!(
            out.stdout
                .contains("Coverage: complete (1/1 roles reported).")
        );
        let user = routed::text_of(
            &llm.requests_for("ROUTE-SCOUT")[0]["messages"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()["content"],
        );
        assert!(
            user.contains("<topic>\nthe answer\n</topic>")
                && user.contains("<intent>\nmake it configurable\n</intent>"),
            "{user}"
        );

        let llm2 = RoutedLlm::start(vec![(
            "ROUTE-SCOUT",
            Act::Text("Nothing to map.\n\nScout: unavailable — empty repository".into()),
        )]);
        let env2 = project(&llm2);
        role_file(&env2, "pwk-recon-scout", "", "ROUTE-SCOUT");
        let out = run(pwk_on(&env2, &pi).args(["recon", "--topic", "t", "--intent", "i"]));
        assert_eq!(out.code, 1, "{name}: {}", out.stdout);
        assert!(
            out.stdout
                .contains("the scout reported itself unavailable: empty repository"),
            "{}",
            out.stdout
        );
        assert!(
            out.stdout
                .trim_end()
                .ends_with("Scout: unavailable — inline recon used."),
            "{}",
            out.stdout
        );
    }
}

// ---------------------------------------------------------------------------
// Rendered output.

#[test]
fn capabilities_human_output() {
    let env = TestEnv::new();
    let out = run(env.pwk().args(["capabilities", "--format", "human"]));
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn refused_request_document() {
    let env = TestEnv::new();
    let mut req = request(
        &env,
        "feature-review",
        &["pwk-spec-reviewer", "pwk-spec-reviewer"],
    );
    req["constraints"]["bounded"] = json!(false);
    let out = run_with_stdin(env.pwk().arg("run-request"), req.to_string().as_bytes());
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn six_field_result_schema_is_checked_end_to_end() {
    let six = "conclusion: bounded result\nevidence: src/lib.rs:1 returns 42\nfiles_and_lines: src/lib.rs:1\n\
tests_or_checks: none ran (read-only review)\nrisks: none\nrecommended_parent_action: merge\n";
    for (name, pi) in pis() {
        let llm = RoutedLlm::start(vec![
            ("ROUTE-SMELL", Act::Text(six.into())),
            (
                "ROUTE-HAZARD",
                Act::Text(format!("Conclusion: x\n{six}model: mock\n")),
            ),
        ]);
        let env = project(&llm);
        role_file(&env, "pwk-smell-reviewer", "", "ROUTE-SMELL");
        role_file(&env, "pwk-hazard-reviewer", "", "ROUTE-HAZARD");
        let req = request(
            &env,
            "feature-review",
            &["pwk-smell-reviewer", "pwk-hazard-reviewer"],
        );
        let out = run_with_stdin(
            pwk_on(&env, &pi).args(["run-request", "--result-schema", "six-field"]),
            req.to_string().as_bytes(),
        );
        assert_eq!(out.code, 1, "{name}: {}\n{}", out.stdout, out.stderr);
        let v = json_out(&out);
        assert_eq!(v["results"][0]["status"], "completed", "{name}: {v:#}");
        assert_eq!(v["results"][1]["status"], "failed", "{name}: {v:#}");
        let err = v["results"][1]["error"].as_str().unwrap();
        assert!(
            err.contains("six-field result schema")
                && err.contains("\"Conclusion\"")
                && err.contains("\"model\""),
            "{err}"
        );
        // The prompt asked for the schema.
        let user = routed::text_of(
            &llm.requests_for("ROUTE-SMELL")[0]["messages"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()["content"],
        );
        assert!(user.contains("recommended_parent_action:"), "{user}");
    }
}

#[test]
fn a_pi_that_dies_at_startup_fails_each_role_with_its_words() {
    let env = TestEnv::new();
    env.write("packet.md", "## Requirement 1\nX\n");
    let fake = env.executable(
        "bin/pi",
        "#!/bin/sh\necho 'Error: something broke at startup' >&2\nexit 1\n",
    );
    for transport in ["rpc", "json"] {
        let out = run(env
            .pwk()
            .args([
                "review",
                "--roles",
                "smell,hazard",
                "--packet",
                "packet.md",
                "--format",
                "json",
                "--transport",
                transport,
            ])
            .env("PWK_PI_BIN", &fake));
        assert_eq!(out.code, 1, "{transport}: {}", out.stderr);
        let v = json_out(&out);
        for r in v["results"].as_array().unwrap() {
            assert_eq!(r["status"], "failed", "{transport}: {r}");
            assert!(
                r["error"]
                    .as_str()
                    .unwrap()
                    .contains("something broke at startup"),
                "{transport}: {r}"
            );
        }
        assert_eq!(
            v["coverage"]["missing"],
            json!(["pwk-smell-reviewer", "pwk-hazard-reviewer"])
        );
    }
}

#[test]
fn sigint_stops_the_running_role_skips_the_rest_and_still_reports() {
    use std::process::Stdio;
    for (name, pi) in pis() {
        let llm = RoutedLlm::start(vec![
            ("ROUTE-SMELL", Act::Stall),
            ("ROUTE-HAZARD", Act::Text(hazard_report())),
        ]);
        let env = project(&llm);
        role_file(&env, "pwk-smell-reviewer", "", "ROUTE-SMELL");
        role_file(&env, "pwk-hazard-reviewer", "", "ROUTE-HAZARD");
        let child = pwk_on(&env, &pi)
            .args([
                "review",
                "--roles",
                "smell,hazard",
                "--packet",
                "packet.md",
                "--max-parallel",
                "1",
                "--format",
                "json",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t0 = std::time::Instant::now();
        while llm.requests().is_empty() && t0.elapsed() < std::time::Duration::from_secs(60) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert_eq!(
            llm.requests().len(),
            1,
            "{name}: the first role never reached the model"
        );
        let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            statuses(&v),
            [
                ("pwk-smell-reviewer".into(), "failed".into()),
                ("pwk-hazard-reviewer".into(), "skipped".into())
            ],
            "{name}: {v:#}"
        );
        assert!(
            v["results"][0]["error"]
                .as_str()
                .unwrap()
                .contains("pwk received SIGINT"),
            "{name}: {v:#}"
        );
        assert_eq!(v["results"][1]["error"], "not started: pwk received SIGINT");
        assert_eq!(
            llm.requests().len(),
            1,
            "{name}: the skipped role must not run"
        );
    }
}
