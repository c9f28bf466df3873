//! Every probe of pi — `pi --help` (does it have `--no-mcp`) and `pi --list-models`
//! (which models resolve) — × every front end that asks it runs under the same
//! descendant reaping as a run: a `setsid` double-forked daemon the probe leaves
//! (holding the probe's stdout, or detached) is stopped before the command returns.
//! A probe that hangs stays inside the caller's time budget (`timeoutMs`,
//! `maxWallSeconds`, `--budget max-wall-seconds`): the run ends timed out / over
//! budget without pi being started. A listing over 64 KiB is read whole; one over
//! pwk's limit is an error, never half trusted.
//!
//! Generated: 6 `--help` front ends + 6 `--list-models` front ends, × 2 daemon kinds
//! (24 daemon cases); 4 budget kinds × a hanging `--help` (4 cases); listing sizes ×
//! 2 front ends for the model check.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::mcp::RawMcp;
use crate::support::lsp_client::{LspClient, file_uri};
use crate::support::process::pwk_on_fake_pi;
use crate::support::{Output, TestEnv, run_with_stdin};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    Help,
    List,
}

impl Probe {
    fn kind(self) -> &'static str {
        match self {
            Probe::Help => "help",
            Probe::List => "list",
        }
    }
}

/// A project: a role with a model hint, the reviewer role with one, a packet, an
/// agent dir whose `mcp.json` makes read-only runs want `--no-mcp`.
struct World {
    env: TestEnv,
    pids: PathBuf,
    log: PathBuf,
}

impl World {
    fn new() -> World {
        let env = TestEnv::new();
        std::fs::create_dir_all(env.path(".git")).unwrap();
        std::fs::create_dir_all(env.path("work")).unwrap();
        env.write("agent/mcp.json", r#"{"mcpServers":{}}"#);
        env.write(
            ".pi/agents/m.md",
            "---\nname: m\ndescription: A role with a model.\nmodel: fake/fake-model\ntools: read, ls\n---\nBody.\n",
        );
        env.write(
            ".agents/agents/pwk-smell-reviewer.md",
            "---\nname: pwk-smell-reviewer\ndescription: d\nmodel: fake/fake-model\ntools: read\n---\n# Smell\n",
        );
        env.write("packet.md", "## Requirement 1\nThe answer is 42.\n");
        World {
            pids: env.path("probe.pids"),
            log: env.path("starts.log"),
            env,
        }
    }

    /// `pwk` with the fake pi, its probe fault and its logs.
    fn pwk(&self, fault: &[(&str, &str)]) -> Command {
        let mut c = pwk_on_fake_pi(&self.env, &self.log);
        c.env("FAKE_PI_PROBE_PIDS", &self.pids)
            .env("FAKE_PI_HELP_NO_MCP", "1")
            .env("FAKE_PI_TEXT", "No findings.");
        for (k, v) in fault {
            c.env(k, v);
        }
        c
    }

    fn request(&self, extra: Value) -> Vec<u8> {
        let mut r = json!({"action": "delegate", "taskId": "p-1", "cwd": self.env.path("work"),
            "objective": "Summarise the README", "scope": ["README.md"], "constraints": [],
            "acceptance": ["a summary"], "profile": "readonly"});
        for (k, v) in extra.as_object().unwrap() {
            r[k] = v.clone();
        }
        r.to_string().into_bytes()
    }

    fn probe_pids(&self) -> Vec<i32> {
        std::fs::read_to_string(&self.pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// pi runs started (not probes: the fake logs only those).
    fn runs(&self) -> usize {
        std::fs::read_to_string(&self.log).map_or(0, |s| s.lines().count())
    }
}

impl Drop for World {
    fn drop(&mut self) {
        for p in self.probe_pids() {
            if let Some(p) = rustix::process::Pid::from_raw(p) {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
            }
        }
    }
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

/// One front end asking one probe: runs it to its end.
type Front = fn(&World, &[(&str, &str)]) -> Output;

fn fronts(probe: Probe) -> Vec<(&'static str, Front)> {
    match probe {
        Probe::Help => vec![
            ("delegate", |w, f| {
                run_with_stdin(w.pwk(f).arg("delegate"), &w.request(json!({})))
            }),
            ("delegate --dry-run", |w, f| {
                run_with_stdin(
                    w.pwk(f).args(["delegate", "--dry-run"]),
                    &w.request(json!({})),
                )
            }),
            ("review --transport json", |w, f| {
                run_with_stdin(
                    w.pwk(f).args([
                        "review",
                        "--roles",
                        "smell",
                        "--packet",
                        "packet.md",
                        "--format",
                        "json",
                        "--transport",
                        "json",
                    ]),
                    b"",
                )
            }),
            ("review --transport rpc", |w, f| {
                run_with_stdin(
                    w.pwk(f).args([
                        "review",
                        "--roles",
                        "smell",
                        "--packet",
                        "packet.md",
                        "--format",
                        "json",
                        "--transport",
                        "rpc",
                    ]),
                    b"",
                )
            }),
            ("run-request", |w, f| {
                run_with_stdin(w.pwk(f).arg("run-request"), &run_request(w))
            }),
            ("mcp delegate_start", |w, f| mcp_delegate(w, f, json!({}))),
        ],
        Probe::List => vec![
            ("show", |w, f| {
                run_with_stdin(w.pwk(f).args(["show", "m", "--format", "json"]), b"")
            }),
            ("smoke", |w, f| {
                run_with_stdin(w.pwk(f).args(["smoke", "m", "--format", "json"]), b"")
            }),
            ("lint --check-models", |w, f| {
                run_with_stdin(
                    w.pwk(f).args(["lint", "--check-models", ".pi/agents/m.md"]),
                    b"",
                )
            }),
            ("setup --fast-model", |w, f| {
                run_with_stdin(
                    w.pwk(f)
                        .args(["setup", "--fast-model", "fake/fake-model", "--dry-run"]),
                    b"",
                )
            }),
            ("run-request", |w, f| {
                run_with_stdin(w.pwk(f).arg("run-request"), &run_request(w))
            }),
            ("lsp completion", lsp_completion),
        ],
    }
}

fn run_request(w: &World) -> Vec<u8> {
    json!({"operation": "feature-review", "roles": ["pwk-smell-reviewer"],
           "prompt": "Review the packet in packet.md.",
           "cwd": w.env.root().display().to_string(),
           "constraints": {"readOnly": true, "freshContext": true, "parallel": true, "bounded": true}})
    .to_string()
    .into_bytes()
}

/// `pwk mcp`: `delegate_start`, wait for the task, read its result, end the session.
fn mcp_delegate(w: &World, f: &[(&str, &str)], extra: Value) -> Output {
    let mut m = RawMcp::start_cmd(w.pwk(f));
    let args: Value = serde_json::from_slice(&w.request(extra)).unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "delegate_start", "arguments": args}});
    m.send(call.to_string().as_bytes());
    let started = m.answer(&json!(1));
    let task = started["result"]["structuredContent"]["task"].clone();
    assert!(task.is_string(), "{started:#}");
    m.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "task_wait", "arguments": {"task": task, "timeoutMs": 60000}}})
        .to_string()
        .as_bytes(),
    );
    let waited = m.answer(&json!(2));
    assert_eq!(
        waited["result"]["structuredContent"]["finished"], true,
        "{waited:#}"
    );
    m.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "task_result", "arguments": {"task": task}}})
        .to_string()
        .as_bytes(),
    );
    let result = m.answer(&json!(3));
    let status = m.finish();
    Output {
        code: status.code().unwrap_or(-1),
        stdout: result["result"]["structuredContent"]["result"].to_string(),
        stderr: String::new(),
    }
}

/// `pwk lsp`: a `model:` completion starts `pi --list-models`; the session ends once
/// the probe answered (its daemon, if any, was started before that).
fn lsp_completion(w: &World, f: &[(&str, &str)]) -> Output {
    let text = "---\nname: scout\ndescription: Finds things.\nmodel: \n---\nBody\n";
    let uri = file_uri(&w.env.write(".pi/agents/scout.md", text));
    let mut cmd = w.pwk(f);
    cmd.args(["lsp", "--host", "tintinweb"]);
    let mut c = LspClient::start(cmd);
    c.initialize(&file_uri(w.env.root()));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
    );
    let patience = std::time::Instant::now();
    loop {
        let r = c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 7}}),
        );
        if r.to_string().contains("fake/fake-model") {
            break;
        }
        assert!(
            patience.elapsed() < std::time::Duration::from_secs(60),
            "no model completion: {r}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    c.shutdown();
    Output {
        code: 0,
        stdout: String::new(),
        stderr: String::new(),
    }
}

/// A daemon double-forked by either probe, holding the probe's stdout or detached,
/// does not survive any front end that asked the probe.
#[test]
fn a_daemon_left_by_a_probe_does_not_survive_any_front_end() {
    for probe in [Probe::Help, Probe::List] {
        for (front, run) in fronts(probe) {
            for detach in ["0", "1"] {
                let w = World::new();
                let what = format!("{} probe, {front}, detach {detach}", probe.kind());
                let out = run(
                    &w,
                    &[
                        ("FAKE_PI_PROBE_DAEMON", probe.kind()),
                        ("FAKE_PI_DAEMON_DETACH", detach),
                    ],
                );
                let pids = w.probe_pids();
                assert!(
                    !pids.is_empty(),
                    "{what}: the probe did not run (no daemon)\n{}\n{}",
                    out.stdout,
                    out.stderr
                );
                let left: Vec<i32> = pids.into_iter().filter(|p| alive(*p)).collect();
                assert!(
                    left.is_empty(),
                    "{what}: daemon(s) {left:?} outlived pwk\n{}\n{}",
                    out.stdout,
                    out.stderr
                );
            }
        }
    }
}

/// A `pi --help` that never answers, × every kind of time budget a read-only run can
/// have: the run ends within that budget as timed out / over budget, says the probe
/// took the time, and never starts pi; the hanging probe is gone.
#[test]
fn a_hanging_help_probe_stays_inside_the_callers_budget() {
    type Case = (&'static str, fn(&World) -> Output, &'static str);
    let cases: Vec<Case> = vec![
        (
            "delegate timeoutMs",
            |w| {
                run_with_stdin(
                    w.pwk(&[("FAKE_PI_PROBE_HANG", "help")]).arg("delegate"),
                    &w.request(json!({"timeoutMs": 2000})),
                )
            },
            "TIMEOUT",
        ),
        (
            "delegate maxWallSeconds",
            |w| {
                run_with_stdin(
                    w.pwk(&[("FAKE_PI_PROBE_HANG", "help")]).arg("delegate"),
                    &w.request(json!({"budget": {"maxWallSeconds": 2}})),
                )
            },
            "BUDGET_EXCEEDED",
        ),
        (
            "review --budget max-wall-seconds",
            |w| {
                run_with_stdin(
                    w.pwk(&[("FAKE_PI_PROBE_HANG", "help")]).args([
                        "review",
                        "--roles",
                        "smell",
                        "--packet",
                        "packet.md",
                        "--format",
                        "json",
                        "--transport",
                        "json",
                        "--budget",
                        "max-wall-seconds=2",
                    ]),
                    b"",
                )
            },
            "BUDGET_EXCEEDED",
        ),
        (
            "mcp delegate_start timeoutMs",
            |w| {
                mcp_delegate(
                    w,
                    &[("FAKE_PI_PROBE_HANG", "help")],
                    json!({"timeoutMs": 2000}),
                )
            },
            "TIMEOUT",
        ),
    ];
    for (what, run, code) in cases {
        let w = World::new();
        let out = run(&w);
        assert!(
            out.stdout.contains(code)
                && out.stdout.contains("pi --help")
                && out.stdout.contains("pi was not started"),
            "{what}: {}\n{}",
            out.stdout,
            out.stderr
        );
        assert_eq!(
            w.runs(),
            0,
            "{what}: pi was started after the budget was gone"
        );
        let pids = w.probe_pids();
        assert!(!pids.is_empty(), "{what}: the probe did not run");
        assert!(
            pids.iter().all(|p| !alive(*p)),
            "{what}: the hanging probe {pids:?} outlived pwk"
        );
    }
}

/// `pi --list-models` listings of every size up to pwk's limit are read whole (the
/// model in the middle of a 1,200-model, ~80 KB listing resolves); one over the limit
/// is an error that says so, never a listing cut in the middle.
#[test]
fn a_long_model_listing_is_read_whole_or_reported() {
    for n in [0usize, 600, 1_200, 10_000] {
        let w = World::new();
        let n_s = n.to_string();
        let out = run_with_stdin(
            w.pwk(&[("FAKE_PI_LIST_N", &n_s)]).args([
                "lint",
                "--check-models",
                "--format",
                "concise",
                ".pi/agents/m.md",
            ]),
            b"",
        );
        assert!(
            !out.stdout.contains("unresolved-model"),
            "{n} models: {}\n{}",
            out.stdout,
            out.stderr
        );
        let v: Value = serde_json::from_str(
            &run_with_stdin(
                w.pwk(&[("FAKE_PI_LIST_N", &n_s)])
                    .args(["show", "m", "--format", "json"]),
                b"",
            )
            .stdout,
        )
        .unwrap();
        assert_eq!(v["model_check"]["resolves"], true, "{n}: {v:#}");
    }
    // Over the limit (8 MiB): 150,000 rows of ~70 bytes.
    let w = World::new();
    let v: Value = serde_json::from_str(
        &run_with_stdin(
            w.pwk(&[("FAKE_PI_LIST_N", "150000")])
                .args(["show", "m", "--format", "json"]),
            b"",
        )
        .stdout,
    )
    .unwrap();
    let c = &v["model_check"];
    assert_eq!(c["checked"], false, "{c:#}");
    assert!(
        c["note"].to_string().contains("could not read whole"),
        "{c:#}"
    );
}

/// Every front end that asks `pi --help` shares one answer per pi binary (#35 item 3):
/// for each front end, in a fresh world, that front end's cold run asks once; then it
/// again and the next front end in the list, each a new pwk process, ask nothing, and
/// every pi they start gets `--no-mcp` (the fake lists it; the world configures MCP).
#[test]
fn every_front_end_asks_pi_help_once_per_binary_not_once_per_run() {
    let help = fronts(Probe::Help);
    for (i, (first, run_first)) in help.iter().enumerate() {
        let w = World::new();
        let log = w.env.path("help.log");
        let probes = || std::fs::read_to_string(&log).map_or(0, |s| s.lines().count());
        let f = [("FAKE_PI_HELP_LOG", log.to_str().unwrap())];
        let (next, run_next) = &help[(i + 1) % help.len()];
        let rounds: [(&str, &str, &Front); 3] = [
            ("cold", first, run_first),
            ("warm", first, run_first),
            ("warm", next, run_next),
        ];
        for (round, front, run) in rounds {
            let before = w.runs();
            let out = run(&w, &f);
            assert_eq!(
                probes(),
                1,
                "{front}, {round} (cache filled by {first}): `pi --help` runs\n{}\n{}",
                out.stdout,
                out.stderr
            );
            let starts: Vec<Value> = std::fs::read_to_string(&w.log)
                .unwrap_or_default()
                .lines()
                .skip(before)
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            for s in &starts {
                assert!(
                    s["argv"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|a| a == "--no-mcp"),
                    "{front}, {round}: pi started without --no-mcp: {s}"
                );
            }
        }
    }
}
