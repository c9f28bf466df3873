//! Command glue for `pwk review`.

use super::provider::*;
use crate::cli::ReviewArgs;
use crate::provider::request::{DelegationRequest, LogicalRole, Operation};
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &ReviewArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let settings = run_settings(&args.run)?;
    let cwd = repo_root(args.dir.as_deref(), ctx)?;
    let mut roles = Vec::new();
    for name in &args.roles {
        match LogicalRole::from_name_or_short(name) {
            Some(r) if r.is_reviewer() && !roles.contains(&r) => roles.push(r),
            Some(r) if r.is_reviewer() => anyhow::bail!("--roles lists {} twice", r.short()),
            _ => anyhow::bail!(
                "--roles: {name:?} is not a reviewer role (use spec, tracing, smell, hazard or their \
full pwk-…-reviewer names; the scout runs with `pwk recon`)"
            ),
        }
    }
    if roles.is_empty() {
        anyhow::bail!("--roles is empty; name at least one reviewer");
    }
    let packet = match crate::provider::packet::read_packet(&args.packet) {
        Ok(p) => p,
        Err(e) => anyhow::bail!("the review packet {} {e}", ctx.display_path(&args.packet)),
    };
    let mut settings = settings;
    settings.budget = default_budget(ctx, args.dir.as_deref(), args.run.config.file.as_deref())?;
    let (budget, role_budgets) = budget_flags(&args.run.budget, &roles)?;
    let req = DelegationRequest {
        operation: Operation::FeatureReview,
        roles,
        prompt: crate::provider::packet::review_prompt(&packet, &cwd),
        cwd,
        parallel: true,
        budget,
        role_budgets,
    };
    let out = execute(&req, &settings, ctx);
    render(&out, args.run.format, ctx)?;
    Ok(exit_for(&out))
}
