//! The real executor: one fresh pi process per role, through the delegate runner and
//! its one supervisor, over RPC (`run_pi_rpc`: the turn budget steers) or JSON
//! (`run_pi`: the turn budget stops).
//!
//! Enforcement lives in pi's own argument array (see `plan_launch`):
//! `--tools read,grep,find,ls` (or `--no-tools`), `--no-extensions`,
//! `--no-prompt-templates`, `--no-skills` unless the role lists skills,
//! `--no-session` (a fresh, never-continued context), and the supervisor's wall-clock
//! timeout, stall watchdog and turn budget (process group SIGTERM, then SIGKILL).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::execute::{RoleExecutor, RoleRun, RunEnd};
use super::mapping::{ModelCatalog, ModelList, RoleJob};
use crate::delegate::transport::rpc::GRACE_TURNS;
use crate::delegate::{
    ErrorCode, PiRunOutcome, PiRunSpec, Progress, RunStatus, SessionChoice, run_pi, run_pi_rpc,
};
use crate::env::Env;
use crate::role::Role;

/// Runs jobs on the real pi (`$PWK_PI_BIN`, else `pi` on PATH).
pub(crate) struct PiExecutor<'a> {
    pub env: &'a Env,
    /// `--transport rpc`: steer at the turn budget (else JSON: stop there).
    pub rpc: bool,
    /// Abort from another thread (`pwk mcp`): every role's pi is stopped, and roles
    /// not started yet are skipped.
    pub remote: Option<std::sync::Arc<crate::delegate::supervise::Remote>>,
}

impl PiExecutor<'_> {
    /// The runner spec for a job. Public so `--dry-run`-style callers and tests can
    /// inspect exactly what pi is given.
    pub(crate) fn spec(job: &RoleJob, role: &Role) -> PiRunSpec {
        let mut spec = PiRunSpec::for_role(role, &job.cwd, job.prompt.clone());
        spec.system_prompt = Some(job.system_prompt.clone()).filter(|s| !s.trim().is_empty());
        // Read-only: exactly the cut allow-list; an empty list becomes --no-tools.
        spec.tools = Some(job.tools.clone());
        spec.provider = job.model.as_ref().map(|(p, _)| p.clone());
        spec.model = job.model.as_ref().map(|(_, m)| m.clone());
        spec.thinking = job.thinking.clone();
        spec.session = SessionChoice::Ephemeral;
        spec.timeout = Some(job.timeout);
        spec.stall_timeout = job.stall_timeout.map(|s| s.min(job.timeout));
        spec.max_turns = Some(job.turn_budget);
        spec.budget = job.budget;
        // Read-only: no MCP server either (`--no-mcp` where pi has it).
        spec.no_mcp = true;
        for flag in ["--no-extensions", "--no-prompt-templates"] {
            if !spec.extra_args.iter().any(|a| a == flag) {
                spec.extra_args.push(flag.to_string());
            }
        }
        spec.label = format!("[{}]", job.role);
        spec
    }
}

/// The signal pwk received, as words (`pwk received SIGINT`), if any. Installs the
/// runner's signal flag on first use, so a signal stops pi's process groups
/// and the run reports instead of dying.
pub(crate) fn interruption() -> Option<String> {
    crate::delegate::pending_signal().map(crate::delegate::process::received)
}

impl RoleExecutor for PiExecutor<'_> {
    fn interrupted(&self) -> Option<String> {
        if self.remote.as_ref().is_some_and(|r| r.aborted()) {
            return Some("the run was aborted on request".into());
        }
        interruption()
    }

    fn execute(&self, job: &RoleJob, progress: &(dyn Fn(u32, u32) + Sync)) -> RoleRun {
        let mut spec = PiExecutor::spec(job, &job.definition);
        spec.remote = self.remote.clone();
        let turns = AtomicU32::new(0);
        let tools = AtomicU32::new(0);
        let on_progress = |p: &Progress| match p {
            Progress::TurnStarted(n) => {
                turns.store(*n, Ordering::Relaxed);
                progress(*n, tools.load(Ordering::Relaxed));
            }
            Progress::ToolCall { .. } => {
                let t = tools.fetch_add(1, Ordering::Relaxed) + 1;
                progress(turns.load(Ordering::Relaxed), t);
            }
            _ => {}
        };
        let o = if self.rpc {
            run_pi_rpc(&spec, self.env, &on_progress)
        } else {
            run_pi(&spec, self.env, &on_progress)
        };
        let mut run = role_run(job, &o);
        run.turns = run.turns.max(turns.load(Ordering::Relaxed));
        run.tool_calls = run.tool_calls.max(tools.load(Ordering::Relaxed));
        run
    }
}

/// The one conversion of a runner outcome into a role run, for both transports.
fn role_run(job: &RoleJob, o: &PiRunOutcome) -> RoleRun {
    let budget = o
        .error
        .as_ref()
        .is_some_and(|e| e.code == ErrorCode::TurnBudget);
    let end = match o.status {
        RunStatus::Completed => RunEnd::Completed,
        RunStatus::TimedOut => RunEnd::TimedOut,
        // A capped run is judged by its report: completed when it reported.
        RunStatus::Failed if budget => RunEnd::Completed,
        RunStatus::Failed | RunStatus::Aborted => RunEnd::Failed,
    };
    let mut run = RoleRun::new(end);
    run.final_text = o.final_text.clone();
    run.error = o
        .error
        .as_ref()
        .map(|e| format!("{}: {}", e.code, e.message));
    run.turns = o.turns;
    run.tool_calls = o.tool_calls;
    run.tool_calls_failed = o.tool_calls_failed;
    run.usage = o.usage.clone();
    run.turn_budget_reached = o.turn_budget_reached || budget;
    // pi's session id when it printed one, else an id of this run.
    run.run_id = Some(o.session_id.clone().unwrap_or_else(|| {
        format!(
            "pwk-{}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
            job.index
        )
    }));
    run.model = match (&o.provider, &o.model) {
        (Some(p), Some(m)) => Some(format!("{p}/{m}")),
        (None, Some(m)) => Some(m.clone()),
        _ => None,
    };
    run.duration = o.duration;
    if o.steered {
        run.notes.push(format!(
            "at turn {} pi was steered (RPC `steer`) to wrap up and report",
            job.turn_budget.max(1)
        ));
        if budget {
            // Stopped past the wrap-up turn: whatever it said last is not its report.
            run.final_text = None;
            run.notes.push(format!(
                "the role kept working {GRACE_TURNS} turns past its wrap-up turn; pi was stopped"
            ));
        }
    }
    if let Some(f) = &o.fallback_used {
        run.notes.push(format!("pi transport fallback used: {f}"));
    }
    // What went wrong on the way (dropped over-long events, malformed lines, a stdout
    // held open past pi's exit) is part of the result, not only of stderr.
    run.notes.extend(o.warnings.iter().cloned());
    run
}

/// The model list, read from `pi --list-models` at most once per run, and only when
/// a role has a model hint.
pub(crate) struct LazyModels<'a> {
    env: &'a Env,
    cwd: PathBuf,
    cell: OnceLock<Result<ModelList, String>>,
}

impl<'a> LazyModels<'a> {
    pub(crate) fn new(env: &'a Env, cwd: &Path) -> LazyModels<'a> {
        LazyModels {
            env,
            cwd: cwd.to_path_buf(),
            cell: OnceLock::new(),
        }
    }

    fn list(&self) -> &Result<ModelList, String> {
        self.cell.get_or_init(|| {
            let program = crate::pi::locate(self.env).map_err(|e| e.to_string())?;
            crate::pi::list_models(&program, None, &self.cwd, Duration::from_secs(30))
                .map_err(|e| e.to_string())
        })
    }
}

impl ModelCatalog for LazyModels<'_> {
    fn resolve(&self, hint: &str) -> Result<(String, String), String> {
        match self.list() {
            Ok(list) => list.resolve(hint),
            Err(why) => Err(format!(
                "model hint {hint:?} cannot be checked (`pi --list-models` {why})"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::contract::ReportContract;
    use crate::provider::request::LogicalRole;

    #[test]
    fn the_launch_is_read_only_fresh_and_bounded() {
        let job = RoleJob {
            index: 0,
            role: LogicalRole::HazardReviewer,
            system_prompt: "# PWK Reviewer\n".into(),
            prompt: "Review.".into(),
            cwd: "/".into(),
            tools: vec!["read".into(), "ls".into()],
            model: Some(("mock".into(), "mock-small".into())),
            thinking: Some("low".into()),
            turn_budget: 20,
            budget: crate::delegate::Budget::default(),
            timeout: Duration::from_secs(30),
            stall_timeout: None,
            contract: ReportContract::Role(LogicalRole::HazardReviewer),
            notes: vec![],
            definition: Role::default(),
        };
        let role = Role {
            body: job.system_prompt.clone(),
            ..Role::default()
        };
        let spec = PiExecutor::spec(&job, &role);
        let env = Env {
            pi_bin: Some("/bin/sh".into()),
            ..Env::default()
        };
        let launch = crate::delegate::plan_launch(&spec, &env).unwrap();
        let args = launch.args.join(" ");
        for want in [
            "--tools read,ls",
            "--no-session",
            "--no-extensions",
            "--no-prompt-templates",
            "--no-skills",
            "--provider mock",
            "--model mock-small",
            "--thinking low",
            "--system-prompt",
        ] {
            assert!(args.contains(want), "{want} in {args}");
        }
        for never in ["--continue", "--resume", "--fork", " -c "] {
            assert!(!args.contains(never), "{never} in {args}");
        }
        assert_eq!(spec.max_turns, Some(20));
        assert_eq!(spec.timeout, Some(Duration::from_secs(30)));

        let no_tools = RoleJob {
            tools: vec![],
            model: None,
            ..job
        };
        let launch =
            crate::delegate::plan_launch(&PiExecutor::spec(&no_tools, &role), &env).unwrap();
        assert!(launch.args.contains(&"--no-tools".to_string()));
        assert!(!launch.args.contains(&"--model".to_string()));
    }
}
