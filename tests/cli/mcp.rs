//! `pwk mcp` end to end: the official MCP TypeScript SDK client
//! (`@modelcontextprotocol/sdk`, driven by tests/mcp/drive.mjs) and the MCP
//! Inspector's CLI against the built `pwk mcp`, which runs the REAL pi (both
//! generations) against the loopback fake LLM.
//!
//! The clients come from `PWK_TEST_MCP_CLIENT` (set by scripts/test.sh after
//! scripts/provision-mcp.sh), else `.mcp-test/`, and run on `node`
//! ([`crate::support::tools`]: a missing one is skipped visibly, a failure under CI).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::delegate_e2e::{Gen, pi_bin, report_text};
use crate::provider::{Act, RoutedLlm, SPEC_REPORT, hazard_report, project, role_file};
use crate::support::fake_llm::{self, FakeLlm, Reply};
use crate::support::tools::{Tool, tool};
use crate::support::{TestEnv, repo_root};

/// The folder holding the MCP clients, or `None` (after recording the skip) when it
/// or `node`, which runs them, is missing.
pub(crate) fn mcp_client() -> Option<PathBuf> {
    tool(Tool::Node)?;
    tool(Tool::McpClient)
}

/// A pinned environment for the client and, through it, the server and pi.
pub(crate) fn client_cmd(
    env: &TestEnv,
    client: &Path,
    scenario: &str,
    cwd: &Path,
    args: &Value,
) -> Command {
    let mut cmd = env.pwk(); // for the environment pinning only
    let node = tool(Tool::Node).expect("mcp_client() found node");
    let program = std::mem::replace(&mut cmd, Command::new(node));
    for (k, v) in program.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    for k in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"] {
        cmd.env_remove(k);
    }
    cmd.arg(repo_root().join("tests/mcp/drive.mjs"))
        .arg(scenario)
        .current_dir(cwd)
        .env("PWK_TEST_MCP_CLIENT", client)
        .env("PWK_BIN", env!("CARGO_BIN_EXE_pwk"))
        .env("MCP_CWD", cwd)
        .env("MCP_ARGS", args.to_string());
    cmd
}

/// pi pointed at `agent` (models.json / settings.json inside).
fn with_pi(cmd: &mut Command, pi: &Path, agent: &Path) {
    cmd.env("PWK_PI_BIN", pi)
        .env("PI_CODING_AGENT_DIR", agent)
        .env("PI_OFFLINE", "1")
        .env(
            "NODE_COMPILE_CACHE",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("pi-node-compile-cache"),
        );
}

/// Run a scenario to its end; its last stdout line is the document.
pub(crate) fn drive(mut cmd: Command) -> Value {
    let out = cmd.stderr(Stdio::piped()).output().expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "client failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("last line is not JSON ({e}):\n{stdout}\nstderr:\n{stderr}"))
}

/// A world: a temp project, an agent dir pointing pi at `llm`.
struct World {
    env: TestEnv,
    agent: PathBuf,
    work: PathBuf,
}

fn world(llm: &FakeLlm, settings: &str) -> World {
    let env = TestEnv::new();
    let agent = env.path("agent");
    let work = env.path("work");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": llm.base_url(), "api": "openai-completions", "apiKey": "mock-key",
        "models": [{"id": "mock-model"}]}}});
    std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    std::fs::write(agent.join("settings.json"), settings).unwrap();
    std::fs::write(work.join("notes.txt"), "hello\n").unwrap();
    World { env, agent, work }
}

const SETTINGS: &str =
    r#"{"retry":{"enabled":false,"provider":{"maxRetries":0,"timeoutMs":20000}}}"#;

fn request(w: &World, task_id: &str) -> Value {
    json!({
        "taskId": task_id, "cwd": w.work, "objective": "List the files and report.",
        "scope": ["."], "constraints": [], "acceptance": ["the answer names the files"],
        "profile": "readonly", "provider": "mock", "model": "mock-model", "timeoutMs": 90000
    })
}

/// Live processes in process group `pgid` (zombies excluded).
fn group_members(pgid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.first() != Some(&"Z") && f.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid) {
            out.push(pid);
        }
    }
    out
}

/// pi and anything it started: processes whose environment names this agent dir,
/// other than the MCP client and `pwk mcp` itself.
fn processes_of(agent: &Path) -> Vec<u32> {
    let needle = format!("PI_CODING_AGENT_DIR={}", agent.display());
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        if (comm.trim() == "node" && !is_pi(pid)) || comm.trim() == "pwk" {
            continue; // the MCP client, and the server itself
        }
        if let Ok(env) = std::fs::read(e.path().join("environ"))
            && env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes())
            && !std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| s.contains(") Z "))
        {
            out.push(pid);
        }
    }
    out
}

fn is_pi(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| !String::from_utf8_lossy(&c).contains("drive.mjs"))
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
}

fn wait_until(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

/// Each scenario runs once per pi generation.
macro_rules! both_generations {
    ($($name:ident => $f:ident;)*) => {$(
        mod $name {
            #[test]
            fn pi073() {
                if let (Some(pi), Some(c)) = (super::pi_bin(super::Gen::Pi073), super::mcp_client()) { super::$f(super::Gen::Pi073, pi, c) }
            }
            #[test]
            fn pi16() {
                if let (Some(pi), Some(c)) = (super::pi_bin(super::Gen::Pi16), super::mcp_client()) { super::$f(super::Gen::Pi16, pi, c) }
            }
        }
    )*};
}

both_generations! {
    delegate_started_polled_completed => delegate_started_polled_completed;
    steered_mid_run => steered_mid_run;
    aborted_leaves_no_process => aborted_leaves_no_process;
    stalled_by_the_watchdog => stalled_by_the_watchdog;
    review_of_four_roles_with_progress => review_of_four_roles_with_progress;
    client_killed_mid_task_leaves_no_orphans => client_killed_mid_task_leaves_no_orphans;
    sigterm_to_the_server_leaves_no_orphans => sigterm_to_the_server_leaves_no_orphans;
    continued_by_session_file => continued_by_session_file;
    a_task_is_stopped_by_its_budget => stopped_by_its_budget;
}

/// pi 1.6 only (the generation does not matter to what these show).
fn pi16_and_client() -> Option<(PathBuf, PathBuf)> {
    Some((pi_bin(Gen::Pi16)?, mcp_client()?))
}

fn continued_by_session_file(generation: Gen, pi: PathBuf, client: PathBuf) {
    let llm = FakeLlm::start(vec![], Reply::text(&report_text("done")));
    let w = world(&llm, SETTINGS);
    let args = json!({"request": request(&w, "cont-1"), "followUp": "Now also count the lines of notes.txt and report."});
    let mut cmd = client_cmd(&w.env, &client, "continue", w.env.root(), &args);
    with_pi(&mut cmd, &pi, &w.agent);
    let v = drive(cmd);
    let r = &v["result"];
    assert_eq!(
        r["first"]["status"]["state"], "completed",
        "{generation:?}: {r:#}"
    );
    assert_eq!(r["cont"]["launched"], true, "{generation:?}: {r:#}");
    assert_eq!(
        r["second"]["status"]["state"], "completed",
        "{generation:?}: {r:#}"
    );
    assert_eq!(r["secondResult"]["action"], "continue");
    assert_eq!(
        r["secondResult"]["sessionFile"],
        r["firstResult"]["sessionFile"]
    );
    assert_eq!(r["secondResult"]["model"], "mock-model");
    // The second run carried the first conversation: the follow-up came after it.
    let last = llm.requests().last().cloned().unwrap();
    let users = fake_llm::texts_of(&last, &["user"]);
    assert!(
        users.contains("List the files") && users.contains("count the lines"),
        "{generation:?}: {users}"
    );
    // Another model than the session's: refused before launch, as `pwk delegate` does.
    assert_eq!(r["mismatch"]["launched"], false, "{generation:?}: {r:#}");
    assert_eq!(r["mismatch"]["result"]["status"], "blocked");
    assert_eq!(r["mismatch"]["result"]["error"]["code"], "NEEDS_DECISION");
    assert!(
        r["mismatch"]["result"]["decisionNeeded"]
            .as_str()
            .unwrap()
            .contains("Model mismatch")
    );
    assert_eq!(r["wrongTool"]["isError"], true);
}

#[test]
fn the_task_cap_holds_tasks_in_starting() {
    let Some((pi, client)) = pi16_and_client() else {
        return;
    };
    let llm = FakeLlm::start(
        vec![],
        Reply::Delayed(1500, Box::new(Reply::text(&report_text("done")))),
    );
    let w = world(&llm, SETTINGS);
    let args = json!({"serverArgs": ["--max-tasks", "1"], "requests": [request(&w, "cap-a"), request(&w, "cap-b")]});
    let mut cmd = client_cmd(&w.env, &client, "cap", w.env.root(), &args);
    with_pi(&mut cmd, &pi, &w.agent);
    let v = drive(cmd);
    let r = &v["result"];
    assert_eq!(r["aStillRunning"]["state"], "running", "{r:#}");
    assert_eq!(r["bWhileARuns"]["state"], "starting", "{r:#}");
    assert_eq!(r["bWhileARuns"]["processGroups"], json!([]));
    assert_eq!(r["wa"]["status"]["state"], "completed");
    assert_eq!(r["wb"]["status"]["state"], "completed");
    assert_eq!(llm.peak_in_flight(), 1);
}

/// Two tasks at once in one cwd: writing tasks take turns (the write lock of
/// `pwk delegate`), read-only ones overlap.
#[test]
fn writing_tasks_in_one_cwd_are_serialised_across_tasks() {
    let Some((pi, client)) = pi16_and_client() else {
        return;
    };
    for writes in [true, false] {
        let llm = FakeLlm::start(
            vec![],
            Reply::Delayed(1500, Box::new(Reply::text(&report_text("done")))),
        );
        let w = world(&llm, SETTINGS);
        let req = |id: &str| {
            let mut r = request(&w, id);
            if writes {
                r["profile"] = json!("implementation");
                r["writeMode"] = json!("direct");
                r["workspaceStateKnown"] = json!(true);
                r["writeAuthorization"] = json!(true);
                r["allowedWriteScope"] = json!(["notes.txt"]);
            }
            r
        };
        let args =
            json!({"serverArgs": ["--max-tasks", "4"], "requests": [req("w-1"), req("w-2")]});
        let mut cmd = client_cmd(&w.env, &client, "bench", w.env.root(), &args);
        with_pi(&mut cmd, &pi, &w.agent);
        let v = drive(cmd);
        assert_eq!(
            v["result"]["states"],
            json!(["completed", "completed"]),
            "writes={writes}: {v:#}"
        );
        let peak = llm.peak_in_flight();
        if writes {
            assert_eq!(peak, 1, "writing tasks overlapped");
        } else {
            assert_eq!(
                peak, 2,
                "read-only tasks did not overlap (the test would prove nothing)"
            );
        }
    }
}

#[test]
fn cancelling_a_review_call_aborts_its_roles() {
    let Some((pi, client)) = pi16_and_client() else {
        return;
    };
    let llm = RoutedLlm::start(vec![
        ("ROUTE-SPEC", Act::Stall),
        ("ROUTE-SMELL", Act::Stall),
    ]);
    let env = project(&llm);
    role_file(&env, "pwk-spec-reviewer", "max_turns: 10\n", "ROUTE-SPEC");
    role_file(&env, "pwk-smell-reviewer", "max_turns: 10\n", "ROUTE-SMELL");
    let agent = env.path("agent");
    let args = json!({"review": {"roles": ["spec", "smell"], "packetPath": "packet.md", "timeoutSecs": 120, "stallTimeoutSecs": 0}, "afterMs": 30000});
    let mut cmd = client_cmd(&env, &client, "cancel-review", env.root(), &args);
    with_pi(&mut cmd, &pi, &agent);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let cancelled: Value = loop {
        let line = lines.next().expect("a line from the client").expect("read");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["event"] == "cancelled" {
            break v;
        }
    };
    assert_eq!(cancelled["outcome"]["resolved"], false, "{cancelled:#}");
    assert!(
        !llm.requests().is_empty(),
        "the roles never reached the model"
    );
    // The client is still connected: only the cancellation can stop the roles, which
    // would otherwise stall for 120 s.
    let stopped = wait_until(Duration::from_secs(20), || processes_of(&agent).is_empty());
    let left = processes_of(&agent);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        stopped,
        "pi still running after the call was cancelled: {left:?}"
    );
}

#[test]
fn lint_roles_resources_and_refusals_over_mcp() {
    let Some(client) = mcp_client() else { return };
    let env = TestEnv::new();
    env.write(
        ".pi/agents/helper.md",
        "---\nname: helper\ndescription: Helps.\ntools: read, grep\n---\nYou help.\n",
    );
    let args = json!({"badRole": "---\nname: Bad Name\n---\n", "roleName": "helper"});
    let v = drive(client_cmd(&env, &client, "basic", env.root(), &args));
    let r = &v["result"];
    let tools: Vec<&str> = r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for t in [
        "lint",
        "rules",
        "explain_rule",
        "list_roles",
        "show_role",
        "delegate_start",
        "task_status",
        "task_wait",
        "task_result",
        "task_steer",
        "task_continue",
        "task_abort",
        "review",
        "recon",
        "coverage",
        "capabilities",
    ] {
        assert!(tools.contains(&t), "{t} missing from {tools:?}");
    }
    assert!(
        r["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["hasInput"] == true && t["hasOutput"] == true)
    );
    // In-memory text: the same diagnostics as `pwk lint --format json` on that file.
    env.write(".pi/agents/bad.md", "---\nname: Bad Name\n---\n");
    let cli = crate::support::run(env.pwk().args([
        "lint",
        "--host",
        "pwk",
        "--format",
        "json",
        ".pi/agents/bad.md",
    ]));
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    assert_eq!(
        r["lintText"]["diagnostics"], cli["diagnostics"],
        "{:#}",
        r["lintText"]
    );
    assert!(r["lintText"]["summary"]["warnings"].as_u64().unwrap() >= 3);
    assert_eq!(r["lintPaths"]["files"], 1);
    assert_eq!(r["explain"]["id"], r["lintText"]["diagnostics"][0]["rule"]);
    assert_eq!(r["unknownRule"]["isError"], true);
    assert!(r["roles"].as_array().unwrap().contains(&json!("helper")));
    assert_eq!(
        r["show"],
        json!({"name": "helper", "path": ".pi/agents/helper.md"})
    );
    assert!(
        r["resources"]
            .as_array()
            .unwrap()
            .contains(&json!("pwk://schema/role"))
    );
    assert!(
        r["resources"]
            .as_array()
            .unwrap()
            .contains(&json!("pwk://roles/helper"))
    );
    assert_eq!(r["schemaIsJson"], true);
    assert_eq!(r["roleText"], env.read(".pi/agents/helper.md"));
    assert!(
        r["caps"]["capabilities"]
            .as_array()
            .is_some_and(|c| !c.is_empty())
    );
    assert_eq!(r["cov"]["complete"], false);
    assert_eq!(r["cov"]["missing"], json!(["b"]));
    // A request the contract refuses: answered at once, nothing launched.
    assert_eq!(r["refused"]["launched"], false, "{:#}", r["refused"]);
    assert_eq!(r["refused"]["result"]["status"], "blocked");
    assert_eq!(r["refused"]["result"]["error"]["code"], "NEEDS_DECISION");
}

#[test]
fn inspector_cli_lists_tools_and_calls_one() {
    let Some(client) = mcp_client() else { return };
    let env = TestEnv::new();
    let inspector = client.join("node_modules/.bin/mcp-inspector");
    let run = |extra: &[&str]| {
        let mut cmd = env.pwk();
        let pinned = std::mem::replace(&mut cmd, Command::new(&inspector));
        for (k, v) in pinned.get_envs() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        cmd.current_dir(env.root())
            .args(["--cli", env!("CARGO_BIN_EXE_pwk"), "mcp"])
            .args(extra);
        let out = cmd.output().expect("run the inspector");
        assert!(
            out.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).expect("inspector prints JSON")
    };
    let list = run(&["--method", "tools/list"]);
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"delegate_start") && names.contains(&"lint"),
        "{names:?}"
    );
    let call = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "explain_rule",
        "--tool-arg",
        "id=missing-tools",
    ]);
    assert_eq!(call["structuredContent"]["id"], "missing-tools", "{call:#}");
}

fn delegate_started_polled_completed(generation: Gen, pi: PathBuf, client: PathBuf) {
    let llm = FakeLlm::start(
        vec![],
        Reply::Delayed(700, Box::new(Reply::text(&report_text("two files")))),
    );
    let w = world(&llm, SETTINGS);
    let mut cmd = client_cmd(
        &w.env,
        &client,
        "delegate",
        w.env.root(),
        &json!({"request": request(&w, "mcp-1")}),
    );
    with_pi(&mut cmd, &pi, &w.agent);
    let v = drive(cmd);
    let r = &v["result"];
    assert_eq!(r["start"]["launched"], true, "{generation:?}: {r:#}");
    let states = r["states"].as_array().unwrap();
    assert!(
        states.contains(&json!("running")),
        "{generation:?}: {states:?}"
    );
    assert_eq!(states.last().unwrap(), "completed", "{generation:?}: {r:#}");
    assert_eq!(r["wait"]["finished"], true);
    let res = &r["result"];
    assert_eq!(res["status"], "completed", "{generation:?}: {res:#}");
    assert_eq!(res["reportParsed"], true);
    assert_eq!(res["summary"], "two files");
    assert_eq!(res["executionStarted"], true);
    assert!(
        res["sessionId"].as_str().is_some_and(|s| !s.is_empty()),
        "{generation:?}: {res:#}"
    );
    // The same result document as `pwk delegate`: the same keys.
    let mut cli = w.env.pwk();
    with_pi(&mut cli, &pi, &w.agent);
    let mut req = request(&w, "cli-1");
    req["action"] = json!("delegate");
    let out = crate::support::run_with_stdin(cli.arg("delegate"), req.to_string().as_bytes());
    let cli: Value = serde_json::from_str(&out.stdout).unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(res), keys(&cli), "{generation:?}");
    assert!(processes_of(&w.agent).is_empty());
}

/// Call `ls` (slowly) until the steer message arrives, then report.
fn loop_until(marker: &'static str) -> FakeLlm {
    FakeLlm::responding(Box::new(move |body| {
        if fake_llm::texts_of(body, &["user"]).contains(marker) {
            Reply::text(&report_text("steered"))
        } else {
            Reply::Delayed(400, Box::new(Reply::tool("ls", r#"{"path":"."}"#)))
        }
    }))
}

fn steered_mid_run(generation: Gen, pi: PathBuf, client: PathBuf) {
    const MARK: &str = "STEER-7f3a: stop listing and report now";
    let llm = loop_until(MARK);
    let w = world(&llm, SETTINGS);
    let args = json!({"request": request(&w, "steer-1"), "message": MARK});
    let mut cmd = client_cmd(&w.env, &client, "steer", w.env.root(), &args);
    with_pi(&mut cmd, &pi, &w.agent);
    let v = drive(cmd);
    let r = &v["result"];
    assert_eq!(r["steer"]["delivered"], true, "{generation:?}: {r:#}");
    assert_eq!(
        r["wait"]["status"]["state"], "completed",
        "{generation:?}: {r:#}"
    );
    assert_eq!(r["result"]["summary"], "steered");
    // The fake LLM saw the steer message (as a user message), and only then stopped
    // calling tools.
    let saw = llm
        .requests()
        .iter()
        .any(|b| fake_llm::texts_of(b, &["user"]).contains(MARK));
    assert!(
        saw,
        "{generation:?}: the steer message never reached the model"
    );
    assert!(processes_of(&w.agent).is_empty());
}

fn aborted_leaves_no_process(generation: Gen, pi: PathBuf, client: PathBuf) {
    let llm = loop_until("never-sent");
    let w = world(&llm, SETTINGS);
    let mut cmd = client_cmd(
        &w.env,
        &client,
        "abort",
        w.env.root(),
        &json!({"request": request(&w, "abort-1")}),
    );
    with_pi(&mut cmd, &pi, &w.agent);
    let v = drive(cmd);
    let r = &v["result"];
    let groups: Vec<u32> = r["running"]["processGroups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_u64().unwrap() as u32)
        .collect();
    assert!(!groups.is_empty());
    assert_eq!(
        r["abort"]["status"]["state"], "aborted",
        "{generation:?}: {r:#}"
    );
    assert_eq!(r["abort"]["result"]["status"], "aborted");
    assert_eq!(r["abort"]["result"]["error"]["code"], "ABORTED");
    assert_eq!(r["abort"]["status"]["processGroups"], json!([]));
    for g in groups {
        assert!(
            group_members(g).is_empty(),
            "{generation:?}: group {g} still has {:?}",
            group_members(g)
        );
    }
    assert!(processes_of(&w.agent).is_empty());
    // Never a replay: no request reached the model after the abort returned.
    let n = llm.requests().len();
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(llm.requests().len(), n);
}

fn stalled_by_the_watchdog(generation: Gen, pi: PathBuf, client: PathBuf) {
    let llm = FakeLlm::start(vec![], Reply::StallAfterHeaders);
    let w = world(&llm, SETTINGS);
    let mut req = request(&w, "stall-1");
    req["stallTimeoutMs"] = json!(2000);
    let mut cmd = client_cmd(
        &w.env,
        &client,
        "stall",
        w.env.root(),
        &json!({"request": req}),
    );
    with_pi(&mut cmd, &pi, &w.agent);
    let v = drive(cmd);
    let r = &v["result"];
    assert_eq!(
        r["wait"]["status"]["state"], "stalled",
        "{generation:?}: {r:#}"
    );
    assert_eq!(r["result"]["status"], "timed_out");
    assert_eq!(r["result"]["error"]["code"], "TIMEOUT");
    assert!(processes_of(&w.agent).is_empty());
}

fn review_of_four_roles_with_progress(generation: Gen, pi: PathBuf, client: PathBuf) {
    let llm = RoutedLlm::start(vec![
        ("ROUTE-SPEC", Act::Delay(2000, SPEC_REPORT.into())),
        ("ROUTE-TRACING", Act::Delay(2000, String::new())),
        ("ROUTE-SMELL", Act::Delay(2000, "No findings".into())),
        ("ROUTE-HAZARD", Act::Delay(2000, hazard_report())),
    ]);
    let env = project(&llm);
    for (role, marker) in [
        ("pwk-spec-reviewer", "ROUTE-SPEC"),
        ("pwk-tracing-reviewer", "ROUTE-TRACING"),
        ("pwk-smell-reviewer", "ROUTE-SMELL"),
        ("pwk-hazard-reviewer", "ROUTE-HAZARD"),
    ] {
        role_file(&env, role, "max_turns: 10\n", marker);
    }
    let args = json!({"review": {"roles": ["spec", "tracing", "smell", "hazard"], "packetPath": "packet.md", "timeoutSecs": 60}});
    let mut cmd = client_cmd(&env, &client, "review", env.root(), &args);
    with_pi(&mut cmd, &pi, &env.path("agent"));
    let v = drive(cmd);
    let r = &v["result"];
    assert_eq!(r["isError"], false, "{generation:?}: {r:#}");
    let statuses: Vec<(String, String)> = r["review"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["role"].as_str().unwrap().to_string(),
                x["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("pwk-spec-reviewer".into(), "completed".into()),
            ("pwk-tracing-reviewer".into(), "failed".into()),
            ("pwk-smell-reviewer".into(), "completed".into()),
            ("pwk-hazard-reviewer".into(), "completed".into()),
        ],
        "{generation:?}: {r:#}"
    );
    assert_eq!(r["review"]["coverage"]["complete"], false);
    assert_eq!(
        r["review"]["coverage"]["missing"],
        json!(["pwk-tracing-reviewer"])
    );
    // In parallel: the four roles' requests overlapped at the fake LLM.
    assert!(
        llm.peak_in_flight() >= 2,
        "{generation:?}: peak {}",
        llm.peak_in_flight()
    );
    // Progress notifications per role, as the server sent them before its answer
    // (the SDK loses one it reads in one chunk with the answer, which only a starved
    // client does): each role ran and finished, progress increased; the SDK's
    // handler got them in that order.
    let progress = r["progressSent"].as_array().unwrap();
    let delivered = r["progress"].as_array().unwrap();
    assert!(!delivered.is_empty(), "{generation:?}: {r:#}");
    assert_eq!(
        delivered[..],
        progress[..delivered.len()],
        "{generation:?}: delivered in the order sent"
    );
    for role in [
        "pwk-spec-reviewer",
        "pwk-tracing-reviewer",
        "pwk-smell-reviewer",
        "pwk-hazard-reviewer",
    ] {
        let of_role: Vec<&str> = progress
            .iter()
            .filter_map(|p| p["message"].as_str())
            .filter(|m| m.starts_with(&format!("{role} ")))
            .collect();
        assert!(
            of_role.iter().any(|m| m.contains(" running")),
            "{generation:?}: {role}: {progress:#?}"
        );
        assert!(
            of_role
                .iter()
                .any(|m| m.contains(" completed") || m.contains(" failed")),
            "{generation:?}: {role}: {progress:#?}"
        );
    }
    let steps: Vec<f64> = progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert!(steps.windows(2).all(|w| w[1] > w[0]), "{steps:?}");
}

fn client_killed_mid_task_leaves_no_orphans(generation: Gen, pi: PathBuf, client: PathBuf) {
    gone_mid_task(generation, pi, client, false);
}

fn sigterm_to_the_server_leaves_no_orphans(generation: Gen, pi: PathBuf, client: PathBuf) {
    gone_mid_task(generation, pi, client, true);
}

/// A task is running; then the client dies (`sigterm` false) or the server receives
/// SIGTERM (`sigterm` true): the server exits and leaves no pi process behind.
fn gone_mid_task(generation: Gen, pi: PathBuf, client: PathBuf, sigterm: bool) {
    let llm = loop_until("never-sent");
    let w = world(&llm, SETTINGS);
    let mut cmd = client_cmd(
        &w.env,
        &client,
        "killed",
        w.env.root(),
        &json!({"request": request(&w, "kill-1")}),
    );
    with_pi(&mut cmd, &pi, &w.agent);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let running: Value = loop {
        let line = lines.next().expect("a line from the client").expect("read");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["event"] == "running" {
            break v;
        }
    };
    let server = running["serverPid"].as_u64().unwrap() as u32;
    let groups: Vec<u32> = running["status"]["processGroups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_u64().unwrap() as u32)
        .collect();
    assert!(!groups.is_empty() && alive(server));
    if sigterm {
        let st = Command::new("kill")
            .args(["-TERM", &server.to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    } else {
        // The client dies without a word: the server sees stdin EOF.
        child.kill().unwrap();
    }
    assert!(
        wait_until(Duration::from_secs(30), || !alive(server)),
        "{generation:?}: pwk mcp ({server}) is still running after {}",
        if sigterm {
            "SIGTERM"
        } else {
            "its client died"
        }
    );
    for g in groups {
        assert!(
            group_members(g).is_empty(),
            "{generation:?}: group {g} left {:?}",
            group_members(g)
        );
    }
    assert!(
        processes_of(&w.agent).is_empty(),
        "{generation:?}: {:?}",
        processes_of(&w.agent)
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// `pwk mcp` spoken to line by line over stdio (no SDK: hostile bytes an SDK
/// client would never send).
pub(crate) struct RawMcp {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Value>,
}

impl RawMcp {
    fn start(env: &TestEnv) -> RawMcp {
        RawMcp::start_cmd(env.pwk())
    }

    /// `cmd` (a pinned `pwk`) with `mcp` appended, initialized.
    pub(crate) fn start_cmd(mut cmd: Command) -> RawMcp {
        let mut child = cmd
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start pwk mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line).expect("a JSON line on stdout");
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut me = RawMcp {
            stdin: child.stdin.take(),
            child,
            lines,
        };
        me.send(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#);
        assert!(me.answer(&json!(0)).get("result").is_some());
        me.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        me
    }

    pub(crate) fn send(&mut self, line: &[u8]) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The answer with `id`.
    pub(crate) fn answer(&mut self, id: &Value) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no answer {id} from pwk mcp: {e}"));
            if v.get("id") == Some(id) && v.get("method").is_none() {
                return v;
            }
        }
    }
}

impl RawMcp {
    /// Close stdin (the end of the session) and wait for the server to exit.
    pub(crate) fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}

impl Drop for RawMcp {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn duplicate_keys_in_tool_arguments_are_refused_and_nothing_is_launched() {
    let env = TestEnv::new();
    let mut m = RawMcp::start(&env);
    let cwd = serde_json::to_string(&env.root().display().to_string()).unwrap();
    // `pwk delegate` refuses this request; `pwk mcp` took the last `profile`.
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"delegate_start","arguments":{{"taskId":"t1","cwd":{cwd},"objective":"o","role":"r","profile":"readonly","profile":"implementation"}}}}}}"#
    );
    m.send(call.as_bytes());
    let r = m.answer(&json!(7));
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("duplicate key \"profile\" (first at 1:"),
        "{message}"
    );
    // A lone surrogate: an error answer with the id; the server goes on.
    m.send(br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"lint","arguments":{"text":"\ud800"}}}"#);
    assert_eq!(m.answer(&json!(8))["error"]["code"], -32700);
    m.send(br#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
    let tools = m.answer(&json!(9));
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{tools}"
    );
}

/// A `delegate_start` task whose model calls `ls` for ever is stopped by its
/// request's `maxTokens` (which beats the looser `[delegate] budget` of the server's
/// pwk.toml): BUDGET_EXCEEDED, usage in the result, no pi left.
fn stopped_by_its_budget(generation: Gen, pi: PathBuf, client: PathBuf) {
    let (script, then) = Reply::ls_for_ever(3, 3000);
    let llm = FakeLlm::start(script, then);
    let w = world(&llm, SETTINGS);
    w.env
        .write("pwk.toml", "[delegate]\nbudget = { max_tokens = 100000 }\n");
    let mut req = request(&w, "budget-1");
    req["budget"] = json!({"maxTokens": 250});
    let mut cmd = client_cmd(
        &w.env,
        &client,
        "delegate",
        w.env.root(),
        &json!({"request": req}),
    );
    with_pi(&mut cmd, &pi, &w.agent);
    let v = drive(cmd);
    let r = &v["result"];
    assert_eq!(r["start"]["launched"], true, "{generation:?}: {r:#}");
    assert_eq!(r["final"]["state"], "failed", "{generation:?}: {r:#}");
    let res = &r["result"];
    assert_eq!(res["status"], "failed", "{generation:?}: {res:#}");
    assert_eq!(
        res["error"]["code"], "BUDGET_EXCEEDED",
        "{generation:?}: {res:#}"
    );
    assert!(
        res["error"]["message"]
            .as_str()
            .unwrap()
            .contains("token budget of 250"),
        "{generation:?}: {res:#}"
    );
    assert!(
        res["usage"]["totalTokens"].as_u64().unwrap() > 250,
        "{res:#}"
    );
    let calls = llm.requests().len();
    assert!((3..=4).contains(&calls), "{generation:?}: {calls} calls");
    assert!(wait_until(Duration::from_secs(5), || processes_of(
        &w.agent
    )
    .is_empty()));
}
