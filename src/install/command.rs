//! Command glue for `pwk setup`.

use crate::cli::SetupArgs;
use crate::{Context, ExitStatus};

pub fn run(_args: &SetupArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk setup` is not built yet")
}
