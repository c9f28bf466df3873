//! Command glue for `pwk lint`, `pwk schema` and `pwk rules`.

use crate::cli::{LintArgs, RulesArgs, SchemaArgs};
use crate::{Context, ExitStatus};

pub fn run(_args: &LintArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk lint` is not built yet")
}

pub fn schema(_args: &SchemaArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    crate::context::write_stdout(crate::role::schema::ROLE_SCHEMA.as_bytes())?;
    Ok(ExitStatus::Success)
}

pub fn rules(_args: &RulesArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk rules` is not built yet")
}
