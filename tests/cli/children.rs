//! Every child pwk starts is stopped on every exit path: the `pi --list-models` and
//! `pi --help` captures (end of input, `exit`, SIGTERM and SIGINT with nobody to
//! report to), and what pi's tools moved out of pi's process group (a `setsid`
//! daemon), against the scripted fake pi and the real pi at the fake LLM. Also
//! `--no-mcp` on the pi generations that list it, and failed tool calls counted.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::delegate_e2e::{FAST_FAIL, Gen, World, pi_bin, report_text};
use crate::support::fake_llm::Reply;
use crate::support::lsp_client::{LspClient, file_uri};
use crate::support::process::{
    PATIENCE, fake_pi, group_alive, signal, spawn_with_stdin, wait_bounded, wait_for,
};
use crate::support::{Output, TestEnv};

/// A pi whose `--list-models` and `--help` never finish (each start appends its pid
/// to `pids`; `exec` keeps the pid, which leads the capture's process group); any
/// other command line goes to the scripted fake pi.
fn slow_capture_pi(env: &TestEnv) -> (PathBuf, PathBuf) {
    let pids = env.path("capture.pids");
    let script = format!(
        "#!/bin/sh\ncase \"$1\" in\n  --list-models|--help) echo $$ >> '{}'; exec sleep 300;;\nesac\nexec python3 '{}' \"$@\"\n",
        pids.display(),
        fake_pi().display()
    );
    let bin = env.executable("slow-pi", script);
    (bin, pids)
}

fn pids_in(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// A live process (not a zombie) with this pid.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let state = s
            .rsplit_once(')')
            .map(|(_, r)| r.trim_start())
            .unwrap_or("");
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// The process group is gone within a few seconds (pwk has returned by now).
fn assert_group_gone(pgid: i32, what: &str) {
    let t = Instant::now();
    while group_alive(pgid) {
        if t.elapsed() > Duration::from_secs(10) {
            let _ = rustix::process::kill_process_group(
                rustix::process::Pid::from_raw(pgid).unwrap(),
                rustix::process::Signal::KILL,
            );
            panic!("{what}: the capture's process group {pgid} outlived pwk");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[derive(Debug, Clone, Copy)]
enum LspEnd {
    EndOfInput,
    ShutdownExit,
    Sigterm,
}

/// `pwk lsp` asks `pi --list-models` for a `model:` completion; however the server
/// ends, that capture does not outlive it.
#[test]
fn list_models_does_not_outlive_pwk_lsp() {
    for end in [LspEnd::EndOfInput, LspEnd::ShutdownExit, LspEnd::Sigterm] {
        let env = TestEnv::new();
        let (pi, pids) = slow_capture_pi(&env);
        let text = "---\nname: scout\ndescription: Finds things.\nmodel: \n---\nBody\n";
        let uri = file_uri(&env.write(".pi/agents/scout.md", text));
        let mut cmd = env.pwk();
        cmd.args(["lsp", "--host", "tintinweb"])
            .env("PWK_PI_BIN", &pi);
        let mut c = LspClient::start(cmd);
        c.initialize(&file_uri(env.root()));
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        );
        c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 7}}),
        );
        wait_for("pi --list-models to start", || !pids_in(&pids).is_empty());
        let pgid = pids_in(&pids)[0];
        assert!(group_alive(pgid));
        match end {
            LspEnd::EndOfInput => {
                c.close();
            }
            LspEnd::ShutdownExit => {
                c.shutdown();
            }
            LspEnd::Sigterm => {
                signal(c.pid(), rustix::process::Signal::TERM);
                let status = c.wait();
                assert_eq!(status.code(), Some(143), "{end:?}: {status:?}");
            }
        }
        assert_group_gone(pgid, &format!("{end:?}"));
    }
}

/// Ctrl-C while `pwk setup --fast-model` waits for `pi --list-models`: the capture
/// is stopped and pwk ends with 130.
#[test]
fn ctrl_c_in_setup_fast_model_stops_list_models() {
    let env = TestEnv::new();
    let (pi, pids) = slow_capture_pi(&env);
    std::fs::create_dir_all(env.path(".git")).unwrap();
    let child = spawn_with_stdin(
        env.pwk()
            .args(["setup", "--fast-model", "mock/mock-model", "--dry-run"])
            .env("PWK_PI_BIN", &pi),
        b"",
    );
    wait_for("pi --list-models to start", || !pids_in(&pids).is_empty());
    let pgid = pids_in(&pids)[0];
    signal(child.id(), rustix::process::Signal::INT);
    let out = wait_bounded(child, PATIENCE, "setup");
    assert_eq!(out.code, 130, "{}", out.stderr);
    assert_group_gone(pgid, "setup");
}

/// SIGTERM while a read-only delegation asks `pi --help` whether `--no-mcp` exists:
/// the capture is stopped, pi is not left running, and the result is still printed.
#[test]
fn sigterm_during_the_help_probe_stops_it_and_delegate_still_reports() {
    let env = TestEnv::new();
    let (pi, pids) = slow_capture_pi(&env);
    let work = env.path("work");
    std::fs::create_dir_all(&work).unwrap();
    let req = json!({"action": "delegate", "taskId": "probe-1", "cwd": work,
        "objective": "Summarise the README", "scope": ["README.md"], "constraints": [],
        "acceptance": ["a summary"], "profile": "readonly"});
    let child = spawn_with_stdin(
        env.pwk()
            .arg("delegate")
            .env("PWK_PI_BIN", &pi)
            .env("PI_CODING_AGENT_DIR", env.path("agent")),
        req.to_string().as_bytes(),
    );
    wait_for("pi --help to start", || !pids_in(&pids).is_empty());
    let pgid = pids_in(&pids)[0];
    signal(child.id(), rustix::process::Signal::TERM);
    let out = wait_bounded(child, PATIENCE, "delegate");
    let v: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
    assert_ne!(v["status"], "completed", "{v:#}");
    assert!(v.to_string().contains("SIGTERM"), "{v:#}");
    assert_group_gone(pgid, "delegate");
}

/// The scripted fake pi in `daemon` mode: a `setsid` double-forked daemon that
/// outlives pi (its pid in `daemon.pid`).
struct DaemonRun {
    env: TestEnv,
    work: PathBuf,
}

impl DaemonRun {
    fn new() -> DaemonRun {
        let env = TestEnv::new();
        let work = env.path("work");
        std::fs::create_dir_all(&work).unwrap();
        env.write("packet.md", "## Requirement 1\nThe answer is 42.\n");
        DaemonRun { env, work }
    }

    fn pwk(&self, detach: bool, args: &[&str]) -> Command {
        let mut c = self.env.pwk();
        c.args(args)
            .env("PWK_PI_BIN", fake_pi())
            .env("FAKE_PI_MODE", "daemon")
            .env("FAKE_PI_DAEMON_PID", self.env.path("daemon.pid"))
            .env("FAKE_PI_DAEMON_DETACH", if detach { "1" } else { "0" })
            .env("FAKE_PI_TEXT", "No findings.")
            .env("PI_CODING_AGENT_DIR", self.env.path("agent"));
        c
    }

    fn daemon(&self) -> Option<i32> {
        std::fs::read_to_string(self.env.path("daemon.pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for DaemonRun {
    fn drop(&mut self) {
        if let Some(p) = self.daemon().and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
        }
    }
}

fn assert_daemon_stopped(d: &DaemonRun, out: &Output, what: &str) {
    let pid = d
        .daemon()
        .unwrap_or_else(|| panic!("{what}: the fake daemon did not start\n{}", out.stderr));
    assert!(
        !alive(pid),
        "{what}: the setsid daemon {pid} outlived pwk\n{}",
        out.stdout
    );
}

#[test]
fn a_setsid_daemon_does_not_outlive_delegate() {
    for detach in [true, false] {
        let d = DaemonRun::new();
        let req = json!({"action": "delegate", "taskId": "d-1", "cwd": d.work,
            "objective": "Summarise the README", "scope": ["README.md"], "constraints": [],
            "acceptance": ["a summary"], "profile": "readonly"});
        let child = spawn_with_stdin(
            d.pwk(detach, &["delegate"]).env_remove("FAKE_PI_TEXT"),
            req.to_string().as_bytes(),
        );
        let out = wait_bounded(child, PATIENCE, "delegate");
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["status"], "completed", "detach {detach}: {v:#}");
        assert_eq!(v["summary"], "complete before the daemon", "{v:#}");
        assert_daemon_stopped(&d, &out, &format!("delegate, detach {detach}"));
        assert!(
            v["warnings"]
                .to_string()
                .contains("had left pi's process group"),
            "detach {detach}: the result says what was stopped: {v:#}"
        );
    }
}

#[test]
fn a_setsid_daemon_does_not_outlive_review_on_either_transport() {
    for transport in ["rpc", "json"] {
        for detach in [true, false] {
            let d = DaemonRun::new();
            let args = [
                "review",
                "--roles",
                "smell",
                "--packet",
                "packet.md",
                "--format",
                "json",
                "--transport",
                transport,
            ];
            let child = spawn_with_stdin(&mut d.pwk(detach, &args), b"");
            let out = wait_bounded(child, PATIENCE, transport);
            let v: Value = serde_json::from_str(&out.stdout)
                .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
            assert_eq!(v["results"][0]["status"], "completed", "{transport}: {v:#}");
            assert_eq!(v["results"][0]["report"], "No findings.");
            assert_daemon_stopped(&d, &out, &format!("review {transport}, detach {detach}"));
        }
    }
}

/// Two roles of one review each leave a `setsid` daemon: each role's result names
/// its own daemon and no other (the run's tag in the daemon's environment says whose
/// it is), and neither daemon outlives pwk.
#[test]
fn each_review_role_is_told_of_its_own_daemon_only() {
    for transport in ["rpc", "json"] {
        for detach in [true, false] {
            let what = format!("review {transport}, detach {detach}");
            let d = DaemonRun::new();
            let log = d.env.path("pi.log");
            let args = [
                "review",
                "--roles",
                "smell,hazard",
                "--packet",
                "packet.md",
                "--format",
                "json",
                "--transport",
                transport,
            ];
            let mut cmd = d.pwk(detach, &args);
            cmd.env("FAKE_PI_DAEMON_PER_RUN", "1")
                .env("FAKE_PI_LOG", &log);
            let child = spawn_with_stdin(&mut cmd, b"");
            let out = wait_bounded(child, PATIENCE, &what);
            let v: Value = serde_json::from_str(&out.stdout)
                .unwrap_or_else(|e| panic!("{what}: {e}: {}\n{}", out.stdout, out.stderr));
            // pi's pid -> the role it ran (the system prompt it was given names it).
            let starts: Vec<Value> = std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let results = v["results"].as_array().expect("results");
            assert_eq!(results.len(), 2, "{what}: {v:#}");
            let mut named = Vec::new();
            for r in results {
                let role = r["role"].as_str().unwrap_or_default().to_string();
                let short = role
                    .trim_start_matches("pwk-")
                    .trim_end_matches("-reviewer");
                let pi = starts
                    .iter()
                    .find(|s| s["systemPrompt"].to_string().to_lowercase().contains(short))
                    .unwrap_or_else(|| panic!("{what}: no pi start for {role}: {starts:?}"));
                let pidfile = format!("{}.{}", d.env.path("daemon.pid").display(), pi["pid"]);
                let daemon: i32 = std::fs::read_to_string(&pidfile)
                    .unwrap_or_else(|e| panic!("{what}: {pidfile}: {e}"))
                    .trim()
                    .parse()
                    .unwrap();
                assert!(
                    !alive(daemon),
                    "{what}: {role}'s daemon {daemon} outlived pwk"
                );
                let warnings = r["notes"].to_string();
                assert!(
                    warnings.contains(&format!("{daemon} `")),
                    "{what}: {role} is told of its daemon {daemon}: {warnings}\n{v:#}"
                );
                named.push((role, daemon, warnings));
            }
            let (a, b) = (&named[0], &named[1]);
            assert_ne!(a.1, b.1, "{what}");
            assert!(
                !a.2.contains(&format!("{} `", b.1)) && !b.2.contains(&format!("{} `", a.1)),
                "{what}: a role is told only of its own daemon: {named:#?}"
            );
        }
    }
}

/// A daemon that replaced its environment carries no run's tag: alone in a pass
/// (`delegate`) it is still that run's; beside another run (a review of two roles)
/// it is stopped all the same and said to be of unknown origin, never pinned on a
/// role.
#[test]
fn a_daemon_without_its_run_tag_is_stopped_and_not_misattributed() {
    let d = DaemonRun::new();
    let req = json!({"action": "delegate", "taskId": "d-1", "cwd": d.work,
        "objective": "Summarise the README", "scope": ["README.md"], "constraints": [],
        "acceptance": ["a summary"], "profile": "readonly"});
    let mut cmd = d.pwk(true, &["delegate"]);
    cmd.env_remove("FAKE_PI_TEXT")
        .env("FAKE_PI_DAEMON_ENV_CLEAR", "1");
    let out = wait_bounded(
        spawn_with_stdin(&mut cmd, req.to_string().as_bytes()),
        PATIENCE,
        "delegate",
    );
    assert_daemon_stopped(&d, &out, "delegate, cleared environment");
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let daemon = d.daemon().unwrap();
    assert!(
        v["warnings"].to_string().contains(&format!("had left pi's process group (e.g. a daemon a tool started with setsid): {daemon} `sleep`")),
        "the only run of the pass owns it: {v:#}"
    );

    let d = DaemonRun::new();
    let args = [
        "review",
        "--roles",
        "smell,hazard",
        "--packet",
        "packet.md",
        "--format",
        "json",
    ];
    let mut cmd = d.pwk(true, &args);
    cmd.env("FAKE_PI_DAEMON_PER_RUN", "1")
        .env("FAKE_PI_DAEMON_ENV_CLEAR", "1");
    let out = wait_bounded(spawn_with_stdin(&mut cmd, b""), PATIENCE, "review");
    let v: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
    let daemons: Vec<i32> = std::fs::read_dir(d.env.path(""))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("daemon.pid."))
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".tmp"))
        .map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(daemons.len(), 2, "{v:#}");
    let notes = v["results"].to_string();
    for p in &daemons {
        assert!(!alive(*p), "review: the daemon {p} outlived pwk");
        assert!(
            notes.contains(&format!("{p} `sleep`")),
            "{p} is reported: {notes}"
        );
    }
    assert!(notes.contains("not known to be this role's"), "{notes}");
    assert!(
        !notes.contains("had left pi's process group"),
        "no role is told a daemon of unknown origin was its own: {notes}"
    );
}

use crate::delegate_e2e::both_generations;

both_generations! {
    a_daemon_started_by_pi_s_bash_tool_does_not_outlive_delegate => daemon_from_bash_tool;
    readonly_delegation_starts_no_mcp_server => readonly_starts_no_mcp_server;
    failed_tool_calls_are_counted_and_warned_about => failed_tool_calls_counted;
}

/// The real pi's `bash` tool starts `setsid sleep` (stdio detached, so the tool call
/// returns at once); after `pwk delegate` returns, it is gone.
fn daemon_from_bash_tool(generation: Gen, pi: PathBuf) {
    let pidfile = std::env::temp_dir().join(format!(
        "pwk-children-daemon-{}-{generation:?}.pid",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&pidfile);
    let cmd = format!(
        "setsid sh -c 'echo $$ > {}; exec sleep 300' </dev/null >/dev/null 2>&1 &",
        pidfile.display()
    );
    let w = World::new(
        generation,
        pi,
        vec![Reply::tool("bash", &json!({"command": cmd}).to_string())],
        Reply::Text(report_text("started a server")),
        FAST_FAIL,
    );
    let mut req = w.request("Start the development server and check it answers");
    req["profile"] = json!("verification");
    let (out, v) = w.delegate(&req);
    let pid: Option<i32> = std::fs::read_to_string(&pidfile)
        .ok()
        .and_then(|s| s.trim().parse().ok());
    let _ = std::fs::remove_file(&pidfile);
    let pid = pid.unwrap_or_else(|| {
        panic!(
            "{generation:?}: the tool did not start the daemon: {v:#}\n{}",
            out.stderr
        )
    });
    let left = alive(pid);
    if left {
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(pid).unwrap(),
            rustix::process::Signal::KILL,
        );
    }
    assert_eq!(v["status"], "completed", "{generation:?}: {v:#}");
    assert!(
        !left,
        "{generation:?}: the setsid daemon {pid} outlived pwk delegate"
    );
    assert!(
        v["warnings"]
            .to_string()
            .contains("had left pi's process group"),
        "{v:#}"
    );
}

/// A stdio MCP server that records each start (a line in `marker`) and answers
/// `initialize` and `tools/list`.
const MCP_SERVER: &str = r#"import json, sys
with open(sys.argv[1], "a") as f:
    f.write("started\n")
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if "id" not in m:
        continue
    if m.get("method") == "initialize":
        r = {"protocolVersion": m["params"].get("protocolVersion", "2025-06-18"),
             "capabilities": {"tools": {}}, "serverInfo": {"name": "marker", "version": "1"}}
    elif m.get("method") == "tools/list":
        r = {"tools": []}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"#;

/// With an MCP server configured in pi's agent dir, a read-only delegation starts no
/// MCP server: `--no-mcp` on pi 1.6 (which lists it in `pi --help`); pi 0.73.1 (no
/// MCP, rejects the flag) still runs. The control: the same pi without `--no-mcp`
/// does start the server on 1.6.
fn readonly_starts_no_mcp_server(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi.clone(),
        vec![],
        Reply::Text(report_text("looked")),
        FAST_FAIL,
    );
    let server = w.env.write("mcp-marker.py", MCP_SERVER);
    let marker = w.env.path("mcp-started");
    std::fs::write(
        w.agent.join("mcp.json"),
        json!({"mcpServers": {"marker": {"command": "python3",
            "args": [server, marker], "exposure": "direct"}}})
        .to_string(),
    )
    .unwrap();
    let (out, v) = w.delegate(&w.request("List the files in the work directory and name them"));
    assert_eq!(out.code, 0, "{generation:?}: {v:#}\n{}", out.stderr);
    assert_eq!(v["status"], "completed", "{v:#}");
    // Give a server that was started time to say so.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !marker.exists(),
        "{generation:?}: a read-only delegation started the MCP server"
    );

    // The control, in process: the same run without `no_mcp`.
    let mut spec = pwk::delegate::PiRunSpec::new(&w.work, "Say hello");
    spec.provider = Some("mock".into());
    spec.model = Some("mock-model".into());
    spec.tools = Some(vec!["read".into(), "ls".into()]);
    spec.env = w.spec_env();
    let env = pwk::env::Env {
        pi_bin: Some(pi),
        ..Default::default()
    };
    let o = pwk::delegate::run_pi(&spec, &env, &|_| {});
    assert_eq!(
        o.status,
        pwk::delegate::RunStatus::Completed,
        "{:?}",
        o.error
    );
    match generation {
        Gen::Pi16 => {
            let t = Instant::now();
            while !marker.exists() && t.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(50));
            }
            assert!(
                marker.exists(),
                "the control: pi 1.6 without --no-mcp starts the configured server"
            );
        }
        Gen::Pi073 => assert!(!marker.exists(), "pi 0.73.1 has no MCP support"),
    }
}

/// Five tool calls, four of them to tools the read-only profile does not have.
fn failed_tool_calls_counted(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![
            Reply::tool("bash", r#"{"command":"ls"}"#),
            Reply::tool("write", r#"{"path":"x","content":"x"}"#),
            Reply::tool("bash", r#"{"command":"cat hello.txt"}"#),
            Reply::tool(
                "edit",
                r#"{"path":"hello.txt","oldText":"a","newText":"b"}"#,
            ),
            Reply::tool("read", r#"{"path":"hello.txt"}"#),
        ],
        Reply::Text(report_text("read one file")),
        FAST_FAIL,
    );
    std::fs::write(w.work.join("hello.txt"), "hello\n").unwrap();
    let (out, v) = w.delegate(&w.request("Read hello.txt"));
    assert_eq!(out.code, 0, "{generation:?}: {v:#}");
    assert_eq!(v["toolCalls"], 5, "{v:#}");
    assert_eq!(v["toolCallsFailed"], 4, "{v:#}");
    assert!(
        v["warnings"]
            .to_string()
            .contains("4 of 5 tool call(s) failed"),
        "{v:#}"
    );
}
