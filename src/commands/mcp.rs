//! Command glue for `pwk mcp`: the server's directory, environment and cap, then
//! [`crate::mcp::serve`] until the client disconnects.

use crate::cli::McpArgs;
use crate::{Context, ExitStatus};

pub fn run(args: &McpArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    crate::mcp::serve(crate::mcp::Config {
        cwd: ctx.cwd.clone(),
        env: ctx.env.clone(),
        max_tasks: args.max_tasks as usize,
    })?;
    Ok(ExitStatus::Success)
}
