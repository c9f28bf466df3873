//! Running jobs: the executor seam, bounded concurrency, and outcome normalization.
//!
//! [`RoleExecutor`] runs one job to an end (the real one launches pi; tests plug in
//! an in-process fake). [`run_all`] runs jobs on scoped threads, at most `cap` at
//! once, and returns one [`DelegationResult`] per job **in job order**, whatever
//! order they finish in. [`normalize`] is the pure rule that turns a raw run into
//! a seed-000 outcome.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::contract::{self, ContractBreach};
use super::mapping::RoleJob;
use super::request::{DelegationResult, LogicalRole, Status};

/// How a run ended, as the executor saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunEnd {
    /// pi ran to its end (the report may still be empty or break its contract).
    Completed,
    /// pi could not run or the model failed (provider error, pi missing, …).
    Failed,
    /// The wall-clock timeout stopped it.
    TimedOut,
    /// Not started (the run was cancelled before this role's turn).
    Skipped,
}

/// The raw result of one job.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RoleRun {
    pub end: RunEnd,
    /// The final assistant text, when there was one.
    pub final_text: Option<String>,
    /// Why it failed / timed out / was skipped.
    pub error: Option<String>,
    pub turns: u32,
    pub tool_calls: u32,
    /// Of `tool_calls`, those pi reported as failed.
    pub tool_calls_failed: u32,
    /// Tokens and cost pi reported for the run.
    pub usage: Option<crate::delegate::Usage>,
    /// The turn budget stopped the run (hard stop) or was reached and steered.
    pub turn_budget_reached: bool,
    /// An opaque id of the pi run (its session id when known).
    pub run_id: Option<String>,
    /// `provider/model` pi used.
    pub model: Option<String>,
    pub duration: Duration,
    /// Extra facts for the result's notes (e.g. the session file).
    pub notes: Vec<String>,
}

impl RoleRun {
    pub(crate) fn new(end: RunEnd) -> RoleRun {
        RoleRun {
            end,
            final_text: None,
            error: None,
            turns: 0,
            tool_calls: 0,
            tool_calls_failed: 0,
            usage: None,
            turn_budget_reached: false,
            run_id: None,
            model: None,
            duration: Duration::ZERO,
            notes: Vec::new(),
        }
    }
}

/// A live state change of one role, for the progress display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RoleState {
    Queued,
    Running,
    Done(Status),
}

/// One progress update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoleProgress {
    pub index: usize,
    pub role: LogicalRole,
    pub state: RoleState,
    pub turns: u32,
    pub tool_calls: u32,
}

/// Runs one job to its end. Implementations must be callable from several threads.
pub(crate) trait RoleExecutor: Sync {
    /// Run `job`; call `progress(turns, tool_calls)` whenever they change.
    fn execute(&self, job: &RoleJob, progress: &(dyn Fn(u32, u32) + Sync)) -> RoleRun;

    /// `Some(why)` once the whole run should stop (e.g. pwk received SIGINT): roles
    /// not started yet are then `skipped`, never silently dropped.
    fn interrupted(&self) -> Option<String> {
        None
    }
}

/// The default concurrency cap: `min(4, roles)`, at least 1.
pub(crate) fn default_cap(roles: usize) -> usize {
    roles.clamp(1, 4)
}

/// Run every job, at most `cap` at once, and return the outcomes in job order.
pub(crate) fn run_all(
    jobs: &[RoleJob],
    cap: usize,
    executor: &dyn RoleExecutor,
    progress: &(dyn Fn(RoleProgress) + Sync),
) -> Vec<DelegationResult> {
    let cap = cap.clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<DelegationResult>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    for job in jobs {
        progress(RoleProgress {
            index: job.index,
            role: job.role,
            state: RoleState::Queued,
            turns: 0,
            tool_calls: 0,
        });
    }
    std::thread::scope(|scope| {
        for _ in 0..cap {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    progress(RoleProgress {
                        index: job.index,
                        role: job.role,
                        state: RoleState::Running,
                        turns: 0,
                        tool_calls: 0,
                    });
                    let live = |turns: u32, tool_calls: u32| {
                        progress(RoleProgress {
                            index: job.index,
                            role: job.role,
                            state: RoleState::Running,
                            turns,
                            tool_calls,
                        })
                    };
                    let run = match executor.interrupted() {
                        Some(why) => RoleRun {
                            error: Some(format!("not started: {why}")),
                            ..RoleRun::new(RunEnd::Skipped)
                        },
                        None => executor.execute(job, &live),
                    };
                    let result = normalize(job, &run);
                    progress(RoleProgress {
                        index: job.index,
                        role: job.role,
                        state: RoleState::Done(result.status),
                        turns: run.turns,
                        tool_calls: run.tool_calls,
                    });
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                }
            });
        }
    });
    slots
        .into_iter()
        .zip(jobs)
        .map(|(slot, job)| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| {
                    // A worker thread panicked before storing its result: never drop the role.
                    let mut r = DelegationResult::new(job.role, Status::Failed);
                    r.error = Some(
                        "pwk lost this role's result (internal error); run it again or inline"
                            .into(),
                    );
                    r
                })
        })
        .collect()
}

/// The message of a capped role that ended without a report.
pub(crate) const BUDGET_WITHOUT_REPORT: &str = "turn budget reached before a report";

/// Turn a raw run into the seed-000 outcome (pure).
pub(crate) fn normalize(job: &RoleJob, run: &RoleRun) -> DelegationResult {
    let mut r = DelegationResult::new(job.role, Status::Failed);
    r.run_id = run.run_id.clone();
    r.model = run.model.clone();
    r.turns = Some(run.turns);
    r.tool_calls = Some(run.tool_calls);
    r.tool_calls_failed = Some(run.tool_calls_failed);
    r.usage = run.usage.clone();
    r.duration_ms = Some(u64::try_from(run.duration.as_millis()).unwrap_or(u64::MAX));
    r.notes = job.notes.clone();
    r.notes.extend(run.notes.iter().cloned());
    if run.turn_budget_reached {
        r.notes
            .push(format!("turn budget of {} reached", job.turn_budget));
    }
    let text = run.final_text.as_deref().unwrap_or("");
    match run.end {
        RunEnd::Skipped => {
            r.status = Status::Skipped;
            r.error = Some(run.error.clone().unwrap_or_else(|| "not started".into()));
        }
        RunEnd::TimedOut => {
            r.status = Status::TimedOut;
            r.error = Some(
                run.error
                    .clone()
                    .unwrap_or_else(|| format!("timed out after {} s", job.timeout.as_secs())),
            );
            if !text.trim().is_empty() {
                r.report = Some(text.to_string());
            }
        }
        RunEnd::Failed => {
            r.status = Status::Failed;
            r.error = Some(
                run.error
                    .clone()
                    .unwrap_or_else(|| "pi failed without saying why".into()),
            );
            if !text.trim().is_empty() {
                r.report = Some(text.to_string());
            }
        }
        RunEnd::Completed => match contract::check(job.contract, text) {
            Ok(()) => {
                r.status = Status::Completed;
                r.report = Some(text.to_string());
            }
            Err(ContractBreach::Empty) => {
                r.status = Status::Failed;
                r.error = Some(if run.turn_budget_reached {
                    BUDGET_WITHOUT_REPORT.to_string()
                } else {
                    "the role ended with an empty report".to_string()
                });
            }
            Err(breach) => {
                r.status = Status::Failed;
                r.report = Some(text.to_string());
                let mut e = breach.to_string();
                if run.turn_budget_reached {
                    e = format!("{BUDGET_WITHOUT_REPORT} ({e})");
                }
                r.error = Some(e);
            }
        },
    }
    if job.role == LogicalRole::ReconScout && r.status != Status::Completed {
        r.notes
            .push(format!("fallback: {}", contract::SCOUT_FALLBACK));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::contract::ReportContract;
    use std::sync::atomic::AtomicUsize;

    fn job(index: usize, role: LogicalRole) -> RoleJob {
        RoleJob {
            index,
            role,
            system_prompt: String::new(),
            prompt: "p".into(),
            cwd: "/".into(),
            tools: vec!["read".into()],
            model: None,
            thinking: None,
            turn_budget: 5,
            budget: crate::delegate::Budget::default(),
            timeout: Duration::from_secs(7),
            stall_timeout: None,
            contract: ReportContract::Role(role),
            notes: vec![],
            definition: crate::role::Role::default(),
        }
    }

    fn completed(text: &str) -> RoleRun {
        RoleRun {
            final_text: Some(text.into()),
            ..RoleRun::new(RunEnd::Completed)
        }
    }

    #[test]
    fn normalization_rules() {
        let j = job(0, LogicalRole::SmellReviewer);
        let ok = normalize(&j, &completed("src/a.rs:3 magic value"));
        assert_eq!(ok.status, Status::Completed);
        assert_eq!(ok.report.as_deref(), Some("src/a.rs:3 magic value"));
        assert_eq!(ok.provider, "pwk");

        let empty = normalize(&j, &completed("  "));
        assert_eq!(empty.status, Status::Failed);
        assert_eq!(
            empty.error.as_deref(),
            Some("the role ended with an empty report")
        );
        assert_eq!(empty.report, None);

        let capped = RoleRun {
            turn_budget_reached: true,
            ..completed("")
        };
        assert_eq!(
            normalize(&j, &capped).error.as_deref(),
            Some(BUDGET_WITHOUT_REPORT)
        );

        let capped_ok = RoleRun {
            turn_budget_reached: true,
            ..completed("No findings")
        };
        let r = normalize(&j, &capped_ok);
        assert_eq!(r.status, Status::Completed);
        assert!(r.notes.iter().any(|n| n == "turn budget of 5 reached"));

        let breach = normalize(&j, &completed("Looks fine."));
        assert_eq!(breach.status, Status::Failed);
        assert!(
            breach
                .error
                .unwrap()
                .contains("pwk-smell-reviewer contract")
        );

        let timed = normalize(&j, &RoleRun::new(RunEnd::TimedOut));
        assert_eq!(timed.status, Status::TimedOut);
        assert_eq!(timed.error.as_deref(), Some("timed out after 7 s"));

        let failed = RoleRun {
            error: Some("401 bad key".into()),
            ..RoleRun::new(RunEnd::Failed)
        };
        assert_eq!(normalize(&j, &failed).error.as_deref(), Some("401 bad key"));
    }

    #[test]
    fn a_scout_that_did_not_complete_carries_the_fallback_line() {
        let j = job(0, LogicalRole::ReconScout);
        let r = normalize(&j, &completed("Scout: unavailable — no repo"));
        assert_eq!(r.status, Status::Failed);
        assert!(
            r.notes
                .contains(&"fallback: Scout: unavailable — inline recon used.".to_string())
        );
    }

    /// An in-process fake executor: sleeps per role, records peak concurrency.
    struct FakeExecutor {
        running: AtomicUsize,
        peak: AtomicUsize,
        /// The cap under test: a job waits (at most 10 s) until that many run at once,
        /// so the peak does not depend on how fast a loaded machine starts threads.
        cap: usize,
    }

    impl RoleExecutor for FakeExecutor {
        fn execute(&self, job: &RoleJob, progress: &(dyn Fn(u32, u32) + Sync)) -> RoleRun {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(now, Ordering::SeqCst);
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while self.peak.load(Ordering::SeqCst) < self.cap
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            progress(1, 0);
            // Later jobs finish first, so ordering is really tested.
            std::thread::sleep(Duration::from_millis(60 - 10 * job.index as u64));
            self.running.fetch_sub(1, Ordering::SeqCst);
            match job.index {
                1 => RoleRun::new(RunEnd::TimedOut),
                _ => completed(&format!("No findings ({})", job.index)),
            }
        }
    }

    #[test]
    fn results_come_back_in_request_order_under_the_cap() {
        let roles = [
            LogicalRole::SmellReviewer,
            LogicalRole::HazardReviewer,
            LogicalRole::TracingReviewer,
            LogicalRole::SpecReviewer,
            LogicalRole::SmellReviewer,
        ];
        let jobs: Vec<RoleJob> = roles.iter().enumerate().map(|(i, r)| job(i, *r)).collect();
        for cap in [1, 2, 4] {
            let fake = FakeExecutor {
                running: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
                cap,
            };
            let events = Mutex::new(Vec::new());
            let out = run_all(&jobs, cap, &fake, &|p| events.lock().unwrap().push(p));
            assert_eq!(out.iter().map(|r| r.role).collect::<Vec<_>>(), roles);
            assert_eq!(out[1].status, Status::TimedOut);
            assert_eq!(out[4].report.as_deref(), Some("No findings (4)"));
            assert_eq!(fake.peak.load(Ordering::SeqCst), cap, "cap {cap}");
            let events = events.into_inner().unwrap();
            assert_eq!(
                events
                    .iter()
                    .filter(|e| matches!(e.state, RoleState::Done(_)))
                    .count(),
                5
            );
        }
    }

    /// Interrupted after the first role: the rest are skipped, in order.
    struct Interrupting(AtomicUsize);

    impl RoleExecutor for Interrupting {
        fn execute(&self, _job: &RoleJob, _p: &(dyn Fn(u32, u32) + Sync)) -> RoleRun {
            self.0.fetch_add(1, Ordering::SeqCst);
            completed("No findings")
        }
        fn interrupted(&self) -> Option<String> {
            (self.0.load(Ordering::SeqCst) > 0).then(|| "pwk received SIGINT".to_string())
        }
    }

    #[test]
    fn an_interrupted_run_skips_the_roles_it_did_not_start() {
        let roles = [
            LogicalRole::SmellReviewer,
            LogicalRole::TracingReviewer,
            LogicalRole::SpecReviewer,
            LogicalRole::HazardReviewer,
        ];
        let jobs: Vec<RoleJob> = roles.iter().enumerate().map(|(i, r)| job(i, *r)).collect();
        let out = run_all(&jobs, 1, &Interrupting(AtomicUsize::new(0)), &|_| {});
        let st: Vec<Status> = out.iter().map(|r| r.status).collect();
        assert_eq!(
            st,
            [
                Status::Completed,
                Status::Skipped,
                Status::Skipped,
                Status::Skipped
            ]
        );
        assert_eq!(
            out[3].error.as_deref(),
            Some("not started: pwk received SIGINT")
        );
        assert_eq!(out[3].role, LogicalRole::HazardReviewer);
    }

    #[test]
    fn default_cap_is_min_four_roles() {
        assert_eq!(default_cap(0), 1);
        assert_eq!(default_cap(2), 2);
        assert_eq!(default_cap(9), 4);
    }
}
