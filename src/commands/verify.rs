//! Command glue for `pwk verify`.

use std::time::Duration;

use super::roles::{json_line, tilde};
use crate::cli::{Format, VerifyArgs};
use crate::display::write_stdout;
use crate::host::HostId;
use crate::verify::{self, VerifyOptions};
use crate::{Context, ExitStatus};

/// `pwk verify`: 0 when pwk and every host asked agree, 1 on a disagreement, 2 when
/// no host could be asked (none installed, none with role files, or each failed).
#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &VerifyArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            config: args.config.file.as_deref(),
            ..Default::default()
        },
    )?;
    let mut hosts = Vec::new();
    for name in &args.only {
        let known = verify::installed::verifiable_names();
        match HostId::from_name(name).filter(|h| verify::installed::verifiable(*h)) {
            Some(h) => hosts.push(h),
            None => anyhow::bail!(
                "--only `{name}` is not a host `pwk verify` can run; one of {}",
                known.join(", ")
            ),
        }
    }
    let opts = VerifyOptions {
        root: project.root.clone(),
        hosts,
        host_bins: args.host_bin.clone(),
        path: ctx.env.path.clone(),
        agent_dir: ctx.env.agent_dir(),
        node: args.node.clone(),
        limit: Duration::from_secs(args.timeout.max(1)),
        run_project_code: args.run_project_code,
    };
    let plan = verify::plan(&opts);
    if args.dry_run {
        match args.format {
            Format::Json => write_stdout(&json_line(&verify::render::doc(&plan, None))?)?,
            Format::Human => {
                write_stdout(tilde(&verify::render::dry_run_human(&plan), ctx).as_bytes())?
            }
        }
        return Ok(if plan.probes.is_empty() {
            ExitStatus::Error
        } else {
            ExitStatus::Success
        });
    }
    let reports = verify::run(&plan, &opts);
    match args.format {
        Format::Json => write_stdout(&json_line(&verify::render::doc(&plan, Some(&reports)))?)?,
        Format::Human => {
            write_stdout(tilde(&verify::render::human(&plan, &reports), ctx).as_bytes())?
        }
    }
    Ok(if reports.iter().any(|r| r.disagrees()) {
        ExitStatus::Failure
    } else if reports.iter().all(|r| r.error.is_some()) {
        // Nothing asked (no host, or every host failed): no verdict.
        ExitStatus::Error
    } else {
        ExitStatus::Success
    })
}
