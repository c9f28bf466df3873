//! Command glue for `pwk list`.

use super::roles::*;
use crate::cli::{Format, ListArgs};
use crate::discover::render::{self};
use crate::display::write_stdout;
use crate::{Context, ExitStatus};

/// `pwk list`: exit 0, or 1 when a role file is broken (for any host listed).
#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &ListArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let (_, views) = super::discover(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            host: args.host.as_ref(),
            config: args.config.file.as_deref(),
        },
    )?;
    let rows = render::list_views(&views, args.all);
    match args.format {
        Format::Json => write_stdout(&json_line(&render::list_doc(&views, &rows))?)?,
        Format::Human => {
            let text = render::list_human(&views, &rows, args.all, style(ctx));
            write_stdout(tilde(&text, ctx).as_bytes())?;
        }
    }
    Ok(if views.iter().any(|d| d.has_broken()) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}
