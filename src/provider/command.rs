//! Command glue for `pwk recon`, `review`, `run-request`, `capabilities`, `coverage`.

use crate::cli::{CapabilitiesArgs, ReconArgs, ReviewArgs, RunRequestArgs};
use crate::{Context, ExitStatus};

pub fn recon(_args: &ReconArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk recon` is not built yet")
}

pub fn review(_args: &ReviewArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk review` is not built yet")
}

pub fn run_request(_args: &RunRequestArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk run-request` is not built yet")
}

pub fn capabilities(_args: &CapabilitiesArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk capabilities` is not built yet")
}

pub fn coverage(_ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk coverage` is not built yet")
}
