//! Command glue for `pwk delegate`: read the request, refuse what the contract
//! refuses, run the task ([`crate::delegate::task`]), and print exactly one JSON result.

use std::io::Read;
use std::path::Path;

use anyhow::Context as _;
use serde_json::Value;

use crate::cli::{DelegateArgs, Format};
use crate::delegate::request;
use crate::delegate::task::{DelegateResult, How, delegate_with};
use crate::delegate::types::{ErrorCode, Progress, RunError};
use crate::display::{eprintln_safe, write_stdout};
use crate::{Context, ExitStatus};

/// The largest request accepted.
const MAX_REQUEST: u64 = crate::fs::Kind::Request.cap();

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &DelegateArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let bytes = read_request(args.request.as_deref())?;
    let map = match request::parse(&bytes) {
        Ok(m) => m,
        Err(e) => {
            // Exactly one JSON result on stdout, the position said once.
            let src = args
                .request
                .as_ref()
                .map_or("stdin".to_string(), |p| ctx.display_path(p));
            let located = match e.pos() {
                Some(pos) => format!("{src}:{pos}: {e}"),
                None => format!("{src}: {e}"),
            };
            let mut result = DelegateResult::blank(None);
            result.status = "failed";
            let mut err = RunError::new(ErrorCode::InvalidRequest, located.clone());
            err.line = e.pos().map(|p| p.line);
            err.column = e.pos().map(|p| p.column);
            result.error = Some(err);
            if args.format == Format::Json {
                print_result(&result, args.format)?;
            }
            // The one fatal path says where, once.
            return Err(anyhow::anyhow!(located));
        }
    };
    let flags = super::ProjectFlags {
        config: args.config.file.as_deref(),
        ..Default::default()
    };
    let budget = super::open_project(ctx, flags)?
        .delegate_budget()
        .map_err(|e| super::config_error(ctx, e))?
        .map(|v| v.value)
        .unwrap_or_default();
    let result = delegate(&map, args.dry_run, budget, ctx);
    print_result(&result, args.format)?;
    Ok(
        if (args.dry_run && result.status == "planned") || result.completed() {
            ExitStatus::Success
        } else {
            ExitStatus::Failure
        },
    )
}

fn print_result(result: &DelegateResult, format: Format) -> anyhow::Result<()> {
    let out = match format {
        Format::Json => {
            let mut out = crate::text::json_escape_controls(
                serde_json::to_string_pretty(result).context("serialising the result")?,
            );
            out.push('\n');
            out
        }
        Format::Human => crate::delegate::task::human(result),
    };
    write_stdout(out.as_bytes()).context("writing the result to stdout")
}

fn read_request(path: Option<&Path>) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    match path {
        Some(p) => {
            bytes = match crate::fs::read::read(p, crate::fs::Kind::Request) {
                Ok(b) => b,
                Err(crate::fs::ReadError::TooLarge { .. }) => {
                    anyhow::bail!("the request is larger than {} MiB", MAX_REQUEST >> 20)
                }
                Err(e) => anyhow::bail!(
                    "cannot open the request file: {} {e}",
                    crate::text::escape_line(&p.display().to_string())
                ),
            };
        }
        None => {
            use std::io::IsTerminal;
            if std::io::stdin().is_terminal() {
                eprintln_safe(
                    "pwk delegate: reading the JSON request from stdin (end it with Ctrl-D), or pass --request FILE",
                );
            }
            std::io::stdin()
                .lock()
                .take(MAX_REQUEST + 1)
                .read_to_end(&mut bytes)
                .context("cannot read stdin")?;
        }
    }
    if bytes.len() as u64 > MAX_REQUEST {
        anyhow::bail!("the request is larger than {} MiB", MAX_REQUEST >> 20);
    }
    Ok(bytes)
}

/// Validate, plan and run one request; never fails: every outcome is a result.
pub fn delegate(
    map: &serde_json::Map<String, Value>,
    dry_run: bool,
    default_budget: crate::delegate::Budget,
    ctx: &Context,
) -> DelegateResult {
    let print = |p: &Progress, label: &str| eprintln_safe(&format!("{label} {p}"));
    let mut on_wait = |label: &str, p: &Path| {
        eprintln_safe(&format!(
            "{label} waiting for another write task in this cwd (lock {})",
            p.display()
        ))
    };
    let how = How {
        dry_run,
        check_only: false,
        rpc: false,
        remote: None,
        progress: &print,
        on_wait: &mut on_wait,
        default_budget,
    };
    delegate_with(map, how, &ctx.env)
}
