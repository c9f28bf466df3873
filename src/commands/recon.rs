//! Command glue for `pwk recon`.

use super::provider::*;
use crate::cli::ReconArgs;
use crate::provider::request::{DelegationRequest, LogicalRole, Operation};
use crate::{Context, ExitStatus};

pub fn run(args: &ReconArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let settings = run_settings(&args.run)?;
    let cwd = repo_root(args.dir.as_deref(), ctx)?;
    for (flag, value) in [("--topic", &args.topic), ("--intent", &args.intent)] {
        if value.trim().is_empty() {
            anyhow::bail!("{flag} is empty; the scout needs a topic and a one-line intent");
        }
    }
    let req = DelegationRequest {
        operation: Operation::CodebaseRecon,
        roles: vec![LogicalRole::ReconScout],
        prompt: crate::provider::packet::recon_prompt(&args.topic, &args.intent, &cwd),
        cwd,
        parallel: false,
    };
    let out = execute(&req, &settings, ctx);
    render(&out, args.run.format, ctx)?;
    Ok(exit_for(&out))
}
