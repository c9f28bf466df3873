//! Command glue for `pwk delegate`.

use crate::cli::DelegateArgs;
use crate::{Context, ExitStatus};

pub fn run(_args: &DelegateArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk delegate` is not built yet")
}
