//! Command glue for `pwk recon`.

use super::provider::*;
use crate::cli::ReconArgs;
use crate::provider::request::{DelegationRequest, LogicalRole, Operation};
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &ReconArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let settings = run_settings(&args.run)?;
    let cwd = repo_root(args.dir.as_deref(), ctx)?;
    for (flag, value) in [("--topic", &args.topic), ("--intent", &args.intent)] {
        if value.trim().is_empty() {
            anyhow::bail!("{flag} is empty; the scout needs a topic and a one-line intent");
        }
    }
    let mut settings = settings;
    settings.budget = default_budget(ctx, args.dir.as_deref(), args.run.config.file.as_deref())?;
    let roles = vec![LogicalRole::ReconScout];
    let (budget, role_budgets) = budget_flags(&args.run.budget, &roles)?;
    let req = DelegationRequest {
        operation: Operation::CodebaseRecon,
        roles,
        prompt: crate::provider::packet::recon_prompt(&args.topic, &args.intent, &cwd),
        cwd,
        parallel: false,
        budget,
        role_budgets,
    };
    let out = execute(&req, &settings, ctx);
    render(&out, args.run.format, ctx)?;
    Ok(exit_for(&out))
}
