//! Command glue for `pwk list`, `show`, `new` and `smoke`.

use crate::cli::{ListArgs, NewArgs, ShowArgs, SmokeArgs};
use crate::{Context, ExitStatus};

pub fn list(_args: &ListArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk list` is not built yet")
}

pub fn show(_args: &ShowArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk show` is not built yet")
}

pub fn new(_args: &NewArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk new` is not built yet")
}

pub fn smoke(_args: &SmokeArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk smoke` is not built yet")
}
