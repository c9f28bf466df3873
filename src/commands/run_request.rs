//! Command glue for `pwk run-request`.

use super::provider::*;
use crate::cli::{Format, RunRequestArgs};
use crate::display::{eprintln_safe, write_stdout};
use crate::provider::RunOutput;
use crate::provider::request::{self};
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &RunRequestArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let mut settings = settings(&args.roles)?;
    settings.budget = default_budget(ctx, None, args.config.file.as_deref())?;
    let parsed = read_stdin()
        .and_then(|bytes| request::parse_json_object(&bytes).map_err(|e| (e.pos(), e.to_string())));
    let map = match parsed {
        Ok(m) => m,
        Err((pos, message)) => {
            let (mut doc, located) = invalid_input(pos, &message);
            doc.insert("version".into(), 1.into());
            doc.insert("results".into(), serde_json::json!([]));
            doc.insert(
                "coverage".into(),
                serde_json::json!({"complete": false, "missing": [], "retained": []}),
            );
            if args.format == Format::Json {
                write_stdout(format!("{:#}\n", serde_json::Value::Object(doc)).as_bytes())?;
            }
            return Err(anyhow::anyhow!(located));
        }
    };
    let req = match request::validate(&map) {
        Ok(r) => r,
        Err(refusal) => {
            eprintln_safe(&format!("pwk: request refused: {}", refusal.reason));
            eprintln_safe("pwk: nothing was run; the host should fall back inline.");
            render(&RunOutput::refused(&refusal), args.format, ctx)?;
            return Ok(ExitStatus::Failure);
        }
    };
    let out = execute(&req, &settings, ctx);
    render(&out, args.format, ctx)?;
    Ok(exit_for(&out))
}
