//! `pwk delegate` against a scripted fake pi (tests/cli/support/fake_pi.py) for the
//! faults the real pi cannot show on demand, plus request validation and exit codes.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::process::{fake_pi, fake_pi_starts, pwk_on_fake_pi};
use crate::support::{Output, TestEnv, run_with_stdin};

struct Fake {
    env: TestEnv,
    log: PathBuf,
    work: PathBuf,
}

impl Fake {
    fn new() -> Fake {
        let env = TestEnv::new();
        let work = env.path("work");
        std::fs::create_dir_all(&work).unwrap();
        let log = env.path("fake-pi.log");
        Fake { env, log, work }
    }

    fn cmd(&self, mode: &str) -> Command {
        let mut c = pwk_on_fake_pi(&self.env, &self.log);
        c.arg("delegate").env("FAKE_PI_MODE", mode);
        c
    }

    fn request(&self) -> Value {
        json!({"action": "delegate", "taskId": "fault-1", "cwd": self.work,
            "objective": "Summarise the README in three sentences", "scope": ["README.md"],
            "constraints": [], "acceptance": ["three sentences"], "profile": "readonly"})
    }

    fn run(&self, mode: &str, req: &Value) -> (Output, Value) {
        let out = run_with_stdin(&mut self.cmd(mode), req.to_string().as_bytes());
        let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not one JSON document ({e}):\n{}\n{}",
                out.stdout, out.stderr
            )
        });
        (out, v)
    }

    fn starts(&self) -> Vec<Value> {
        fake_pi_starts(&self.log)
    }
}

#[test]
fn malformed_and_invalid_utf8_lines_are_counted_and_survived() {
    let f = Fake::new();
    let (out, v) = f.run("malformed", &f.request());
    assert_eq!(out.code, 0, "{v:#}");
    assert_eq!(v["malformedLines"], 2);
    assert_eq!(v["summary"], "survived");
    assert!(
        v["warnings"].to_string().contains("not JSON events"),
        "{v:#}"
    );
    assert!(out.stderr.contains("not a JSON event"), "{}", out.stderr);
}

#[test]
fn code_points_split_across_reads_are_reassembled() {
    let f = Fake::new();
    let (_, v) = f.run("split-utf8", &f.request());
    assert_eq!(v["finalText"], "héllo ✓ 𝄞 日本");
    assert_eq!(v["malformedLines"], 0);
}

#[test]
fn a_100_mb_line_keeps_memory_bounded() {
    let f = Fake::new();
    let mut child = f
        .cmd("huge-line")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(f.request().to_string().as_bytes()).unwrap();
    }
    let pid = child.id();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        use std::io::Read;
        let mut stdout = stdout;
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    let mut peak_kib = 0u64;
    while child.try_wait().unwrap().is_none() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            && let Some(l) = status.lines().find(|l| l.starts_with("VmHWM:"))
        {
            peak_kib = peak_kib.max(l.split_whitespace().nth(1).unwrap().parse().unwrap());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let v: Value = serde_json::from_str(&reader.join().unwrap()).unwrap();
    assert_eq!(v["status"], "completed", "{v:#}");
    assert_eq!(v["summary"], "after the huge line");
    assert!(peak_kib > 0, "could not sample pwk's memory");
    assert!(
        peak_kib < 48 * 1024,
        "pwk's peak RSS was {peak_kib} KiB for a 100 MB line"
    );
}

#[test]
fn a_crash_mid_stream_fails_without_retry() {
    let f = Fake::new();
    let (out, v) = f.run("crash-mid", &f.request());
    assert_eq!(out.code, 1);
    assert_eq!(v["status"], "failed", "{v:#}");
    assert_eq!(v["error"]["code"], "PI_FAILED");
    assert_eq!(v["executionStarted"], true);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("signal 9"),
        "{v:#}"
    );
    assert_eq!(f.starts().len(), 1, "a started task is never run again");
}

#[test]
fn stdin_rejected_before_start_retries_once_on_argv() {
    let f = Fake::new();
    let (out, v) = f.run("stdin-rejected", &f.request());
    assert_eq!(out.code, 0, "{v:#}");
    assert_eq!(v["fallbackUsed"], "argv");
    assert_eq!(v["promptTransport"], "argv");
    let starts = f.starts();
    assert_eq!(starts.len(), 2);
    let argv = starts[1]["argv"].as_array().unwrap();
    assert!(
        argv.last()
            .unwrap()
            .as_str()
            .unwrap()
            .contains("Summarise the README in three sentences")
    );
    assert_eq!(starts[1]["stdin"], "", "never stdin and argv together");
}

#[test]
fn stdin_rejected_after_start_is_not_retried() {
    let f = Fake::new();
    let (_, v) = f.run("stdin-rejected-after-start", &f.request());
    assert_eq!(v["status"], "failed", "{v:#}");
    assert_eq!(f.starts().len(), 1);
}

#[test]
fn json_mode_rejected_retries_once_in_text_mode() {
    let f = Fake::new();
    let (out, v) = f.run("json-rejected", &f.request());
    assert_eq!(out.code, 0, "{v:#}");
    assert_eq!(v["fallbackUsed"], "text-mode");
    assert_eq!(v["summary"], "text mode");
    let starts = f.starts();
    assert_eq!(starts.len(), 2);
    assert!(!starts[1]["argv"].to_string().contains("--mode"));
}

#[test]
fn eacces_at_start_is_sandbox_permission() {
    let f = Fake::new();
    let (out, v) = f.run("eacces", &f.request());
    assert_eq!(out.code, 1);
    assert_eq!(v["error"]["code"], "SANDBOX_PERMISSION", "{v:#}");
    assert_eq!(v["error"]["deniedPath"], "/denied/agent/auth.json");
    assert_eq!(v["error"]["executionStarted"], false);
    assert_eq!(f.starts().len(), 1);
}

#[test]
fn timeout_kills_the_whole_process_group() {
    let f = Fake::new();
    let mut req = f.request();
    req["timeoutMs"] = json!(1500);
    let t = Instant::now();
    let (_, v) = f.run("tool-child", &req);
    assert_eq!(v["status"], "timed_out", "{v:#}");
    assert_eq!(v["error"]["code"], "TIMEOUT");
    // The limit as the request stated it, not what was left of it once pi started
    // (N34: `timeoutMs 2000` was reported as "within 1999 ms").
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("within 1500 ms"), "{message}");
    // The tool child's zombie (re-parented to pwk) is reaped, not reported as a
    // survivor after a 2 s wait (N34).
    assert!(
        !v["warnings"]
            .to_string()
            .contains("still there after SIGKILL"),
        "{v:#}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(15),
        "took {:?}",
        t.elapsed()
    );
    // The tool child ignored SIGTERM and held stdout; SIGKILL to the group got it.
    let marker = format!("FAKE_PI_LOG={}", f.log.display());
    let left: Vec<_> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == marker.as_bytes()))
        })
        .filter(|e| {
            !std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| s.contains(") Z "))
        })
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn turn_budget_stops_the_run() {
    let f = Fake::new();
    let mut spec =
        pwk::delegate::PiRunSpec::new(&f.work, "Count to a thousand, one turn per number");
    spec.max_turns = Some(3);
    spec.env = vec![("FAKE_PI_MODE".into(), "turns".into())];
    let env = pwk::env::Env {
        pi_bin: Some(fake_pi()),
        ..Default::default()
    };
    let o = pwk::delegate::run_pi(&spec, &env, &|_| {});
    assert!(o.turn_budget_reached, "{o:?}");
    assert_eq!(o.error.unwrap().code, pwk::delegate::ErrorCode::TurnBudget);
    assert!(o.final_text.unwrap().starts_with("thinking step"));
}

#[test]
fn missing_pi_bin_is_pi_not_found_without_fallback() {
    let f = Fake::new();
    let out = run_with_stdin(
        f.env
            .pwk()
            .arg("delegate")
            .env("PWK_PI_BIN", f.env.path("no-such-pi")),
        f.request().to_string().as_bytes(),
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(out.code, 1);
    assert_eq!(v["error"]["code"], "PI_NOT_FOUND", "{v:#}");
    let out = run_with_stdin(
        f.env
            .pwk()
            .arg("delegate")
            .env("PATH", f.env.path("empty-path")),
        f.request().to_string().as_bytes(),
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "PI_NOT_FOUND", "{v:#}");
}

#[test]
fn refused_requests_are_blocked_before_launch() {
    let f = Fake::new();
    let base = f.request();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"objective": "fix it"}), "objective"),
        (
            json!({"objective": "Refactor the entire codebase to async"}),
            "objective",
        ),
        (
            json!({"objective": "1. add the guard\n2. rewrite the docs"}),
            "objective",
        ),
        (json!({"acceptance": []}), "acceptance"),
        (json!({"cwd": "relative/dir"}), "cwd"),
        (json!({"provider": "mock"}), "model"),
        (json!({"profile": "implementation"}), "writeMode"),
        (
            json!({"profile": "implementation", "writeMode": "direct", "allowedWriteScope": ["src"]}),
            "workspaceStateKnown",
        ),
        (
            json!({"profile": "implementation", "writeMode": "isolated", "allowedWriteScope": ["src"], "workspaceMode": "existing"}),
            "workspaceMode",
        ),
        (
            json!({"profile": "readonly", "writeMode": "isolated", "allowedWriteScope": ["src"]}),
            "writeMode",
        ),
        (json!({"action": "continue"}), "sessionFile"),
        (json!({"thinking": "ultra"}), "thinking"),
    ];
    for (patch, field) in cases {
        let mut req = base.clone();
        for (k, v) in patch.as_object().unwrap() {
            req[k] = v.clone();
        }
        let (out, v) = f.run("ok", &req);
        assert_eq!(out.code, 1, "{patch}");
        assert_eq!(v["status"], "blocked", "{patch}: {v:#}");
        assert_eq!(v["error"]["code"], "NEEDS_DECISION");
        assert!(v["decisionNeeded"].as_str().is_some_and(|d| !d.is_empty()));
        assert!(
            v["validationErrors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["field"] == field),
            "{patch}: expected a problem with {field}: {v:#}"
        );
    }
    assert!(f.starts().is_empty(), "nothing was launched");
}

#[test]
fn a_good_write_request_runs_and_passes_the_task_text_on_stdin() {
    let f = Fake::new();
    let mut req = f.request();
    req["profile"] = json!("implementation");
    req["writeMode"] = json!("direct");
    req["allowedWriteScope"] = json!(["README.md"]);
    req["workspaceStateKnown"] = json!(true);
    req["writeAuthorization"] = json!(true);
    req["thinking"] = json!("low");
    let (out, v) = f.run("ok", &req);
    assert_eq!(out.code, 0, "{v:#}");
    let starts = f.starts();
    let argv: Vec<String> = serde_json::from_value(starts[0]["argv"].clone()).unwrap();
    assert_eq!(&argv[..4], ["--mode", "json", "--thinking", "low"]);
    assert!(
        !argv.iter().any(|a| a == "--tools"),
        "implementation uses pi's default tools: {argv:?}"
    );
    assert!(argv.iter().any(|a| a == "--session"));
    let stdin = starts[0]["stdin"].as_str().unwrap();
    assert!(stdin.contains("Summarise the README in three sentences"));
    assert!(stdin.contains("---PI_TASK_REPORT---"));
}

#[test]
fn input_that_is_not_a_json_object_exits_2_with_a_location() {
    let f = Fake::new();
    let out = run_with_stdin(
        &mut f.cmd("ok"),
        b"{\n  \"action\": \"delegate\",\n  oops\n}",
    );
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("stdin:3:3: not valid JSON: key must be a string"),
        "{}",
        out.stderr
    );
    // Exactly one JSON result on stdout, the position said once.
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["status"], "failed");
    assert_eq!(v["error"]["code"], "INVALID_REQUEST");
    assert_eq!(
        v["error"]["message"],
        "stdin:3:3: not valid JSON: key must be a string"
    );
    assert_eq!(
        (v["error"]["line"].as_u64(), v["error"]["column"].as_u64()),
        (Some(3), Some(3))
    );
    let out = run_with_stdin(&mut f.cmd("ok"), b"[1, 2]");
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("must be a JSON object"),
        "{}",
        out.stderr
    );
    // A duplicate key is refused with both positions, never last-wins.
    let mut req = f.request().to_string();
    req.insert_str(1, "\"profile\":\"implementation\",");
    let out = run_with_stdin(&mut f.cmd("ok"), req.as_bytes());
    assert_eq!(out.code, 2, "{}", out.stdout);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("stdin:1:") && msg.contains("duplicate key \"profile\" (first at 1:2)"),
        "{msg}"
    );
    assert!(f.starts().is_empty(), "pi must not start");
}

#[test]
fn direct_writes_in_the_same_cwd_never_overlap() {
    // Two writing tasks on a fake pi that sleeps: the second waits for the first.
    let f = Fake::new();
    let mut req = f.request();
    req["profile"] = json!("implementation");
    req["writeMode"] = json!("direct");
    req["allowedWriteScope"] = json!(["README.md"]);
    req["workspaceStateKnown"] = json!(true);
    req["writeAuthorization"] = json!(true);
    let spawn = |req: &Value| {
        let mut c = f.cmd("ok");
        c.env("FAKE_PI_SLEEP", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(req.to_string().as_bytes())
            .unwrap();
        child
    };
    let t = Instant::now();
    let a = spawn(&req);
    let b = spawn(&req);
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success() && b.status.success());
    let waited = String::from_utf8_lossy(&a.stderr).contains("waiting for another write task")
        || String::from_utf8_lossy(&b.stderr).contains("waiting for another write task");
    assert!(waited, "one of them waited for the lock");
    assert!(
        t.elapsed() >= Duration::from_secs(2),
        "they ran one after the other"
    );
    // Read-only tasks take no lock, so they never wait.
    let ro = f.request();
    let (a, b) = (spawn(&ro), spawn(&ro));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(
        !String::from_utf8_lossy(&a.stderr).contains("waiting")
            && !String::from_utf8_lossy(&b.stderr).contains("waiting")
    );
}

#[test]
fn sigterm_to_pwk_terminates_pi_s_group_and_still_reports() {
    let f = Fake::new();
    let mut child = f
        .cmd("tool-child")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(f.request().to_string().as_bytes())
            .unwrap();
    }
    // Wait until the fake pi has started (it logs its start), then signal pwk.
    let t = Instant::now();
    while f.starts().is_empty() && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "failed", "{v:#}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("SIGTERM"),
        "{v:#}"
    );
    let marker = format!("FAKE_PI_LOG={}", f.log.display());
    let left = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == marker.as_bytes()))
        })
        .filter(|e| {
            !std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| s.contains(") Z "))
        })
        .count();
    assert_eq!(left, 0, "processes left behind");
}

#[test]
fn dry_run_prints_the_plan_without_starting_pi() {
    let f = Fake::new();
    let mut c = f.cmd("ok");
    c.arg("--dry-run");
    let out = run_with_stdin(&mut c, f.request().to_string().as_bytes());
    assert_eq!(out.code, 0, "{}", out.stdout);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["status"], "planned");
    assert_eq!(v["launch"]["args"][0], "--mode");
    assert!(
        v["launch"]["args"]
            .to_string()
            .contains("read,grep,find,ls")
    );
    assert!(
        v["prompt"]
            .as_str()
            .unwrap()
            .contains("Summarise the README in three sentences")
    );
    assert!(f.starts().is_empty());
}

#[test]
fn a_worker_that_needs_a_decision_blocks_the_result() {
    let f = Fake::new();
    let report = json!({"summary": "stopped", "changedFiles": [], "scopeExceeded": true,
        "decisionNeeded": "src/db/schema.rs must change too; allow it?",
        "outOfScopeFindings": ["schema drift in src/db"]});
    let out = run_with_stdin(
        f.cmd("ok").env("FAKE_PI_REPORT", report.to_string()),
        f.request().to_string().as_bytes(),
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(out.code, 1);
    assert_eq!(v["status"], "blocked", "{v:#}");
    assert_eq!(v["error"]["code"], "NEEDS_DECISION");
    assert_eq!(
        v["decisionNeeded"],
        "src/db/schema.rs must change too; allow it?"
    );
    assert_eq!(v["scopeExceeded"], true);
    assert_eq!(v["outOfScopeFindings"], json!(["schema drift in src/db"]));
    assert_eq!(v["reportParsed"], true);
}

#[test]
fn the_request_can_come_from_a_file() {
    let f = Fake::new();
    let file = f.env.write("req.json", f.request().to_string());
    let out = crate::support::run(f.cmd("ok").arg("--request").arg(&file));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["status"], "completed");
    let out = crate::support::run(f.cmd("ok").arg("--request").arg(f.env.path("missing.json")));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("cannot open the request file"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_dash_prompt_is_never_moved_to_argv() {
    let f = Fake::new();
    let mut spec = pwk::delegate::PiRunSpec::new(&f.work, "-starts with a dash");
    spec.env = vec![
        ("FAKE_PI_MODE".into(), "stdin-rejected".into()),
        ("FAKE_PI_LOG".into(), f.log.display().to_string()),
    ];
    let env = pwk::env::Env {
        pi_bin: Some(fake_pi()),
        ..Default::default()
    };
    let o = pwk::delegate::run_pi(&spec, &env, &|_| {});
    assert_eq!(
        o.error.unwrap().code,
        pwk::delegate::ErrorCode::PromptStdinUnsupported
    );
    assert_eq!(o.fallback_used, None);
    assert_eq!(f.starts().len(), 1);
}
