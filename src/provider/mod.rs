//! Provider operations (seed 000): `codebase-recon` and `feature-review`.
//!
//! Data flow: a [`DelegationRequest`] (validated in [`request`]) → each logical role's
//! effective definition ([`mapping::RoleCatalog`]) → a [`mapping::RoleJob`] (tools cut
//! to read-only, model hint resolved or noted, turn budget) → [`execute::run_all`]
//! (scoped threads, bounded concurrency, one fresh pi session per role through a
//! [`execute::RoleExecutor`]) → one [`DelegationResult`] per role in request order
//! ([`execute::normalize`] + the role-contract checks of [`contract`]) →
//! [`coverage::assess`].
//!
//! The executor is a seam: [`pi::PiExecutor`] runs the real pi; unit tests use an
//! in-process fake.

pub(crate) mod capabilities;
pub(crate) mod contract;
pub(crate) mod coverage;
pub(crate) mod execute;
pub(crate) mod mapping;
pub(crate) mod packet;
pub(crate) mod pi;
pub(crate) mod progress;
pub(crate) mod request;

use std::time::Duration;

use serde::Serialize;

pub(crate) use coverage::Coverage;
pub(crate) use execute::{RoleExecutor, RoleProgress};
pub(crate) use mapping::{ModelCatalog, RoleCatalog, RoleJob};
pub(crate) use request::{
    DelegationRequest, DelegationResult, LogicalRole, Operation, Refusal, Status,
};

/// Settings of one provider run.
#[derive(Debug, Clone)]
pub(crate) struct RunSettings {
    /// Per-role wall-clock timeout.
    pub timeout: Duration,
    /// Per-role stall watchdog (`--stall-timeout`; `None` = off).
    pub stall_timeout: Option<Duration>,
    /// `--max-parallel`; `None` = `min(4, roles)`.
    pub max_parallel: Option<usize>,
    /// `--result-schema six-field`.
    pub six_field: bool,
    /// `--transport rpc` (steer at the turn budget) rather than `json` (stop there).
    pub steer: bool,
    /// The default spend limits of each role's run (`[delegate] budget` in
    /// pwk.toml); the request's own limits beat each one.
    pub budget: crate::delegate::Budget,
}

/// The `run-request` document.
#[derive(Debug, Clone, Serialize)]
pub struct RunOutput {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<Operation>,
    pub results: Vec<DelegationResult>,
    pub coverage: Coverage,
    /// The usage of every role's run, summed.
    pub usage: crate::delegate::Usage,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<RefusedJson>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RefusedJson {
    pub reason: String,
}

impl RunOutput {
    /// The document for a refused request: no results, nothing covered.
    pub fn refused(refusal: &Refusal) -> RunOutput {
        RunOutput {
            version: 1,
            operation: None,
            results: Vec::new(),
            usage: crate::delegate::Usage::default(),
            coverage: Coverage {
                complete: false,
                missing: refusal.requested.clone(),
                retained: Vec::new(),
            },
            refused: Some(RefusedJson {
                reason: refusal.reason.clone(),
            }),
        }
    }

    pub fn to_json(&self) -> String {
        // pi's output is untrusted text: no raw control, bidi or invisible character.
        let mut s = crate::text::json_escape_controls(
            serde_json::to_string_pretty(self).unwrap_or_default(),
        );
        s.push('\n');
        s
    }
}

/// Map every role of `req` to its job. A role whose definition cannot be used is
/// returned as a ready-made `failed` result instead.
pub(crate) fn plan_jobs(
    req: &DelegationRequest,
    settings: &RunSettings,
    catalog: &dyn RoleCatalog,
    models: &dyn ModelCatalog,
) -> Vec<Result<RoleJob, Box<DelegationResult>>> {
    let job_settings = mapping::JobSettings {
        timeout: settings.timeout,
        stall_timeout: settings.stall_timeout,
        six_field: settings.six_field,
    };
    req.roles
        .iter()
        .enumerate()
        .map(|(i, &role)| match catalog.effective(role) {
            Ok(def) => {
                let mut job =
                    mapping::build_job(i, role, &def, &req.prompt, &req.cwd, &job_settings, models);
                job.budget = req.budget_of(role).or(settings.budget);
                if !job.budget.is_empty() {
                    job.notes
                        .push(format!("spend budget of the run: {}", job.budget));
                }
                Ok(job)
            }
            Err(why) => {
                let mut r = DelegationResult::new(role, Status::Failed);
                r.error = Some(format!("the {role} definition cannot be used: {why}"));
                if role == LogicalRole::ReconScout {
                    r.notes
                        .push(format!("fallback: {}", contract::SCOUT_FALLBACK));
                }
                Err(Box::new(r))
            }
        })
        .collect()
}

/// Run a validated request end to end.
pub(crate) fn run(
    req: &DelegationRequest,
    settings: &RunSettings,
    catalog: &dyn RoleCatalog,
    models: &dyn ModelCatalog,
    executor: &dyn RoleExecutor,
    progress: &(dyn Fn(RoleProgress) + Sync),
) -> RunOutput {
    let planned = plan_jobs(req, settings, catalog, models);
    let jobs: Vec<RoleJob> = planned
        .iter()
        .filter_map(|p| p.as_ref().ok().cloned())
        .collect();
    let cap = if req.parallel {
        settings
            .max_parallel
            .unwrap_or_else(|| execute::default_cap(jobs.len()))
    } else {
        1
    };
    // run_all indexes its slots by position in `jobs`; keep the request index in the job.
    let mut ran = execute::run_all(&jobs, cap, executor, progress).into_iter();
    let results: Vec<DelegationResult> = planned
        .into_iter()
        .map(|p| match p {
            Ok(_) => ran.next().expect("one result per job"),
            Err(failed) => *failed,
        })
        .collect();
    let coverage = coverage_of(req, &results);
    let mut usage = crate::delegate::Usage::default();
    for u in results.iter().filter_map(|r| r.usage.as_ref()) {
        usage.add(u);
    }
    RunOutput {
        version: 1,
        operation: Some(req.operation),
        usage,
        results,
        coverage,
        refused: None,
    }
}

/// Coverage of a request by its results.
pub(crate) fn coverage_of(req: &DelegationRequest, results: &[DelegationResult]) -> Coverage {
    let required: Vec<String> = req.roles.iter().map(|r| r.name().to_string()).collect();
    let outcomes: Vec<coverage::Outcome> = results
        .iter()
        .map(|r| coverage::Outcome {
            role: r.role.name().to_string(),
            status: r.status.name().to_string(),
            report: r.report.clone(),
        })
        .collect();
    coverage::assess(&required, &outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::execute::{RoleRun, RunEnd};
    use crate::provider::mapping::{BundledCatalog, EffectiveRole, ModelList};

    struct Echo;
    impl RoleExecutor for Echo {
        fn execute(&self, job: &RoleJob, _p: &(dyn Fn(u32, u32) + Sync)) -> RoleRun {
            let text = match job.role {
                LogicalRole::SmellReviewer => "No findings".to_string(),
                _ => String::new(),
            };
            RoleRun {
                final_text: Some(text),
                ..RoleRun::new(RunEnd::Completed)
            }
        }
    }

    struct BrokenSpec;
    impl RoleCatalog for BrokenSpec {
        fn effective(&self, role: LogicalRole) -> Result<EffectiveRole, String> {
            if role == LogicalRole::SpecReviewer {
                Err("frontmatter does not parse".into())
            } else {
                BundledCatalog.effective(role)
            }
        }
    }

    #[test]
    fn run_keeps_request_order_including_roles_that_never_ran() {
        let req = DelegationRequest {
            operation: Operation::FeatureReview,
            roles: vec![
                LogicalRole::HazardReviewer,
                LogicalRole::SpecReviewer,
                LogicalRole::SmellReviewer,
            ],
            prompt: "p".into(),
            cwd: "/".into(),
            parallel: true,
            budget: crate::delegate::Budget::default(),
            role_budgets: Vec::new(),
        };
        let settings = RunSettings {
            timeout: Duration::from_secs(5),
            stall_timeout: None,
            max_parallel: None,
            six_field: false,
            steer: false,
            budget: crate::delegate::Budget::default(),
        };
        let out = run(
            &req,
            &settings,
            &BrokenSpec,
            &ModelList::default(),
            &Echo,
            &|_| {},
        );
        let roles: Vec<_> = out.results.iter().map(|r| r.role).collect();
        assert_eq!(roles, req.roles);
        assert_eq!(out.results[0].status, Status::Failed);
        assert!(
            out.results[1]
                .error
                .as_deref()
                .unwrap()
                .contains("frontmatter does not parse")
        );
        assert_eq!(out.results[2].status, Status::Completed);
        assert_eq!(
            out.coverage.missing,
            ["pwk-hazard-reviewer", "pwk-spec-reviewer"]
        );
        assert_eq!(out.coverage.retained.len(), 1);
    }
}
