//! Command glue for `pwk mcp`: the server's directory, environment and cap, then
//! [`crate::mcp::serve`] until the client disconnects.

use crate::cli::McpArgs;
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &McpArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    // The one project-root rule; without --dir the server keeps the directory it
    // was started in (a host starts it in the project) as the base of relative paths.
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            config: args.config.file.as_deref(),
            ..Default::default()
        },
    )?;
    let default_budget = project
        .delegate_budget()
        .map_err(|e| super::config_error(ctx, e))?
        .map(|v| v.value)
        .unwrap_or_default();
    let cwd = match &args.dir {
        Some(_) => project.root,
        None => ctx.cwd.clone(),
    };
    crate::mcp::serve(crate::mcp::Config {
        cwd,
        config: project.config_file,
        env: ctx.env.clone(),
        max_tasks: args.max_tasks as usize,
        default_budget,
    })?;
    Ok(ExitStatus::Success)
}
