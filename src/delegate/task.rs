//! One atomic task, from its JSON request to the one result document: validation
//! (refused before launch with `needs_decision`), the continuation checks, the
//! prompt, the write lock for writing tasks, one pi run through the runner and its
//! one supervisor, and the worker's report. `pwk delegate` and `pwk mcp`'s
//! `delegate_start` / `task_continue` both run tasks through [`delegate_with`].

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::lock;
use super::report::{self, TaskReport};
use super::request::{self, Action, Problem, Profile, TaskRequest, WriteMode};
use super::runner::{self, PiRunOutcome, PiRunSpec, SessionChoice, run_pi};
use super::session;
use super::types::{ErrorCode, Progress, RunError, RunStatus, Usage};

/// The default overall limit when the request has no `timeoutMs`.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// The default stall watchdog: no event from pi for this long while no tool runs.
pub(crate) const DEFAULT_STALL: Duration = Duration::from_secs(5 * 60);

/// The one JSON document `pwk delegate` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DelegateResult {
    pub status: &'static str,
    pub task_id: Option<String>,
    pub action: Option<Action>,
    pub error: Option<RunError>,
    pub decision_needed: Option<String>,
    pub summary: Option<String>,
    pub changed_files: Vec<String>,
    pub validation: Vec<Value>,
    pub remaining_issue: Option<String>,
    pub write_scope: Vec<String>,
    pub scope_exceeded: Option<bool>,
    pub out_of_scope_findings: Vec<Value>,
    pub report_parsed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_error: Option<String>,
    pub cwd: Option<String>,
    pub session_id: Option<String>,
    pub session_file: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub thinking: Option<String>,
    pub profile: Option<Profile>,
    pub tools: Option<Vec<String>>,
    pub write_mode: Option<WriteMode>,
    pub workspace_mode: Option<String>,
    pub allowed_write_scope: Vec<String>,
    pub usage: Option<Usage>,
    pub final_text: Option<String>,
    pub stop_reason: Option<String>,
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    pub execution_started: bool,
    pub turns: u32,
    pub tool_calls: u32,
    /// Of `toolCalls`, those that failed (pi's `isError`).
    pub tool_calls_failed: u32,
    pub malformed_lines: u64,
    pub prompt_transport: Option<runner::PromptTransport>,
    pub fallback_used: Option<String>,
    pub warnings: Vec<String>,
    /// The budget limits pi's reported usage could not be counted against
    /// (`maxTokens`, `maxCostUsd`): missing, `null`, negative or not a number.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub budget_unenforced: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validation_errors: Vec<Problem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch: Option<runner::PiLaunch>,
    /// `--dry-run`: the prompt pi would receive on stdin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Why the supervisor stopped pi, when it did (not in the document: `status` and
    /// `error` say it; `pwk mcp` tells a stall from a timeout by it).
    #[serde(skip)]
    pub stopped: Option<super::supervise::StopReason>,
}

impl DelegateResult {
    pub fn blank(map: Option<&serde_json::Map<String, Value>>) -> DelegateResult {
        let s = |k: &str| {
            map.and_then(|m| m.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        DelegateResult {
            status: "blocked",
            task_id: s("taskId"),
            action: match s("action").as_deref() {
                Some("delegate") => Some(Action::Delegate),
                Some("continue") => Some(Action::Continue),
                _ => None,
            },
            error: None,
            decision_needed: None,
            summary: None,
            changed_files: vec![],
            validation: vec![],
            remaining_issue: None,
            write_scope: vec![],
            scope_exceeded: None,
            out_of_scope_findings: vec![],
            report_parsed: false,
            report_error: None,
            cwd: s("cwd"),
            session_id: None,
            session_file: s("sessionFile"),
            provider: s("provider"),
            model: s("model"),
            thinking: s("thinking"),
            profile: None,
            tools: None,
            write_mode: None,
            workspace_mode: s("workspaceMode"),
            allowed_write_scope: vec![],
            usage: None,
            final_text: None,
            stop_reason: None,
            exit_code: None,
            duration_ms: 0,
            execution_started: false,
            turns: 0,
            tool_calls: 0,
            tool_calls_failed: 0,
            malformed_lines: 0,
            prompt_transport: None,
            fallback_used: None,
            warnings: vec![],
            budget_unenforced: vec![],
            validation_errors: vec![],
            launch: None,
            prompt: None,
            stopped: None,
        }
    }

    pub fn blocked(mut self, decision: String, problems: Vec<Problem>) -> DelegateResult {
        self.status = "blocked";
        let message = match problems.as_slice() {
            [] => "the request was refused before launch".to_string(),
            ps => format!(
                "the request was refused before launch: {}",
                ps.iter()
                    .map(|p| p.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        };
        self.error = Some(RunError::new(ErrorCode::NeedsDecision, message));
        self.decision_needed = Some(decision);
        self.validation_errors = problems;
        self
    }

    /// The task completed (`pwk delegate` exits 0).
    pub fn completed(&self) -> bool {
        self.status == "completed"
    }
}

/// How [`delegate_with`] runs a request.
pub(crate) struct How<'a> {
    /// Plan only (`--dry-run`).
    pub dry_run: bool,
    /// With `dry_run`: check the request only, without asking pi `pi --help` for the
    /// flags only some generations have (`pwk mcp`'s `delegate_start`, which answers
    /// at once; the task's run asks, within its own time budget).
    pub check_only: bool,
    /// Over RPC with no turn budget, so a caller can steer the running pi through
    /// `remote` (else `--mode json`, as `pwk delegate`).
    pub rpc: bool,
    /// Steering and abort from other threads; an abort also ends a wait for the lock.
    pub remote: Option<std::sync::Arc<super::supervise::Remote>>,
    /// pi's progress, with the task's label.
    pub progress: &'a (dyn Fn(&Progress, &str) + Sync),
    /// Called once when the write lock is busy (label, lock path).
    pub on_wait: &'a mut dyn FnMut(&str, &Path),
    /// The limits a request's `budget` falls back to, limit by limit (`[delegate]
    /// budget` in the project's pwk.toml).
    pub default_budget: super::budget::Budget,
}

/// Run one delegate request with the transport, remote control and progress sinks
/// chosen by the caller (`pwk delegate` and `pwk mcp` run every task this way): the
/// same validation, write lock and result document.
pub(crate) fn delegate_with(
    map: &serde_json::Map<String, Value>,
    how: How<'_>,
    env: &crate::env::Env,
) -> DelegateResult {
    let How {
        dry_run,
        check_only,
        rpc,
        remote,
        progress,
        on_wait,
        default_budget,
    } = how;
    let start = Instant::now();
    // From here a signal stops pi (and the `pi --help` probe) and the result is still
    // printed.
    let _ = runner::pending_signal();
    let base = DelegateResult::blank(Some(map));
    let mut task = match request::validate(map) {
        Ok(t) => t,
        Err(refusal) => return base.blocked(refusal.decision_needed, refusal.problems),
    };
    task.budget = task.budget.or(default_budget);
    let mut result = base;
    result.profile = Some(task.profile);
    result.tools = task.profile.tools();
    result.write_mode = task.write_mode;
    result.allowed_write_scope = task.allowed_write_scope.clone();
    result.cwd = Some(task.cwd.display().to_string());

    // Continuation: the session's metadata decides the model, and must match the cwd.
    let (mut provider, mut model) = (task.provider.clone(), task.model.clone());
    let session = match task.action {
        Action::Continue => {
            let file = task.session_file.clone().unwrap_or_default();
            let meta = match session::read_meta(&file) {
                Ok(m) => m,
                Err(why) => {
                    return result.blocked(
                        format!("The session metadata is unavailable ({why}). Pass the exact sessionFile from the earlier result, or start a new task."),
                        vec![Problem { field: "sessionFile".into(), message: why }],
                    );
                }
            };
            if let Some(scwd) = &meta.cwd
                && !same_dir(Path::new(scwd), &task.cwd)
            {
                let msg = format!(
                    "the session was recorded in {scwd}, but the request's cwd is {}",
                    task.cwd.display()
                );
                return result.blocked(
                    "Continue in the session's original cwd, or start a new task in this cwd."
                        .into(),
                    vec![Problem {
                        field: "cwd".into(),
                        message: msg,
                    }],
                );
            }
            let (Some(sp), Some(sm)) = (meta.provider.clone(), meta.model.clone()) else {
                return result.blocked(
                    "The session records no provider/model. Decide which model to continue with, or start a new task.".into(),
                    vec![Problem { field: "sessionFile".into(), message: "the session file records no model".into() }],
                );
            };
            if let (Some(p), Some(m)) = (&provider, &model)
                && (p != &sp || !model_matches(m, &sm))
            {
                let msg = format!("the session ran on {sp}/{sm}, but the request asks for {p}/{m}");
                return result.blocked(
                    format!("Model mismatch: continue on the session's model {sp}/{sm} (omit provider/model), or start a new task on {p}/{m}."),
                    vec![Problem { field: "model".into(), message: msg }],
                );
            }
            provider = Some(sp);
            model = Some(sm);
            result.session_id = meta.id;
            SessionChoice::Continue(file)
        }
        Action::Delegate => match env.agent_dir() {
            Some(dir) => SessionChoice::NewFile(new_session_path(&dir, &task.cwd, &task.task_id)),
            None => SessionChoice::Ephemeral,
        },
    };
    result.provider = provider.clone();
    result.model = model.clone();

    let mut spec = PiRunSpec::new(task.cwd.clone(), build_prompt(&task));
    spec.tools = task.profile.tools();
    // No MCP server for work that must not reach one (`--no-mcp` where pi has it).
    spec.no_mcp = matches!(task.profile, Profile::Readonly | Profile::Verification);
    spec.provider = provider;
    spec.model = model;
    spec.thinking = task.thinking.clone();
    spec.session = session;
    let timeout = task.timeout.unwrap_or(DEFAULT_TIMEOUT);
    spec.timeout = Some(timeout);
    spec.stall_timeout = Some(task.stall_timeout.unwrap_or(DEFAULT_STALL).min(timeout));
    spec.budget = task.budget;
    spec.label = format!("[{}]", task.task_id);

    if dry_run {
        let mut spec = spec;
        // A check only: the plan is not shown, so pi is not asked what it has.
        spec.no_mcp &= !check_only;
        match runner::plan_launch(&spec, env) {
            Ok(launch) => {
                result.status = "planned";
                result.launch = Some(launch);
                result.final_text = None;
                result.prompt_transport = Some(runner::PromptTransport::Stdin);
                result.warnings.push("dry run: pi was not started".into());
                result.prompt = Some(spec.prompt.clone());
            }
            Err(e) => {
                result.status = "failed";
                result.error = Some(e);
            }
        }
        return result;
    }

    // Tasks that may write serialise on the cwd's lock.
    let _lock = if task.writes() {
        let label = spec.label.clone();
        let deadline = Some(start + timeout);
        let aborted = || remote.as_ref().is_some_and(|r| r.aborted());
        match lock::state_dir(env).and_then(|state_dir| {
            lock::acquire(
                &state_dir,
                &task.cwd,
                deadline,
                &mut |p| on_wait(&label, p),
                &|| runner::pending_signal().is_some() || aborted(),
            )
        }) {
            Ok(l) => Some(l),
            Err(lock::LockError::Interrupted) if aborted() => {
                result.status = "aborted";
                result.error = Some(RunError::new(
                    ErrorCode::Aborted,
                    "the task was aborted while waiting for the write lock; pi was never started",
                ));
                result.duration_ms = start.elapsed().as_millis() as u64;
                return result;
            }
            Err(lock::LockError::TimedOut) => {
                result.status = "timed_out";
                result.error = Some(RunError::new(
                    ErrorCode::Timeout,
                    lock::LockError::TimedOut.to_string(),
                ));
                result.duration_ms = start.elapsed().as_millis() as u64;
                return result;
            }
            Err(e) => {
                result.status = "failed";
                result.error = Some(RunError::new(ErrorCode::PiFailed, e.to_string()));
                result.duration_ms = start.elapsed().as_millis() as u64;
                return result;
            }
        }
    } else {
        None
    };
    if let Some(rest) = timeout.checked_sub(start.elapsed()) {
        spec.timeout = Some(rest.max(Duration::from_millis(1)));
        spec.timeout_stated = Some(timeout);
    }

    let label = spec.label.clone();
    let print = move |p: &Progress| progress(p, &label);
    spec.remote = remote;
    let outcome = if rpc {
        spec.rpc_unbudgeted = true;
        runner::run_pi_rpc(&spec, env, &print)
    } else {
        run_pi(&spec, env, &print)
    };
    fill_from_outcome(&mut result, outcome, &task);
    result.duration_ms = start.elapsed().as_millis() as u64;
    result
}

fn fill_from_outcome(r: &mut DelegateResult, o: PiRunOutcome, task: &TaskRequest) {
    r.status = match o.status {
        RunStatus::Completed => "completed",
        RunStatus::Failed => "failed",
        RunStatus::TimedOut => "timed_out",
        RunStatus::Aborted => "aborted",
    };
    r.error = o.error;
    r.stopped = o.stopped;
    r.execution_started = o.started;
    r.exit_code = o.exit_code;
    r.turns = o.turns;
    r.tool_calls = o.tool_calls;
    r.tool_calls_failed = o.tool_calls_failed;
    r.malformed_lines = o.malformed_lines;
    r.prompt_transport = Some(o.prompt_transport);
    r.fallback_used = o.fallback_used;
    r.warnings.extend(o.warnings);
    r.budget_unenforced = o.unenforced;
    r.usage = o.usage;
    r.stop_reason = o.stop_reason;
    if o.model.is_some() {
        r.provider = o.provider;
        r.model = o.model;
    }
    r.session_id = o.session_id.or(r.session_id.take());
    // Over RPC pi prints no session header: the session file records the id.
    if r.session_id.is_none()
        && let Some(f) = &o.session_file
    {
        r.session_id = session::read_meta(f).ok().and_then(|m| m.id);
    }
    r.session_file = o.session_file.map(|p| p.display().to_string());
    r.thinking = task.thinking.clone();
    if let Some(e) = &mut r.error
        && e.code == ErrorCode::SandboxPermission
    {
        e.execution_started = Some(o.started);
    }
    if let Some(text) = &o.final_text {
        match report::parse_report(text) {
            Ok(rep) => apply_report(r, rep),
            Err(why) => r.report_error = Some(why),
        }
    }
    r.final_text = o.final_text;
    if r.status == "completed"
        && let Some(d) = r.decision_needed.clone()
    {
        r.status = "blocked";
        r.error = Some(RunError::new(
            ErrorCode::NeedsDecision,
            format!("the worker needs a decision: {d}"),
        ));
    }
}

fn apply_report(r: &mut DelegateResult, rep: TaskReport) {
    r.report_parsed = true;
    r.summary = rep.summary;
    r.changed_files = rep.changed_files;
    r.validation = rep.validation;
    r.remaining_issue = rep.remaining_issue;
    r.decision_needed = rep.decision_needed;
    r.write_scope = rep.write_scope;
    r.scope_exceeded = rep.scope_exceeded;
    r.out_of_scope_findings = rep.out_of_scope_findings;
}

/// `m` names the session's model `sm` (exactly, or as `provider/id`).
fn model_matches(m: &str, sm: &str) -> bool {
    m == sm || m.rsplit_once('/').is_some_and(|(_, id)| id == sm)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// `<agentDir>/sessions/--<cwd>--/<ISO time>_pwk-<taskId>.jsonl`: pi's own layout, so
/// pi's `--continue` and `/resume` find delegated sessions too.
fn new_session_path(agent_dir: &Path, cwd: &Path, task_id: &str) -> PathBuf {
    let cwd_s = cwd.display().to_string();
    let enc: String = cwd_s
        .trim_start_matches('/')
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    let safe_id: String = task_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    agent_dir
        .join("sessions")
        .join(format!("--{enc}--"))
        .join(format!("{}_pwk-{safe_id}.jsonl", file_timestamp()))
}

/// `2026-11-29T21-22-58-560Z` (UTC), as pi names its session files.
fn file_timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}-{:02}-{:02}-{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

fn bullets(items: &[String], empty: &str) -> String {
    if items.is_empty() {
        return format!("- {empty}\n");
    }
    items.iter().map(|i| format!("- {i}\n")).collect()
}

const REPORT_INSTRUCTIONS: &str = "## Report\nEnd your final answer with exactly one JSON object between these two marker lines, with nothing after the closing marker. Use null or [] for anything you did not do or observe; do not guess.\n---PI_TASK_REPORT---\n{\"summary\": \"<one paragraph: what you did and found>\", \"changedFiles\": [\"<path you changed>\"], \"validation\": [\"<check you ran> -> <result>\"], \"remainingIssue\": null, \"decisionNeeded\": null, \"writeScope\": [\"<paths you wrote>\"], \"scopeExceeded\": false, \"outOfScopeFindings\": [\"<issue outside the scope, not changed>\"]}\n---END_PI_TASK_REPORT---\n";

/// The user prompt. The task's own text is inserted verbatim.
pub(crate) fn build_prompt(t: &TaskRequest) -> String {
    let mut p = String::new();
    match t.action {
        Action::Delegate => {
            p.push_str("You are a worker on one atomic task defined by a supervisor. Do exactly this task; the supervisor owns planning, review and acceptance.\n\n");
        }
        Action::Continue => {
            p.push_str("Continue the same task in this session. The supervisor's follow-up is below; the rules and the report format of the task still apply.\n\n");
        }
    }
    p.push_str(&format!(
        "Task ID: {}\nWorking directory: {}\n\n## Objective\n",
        t.task_id,
        t.cwd.display()
    ));
    p.push_str(&t.objective);
    p.push_str("\n\n");
    if t.action == Action::Delegate || !t.scope.is_empty() {
        p.push_str("## Scope\n");
        p.push_str(&bullets(&t.scope, "(as stated in the objective)"));
        p.push('\n');
    }
    if t.action == Action::Delegate || !t.constraints.is_empty() {
        p.push_str("## Constraints\n");
        p.push_str(&bullets(&t.constraints, "(none beyond the rules below)"));
        p.push('\n');
    }
    if t.action == Action::Delegate || !t.acceptance.is_empty() {
        p.push_str("## Acceptance criteria\n");
        p.push_str(&bullets(&t.acceptance, "(as before)"));
        p.push('\n');
    }
    p.push_str("## Tools and writes\n");
    match t.profile {
        Profile::Readonly => p.push_str("Read-only task: you have read, grep, find and ls only. Do not try to change anything.\n"),
        Profile::Verification => p.push_str(
            "Verification task: you have read, grep, find, ls and bash. Run checks; do not change source files.\n",
        ),
        Profile::Implementation => {}
    }
    match (t.write_mode, t.workspace_mode.as_deref()) {
        (Some(mode), _) => {
            let how = match mode {
                WriteMode::Direct => "directly in this working directory (the supervisor authorised it)",
                WriteMode::Isolated => "in this isolated worktree, which the supervisor supplied and owns",
            };
            p.push_str(&format!("You may write {how}, only inside:\n"));
            p.push_str(&bullets(&t.allowed_write_scope, "(nothing)"));
        }
        (None, Some("delegated")) => p.push_str(
            "Workspace mode delegated: follow the project's worktree skill or rule for where to write; if there is none, stop and ask in decisionNeeded.\n",
        ),
        (None, Some(_)) if t.profile == Profile::Implementation => {
            p.push_str("You may write in this working directory (legacy workspace mode existing).\n");
            if !t.allowed_write_scope.is_empty() {
                p.push_str("Only inside:\n");
                p.push_str(&bullets(&t.allowed_write_scope, "(nothing)"));
            }
        }
        _ => {}
    }
    p.push_str("\n## Rules\n- Never create, switch or clean worktrees or checkouts; never reset, stash, clean, check out over user changes, commit, push or merge.\n- Report problems outside the scope in outOfScopeFindings without changing them.\n- If a needed change falls outside the allowed write scope, do not make it: set scopeExceeded to true and write what must be decided in decisionNeeded ([NEEDS_DECISION]).\n- Do not switch models or start another session; if the task cannot be done as specified, say so in decisionNeeded.\n\n");
    p.push_str(REPORT_INSTRUCTIONS);
    p
}

/// The result for people (`pwk delegate --format human`): what happened, what
/// changed, what is left, and how to continue. Text from pi and the request is
/// escaped.
pub(crate) fn human(r: &DelegateResult) -> String {
    use crate::text::{escape_block, escape_line};
    let mut out = String::new();
    let id = r.task_id.as_deref().map(escape_line).unwrap_or_default();
    out.push_str(&format!(
        "Task {}: {}",
        if id.is_empty() {
            "(no taskId)".into()
        } else {
            format!("`{id}`")
        },
        r.status
    ));
    if r.execution_started {
        let model = match (&r.provider, &r.model) {
            (Some(p), Some(m)) => format!("{}/{}", escape_line(p), escape_line(m)),
            (None, Some(m)) => escape_line(m).into_owned(),
            _ => "pi's default model".into(),
        };
        let failed = match r.tool_calls_failed {
            0 => String::new(),
            n => format!(" ({n} failed)"),
        };
        out.push_str(&format!(
            " on {model}, {} turn(s), {} tool call(s){failed}, {:.1} s",
            r.turns,
            r.tool_calls,
            r.duration_ms as f64 / 1000.0
        ));
    }
    out.push('\n');
    if let Some(e) = &r.error {
        out.push_str(&format!(
            "Error:     {} {}\n",
            e.code.as_str(),
            escape_block(&e.message)
        ));
    }
    if let Some(d) = &r.decision_needed {
        out.push_str(&format!("Decision:  {}\n", escape_block(d)));
    }
    for p in &r.validation_errors {
        out.push_str(&format!("  - {}\n", escape_line(&p.message)));
    }
    if let Some(s) = &r.summary {
        out.push_str(&format!("Summary:   {}\n", escape_block(s)));
    }
    if !r.changed_files.is_empty() {
        out.push_str("Changed:\n");
        for f in &r.changed_files {
            out.push_str(&format!("  {}\n", escape_line(f)));
        }
    }
    if let Some(i) = &r.remaining_issue {
        out.push_str(&format!("Remaining: {}\n", escape_block(i)));
    }
    if r.scope_exceeded == Some(true) {
        out.push_str("Scope:     exceeded (see decisionNeeded)\n");
    }
    for w in &r.warnings {
        out.push_str(&format!("warning: {}\n", escape_block(w)));
    }
    if let Some(f) = &r.session_file {
        out.push_str(&format!(
            "Session:   {} (continue with action \"continue\" and this sessionFile)\n",
            escape_line(f)
        ));
    }
    if let Some(p) = &r.prompt {
        out.push_str(&format!("\nPrompt (dry run):\n{}\n", escape_block(p)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_look_like_pi_s() {
        let t = file_timestamp();
        assert_eq!(t.len(), "2026-11-29T21-22-58-560Z".len(), "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'));
    }

    #[test]
    fn session_paths_follow_pi_s_layout() {
        let p = new_session_path(Path::new("/a"), Path::new("/tmp/pix/work"), "task 1/x");
        let s = p.display().to_string();
        assert!(s.starts_with("/a/sessions/--tmp-pix-work--/"), "{s}");
        assert!(s.ends_with("_pwk-task_1_x.jsonl"), "{s}");
    }

    #[test]
    fn models_match_with_or_without_provider_prefix() {
        assert!(model_matches("mock-model", "mock-model"));
        assert!(model_matches("mock/mock-model", "mock-model"));
        assert!(!model_matches("mock-reasoner", "mock-model"));
    }
}
