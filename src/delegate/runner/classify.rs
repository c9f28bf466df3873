//! What a pi run ended as: one classification for both transports.
//!
//! * `finish`: a supervised attempt (`Supervised`) → a `PiRunOutcome` (status,
//!   error code, answer, usage, warnings), including the discovery (`pi --help`,
//!   `pi --list-models`) that a recognised startup failure earns.
//! * Failure signatures → [`ErrorCode`]. Two sources: the `errorMessage` of a failed
//!   assistant message (provider errors; pi exits 0 on those in JSON mode), and stderr
//!   of a process that died before the agent loop started (CLI errors). The patterns
//!   accept both pi generations: `401 Incorrect…` (0.73.1) and `401: {"message":…}`
//!   (1.6), `Connection error.` with or without `: connect ECONNREFUSED …`, 1.6's
//!   `Stream ended without finish_reason` and `terminated: …`. Nothing here looks at
//!   pi's version number.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{OutputMode, PiRunOutcome, PiRunSpec};
use crate::delegate::budget::{BudgetHit, Counted};
use crate::delegate::process::{self, human_duration};
use crate::delegate::supervise::{self, StopReason, Supervised};
use crate::delegate::transport::rpc::Rpc;
use crate::delegate::types::{ErrorCode, RunError, RunStatus, Usage, snippet};

/// The HTTP status at the start of an errorMessage (`401 …` or `401: …`).
pub fn http_status(msg: &str) -> Option<u16> {
    let b = msg.as_bytes();
    if b.len() >= 3
        && b[..3].iter().all(u8::is_ascii_digit)
        && matches!(b.get(3), None | Some(b' ' | b':'))
    {
        msg[..3].parse().ok()
    } else {
        None
    }
}

/// The human part of an errorMessage: for `401: {"message":"…",…}` the inner message.
pub fn human_message(msg: &str) -> String {
    if let Some(status) = http_status(msg) {
        let rest = msg[3..].trim_start_matches(':').trim();
        if rest.starts_with('{')
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(rest)
            && let Some(m) = v.get("message").and_then(|m| m.as_str())
        {
            return format!("{status} {m}");
        }
    }
    msg.to_string()
}

/// Classify a provider/LLM failure reported in the stream.
pub fn classify_error_message(msg: &str) -> ErrorCode {
    let lower = msg.to_ascii_lowercase();
    if let Some(status) = http_status(msg) {
        return match status {
            401 | 403 => ErrorCode::AuthError,
            429 => ErrorCode::RateLimit,
            404 if lower.contains("model") => ErrorCode::UnknownModel,
            _ => ErrorCode::ProviderError,
        };
    }
    if lower.contains("no api key")
        || lower.contains("failed to resolve api key")
        || lower.contains("unauthorized")
    {
        ErrorCode::AuthError
    } else if lower.contains("rate limit") || lower.contains("too many requests") {
        ErrorCode::RateLimit
    } else {
        // Connection error., Request timed out., Provider finish_reason: content_filter,
        // Stream ended without finish_reason, terminated: …, overloaded, and the rest.
        ErrorCode::ProviderError
    }
}

/// A recognised failure of a pi process that never started the task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartupFailure {
    /// `Error: Unknown option(s): --a, --b`.
    UnknownOption(Vec<String>),
    /// `Error: Model "x" not found.`
    UnknownModel(String),
    /// `Error: Unknown provider "x".`
    UnknownProvider(String),
    /// `No API key found for x.` / `Failed to resolve API key`.
    MissingApiKey(String),
    /// EACCES / EPERM: the denied path when named.
    Permission(Option<String>),
    /// pi refused to read the prompt from stdin.
    StdinRejected(String),
    /// pi refused `--mode json`.
    JsonModeRejected(String),
    /// pi 1.6 on a Node older than 22.19.
    NodeTooOld(String),
    /// `--session`: the stored working directory is gone, or no such session.
    Session(String),
}

/// Recognise a startup failure from stderr. `None` when nothing known matched.
pub fn classify_startup(stderr: &str) -> Option<StartupFailure> {
    for line in stderr.lines() {
        let l = line.trim();
        if let Some(rest) = l
            .strip_prefix("Error: Unknown option: ")
            .or_else(|| l.strip_prefix("Error: Unknown options: "))
        {
            let opts: Vec<String> = rest
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            if opts.iter().any(|o| o == "--mode") {
                return Some(StartupFailure::JsonModeRejected(l.to_string()));
            }
            return Some(StartupFailure::UnknownOption(opts));
        }
        if l.starts_with("Error: Invalid mode") && l.contains("json") {
            return Some(StartupFailure::JsonModeRejected(l.to_string()));
        }
        let lower = l.to_ascii_lowercase();
        if (lower.contains("json mode") || lower.contains("--mode json"))
            && (lower.contains("not supported") || lower.contains("unsupported"))
        {
            return Some(StartupFailure::JsonModeRejected(l.to_string()));
        }
        if lower.contains("stdin")
            && (lower.contains("not supported")
                || lower.contains("unsupported")
                || lower.contains("rejected")
                || lower.contains("not accepted"))
        {
            return Some(StartupFailure::StdinRejected(l.to_string()));
        }
        if l.starts_with("Error: Model \"") && l.contains("not found") {
            return Some(StartupFailure::UnknownModel(quoted(l).unwrap_or_default()));
        }
        if l.starts_with("Error: Unknown provider") {
            return Some(StartupFailure::UnknownProvider(
                quoted(l).unwrap_or_default(),
            ));
        }
        if l.starts_with("No API key found") || l.starts_with("Failed to resolve API key") {
            return Some(StartupFailure::MissingApiKey(l.to_string()));
        }
        if l.contains("EACCES")
            || l.contains("EPERM")
            || lower.contains("permission denied")
            || lower.contains("operation not permitted")
        {
            return Some(StartupFailure::Permission(denied_path(l)));
        }
        if l.contains("does not provide an export named") || l.starts_with("SyntaxError") {
            return Some(StartupFailure::NodeTooOld(l.to_string()));
        }
        if l.starts_with("Stored session working directory does not exist")
            || l.starts_with("No session found matching")
        {
            return Some(StartupFailure::Session(l.to_string()));
        }
    }
    None
}

/// The first `"…"`-quoted word of a line.
fn quoted(l: &str) -> Option<String> {
    let start = l.find('"')? + 1;
    let end = l[start..].find('"')? + start;
    Some(l[start..end].to_string())
}

/// The path in `EACCES: permission denied, open '/x/y'` (also `mkdir`, `scandir`, …).
pub fn denied_path(line: &str) -> Option<String> {
    let start = line.rfind(", ").map(|i| i + 2).unwrap_or(0);
    let tail = &line[start..];
    let q = tail.find('\'')? + 1;
    let end = tail[q..].find('\'')? + q;
    Some(tail[q..end].to_string())
}

/// Last non-empty lines of a text, for messages.
fn last_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

pub(crate) fn finish(
    spec: &PiRunSpec,
    program: &Path,
    a: Supervised,
    start: Instant,
    mode: OutputMode,
    rpc: Option<&Rpc>,
) -> PiRunOutcome {
    let mut o = PiRunOutcome::failed(RunError::new(ErrorCode::PiFailed, ""), start);
    o.error = None;
    o.stderr = a.stderr.clone();
    o.stopped = a.stopped;
    o.exit_code = a.status.and_then(|s| s.code());
    o.signal = a
        .status
        .and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s));
    let st = &a.state;
    o.started = st.started;
    o.turns = st.turns;
    o.tool_calls = st.tool_calls;
    o.tool_calls_failed = st.tool_calls_failed;
    if let Some(w) = failed_tools_warning(st.tool_calls, st.tool_calls_failed) {
        o.warnings.push(w);
    }
    o.malformed_lines = st.malformed_lines;
    o.oversized_lines = st.oversized_lines;
    o.session_id = st.session_id.clone();
    o.usage = st.usage.clone();
    usage_warnings(spec, st, &mut o);
    if let Some(f) = &st.final_message {
        o.final_text = Some(f.text.clone());
        o.stop_reason = f.stop_reason.clone();
        o.provider = f.provider.clone();
        o.model = f.model.clone();
    }
    if o.model.is_none() {
        o.provider = spec.provider.clone();
        o.model = spec.model.clone();
    }
    for (kind, len) in &st.dropped_events {
        o.warnings.push(format!(
            "pwk dropped a {len}-byte `{kind}` event from pi: it is over the {} MiB line limit",
            crate::delegate::stream::MAX_LINE >> 20
        ));
    }
    if st.malformed_lines > 0 {
        o.warnings.push(format!(
            "{} line(s) of pi's output were not JSON events (first: {})",
            st.malformed_lines,
            st.first_malformed
                .as_deref()
                .map(|s| snippet(s, 80))
                .unwrap_or_default()
        ));
    }
    match a.stdout_abandoned {
        Some(supervise::Abandoned::AfterExit) => o.warnings.push(format!(
            "pi exited but its stdout stayed open (held by a process outside pi's group); stopped reading it after {}",
            human_duration(supervise::READER_GRACE)
        )),
        Some(supervise::Abandoned::OnSignal(sig)) => o.warnings.push(format!(
            "pi had exited but its stdout stayed open (held by a process outside pi's group); stopped reading it when {}",
            process::received(sig)
        )),
        None => {}
    }
    if a.group_left {
        o.warnings
            .push("some of pi's process group was still there after SIGKILL and a 2 s wait".into());
    }
    o.warnings.extend(escaped_warnings(&a.escaped));
    let fail = |o: &mut PiRunOutcome, code: ErrorCode, msg: String| {
        o.status = RunStatus::Failed;
        o.error = Some(RunError::new(code, msg));
    };

    if let Some(e) = &a.spawn_error {
        match e.kind() {
            std::io::ErrorKind::NotFound => {
                fail(
                    &mut o,
                    ErrorCode::PiNotFound,
                    format!("cannot start {}: {e}", program.display()),
                );
            }
            std::io::ErrorKind::PermissionDenied => {
                let mut err = RunError::new(
                    ErrorCode::SandboxPermission,
                    format!("permission denied starting {}: {e}", program.display()),
                );
                err.denied_path = Some(program.display().to_string());
                err.execution_started = Some(false);
                o.status = RunStatus::Failed;
                o.error = Some(err);
            }
            _ => fail(
                &mut o,
                ErrorCode::PiFailed,
                format!("cannot start {}: {e}", program.display()),
            ),
        }
        o.duration = start.elapsed();
        return o;
    }

    match a.stopped {
        Some(StopReason::Timeout(t)) => {
            o.status = RunStatus::TimedOut;
            o.error = Some(RunError::new(
                ErrorCode::Timeout,
                format!(
                    "pi did not finish within {}; its process group was terminated",
                    human_duration(spec.timeout_stated.unwrap_or(t))
                ),
            ));
        }
        Some(StopReason::Aborted) => {
            o.status = RunStatus::Aborted;
            o.error = Some(RunError::new(
                ErrorCode::Aborted,
                "the task was aborted on request; pi's process group was terminated (it is never run again)",
            ));
        }
        Some(StopReason::Stall(t)) => {
            o.status = RunStatus::TimedOut;
            o.error = Some(RunError::new(ErrorCode::Timeout, process::stall_message(t)));
        }
        Some(StopReason::TurnBudget(max)) => {
            o.turn_budget_reached = true;
            fail(
                &mut o,
                ErrorCode::TurnBudget,
                format!("the turn budget of {max} was reached; pi was stopped"),
            );
        }
        // The report was complete before the limit was crossed: keep it.
        Some(StopReason::Budget(hit)) if report_complete(&a.state) => {
            o.warnings.push(format!(
                "{hit} after pi's answer was complete; pi's process group was stopped"
            ));
            classify_outcome(spec, program, start, &a, &mut o, mode, true);
        }
        Some(StopReason::Budget(hit)) => {
            // What the budget counted, also when no model call had finished (zero).
            o.usage.get_or_insert_with(Usage::default);
            let (code, why) = match hit {
                BudgetHit::Unenforceable(_) => (
                    ErrorCode::BudgetUnenforceable,
                    st.unknown_usage
                        .first
                        .as_deref()
                        .map(|w| format!(" ({w})"))
                        .unwrap_or_default(),
                ),
                _ => (ErrorCode::BudgetExceeded, String::new()),
            };
            fail(
                &mut o,
                code,
                format!("{hit}{why}; pi's process group was terminated (nothing is run again)"),
            );
        }
        // The answer was complete (pi was only shutting down): keep it.
        Some(StopReason::Signal(sig)) if answer_complete(&a.state) => {
            o.warnings.push(format!(
                "{} after pi's answer was complete; pi's process group was stopped",
                process::received(sig)
            ));
            classify_outcome(spec, program, start, &a, &mut o, mode, true);
        }
        Some(StopReason::Signal(sig)) => {
            fail(
                &mut o,
                ErrorCode::PiFailed,
                format!(
                    "{}; pi's process group was terminated",
                    process::received(sig)
                ),
            );
        }
        None => match rpc.and_then(|r| r.rejected.as_deref()) {
            // Over RPC pi answers a failed start (no API key, unknown model, …) in the
            // prompt's response instead of on stderr: the same classification.
            Some(why) => {
                o.status = RunStatus::Failed;
                o.error = Some(match classify_startup(why) {
                    Some(f) => startup_error(spec, program, start, Some(f), why, a.status),
                    None => RunError::new(
                        ErrorCode::PiFailed,
                        format!("pi rejected the prompt: {}", last_lines(why, 2)),
                    ),
                });
            }
            None => classify_outcome(
                spec,
                program,
                start,
                &a,
                &mut o,
                mode,
                rpc.is_some_and(|r| r.settled),
            ),
        },
    }
    o.duration = start.elapsed();
    o
}

fn classify_outcome(
    spec: &PiRunSpec,
    program: &Path,
    start: Instant,
    a: &Supervised,
    o: &mut PiRunOutcome,
    mode: OutputMode,
    clean_end: bool,
) {
    let st = &a.state;
    // `clean_end`: the agent had finished when pwk ended pi (over RPC, stdin EOF once
    // the agent settled; or a signal during pi's shutdown): as good as a clean exit.
    let ok_exit = a.status.is_some_and(|s| s.success()) || clean_end;
    // Startup failures: pi exited non-zero before the agent loop began.
    if !st.started && !ok_exit {
        let err = startup_error(
            spec,
            program,
            start,
            classify_startup(&a.stderr),
            &a.stderr,
            a.status,
        );
        o.status = RunStatus::Failed;
        o.error = Some(err);
        return;
    }

    if mode == OutputMode::Text {
        let text = a.text_output.clone().unwrap_or_default();
        if ok_exit && !text.trim().is_empty() {
            o.status = RunStatus::Completed;
            o.final_text = Some(text);
        } else {
            let msg = last_lines(&a.stderr, 2);
            let code = if msg.is_empty() {
                ErrorCode::PiFailed
            } else {
                classify_error_message(&msg)
            };
            o.status = RunStatus::Failed;
            o.error = Some(RunError::new(
                code,
                if msg.is_empty() {
                    "pi (text mode) produced no answer".to_string()
                } else {
                    human_message(&msg)
                },
            ));
        }
        return;
    }

    let Some(f) = &st.final_message else {
        o.status = RunStatus::Failed;
        let why = if st.started {
            "the stream ended before any assistant message (truncated stream or pi died)"
        } else {
            "pi produced no events"
        };
        o.error = Some(RunError::new(
            ErrorCode::PiFailed,
            format!("{why}; {}", exit_text(a)),
        ));
        return;
    };
    if st.final_message_dropped {
        o.status = RunStatus::Failed;
        o.error = Some(RunError::new(
            ErrorCode::PiFailed,
            format!(
                "pi's last message_end was over the {} MiB line limit and was dropped, so its answer is not known",
                crate::delegate::stream::MAX_LINE >> 20
            ),
        ));
        return;
    }
    if st.pending_retry {
        let msg = st
            .retry_final_error
            .clone()
            .or_else(|| f.error_message.clone())
            .unwrap_or_default();
        o.status = RunStatus::Failed;
        o.error = Some(RunError::new(
            classify_error_message(&msg),
            format!(
                "the stream ended while pi was retrying after: {}",
                human_message(&msg)
            ),
        ));
        return;
    }
    match f.stop_reason.as_deref() {
        Some("error") | Some("aborted") => {
            let msg = f
                .error_message
                .clone()
                .unwrap_or_else(|| "the model call failed without a message".into());
            let code = classify_error_message(&msg);
            let mut e = RunError::new(code, human_message(&msg));
            if code == ErrorCode::UnknownModel {
                e.discovery = Some(discover_models(
                    program,
                    spec,
                    start,
                    spec.provider.as_deref(),
                ));
            }
            if let Some(reason) = &st.saw_compaction {
                e.message.push_str(&format!(
                    " (pi then started a {reason} compaction and stopped)"
                ));
            }
            o.status = RunStatus::Failed;
            o.error = Some(e);
        }
        Some("stop") | Some("length") if ok_exit => {
            o.status = RunStatus::Completed;
            if f.stop_reason.as_deref() == Some("length") {
                o.warnings.push(
                    "the answer was cut at the model's output limit (stopReason length)".into(),
                );
            }
        }
        Some("stop") | Some("length") => {
            o.status = RunStatus::Failed;
            o.error = Some(RunError::new(
                ErrorCode::PiFailed,
                format!("pi did not exit cleanly after the answer; {}", exit_text(a)),
            ));
        }
        other => {
            o.status = RunStatus::Failed;
            o.error = Some(RunError::new(
                ErrorCode::PiFailed,
                format!(
                    "the stream ended mid-task (last stop reason {}); {}",
                    other.unwrap_or("none"),
                    exit_text(a)
                ),
            ));
        }
    }
}

/// The classified error of a pi that failed before starting the task (what its
/// stderr, or its RPC `prompt` response, said).
fn startup_error(
    spec: &PiRunSpec,
    program: &Path,
    start: Instant,
    failure: Option<StartupFailure>,
    stderr: &str,
    status: Option<std::process::ExitStatus>,
) -> RunError {
    let a_stderr = stderr;
    match failure {
        Some(StartupFailure::UnknownOption(opts)) => {
            // What `pi --help` said may be out of date (pi was replaced): ask again
            // (on disk too: `run_pi` forgets and re-asks when the flag was the probe's).
            crate::pi::help::forget(program, None);
            let mut e = RunError::new(
                ErrorCode::UnsupportedOption,
                format!("this pi does not accept {}", opts.join(", ")),
            );
            e.discovery = Some(discover_help(program, spec, start, &opts));
            e
        }
        Some(StartupFailure::UnknownModel(m)) => {
            let mut e = RunError::new(
                ErrorCode::UnknownModel,
                format!("pi does not know the model \"{m}\""),
            );
            e.discovery = Some(discover_models(
                program,
                spec,
                start,
                spec.provider.as_deref(),
            ));
            e
        }
        Some(StartupFailure::UnknownProvider(p)) => {
            let mut e = RunError::new(
                ErrorCode::UnknownModel,
                format!("pi does not know the provider \"{p}\""),
            );
            e.discovery = Some(discover_models(program, spec, start, None));
            e
        }
        Some(StartupFailure::MissingApiKey(line)) => RunError::new(
            ErrorCode::AuthError,
            format!(
                "{line} pwk does not log in or substitute credentials; configure the key for pi (its /login, auth.json or the provider's environment variable)"
            ),
        ),
        Some(StartupFailure::Permission(path)) => {
            let mut e = RunError::new(
                ErrorCode::SandboxPermission,
                format!(
                    "pi was denied access at startup: {}",
                    last_lines(a_stderr, 2)
                ),
            );
            e.denied_path = path;
            e.execution_started = Some(false);
            e
        }
        Some(StartupFailure::StdinRejected(line)) => {
            RunError::new(ErrorCode::PromptStdinUnsupported, line)
        }
        Some(StartupFailure::JsonModeRejected(line)) => {
            RunError::new(ErrorCode::StreamUnsupported, line)
        }
        Some(StartupFailure::NodeTooOld(line)) => RunError::new(
            ErrorCode::PiFailed,
            format!("pi could not start, most likely Node.js is too old for it: {line}"),
        ),
        Some(StartupFailure::Session(line)) => RunError::new(ErrorCode::PiFailed, line),
        None => {
            let code = status
                .and_then(|s| s.code())
                .map_or("a signal".to_string(), |c| format!("status {c}"));
            let tail = last_lines(a_stderr, 3);
            RunError::new(
                ErrorCode::PiFailed,
                if tail.is_empty() {
                    format!("pi exited with {code} before starting the task, without a message")
                } else {
                    format!("pi exited with {code} before starting the task: {tail}")
                },
            )
        }
    }
}

/// What the result says about usage pi reported and pwk could not count: every limit
/// of the run's budget left unenforced (`unenforced`, and a warning), and usage that
/// was reported but unusable even without a budget (the sums leave it out).
fn usage_warnings(
    spec: &PiRunSpec,
    st: &crate::delegate::stream::StreamState,
    o: &mut PiRunOutcome,
) {
    let gaps = &st.unknown_usage;
    let first = gaps
        .first
        .as_deref()
        .map(|w| format!(" (first: {w})"))
        .unwrap_or_default();
    for (c, n) in [(Counted::Tokens, gaps.tokens), (Counted::Cost, gaps.cost)] {
        if n == 0 || !spec.budget.counts(c) {
            continue;
        }
        o.unenforced.push(c.key().to_string());
        o.warnings.push(format!(
            "{} could not be enforced: pi reported no usable {} for {n} of {} assistant message(s){first}; the usage counted is a lower bound (set onUnknownUsage to \"stop\" to stop such a run)",
            c.key(),
            match c {
                Counted::Tokens => "token count",
                Counted::Cost => "cost",
            },
            st.assistant_messages
        ));
    }
    if gaps.invalid > 0 && o.unenforced.is_empty() {
        o.warnings.push(format!(
            "pi reported usage pwk could not count for {} assistant message(s){first}; `usage` leaves it out",
            gaps.invalid
        ));
    }
}

/// The warning for a run most of whose tool calls failed (more than half).
pub fn failed_tools_warning(calls: u32, failed: u32) -> Option<String> {
    (failed > 0 && u64::from(failed) * 2 > u64::from(calls)).then(|| {
        format!(
            "{failed} of {calls} tool call(s) failed (unknown or denied tools, failed commands): the answer may rest on little evidence"
        )
    })
}

/// What the result says about processes that had left pi's process group.
fn escaped_warnings(e: &crate::pi::children::Escaped) -> Vec<String> {
    let list = |ps: &[(u32, String)]| {
        ps.iter()
            .take(8)
            .map(|(pid, comm)| format!("{pid} `{comm}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut w = Vec::new();
    if !e.stopped.is_empty() {
        w.push(format!(
            "pwk stopped {} process(es) that had left pi's process group (e.g. a daemon a tool started with setsid): {}",
            e.stopped.len(),
            list(&e.stopped)
        ));
    }
    if !e.left.is_empty() {
        w.push(format!(
            "{} process(es) that had left pi's process group were still running after SIGTERM, SIGKILL and a wait: {}",
            e.left.len(),
            list(&e.left)
        ));
    }
    if !e.unattributed.is_empty() {
        w.push(format!(
            "pwk stopped {} process(es) that had left the process group of a run in this pass and no longer said which (their environment was replaced), so not known to be this role's: {}",
            e.unattributed.len(),
            list(&e.unattributed)
        ));
    }
    if !e.unattributed_left.is_empty() {
        w.push(format!(
            "{} process(es) of unknown origin that had left a run's process group in this pass were still running after SIGTERM, SIGKILL and a wait: {}",
            e.unattributed_left.len(),
            list(&e.unattributed_left)
        ));
    }
    w
}

/// pi's last message is a final answer (`stop`/`length`, no retry pending), even if
/// its `agent_end` was not read before pi was stopped.
fn report_complete(st: &crate::delegate::stream::StreamState) -> bool {
    !st.pending_retry
        && st
            .final_message
            .as_ref()
            .is_some_and(|f| matches!(f.stop_reason.as_deref(), Some("stop" | "length")))
}

/// pi finished its answer: `agent_end` after a final `stop`/`length` message, no
/// retry pending.
fn answer_complete(st: &crate::delegate::stream::StreamState) -> bool {
    st.saw_agent_end
        && !st.pending_retry
        && st
            .final_message
            .as_ref()
            .is_some_and(|f| matches!(f.stop_reason.as_deref(), Some("stop" | "length")))
}

fn exit_text(a: &Supervised) -> String {
    let base = match a.status {
        Some(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
            (Some(c), _) => format!("pi exited with status {c}"),
            (None, Some(sig)) => format!("pi was killed by signal {sig}"),
            _ => "pi ended".to_string(),
        },
        None => "pi's exit status is unknown".to_string(),
    };
    let tail = last_lines(&a.stderr, 2);
    if tail.is_empty() {
        base
    } else {
        format!("{base}: {tail}")
    }
}

/// Run a short discovery command (`pi --help`, `pi --list-models …`) through the pi
/// adapter, within what is left of the run's time budget (at most 30 s); its output
/// is used whatever pi's exit status.
fn capture(
    program: &Path,
    args: &[&str],
    spec: &PiRunSpec,
    start: Instant,
) -> Result<String, String> {
    let left = [spec.timeout, spec.budget.wall()]
        .into_iter()
        .flatten()
        .min()
        .map(|t| t.saturating_sub(start.elapsed()));
    let limit = left.map_or(DISCOVERY_LIMIT, |l| l.min(DISCOVERY_LIMIT));
    if limit.is_zero() {
        return Err("was not run: the run's time budget was used up".into());
    }
    crate::pi::capture(program, args, &spec.cwd, &spec.env, limit)
        .map(|c| c.text)
        .map_err(|e| e.to_string())
}

/// The longest a discovery command may take.
const DISCOVERY_LIMIT: Duration = Duration::from_secs(30);

fn discover_models(
    program: &Path,
    spec: &PiRunSpec,
    start: Instant,
    provider: Option<&str>,
) -> String {
    let mut args = vec!["--list-models"];
    if let Some(p) = provider {
        args.push(p);
    }
    let cmd = format!("pi {}", args.join(" "));
    match capture(program, &args, spec, start) {
        Ok(out) => {
            let table: Vec<&str> = out
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(60)
                .collect();
            if table.is_empty() {
                format!("`{cmd}` printed nothing")
            } else {
                format!("`{cmd}` says:\n{}", table.join("\n"))
            }
        }
        Err(e) => format!("`{cmd}` failed: {e}"),
    }
}

fn discover_help(program: &Path, spec: &PiRunSpec, start: Instant, rejected: &[String]) -> String {
    match capture(program, &["--help"], spec, start) {
        Ok(out) => {
            let listed = crate::pi::help::HelpOptions::parse(&out);
            let verdicts: Vec<String> = rejected
                .iter()
                .map(|o| {
                    if listed.lists(o) {
                        format!("{o} is listed by `pi --help` (rejected anyway: check its value)")
                    } else {
                        format!("{o} is not listed by `pi --help`")
                    }
                })
                .collect();
            format!(
                "{}; options it lists: {}",
                verdicts.join("; "),
                listed.options.join(" ")
            )
        }
        Err(e) => format!("`pi --help` failed: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_generations_of_http_errors() {
        assert_eq!(
            classify_error_message("401 Incorrect API key provided: mock-key."),
            ErrorCode::AuthError
        );
        let v16 = r#"401: {"message":"Incorrect API key provided: mock-key.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}"#;
        assert_eq!(classify_error_message(v16), ErrorCode::AuthError);
        assert_eq!(
            human_message(v16),
            "401 Incorrect API key provided: mock-key."
        );
        assert_eq!(
            classify_error_message("429 Rate limit reached for mock-model."),
            ErrorCode::RateLimit
        );
        assert_eq!(
            classify_error_message(r#"429: {"message":"Rate limit"}"#),
            ErrorCode::RateLimit
        );
        assert_eq!(
            classify_error_message("500 status code (no body)"),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("Connection error."),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("Connection error.: connect ECONNREFUSED 127.0.0.1:9"),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("Stream ended without finish_reason"),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("terminated: Body Timeout Error (UND_ERR_BODY_TIMEOUT)"),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("404 The model `nope` does not exist"),
            ErrorCode::UnknownModel
        );
        assert_eq!(
            classify_error_message("Provider finish_reason: content_filter"),
            ErrorCode::ProviderError
        );
    }

    #[test]
    fn startup_signatures() {
        assert_eq!(
            classify_startup("Error: Unknown options: --bogus-one, --bogus-two\n"),
            Some(StartupFailure::UnknownOption(vec![
                "--bogus-one".into(),
                "--bogus-two".into()
            ]))
        );
        assert_eq!(
            classify_startup(
                "Error: Model \"nope\" not found. Use --list-models to see available models.\n"
            ),
            Some(StartupFailure::UnknownModel("nope".into()))
        );
        assert!(matches!(
            classify_startup("No API key found for openai.\n\nUse /login"),
            Some(StartupFailure::MissingApiKey(_))
        ));
        assert_eq!(
            classify_startup(
                "Error: EACCES: permission denied, open '/home/u/.pi/agent/auth.json'"
            ),
            Some(StartupFailure::Permission(Some(
                "/home/u/.pi/agent/auth.json".into()
            )))
        );
        assert!(matches!(
            classify_startup("Error: Invalid mode \"json\". Valid values: text"),
            Some(StartupFailure::JsonModeRejected(_))
        ));
        assert!(matches!(
            classify_startup("Error: reading the prompt from stdin is not supported"),
            Some(StartupFailure::StdinRejected(_))
        ));
        assert_eq!(
            classify_startup(
                "Warning: Model \"nope\" not found for provider \"mock\". Using custom model id."
            ),
            None
        );
    }
}
