//! One pi run: plan the argument array (`plan`), hand it to the one supervisor
//! ([`super::supervise`]) with a transport (JSON: [`run_pi`]; RPC: [`run_pi_rpc`]),
//! and classify what happened ([`classify`]) — the same classification for
//! both transports.
//!
//! Guarantees:
//! * never a shell: the program and an argument array; the prompt goes to stdin
//!   (never stdin and argv together: pi glues them);
//! * supervision (process group, timeouts, stalls, the turn budget, pwk's signals,
//!   SIGTERM → [`KILL_GRACE`](crate::pi::process::KILL_GRACE) → SIGKILL, bounded waits) is `supervise`'s;
//! * a task is run again only when pi confirmed, before any event, that it rejects
//!   stdin (one retry with the prompt on argv) or JSON mode (one retry in text mode).
//!   Discovery (`pi --help`, `pi --list-models`, through `crate::pi`) runs only after
//!   a recognised startup failure.

pub mod classify;
mod plan;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::process::TempFile;
pub(crate) use super::process::pending_signal;
use super::supervise::{self, Limits, Spawn, StopReason, Supervised, TurnLimit};
use super::transport::{json::Json, rpc::Rpc};
use super::types::{ErrorCode, Progress, RunError, RunStatus, Usage};
use crate::env::Env;
use classify::{StartupFailure, finish};
use plan::probe_flags;
pub(crate) use plan::{OutputMode, build_args};
pub use plan::{
    PI_DEFAULT_TOOLS, PiLaunch, PiRunSpec, PromptTransport, SYSTEM_PROMPT_PLACEHOLDER,
    SessionChoice, SystemPromptMode, locate_pi, plan_launch,
};

/// The result of one `run_pi`.
#[derive(Debug, Clone)]
pub struct PiRunOutcome {
    pub status: RunStatus,
    pub error: Option<RunError>,
    /// The text of the last assistant message (also after a stop or a failure).
    pub final_text: Option<String>,
    pub stop_reason: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub usage: Option<Usage>,
    pub turns: u32,
    pub tool_calls: u32,
    /// Of `tool_calls`, those pi reported as failed (`isError`).
    pub tool_calls_failed: u32,
    pub turn_budget_reached: bool,
    pub exit_code: Option<i32>,
    pub duration: Duration,
    /// The session file, when it exists after the run.
    pub session_file: Option<PathBuf>,
    pub session_id: Option<String>,
    pub malformed_lines: u64,
    /// Whether any event showed the task started (never re-run it then).
    pub started: bool,
    /// Lines over the line limit (dropped, see `stream::MAX_LINE`).
    pub oversized_lines: u64,
    pub prompt_transport: PromptTransport,
    /// `"argv"` or `"text-mode"` when the single confirmed-rejection retry was used.
    pub fallback_used: Option<String>,
    /// The signal that ended pi, when one did.
    pub signal: Option<i32>,
    /// The kept part of pi's stderr (head and tail).
    pub stderr: String,
    pub warnings: Vec<String>,
    /// The launch actually used (last attempt).
    pub launch: Option<PiLaunch>,
    /// RPC transport: pi was steered to wrap up when the turn budget was reached.
    pub steered: bool,
    /// Why the supervisor stopped pi's group, when it did.
    pub stopped: Option<StopReason>,
    /// The budget's limits pi's reported usage could not be counted against
    /// (`maxTokens`, `maxCostUsd`).
    pub unenforced: Vec<String>,
}

impl PiRunOutcome {
    pub(crate) fn failed(error: RunError, started: Instant) -> PiRunOutcome {
        PiRunOutcome {
            status: RunStatus::Failed,
            error: Some(error),
            final_text: None,
            stop_reason: None,
            provider: None,
            model: None,
            usage: None,
            turns: 0,
            tool_calls: 0,
            tool_calls_failed: 0,
            turn_budget_reached: false,
            exit_code: None,
            duration: started.elapsed(),
            session_file: None,
            session_id: None,
            malformed_lines: 0,
            started: false,
            oversized_lines: 0,
            prompt_transport: PromptTransport::Stdin,
            fallback_used: None,
            signal: None,
            stderr: String::new(),
            warnings: Vec::new(),
            launch: None,
            steered: false,
            stopped: None,
            unenforced: Vec::new(),
        }
    }
}

/// Everything before the launch that both transports need: the program, a usable
/// cwd, the system-prompt temp file (removed when dropped), the session's directory,
/// and the flags `pi --help` says this pi has — asked within the run's time budget,
/// which the run itself then gets what is left of.
fn prepare(spec: &PiRunSpec, env: &Env, start: Instant) -> Result<Prepared, Box<PiRunOutcome>> {
    let fail = |e: RunError| Box::new(PiRunOutcome::failed(e, start));
    let program = locate_pi(env).map_err(fail)?;
    if !spec.cwd.is_dir() {
        return Err(fail(RunError::new(
            ErrorCode::PiFailed,
            format!(
                "the working directory {} does not exist",
                spec.cwd.display()
            ),
        )));
    }
    let sys_file = spec
        .system_prompt
        .as_deref()
        .map(|body| TempFile::create("pwk-system-prompt", body))
        .transpose()
        .map_err(|e| {
            fail(RunError::new(
                ErrorCode::PiFailed,
                format!("cannot write the system prompt to a temp file: {e}"),
            ))
        })?;
    if let SessionChoice::NewFile(p) = &spec.session
        && let Some(parent) = p.parent()
    {
        let _ = std::fs::create_dir_all(parent);
    }
    let mut warnings = Vec::new();
    let probed = probe_flags(spec, &program, env, remaining(spec, start), &mut warnings);
    if let Some(o) = out_of_time(spec, start) {
        return Err(o);
    }
    Ok(Prepared {
        program,
        sys_file,
        spec: probed.unwrap_or_else(|| spec.clone()),
        warnings,
    })
}

struct Prepared {
    program: PathBuf,
    sys_file: Option<TempFile>,
    /// The spec to run: the caller's, with the flags `pi --help` showed this pi has
    /// (`--no-mcp`).
    spec: PiRunSpec,
    warnings: Vec<String>,
}

/// What is left of the run's time budget (`timeout`, the wall-clock budget), counted
/// from `start`; `None`: no limit.
fn remaining(spec: &PiRunSpec, start: Instant) -> Option<Duration> {
    [spec.timeout, spec.budget.wall()]
        .into_iter()
        .flatten()
        .min()
        .map(|t| t.saturating_sub(start.elapsed()))
}

/// The outcome of a run whose time budget was used up (or that was aborted) before
/// pi could be started (by the `pi --help` probe): pi is not started.
fn out_of_time(spec: &PiRunSpec, start: Instant) -> Option<Box<PiRunOutcome>> {
    let why = "before pi was started (`pi --help`, asked to learn whether this pi has --no-mcp, took the time); pi was not started";
    let used = |t: Duration| start.elapsed() >= t;
    let (status, stop, error) = if spec.remote.as_ref().is_some_and(|r| r.aborted()) {
        (
            RunStatus::Aborted,
            StopReason::Aborted,
            RunError::new(
                ErrorCode::Aborted,
                "the task was aborted on request before pi was started; pi was never started",
            ),
        )
    } else if let Some(w) = spec.budget.wall().filter(|w| used(*w)) {
        let hit = super::budget::BudgetHit::Wall { max: w.as_secs() };
        (
            RunStatus::Failed,
            StopReason::Budget(hit),
            RunError::new(ErrorCode::BudgetExceeded, format!("{hit} {why}")),
        )
    } else if let Some(t) = spec.timeout.filter(|t| used(*t)) {
        (
            RunStatus::TimedOut,
            StopReason::Timeout(t),
            RunError::new(
                ErrorCode::Timeout,
                format!(
                    "the time limit of {} was used up {why}",
                    super::process::human_duration(spec.timeout_stated.unwrap_or(t))
                ),
            ),
        )
    } else {
        return None;
    };
    let mut o = PiRunOutcome::failed(error, start);
    o.status = status;
    o.stopped = Some(stop);
    if matches!(stop, StopReason::Budget(_)) {
        o.usage = Some(Usage::default());
    }
    o.provider = spec.provider.clone();
    o.model = spec.model.clone();
    Some(Box::new(o))
}

/// The options pi rejected before starting that only the `pi --help` probe had put
/// on the command line (`base` is the spec before the probe, `run` after): what was
/// learnt about this pi is out of date (it was replaced behind a wrapper script).
fn rejected_probed(attempt: &Supervised, base: &PiRunSpec, run: &PiRunSpec) -> Vec<String> {
    match classify::classify_startup(&attempt.stderr) {
        Some(StartupFailure::UnknownOption(opts)) if confirmed_before_start(attempt) => opts
            .into_iter()
            .filter(|o| run.extra_args.contains(o) && !base.extra_args.contains(o))
            .collect(),
        _ => Vec::new(),
    }
}

/// pi exited non-zero before printing any event, on its own.
fn confirmed_before_start(attempt: &Supervised) -> bool {
    !attempt.state.started
        && attempt.state.events == 0
        && attempt.stopped.is_none()
        && attempt.spawn_error.is_none()
        && attempt.status.is_some_and(|s| !s.success())
}

/// The one retry both run modes allow after pi rejected a flag the `pi --help`
/// probe added: asked after every attempt.
struct Reprobe<'a> {
    /// The spec before the probe.
    base: &'a PiRunSpec,
    program: &'a std::path::Path,
    env: &'a Env,
    start: Instant,
    progress: &'a (dyn Fn(&Progress) + Sync),
    done: bool,
}

impl Reprobe<'_> {
    /// After `attempt` ran `spec`: once per run, when pi rejected before starting a
    /// flag only the probe had put there, forget what was learnt about this pi, ask
    /// `pi --help` again, say so, and return the spec to run again.
    fn after(
        &mut self,
        attempt: &Supervised,
        spec: &PiRunSpec,
        warnings: &mut Vec<String>,
    ) -> Option<PiRunSpec> {
        if self.done {
            return None;
        }
        let rejected = rejected_probed(attempt, self.base, spec);
        if rejected.is_empty() {
            return None;
        }
        self.done = true;
        crate::pi::help::forget(self.program, self.env.cache_dir().as_ref());
        let w = format!(
            "pi rejected {} before starting, although what pwk had learnt from its `pi --help` listed it (pi was replaced); asked `pi --help` again and retried once",
            rejected.join(", ")
        );
        (self.progress)(&Progress::Warning(w.clone()));
        warnings.push(w);
        let base = self.base;
        Some(
            probe_flags(
                base,
                self.program,
                self.env,
                remaining(base, self.start),
                warnings,
            )
            .unwrap_or_else(|| base.clone()),
        )
    }
}

/// What every run mode fills in the same way once pi is done: the run's own
/// warnings before pi's, the launch, the session file.
fn settle(
    mut outcome: PiRunOutcome,
    mut warnings: Vec<String>,
    launch: PiLaunch,
    spec: &PiRunSpec,
) -> PiRunOutcome {
    warnings.append(&mut outcome.warnings);
    outcome.warnings = warnings;
    outcome.launch = Some(launch);
    outcome.session_file = session_file_after(spec);
    outcome
}

fn limits(spec: &PiRunSpec, turns: Option<TurnLimit>) -> Limits {
    Limits {
        timeout: spec.timeout,
        stall: spec.stall_timeout,
        turns,
        budget: spec.budget,
    }
}

fn spawn_of<'a>(spec: &'a PiRunSpec, launch: &'a PiLaunch) -> Spawn<'a> {
    Spawn {
        program: &launch.program,
        args: &launch.args,
        cwd: &spec.cwd,
        env: &spec.env,
        remote: spec.remote.as_deref(),
    }
}

/// Run pi once in JSON mode (plus at most one confirmed-rejection retry, and one
/// after a flag the `pi --help` probe added was rejected). Never panics on pi's
/// behaviour; every failure is classified into the outcome.
pub fn run_pi(spec: &PiRunSpec, env: &Env, progress: &(dyn Fn(&Progress) + Sync)) -> PiRunOutcome {
    let start = Instant::now();
    let base = spec;
    let Prepared {
        program,
        sys_file,
        mut spec,
        mut warnings,
    } = match prepare(base, env, start) {
        Ok(p) => p,
        Err(o) => return *o,
    };
    let turns = spec.max_turns.map(|max| TurnLimit {
        budget: max,
        stop_after: max,
    });
    let mut transport = PromptTransport::Stdin;
    let mut mode = OutputMode::Json;
    let mut fallback_used = None;
    let mut reprobe = Reprobe {
        base,
        program: &program,
        env,
        start,
        progress,
        done: false,
    };
    let (attempt, launch) = loop {
        let args = build_args(
            &spec,
            sys_file.as_ref().map(TempFile::path),
            mode,
            transport,
        );
        let launch = PiLaunch {
            program: program.clone(),
            args,
            prompt_transport: transport,
        };
        let mut json = Json {
            stdin_prompt: (transport == PromptTransport::Stdin).then(|| spec.prompt.clone()),
            text_mode: mode == OutputMode::Text,
        };
        let attempt = supervise::supervise(
            spawn_of(&spec, &launch),
            &mut json,
            limits(&spec, turns),
            start,
            progress,
        );
        if let Some(next) = reprobe.after(&attempt, &spec, &mut warnings) {
            spec = next;
            continue;
        }
        if confirmed_before_start(&attempt) && fallback_used.is_none() {
            match classify::classify_startup(&attempt.stderr) {
                Some(StartupFailure::StdinRejected(line))
                    if transport == PromptTransport::Stdin
                        && !spec.prompt.starts_with(['-', '@']) =>
                {
                    let w = format!(
                        "pi rejected the prompt on stdin before starting ({line}); retrying once with the prompt on argv"
                    );
                    progress(&Progress::Warning(w.clone()));
                    warnings.push(w);
                    transport = PromptTransport::Argv;
                    fallback_used = Some("argv".to_string());
                    continue;
                }
                Some(StartupFailure::JsonModeRejected(line)) if mode == OutputMode::Json => {
                    let w = format!(
                        "pi rejected JSON mode before starting ({line}); retrying once in text mode"
                    );
                    progress(&Progress::Warning(w.clone()));
                    warnings.push(w);
                    mode = OutputMode::Text;
                    fallback_used = Some("text-mode".to_string());
                    continue;
                }
                _ => {}
            }
        }
        break (attempt, launch);
    };
    let mut outcome = finish(&spec, &program, attempt, start, mode, None);
    outcome.prompt_transport = transport;
    outcome.fallback_used = fallback_used;
    let outcome = settle(outcome, warnings, launch, &spec);
    drop(sys_file);
    outcome
}

/// Run pi once over RPC (`--mode rpc`): the same launch as [`run_pi`], the prompt as
/// an RPC command, and the turn budget (`max_turns`, default 1) steering the model
/// to report before the supervisor stops it. No fallbacks: RPC is run again only when
/// pi rejected, before starting, a flag the `pi --help` probe added.
pub fn run_pi_rpc(
    spec: &PiRunSpec,
    env: &Env,
    progress: &(dyn Fn(&Progress) + Sync),
) -> PiRunOutcome {
    let start = Instant::now();
    let base = spec;
    let Prepared {
        program,
        sys_file,
        mut spec,
        mut warnings,
    } = match prepare(base, env, start) {
        Ok(p) => p,
        Err(o) => return *o,
    };
    let mut reprobe = Reprobe {
        base,
        program: &program,
        env,
        start,
        progress,
        done: false,
    };
    let (attempt, rpc, launch) = loop {
        let launch = PiLaunch {
            program: program.clone(),
            args: build_args(
                &spec,
                sys_file.as_ref().map(TempFile::path),
                OutputMode::Rpc,
                PromptTransport::Stdin,
            ),
            prompt_transport: PromptTransport::Stdin,
        };
        let mut rpc = match (spec.max_turns, spec.rpc_unbudgeted) {
            (None, true) => Rpc::unbudgeted(spec.prompt.clone()),
            (max, _) => Rpc::new(spec.prompt.clone(), max.unwrap_or(1)),
        };
        let turns = rpc.turn_limit();
        let attempt = supervise::supervise(
            spawn_of(&spec, &launch),
            &mut rpc,
            limits(&spec, turns),
            start,
            progress,
        );
        if let Some(next) = reprobe.after(&attempt, &spec, &mut warnings) {
            spec = next;
            continue;
        }
        break (attempt, rpc, launch);
    };
    let mut outcome = finish(&spec, &program, attempt, start, OutputMode::Rpc, Some(&rpc));
    outcome.steered = rpc.steered;
    outcome.turn_budget_reached |= rpc.steered;
    let outcome = settle(outcome, warnings, launch, &spec);
    drop(sys_file);
    outcome
}

fn session_file_after(spec: &PiRunSpec) -> Option<PathBuf> {
    match &spec.session {
        SessionChoice::NewFile(p) | SessionChoice::Continue(p) if p.is_file() => Some(p.clone()),
        _ => None,
    }
}
