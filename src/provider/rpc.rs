//! The RPC transport: run a role in `pi --mode rpc` so the turn budget can *steer*
//! the role to wrap up and report, instead of cutting it off (see
//! `docs/turn-budget.md` for the measurements on pi 0.73.1 and 1.6.0).
//!
//! * Same argument array as the JSON runner (`plan_launch`), with `--mode rpc`;
//!   the role body goes in a 0600 temp file, the prompt as an RPC `prompt` command.
//! * When turn `budget` starts, pwk sends `steer` with [`STEER_MESSAGE`]; pi queues it
//!   and hands it to the model right after that turn's tools, so the model's next
//!   call (turn budget+1) is the wrap-up. If the model keeps calling tools anyway,
//!   the process group is stopped once turn budget+1+[`GRACE_TURNS`] starts.
//! * The run ends at `agent_settled` (1.6) or at an `agent_end` that no retry
//!   follows (0.73.1 has no `agent_settled`); then stdin is closed and pi exits.
//!   stdin also closes if pwk dies, and RPC pi shuts down on EOF, so no orphan.
//! * Wall-clock timeout and stall watchdog (no output while no tool runs, as in the
//!   JSON runner): SIGTERM to the process group, SIGKILL after `KILL_GRACE`.
//!
//! The process plumbing (process group, stopper, stderr capture, event reading,
//! signal flag, temp file) is `delegate::process`, shared with the JSON runner.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use super::execute::{RoleExecutor, RoleRun, RunEnd};
use super::mapping::RoleJob;
use super::pi::PiExecutor;
use crate::delegate::classify::{classify_error_message, human_message};
use crate::delegate::process::{self, Activity, GroupStopper, StderrCapture, TempFile};
use crate::delegate::runner::SYSTEM_PROMPT_PLACEHOLDER;
use crate::delegate::stream::{Line, StreamState};
use crate::delegate::{Progress, plan_launch};
use crate::env::Env;

/// The wrap-up message (tintinweb's host sends the same instruction at its `max_turns`).
pub const STEER_MESSAGE: &str = "You have reached your turn limit. Wrap up immediately — provide your final report now, in the format your role requires.";

/// Extra turns a steered role may take beyond its wrap-up turn before it is stopped.
pub const GRACE_TURNS: u32 = 2;

/// After `agent_end` of a failed model call, how long to wait for pi's auto-retry.
const RETRY_WAIT: Duration = Duration::from_millis(1500);

/// Runs jobs on the real pi in RPC mode.
pub struct RpcExecutor<'a> {
    pub env: &'a Env,
}

enum Ev {
    Progress(Progress),
    /// `agent_end`; `failed`: the last model call failed (pi may retry it).
    AgentEnd {
        failed: bool,
    },
    Settled,
    Response {
        command: String,
        success: bool,
        error: Option<String>,
    },
}

fn failed(msg: String, start: Instant) -> RoleRun {
    RoleRun {
        error: Some(msg),
        duration: start.elapsed(),
        ..RoleRun::new(RunEnd::Failed)
    }
}

impl RoleExecutor for RpcExecutor<'_> {
    fn interrupted(&self) -> Option<String> {
        super::pi::interruption()
    }

    fn execute(&self, job: &RoleJob, progress: &(dyn Fn(u32, u32) + Sync)) -> RoleRun {
        let start = Instant::now();
        let spec = PiExecutor::spec(job, &job.definition);
        let launch = match plan_launch(&spec, self.env) {
            Ok(l) => l,
            Err(e) => return failed(format!("{}: {}", e.code, e.message), start),
        };
        let prompt_file = match spec
            .system_prompt
            .as_deref()
            .map(|s| TempFile::create("pwk-role", s))
            .transpose()
        {
            Ok(f) => f,
            Err(e) => {
                return failed(
                    format!("PI_FAILED: cannot write the role body to a temp file: {e}"),
                    start,
                );
            }
        };
        let args = rpc_args(&launch.args, prompt_file.as_ref().map(TempFile::path));
        let run_id = format!(
            "pwk-{}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
            job.index
        );
        let mut child = match process::spawn_in_group(
            Command::new(&launch.program)
                .args(&args)
                .current_dir(&job.cwd)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        ) {
            Ok(c) => c,
            Err(e) => {
                return failed(
                    format!(
                        "PI_NOT_FOUND: cannot start {}: {e}",
                        launch.program.display()
                    ),
                    start,
                );
            }
        };
        let mut stopper = GroupStopper::new(child.id());

        // stdin: a writer thread fed by a channel; dropping the sender closes stdin.
        let (cmd_tx, cmd_rx) = mpsc::channel::<String>();
        if let Some(mut stdin) = child.stdin.take() {
            std::thread::spawn(move || {
                for line in cmd_rx {
                    if stdin
                        .write_all(line.as_bytes())
                        .and_then(|()| stdin.flush())
                        .is_err()
                    {
                        break;
                    }
                }
            });
        }
        let mut cmd_tx = Some(cmd_tx);
        let send = |tx: &Option<mpsc::Sender<String>>, v: serde_json::Value| {
            if let Some(tx) = tx {
                let _ = tx.send(format!("{v}\n"));
            }
        };
        send(
            &cmd_tx,
            serde_json::json!({"id": "pwk-prompt", "type": "prompt", "message": job.prompt}),
        );

        let stderr = child
            .stderr
            .take()
            .map(|err| StderrCapture::spawn(err, "pi-rpc-stderr"));

        let activity = Arc::new(Activity::default());
        let (ev_tx, ev_rx) = mpsc::channel::<Ev>();
        let reader = child.stdout.take().map(|out| {
            let activity = Arc::clone(&activity);
            std::thread::spawn(move || {
                let mut state = StreamState::default();
                process::read_events(out, start, &activity, &mut state, |line, state| {
                    if let Line::Complete(bytes) = &line
                        && let Some(ev) = rpc_event(bytes)
                    {
                        let _ = ev_tx.send(ev);
                    }
                    let before_end = state.saw_agent_end;
                    state.feed(line, &mut |p| {
                        let _ = ev_tx.send(Ev::Progress(p));
                    });
                    if state.saw_agent_end && !before_end {
                        let failed = state.final_message.as_ref().is_none_or(|m| {
                            matches!(m.stop_reason.as_deref(), Some("error" | "aborted"))
                        });
                        let _ = ev_tx.send(Ev::AgentEnd { failed });
                    }
                });
                state
            })
        });

        let budget = job.turn_budget.max(1);
        let mut turns = 0u32;
        let mut tool_calls = 0u32;
        let mut steered = false;
        let mut hard_stopped = false;
        let mut timed_out = false;
        let mut stalled = false;
        let mut prompt_error: Option<String> = None;
        let mut end_at: Option<Instant> = None;
        let mut interrupted: Option<String> = None;
        loop {
            match ev_rx.recv_timeout(Duration::from_millis(25)) {
                Ok(Ev::Progress(Progress::TurnStarted(n))) => {
                    turns = n;
                    end_at = None;
                    progress(turns, tool_calls);
                    if n >= budget && !steered {
                        steered = true;
                        send(
                            &cmd_tx,
                            serde_json::json!({"id": "pwk-steer", "type": "steer", "message": STEER_MESSAGE}),
                        );
                    }
                    if n > budget + 1 + GRACE_TURNS && !hard_stopped {
                        hard_stopped = true;
                        stopper.stop();
                    }
                }
                Ok(Ev::Progress(Progress::ToolCall { .. })) => {
                    tool_calls += 1;
                    progress(turns, tool_calls);
                }
                Ok(Ev::Progress(Progress::Retry { .. })) => end_at = None,
                Ok(Ev::Progress(_)) => {}
                Ok(Ev::AgentEnd { failed }) => {
                    // A failed model call may be retried by pi: give the retry a moment.
                    end_at = Some(if failed {
                        Instant::now() + RETRY_WAIT
                    } else {
                        Instant::now()
                    });
                }
                Ok(Ev::Settled) => {
                    cmd_tx = None;
                }
                Ok(Ev::Response {
                    command,
                    success,
                    error,
                }) => {
                    if !success && (command == "prompt" || command == "parse") {
                        prompt_error = Some(
                            error.unwrap_or_else(|| format!("pi rejected the {command} command")),
                        );
                        cmd_tx = None;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // stdout closed: pi is exiting.
                    cmd_tx = None;
                }
            }
            if end_at.is_some_and(|t| Instant::now() >= t) {
                cmd_tx = None; // stdin EOF: pi shuts down
            }
            if interrupted.is_none()
                && let Some(why) = super::pi::interruption()
            {
                interrupted = Some(why);
                stopper.stop();
            }
            if !timed_out && start.elapsed() >= job.timeout {
                timed_out = true;
                stopper.stop();
            }
            // Waiting for pi's retry after a failed call is not a stall.
            if !stalled
                && end_at.is_none()
                && let Some(stall) = job.stall_timeout
                && activity.stalled(start, stall)
            {
                stalled = true;
                stopper.stop();
            }
            stopper.tick();
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
        }
        drop(cmd_tx);
        let status = child.wait().ok();
        stopper.sweep();
        let state = reader.and_then(|h| h.join().ok()).unwrap_or_default();
        let stderr = stderr
            .and_then(|rx| rx.recv_timeout(Duration::from_secs(2)).ok())
            .unwrap_or_default();

        let mut run = RoleRun::new(RunEnd::Completed);
        run.run_id = Some(run_id);
        run.turns = state.turns.max(turns);
        run.tool_calls = state.tool_calls.max(tool_calls);
        run.turn_budget_reached = steered;
        run.duration = start.elapsed();
        let fm = state.final_message.clone().unwrap_or_default();
        run.model = match (&fm.provider, &fm.model) {
            (Some(p), Some(m)) => Some(format!("{p}/{m}")),
            _ => None,
        };
        if steered {
            run.notes.push(format!(
                "at turn {budget} pi was steered (RPC `steer`) to wrap up and report"
            ));
        }
        let text = Some(fm.text.clone()).filter(|t| !t.trim().is_empty());
        if let Some(why) = interrupted {
            run.end = RunEnd::Failed;
            run.final_text = None;
            run.error = Some(format!(
                "PI_FAILED: {why}; pi's process group was terminated"
            ));
        } else if timed_out {
            run.end = RunEnd::TimedOut;
            run.final_text = text;
            run.error = Some(format!(
                "TIMEOUT: pi did not finish within {} s; its process group was terminated",
                job.timeout.as_secs()
            ));
        } else if stalled && let Some(stall) = job.stall_timeout {
            run.end = RunEnd::TimedOut;
            run.final_text = text;
            run.error = Some(format!("TIMEOUT: {}", process::stall_message(stall)));
        } else if hard_stopped {
            run.final_text = None;
            run.notes.push(format!(
                "the role kept working {GRACE_TURNS} turns past its wrap-up turn; pi was stopped"
            ));
        } else if let Some(e) = prompt_error {
            run.end = RunEnd::Failed;
            run.error = Some(format!("PI_FAILED: pi rejected the prompt: {e}"));
        } else if matches!(fm.stop_reason.as_deref(), Some("error" | "aborted")) {
            let msg = fm
                .error_message
                .clone()
                .or(state.retry_final_error.clone())
                .unwrap_or_default();
            run.end = RunEnd::Failed;
            run.final_text = text;
            run.error = Some(format!(
                "{}: {}",
                classify_error_message(&msg),
                human_message(&msg)
            ));
        } else if state.final_message.is_none() {
            run.end = RunEnd::Failed;
            let code = status
                .and_then(|s| s.code())
                .map_or("a signal".to_string(), |c| format!("exit code {c}"));
            let last = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no output")
                .trim()
                .to_string();
            run.error = Some(format!(
                "PI_FAILED: pi ended ({code}) without an answer: {last}"
            ));
        } else {
            run.final_text = text;
        }
        run
    }
}

/// The JSON runner's argument array, switched to RPC mode with the real prompt file.
pub fn rpc_args(json_args: &[String], prompt_file: Option<&Path>) -> Vec<String> {
    let mut args: Vec<String> = Vec::with_capacity(json_args.len());
    let mut it = json_args.iter().peekable();
    while let Some(a) = it.next() {
        if a == "--mode" {
            it.next();
            args.extend(["--mode".to_string(), "rpc".to_string()]);
        } else if a == SYSTEM_PROMPT_PLACEHOLDER {
            args.push(prompt_file.map_or_else(|| a.clone(), |p| p.display().to_string()));
        } else {
            args.push(a.clone());
        }
    }
    args
}

/// The RPC-only events the stream parser does not track.
fn rpc_event(line: &[u8]) -> Option<Ev> {
    let head = &line[..line.len().min(64)];
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    if has(b"\"type\":\"agent_settled\"") {
        return Some(Ev::Settled);
    }
    if has(b"\"type\":\"response\"") {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        return Some(Ev::Response {
            command: v
                .get("command")
                .and_then(|c| c.as_str())
                .unwrap_or("")
                .to_string(),
            success: v.get("success").and_then(|s| s.as_bool()).unwrap_or(false),
            error: v.get("error").and_then(|e| e.as_str()).map(str::to_string),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_args_switch_mode_and_fill_the_prompt_file() {
        let json: Vec<String> = [
            "--mode",
            "json",
            "--tools",
            "read",
            "--system-prompt",
            SYSTEM_PROMPT_PLACEHOLDER,
            "--no-session",
        ]
        .map(String::from)
        .to_vec();
        let a = rpc_args(&json, Some(Path::new("/tmp/x.md")));
        assert_eq!(
            a,
            [
                "--mode",
                "rpc",
                "--tools",
                "read",
                "--system-prompt",
                "/tmp/x.md",
                "--no-session"
            ]
        );
    }

    #[test]
    fn rpc_events_are_recognised() {
        assert!(matches!(
            rpc_event(br#"{"type":"agent_settled","aborted":false}"#),
            Some(Ev::Settled)
        ));
        match rpc_event(br#"{"id":"pwk-prompt","type":"response","command":"prompt","success":false,"error":"busy"}"#) {
            Some(Ev::Response { command, success, error }) => {
                assert_eq!((command.as_str(), success, error.as_deref()), ("prompt", false, Some("busy")));
            }
            _ => panic!("not a response"),
        }
        assert!(rpc_event(br#"{"type":"turn_start"}"#).is_none());
    }
}
