//! One pi run: plan the argument array, hand it to the one supervisor
//! ([`super::supervise`]) with a transport (JSON: [`run_pi`]; RPC: [`run_pi_rpc`]),
//! and classify what happened — the same classification for both transports.
//!
//! Guarantees:
//! * never a shell: the program and an argument array; the prompt goes to stdin
//!   (never stdin and argv together: pi glues them);
//! * supervision (process group, timeouts, stalls, the turn budget, pwk's signals,
//!   SIGTERM → [`KILL_GRACE`] → SIGKILL, bounded waits) is `supervise`'s;
//! * a task is run again only when pi confirmed, before any event, that it rejects
//!   stdin (one retry with the prompt on argv) or JSON mode (one retry in text mode).
//!   Discovery (`pi --help`, `pi --list-models`, through `crate::pi`) runs only after
//!   a recognised startup failure.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::classify::{self, StartupFailure};
use super::process::{self, TempFile, human_duration};
pub use super::process::{KILL_GRACE, pending_signal};
use super::supervise::{self, Limits, Spawn, StopReason, Supervised, TurnLimit};
use super::transport::{json::Json, rpc::Rpc};
use super::types::{ErrorCode, Progress, RunError, RunStatus, Usage, snippet};
use crate::env::Env;

/// The built-in tools pi enables when `--tools` is not given.
pub const PI_DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// Where the session lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A new session at exactly this path (`--session <path>`; created by pi).
    NewFile(PathBuf),
    /// Continue the session stored in this file (`--session <path>`).
    Continue(PathBuf),
    /// No session file (`--no-session`).
    Ephemeral,
}

/// How the role body reaches pi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SystemPromptMode {
    /// `--system-prompt <file>`: replaces pi's default prompt.
    #[default]
    Replace,
    /// `--append-system-prompt <file>`.
    Append,
}

/// How the user prompt reaches pi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptTransport {
    Stdin,
    Argv,
}

/// One pi process to run.
#[derive(Debug, Clone)]
pub struct PiRunSpec {
    pub cwd: PathBuf,
    /// The user prompt, sent on stdin.
    pub prompt: String,
    /// A role body: written to a 0600 temp file passed as `--system-prompt <file>`.
    pub system_prompt: Option<String>,
    pub system_prompt_mode: SystemPromptMode,
    /// `Some(v)` → `--tools v.join(",")`; `Some(empty)` → `--no-tools`; `None` → pi's default.
    pub tools: Option<Vec<String>>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub thinking: Option<String>,
    pub session: SessionChoice,
    /// Overall wall-clock limit.
    pub timeout: Option<Duration>,
    /// Longest time without any output from pi, once it has printed something, while
    /// no tool is running (a silent `cargo build` is not a stall).
    pub stall_timeout: Option<Duration>,
    /// Turn budget: the run is stopped when `turn_start` count exceeds it.
    pub max_turns: Option<u32>,
    /// Spend budget: tokens, cost (USD, as pi computes it) and wall clock; crossing
    /// one stops pi's group (`BUDGET_EXCEEDED`).
    pub budget: super::budget::Budget,
    /// Extra flags, e.g. `--no-extensions`, `--no-skills`, `--no-prompt-templates`.
    pub extra_args: Vec<String>,
    /// Progress-line prefix, e.g. `[pwk-spec-reviewer]`.
    pub label: String,
    /// Variables set for pi on top of the inherited environment (pwk otherwise passes
    /// the caller's environment through unchanged).
    pub env: Vec<(String, String)>,
    /// Steering and abort from other threads (`pwk mcp`'s tasks).
    pub remote: Option<std::sync::Arc<supervise::Remote>>,
    /// RPC with no `max_turns`: no turn budget at all (else the budget defaults to 1).
    pub rpc_unbudgeted: bool,
    /// Read-only and verification work: pass `--no-mcp` when this pi lists it in
    /// `pi --help` (pi 1.6 otherwise starts every configured MCP server, runs the
    /// `!command` values of `mcp.json` and waits for `direct` servers, although the
    /// `--tools` allow-list keeps MCP tools out of reach; pi 0.73.1 has no MCP and
    /// rejects the flag).
    pub no_mcp: bool,
}

impl PiRunSpec {
    /// A spec with pi's defaults: no system prompt, default tools, no session file.
    pub fn new(cwd: impl Into<PathBuf>, prompt: impl Into<String>) -> PiRunSpec {
        PiRunSpec {
            cwd: cwd.into(),
            prompt: prompt.into(),
            system_prompt: None,
            system_prompt_mode: SystemPromptMode::Replace,
            tools: None,
            provider: None,
            model: None,
            thinking: None,
            session: SessionChoice::Ephemeral,
            timeout: None,
            stall_timeout: None,
            max_turns: None,
            budget: super::budget::Budget::default(),
            extra_args: Vec::new(),
            label: "[pi]".to_string(),
            env: Vec::new(),
            remote: None,
            rpc_unbudgeted: false,
            no_mcp: false,
        }
    }

    /// The spec for running a role: its body as the system prompt (`systemPromptMode:
    /// append` appends it), its tools minus `deny-tools`, its thinking level, its model
    /// (`provider/id` → `--provider` + `--model`), its `max_turns`; no session file;
    /// extensions and prompt templates off, skills off unless the role lists some.
    pub fn for_role(role: &crate::role::Role, cwd: &Path, prompt: String) -> PiRunSpec {
        let mut spec = PiRunSpec::new(cwd, prompt);
        if !role.body.trim().is_empty() {
            spec.system_prompt = Some(role.body.clone());
        }
        if role.system_prompt_mode.as_deref() == Some("append") {
            spec.system_prompt_mode = SystemPromptMode::Append;
        }
        let deny = role.deny_tools.clone().unwrap_or_default();
        spec.tools = match (&role.tools, deny.is_empty()) {
            (Some(t), _) => Some(t.iter().filter(|x| !deny.contains(x)).cloned().collect()),
            (None, false) => Some(
                PI_DEFAULT_TOOLS
                    .iter()
                    .map(|s| s.to_string())
                    .filter(|x| !deny.contains(x))
                    .collect(),
            ),
            (None, true) => None,
        };
        spec.thinking = role.thinking.clone();
        if let Some(m) = role
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
        {
            match m.split_once('/') {
                Some((p, id)) if !p.is_empty() && !id.is_empty() => {
                    spec.provider = Some(p.to_string());
                    spec.model = Some(id.to_string());
                }
                _ => spec.model = Some(m.to_string()),
            }
        }
        spec.max_turns = role.max_turns.map(|n| n.min(u32::MAX as u64) as u32);
        spec.extra_args = vec!["--no-extensions".into(), "--no-prompt-templates".into()];
        if role.skills.is_none() {
            spec.extra_args.push("--no-skills".into());
        }
        if let Some(name) = role.name.as_deref() {
            spec.label = format!("[{name}]");
        }
        spec
    }
}

/// What would be launched: the program, its argument array, and the prompt transport.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PiLaunch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub prompt_transport: PromptTransport,
}

/// The placeholder `plan_launch` shows for the system-prompt temp file.
pub const SYSTEM_PROMPT_PLACEHOLDER: &str = "<system-prompt temp file>";

/// Plan the launch: locate the program and build the argument array. Pure apart from
/// locating the program (`$PWK_PI_BIN` when set, with no fallback; else `pi` on PATH)
/// and, for a `no_mcp` spec, asking it `pi --help` (once per process).
pub fn plan_launch(spec: &PiRunSpec, env: &Env) -> Result<PiLaunch, RunError> {
    let program = locate_pi(env)?;
    let probed = probe_flags(spec, &program, env, &mut Vec::new());
    let spec = probed.as_ref().unwrap_or(spec);
    let sys = spec
        .system_prompt
        .as_ref()
        .map(|_| PathBuf::from(SYSTEM_PROMPT_PLACEHOLDER));
    Ok(PiLaunch {
        program,
        args: build_args(
            spec,
            sys.as_deref(),
            OutputMode::Json,
            PromptTransport::Stdin,
        ),
        prompt_transport: PromptTransport::Stdin,
    })
}

/// Find the pi program ([`crate::pi::locate`]) as a classified error.
pub fn locate_pi(env: &Env) -> Result<PathBuf, RunError> {
    crate::pi::locate(env).map_err(|e| RunError::new(ErrorCode::PiNotFound, e.to_string()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutputMode {
    Json,
    Text,
    Rpc,
}

fn build_args(
    spec: &PiRunSpec,
    system_prompt_file: Option<&Path>,
    mode: OutputMode,
    transport: PromptTransport,
) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    match mode {
        OutputMode::Json => a.extend(["--mode".into(), "json".into()]),
        OutputMode::Rpc => a.extend(["--mode".into(), "rpc".into()]),
        OutputMode::Text => a.push("--print".into()),
    }
    if let Some(p) = &spec.provider {
        a.extend(["--provider".into(), p.clone()]);
    }
    if let Some(m) = &spec.model {
        a.extend(["--model".into(), m.clone()]);
    }
    if let Some(t) = &spec.thinking {
        a.extend(["--thinking".into(), t.clone()]);
    }
    match &spec.tools {
        Some(t) if t.is_empty() => a.push("--no-tools".into()),
        Some(t) => a.extend(["--tools".into(), t.join(",")]),
        None => {}
    }
    match &spec.session {
        SessionChoice::NewFile(p) | SessionChoice::Continue(p) => {
            a.extend(["--session".into(), p.display().to_string()]);
        }
        SessionChoice::Ephemeral => a.push("--no-session".into()),
    }
    if let Some(f) = system_prompt_file {
        let flag = match spec.system_prompt_mode {
            SystemPromptMode::Replace => "--system-prompt",
            SystemPromptMode::Append => "--append-system-prompt",
        };
        a.extend([flag.into(), f.display().to_string()]);
    }
    a.extend(spec.extra_args.iter().cloned());
    if transport == PromptTransport::Argv {
        a.push(spec.prompt.clone());
    }
    a
}

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
}

impl PiRunOutcome {
    fn failed(error: RunError, started: Instant) -> PiRunOutcome {
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
        }
    }
}

/// Everything before the launch that both transports need: the program, a usable
/// cwd, the system-prompt temp file (removed when dropped), the session's directory.
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
    let probed = probe_flags(spec, &program, env, &mut warnings);
    Ok(Prepared {
        program,
        sys_file,
        probed,
        warnings,
    })
}

struct Prepared {
    program: PathBuf,
    sys_file: Option<TempFile>,
    /// The spec with the flags `pi --help` showed this pi has (`--no-mcp`), when
    /// that changed it.
    probed: Option<PiRunSpec>,
    warnings: Vec<String>,
}

/// Whether pi could start an MCP server for this run. pi 1.6 reads servers from
/// `<agent dir>/mcp.json` and, in a trusted project, `.pi/mcp.json` (its
/// docs/mcp.md, "Configure servers"); extensions can register more. So: either file
/// exists, or extensions are not turned off (`--no-extensions`). Otherwise there is
/// nothing for `--no-mcp` to stop and `pi --help` is not asked.
fn mcp_may_be_configured(spec: &PiRunSpec, env: &Env) -> bool {
    let agent_dir = spec
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PI_CODING_AGENT_DIR")
        .map(|(_, v)| PathBuf::from(v))
        .or_else(|| env.agent_dir());
    !spec.extra_args.iter().any(|a| a == "--no-extensions")
        || agent_dir.is_some_and(|d| d.join("mcp.json").exists())
        || spec.cwd.join(".pi").join("mcp.json").exists()
}

/// The spec with the flags only some pi generations have, when this one lists them
/// in `pi --help` (probed once per process, never a version check); `None` when
/// nothing changes.
fn probe_flags(
    spec: &PiRunSpec,
    program: &Path,
    env: &Env,
    warnings: &mut Vec<String>,
) -> Option<PiRunSpec> {
    if !spec.no_mcp
        || spec.extra_args.iter().any(|a| a == "--no-mcp")
        || !mcp_may_be_configured(spec, env)
    {
        return None;
    }
    let aborted = || spec.remote.as_ref().is_some_and(|r| r.aborted());
    match crate::pi::help::options(program, &spec.cwd, &spec.env, &aborted) {
        Ok(h) if h.lists("--no-mcp") => {
            let mut s = spec.clone();
            s.extra_args.push("--no-mcp".into());
            Some(s)
        }
        Ok(_) => None,
        Err(e) => {
            warnings.push(format!(
                "`pi --help` {e}, so pwk could not tell whether this pi has --no-mcp; it was not passed (configured MCP servers may start)"
            ));
            None
        }
    }
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

/// Run pi once in JSON mode (plus at most one confirmed-rejection retry). Never
/// panics on pi's behaviour; every failure is classified into the outcome.
pub fn run_pi(spec: &PiRunSpec, env: &Env, progress: &(dyn Fn(&Progress) + Sync)) -> PiRunOutcome {
    let start = Instant::now();
    let Prepared {
        program,
        sys_file,
        probed,
        warnings: mut probe_warnings,
    } = match prepare(spec, env, start) {
        Ok(p) => p,
        Err(o) => return *o,
    };
    let spec = probed.as_ref().unwrap_or(spec);
    // The run's clock starts now: the `pi --help` probe has its own limit.
    let start = Instant::now();
    let turns = spec.max_turns.map(|max| TurnLimit {
        budget: max,
        stop_after: max,
    });
    let mut transport = PromptTransport::Stdin;
    let mut mode = OutputMode::Json;
    let mut fallback_used = None;
    let mut warnings = std::mem::take(&mut probe_warnings);
    let (attempt, launch) = loop {
        let args = build_args(spec, sys_file.as_ref().map(TempFile::path), mode, transport);
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
            spawn_of(spec, &launch),
            &mut json,
            limits(spec, turns),
            start,
            progress,
        );
        let confirmed_before_start = !attempt.state.started
            && attempt.state.events == 0
            && attempt.stopped.is_none()
            && attempt.spawn_error.is_none()
            && attempt.status.is_some_and(|s| !s.success());
        if confirmed_before_start && fallback_used.is_none() {
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
    let mut outcome = finish(spec, &program, attempt, start, mode, None);
    outcome.prompt_transport = transport;
    outcome.fallback_used = fallback_used;
    warnings.append(&mut outcome.warnings);
    outcome.warnings = warnings;
    outcome.launch = Some(launch);
    outcome.session_file = session_file_after(spec);
    drop(sys_file);
    outcome
}

/// Run pi once over RPC (`--mode rpc`): the same launch as [`run_pi`], the prompt as
/// an RPC command, and the turn budget (`max_turns`, default 1) steering the model
/// to report before the supervisor stops it. No fallbacks: RPC is never retried.
pub fn run_pi_rpc(
    spec: &PiRunSpec,
    env: &Env,
    progress: &(dyn Fn(&Progress) + Sync),
) -> PiRunOutcome {
    let start = Instant::now();
    let Prepared {
        program,
        sys_file,
        probed,
        mut warnings,
    } = match prepare(spec, env, start) {
        Ok(p) => p,
        Err(o) => return *o,
    };
    let spec = probed.as_ref().unwrap_or(spec);
    let start = Instant::now();
    let launch = PiLaunch {
        program: program.clone(),
        args: build_args(
            spec,
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
        spawn_of(spec, &launch),
        &mut rpc,
        limits(spec, turns),
        start,
        progress,
    );
    let mut outcome = finish(spec, &program, attempt, start, OutputMode::Rpc, Some(&rpc));
    warnings.append(&mut outcome.warnings);
    outcome.warnings = warnings;
    outcome.steered = rpc.steered;
    outcome.turn_budget_reached |= rpc.steered;
    outcome.launch = Some(launch);
    outcome.session_file = session_file_after(spec);
    drop(sys_file);
    outcome
}

fn session_file_after(spec: &PiRunSpec) -> Option<PathBuf> {
    match &spec.session {
        SessionChoice::NewFile(p) | SessionChoice::Continue(p) if p.is_file() => Some(p.clone()),
        _ => None,
    }
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

fn finish(
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
            super::stream::MAX_LINE >> 20
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
                    human_duration(t)
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
            classify_outcome(spec, program, &a, &mut o, mode, true);
        }
        Some(StopReason::Budget(hit)) => {
            // What the budget counted, also when no model call had finished (zero).
            o.usage.get_or_insert_with(Usage::default);
            fail(
                &mut o,
                ErrorCode::BudgetExceeded,
                format!("{hit}; pi's process group was terminated (nothing is run again)"),
            );
        }
        // The answer was complete (pi was only shutting down): keep it.
        Some(StopReason::Signal(sig)) if answer_complete(&a.state) => {
            o.warnings.push(format!(
                "{} after pi's answer was complete; pi's process group was stopped",
                process::received(sig)
            ));
            classify_outcome(spec, program, &a, &mut o, mode, true);
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
                o.error = Some(match classify::classify_startup(why) {
                    Some(f) => startup_error(spec, program, Some(f), why, a.status),
                    None => RunError::new(
                        ErrorCode::PiFailed,
                        format!("pi rejected the prompt: {}", last_lines(why, 2)),
                    ),
                });
            }
            None => classify_outcome(
                spec,
                program,
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
            classify::classify_startup(&a.stderr),
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
                classify::classify_error_message(&msg)
            };
            o.status = RunStatus::Failed;
            o.error = Some(RunError::new(
                code,
                if msg.is_empty() {
                    "pi (text mode) produced no answer".to_string()
                } else {
                    classify::human_message(&msg)
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
                super::stream::MAX_LINE >> 20
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
            classify::classify_error_message(&msg),
            format!(
                "the stream ended while pi was retrying after: {}",
                classify::human_message(&msg)
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
            let code = classify::classify_error_message(&msg);
            let mut e = RunError::new(code, classify::human_message(&msg));
            if code == ErrorCode::UnknownModel {
                e.discovery = Some(discover_models(program, spec, spec.provider.as_deref()));
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
    failure: Option<StartupFailure>,
    stderr: &str,
    status: Option<std::process::ExitStatus>,
) -> RunError {
    let a_stderr = stderr;
    match failure {
        Some(StartupFailure::UnknownOption(opts)) => {
            // What `pi --help` said may be out of date (pi was replaced): ask again.
            crate::pi::help::forget(program);
            let mut e = RunError::new(
                ErrorCode::UnsupportedOption,
                format!("this pi does not accept {}", opts.join(", ")),
            );
            e.discovery = Some(discover_help(program, spec, &opts));
            e
        }
        Some(StartupFailure::UnknownModel(m)) => {
            let mut e = RunError::new(
                ErrorCode::UnknownModel,
                format!("pi does not know the model \"{m}\""),
            );
            e.discovery = Some(discover_models(program, spec, spec.provider.as_deref()));
            e
        }
        Some(StartupFailure::UnknownProvider(p)) => {
            let mut e = RunError::new(
                ErrorCode::UnknownModel,
                format!("pi does not know the provider \"{p}\""),
            );
            e.discovery = Some(discover_models(program, spec, None));
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
    w
}

/// pi's last message is a final answer (`stop`/`length`, no retry pending), even if
/// its `agent_end` was not read before pi was stopped.
fn report_complete(st: &super::stream::StreamState) -> bool {
    !st.pending_retry
        && st
            .final_message
            .as_ref()
            .is_some_and(|f| matches!(f.stop_reason.as_deref(), Some("stop" | "length")))
}

/// pi finished its answer: `agent_end` after a final `stop`/`length` message, no
/// retry pending.
fn answer_complete(st: &super::stream::StreamState) -> bool {
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
/// adapter; its output is used whatever pi's exit status.
fn capture(program: &Path, args: &[&str], spec: &PiRunSpec) -> Result<String, String> {
    crate::pi::capture(program, args, &spec.cwd, &spec.env, Duration::from_secs(30))
        .map(|c| c.text)
        .map_err(|e| e.to_string())
}

fn discover_models(program: &Path, spec: &PiRunSpec, provider: Option<&str>) -> String {
    let mut args = vec!["--list-models"];
    if let Some(p) = provider {
        args.push(p);
    }
    let cmd = format!("pi {}", args.join(" "));
    match capture(program, &args, spec) {
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

fn discover_help(program: &Path, spec: &PiRunSpec, rejected: &[String]) -> String {
    match capture(program, &["--help"], spec) {
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
    fn args_for_a_readonly_task_with_model() {
        let mut spec = PiRunSpec::new("/w", "-starts with a dash");
        spec.provider = Some("mock".into());
        spec.model = Some("mock-model".into());
        spec.thinking = Some("low".into());
        spec.tools = Some(vec!["read".into(), "grep".into()]);
        spec.session = SessionChoice::NewFile("/s/a.jsonl".into());
        let args = build_args(&spec, None, OutputMode::Json, PromptTransport::Stdin);
        assert_eq!(
            args,
            [
                "--mode",
                "json",
                "--provider",
                "mock",
                "--model",
                "mock-model",
                "--thinking",
                "low",
                "--tools",
                "read,grep",
                "--session",
                "/s/a.jsonl"
            ]
        );
        spec.tools = Some(vec![]);
        spec.session = SessionChoice::Ephemeral;
        spec.provider = None;
        spec.model = None;
        spec.thinking = None;
        let args = build_args(
            &spec,
            Some(Path::new("/tmp/p.md")),
            OutputMode::Text,
            PromptTransport::Argv,
        );
        assert_eq!(
            args,
            [
                "--print",
                "--no-tools",
                "--no-session",
                "--system-prompt",
                "/tmp/p.md",
                "-starts with a dash"
            ]
        );
    }

    #[test]
    fn role_spec() {
        let role = crate::role::Role {
            name: Some("pwk-x".into()),
            tools: Some(vec!["read".into(), "bash".into()]),
            deny_tools: Some(vec!["bash".into()]),
            model: Some("mock/mock-model".into()),
            thinking: Some("low".into()),
            max_turns: Some(7),
            body: "# Role\n".into(),
            ..Default::default()
        };
        let spec = PiRunSpec::for_role(&role, Path::new("/w"), "go".into());
        assert_eq!(spec.tools.as_deref().unwrap(), ["read"]);
        assert_eq!(spec.provider.as_deref(), Some("mock"));
        assert_eq!(spec.model.as_deref(), Some("mock-model"));
        assert_eq!(spec.max_turns, Some(7));
        assert_eq!(spec.system_prompt.as_deref(), Some("# Role\n"));
        assert_eq!(spec.label, "[pwk-x]");
    }
}
