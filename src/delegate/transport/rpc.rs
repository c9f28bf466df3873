//! `pi --mode rpc`, so the turn budget can *steer* the role to wrap up and report
//! instead of cutting it off (see `docs/src/turn-budget.md` for the measurements on pi
//! 0.73.1 and 1.6.0).
//!
//! * The prompt goes as an RPC `prompt` command on stdin, which stays open.
//! * When turn `budget` starts, pwk sends `steer` with [`STEER_MESSAGE`]; pi queues it
//!   and hands it to the model right after that turn's tools, so the model's next
//!   call (turn budget+1) is the wrap-up. If the model keeps calling tools anyway, the
//!   supervisor stops the group once turn budget+1+[`GRACE_TURNS`] starts.
//! * The run ends at `agent_settled` (1.6) or at an `agent_end` that no retry follows
//!   (0.73.1 has no `agent_settled`); then stdin is closed and pi exits. stdin also
//!   closes if pwk dies, and RPC pi shuts down on EOF.

use std::time::{Duration, Instant};

use crate::delegate::Progress;
use crate::delegate::supervise::{Control, Event, Transport, TurnLimit};

/// The wrap-up message (tintinweb's host sends the same instruction at its `max_turns`).
pub(crate) const STEER_MESSAGE: &str = "You have reached your turn limit. Wrap up immediately — provide your final report now, in the format your role requires.";

/// Extra turns a steered role may take beyond its wrap-up turn before it is stopped.
pub(crate) const GRACE_TURNS: u32 = 2;

/// After `agent_end` of a failed model call, how long to wait for pi's auto-retry.
const RETRY_WAIT: Duration = Duration::from_millis(1500);

/// The RPC-only lines the stream parser does not track.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RpcNote {
    Settled,
    Response {
        command: String,
        success: bool,
        error: Option<String>,
    },
}

/// The RPC transport for one run.
#[derive(Debug)]
pub(crate) struct Rpc {
    prompt: Option<String>,
    /// `None`: no turn budget (a delegated task: only the caller steers).
    budget: Option<u32>,
    end_at: Option<Instant>,
    /// Turn `budget` started and pi was steered to wrap up.
    pub steered: bool,
    /// pi rejected the `prompt` (or a line as unparsable).
    pub rejected: Option<String>,
    /// The agent settled (or ended with no retry following) and stdin was closed.
    pub settled: bool,
}

impl Rpc {
    pub(crate) fn new(prompt: String, budget: u32) -> Rpc {
        Rpc {
            prompt: Some(prompt),
            budget: Some(budget.max(1)),
            end_at: None,
            steered: false,
            rejected: None,
            settled: false,
        }
    }

    /// An RPC run with no turn budget: pwk steers only when a caller asks
    /// ([`Transport::steer`]).
    pub(crate) fn unbudgeted(prompt: String) -> Rpc {
        Rpc {
            budget: None,
            ..Rpc::new(prompt, 1)
        }
    }

    /// The supervisor's hard stop: two turns past the wrap-up turn.
    pub(crate) fn turn_limit(&self) -> Option<TurnLimit> {
        self.budget.map(|budget| TurnLimit {
            budget,
            stop_after: budget.saturating_add(1 + GRACE_TURNS),
        })
    }
}

fn line(v: serde_json::Value) -> Vec<u8> {
    format!("{v}\n").into_bytes()
}

impl Transport for Rpc {
    type Note = RpcNote;

    fn initial_input(&mut self) -> Option<Vec<u8>> {
        let prompt = self.prompt.take().unwrap_or_default();
        Some(line(
            serde_json::json!({"id": "pwk-prompt", "type": "prompt", "message": prompt}),
        ))
    }

    fn keep_stdin_open(&self) -> bool {
        true
    }

    fn sniff(line: &[u8]) -> Option<RpcNote> {
        rpc_note(line)
    }

    fn on_event(&mut self, ev: &Event<RpcNote>, ctl: &mut Control) {
        match ev {
            Event::Progress(Progress::TurnStarted(n)) => {
                self.end_at = None;
                if self.budget.is_some_and(|b| *n >= b) && !self.steered {
                    self.steered = true;
                    ctl.send(line(serde_json::json!(
                        {"id": "pwk-steer", "type": "steer", "message": STEER_MESSAGE}
                    )));
                }
            }
            Event::Progress(Progress::Retry { .. }) => self.end_at = None,
            Event::Progress(_) => {}
            Event::AgentEnd { failed } => {
                // A failed model call may be retried by pi: give the retry a moment.
                self.end_at = Some(if *failed {
                    Instant::now() + RETRY_WAIT
                } else {
                    Instant::now()
                });
            }
            Event::Note(RpcNote::Settled) => {
                self.settled = true;
                ctl.close_stdin();
            }
            Event::Note(RpcNote::Response {
                command,
                success,
                error,
            }) => {
                if !success && (command == "prompt" || command == "parse") {
                    self.rejected = Some(
                        error
                            .clone()
                            .unwrap_or_else(|| format!("pi rejected the {command} command")),
                    );
                    ctl.close_stdin();
                }
            }
        }
    }

    fn on_tick(&mut self, ctl: &mut Control) {
        if self.end_at.is_some_and(|t| Instant::now() >= t) {
            self.settled = true;
            ctl.close_stdin(); // stdin EOF: pi shuts down
        }
    }

    /// A caller's steer: pi queues it and hands it to the model after the current
    /// turn's tools (`steer` is pi's RPC command for exactly that).
    fn steer(&mut self, message: &str, ctl: &mut Control) -> bool {
        if self.settled {
            return false;
        }
        ctl.send(line(
            serde_json::json!({"id": "pwk-steer-caller", "type": "steer", "message": message}),
        ));
        true
    }

    /// Waiting for pi's retry after a failed call is not a stall.
    fn stall_paused(&self) -> bool {
        self.end_at.is_some()
    }
}

/// Recognise the RPC-only events (`agent_settled`, command responses).
pub(crate) fn rpc_note(line: &[u8]) -> Option<RpcNote> {
    let head = &line[..line.len().min(64)];
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    if has(b"\"type\":\"agent_settled\"") {
        return Some(RpcNote::Settled);
    }
    if has(b"\"type\":\"response\"") {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        return Some(RpcNote::Response {
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
    fn rpc_notes_are_recognised() {
        assert_eq!(
            rpc_note(br#"{"type":"agent_settled","aborted":false}"#),
            Some(RpcNote::Settled)
        );
        assert_eq!(
            rpc_note(
                br#"{"id":"pwk-prompt","type":"response","command":"prompt","success":false,"error":"busy"}"#
            ),
            Some(RpcNote::Response {
                command: "prompt".into(),
                success: false,
                error: Some("busy".into())
            })
        );
        assert!(rpc_note(br#"{"type":"turn_start"}"#).is_none());
    }

    #[test]
    fn the_prompt_is_one_rpc_command_line() {
        let mut t = Rpc::new("Review \"this\"".into(), 5);
        let first = String::from_utf8(t.initial_input().unwrap()).unwrap();
        assert!(first.ends_with('\n'));
        let v: serde_json::Value = serde_json::from_str(first.trim_end()).unwrap();
        assert_eq!(v["type"], "prompt");
        assert_eq!(v["message"], "Review \"this\"");
        assert_eq!(
            t.turn_limit(),
            Some(TurnLimit {
                budget: 5,
                stop_after: 8
            })
        );
        assert_eq!(Rpc::unbudgeted("x".into()).turn_limit(), None);
    }
}
