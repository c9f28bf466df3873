//! Command glue for `pwk capabilities`.

use crate::cli::{CapabilitiesArgs, Format};
use crate::display::write_stdout;
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &CapabilitiesArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    let text = match args.format {
        Format::Json => crate::provider::capabilities::to_json(),
        Format::Human => crate::provider::capabilities::to_human(),
    };
    write_stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}
