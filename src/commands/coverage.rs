//! Command glue for `pwk coverage`.

use super::provider::*;
use crate::cli::{CoverageArgs, Format};
use crate::display::write_stdout;
use crate::text::escape_line;
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &CoverageArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    let parsed = read_stdin().and_then(|bytes| {
        crate::provider::coverage::parse_input(&bytes).map_err(|e| {
            let pos = match &e {
                crate::provider::coverage::CoverageInputError::NotJson(j) => Some(j.pos()),
                crate::provider::coverage::CoverageInputError::Shape(_) => None,
            };
            (pos, e.to_string())
        })
    });
    let (required, outcomes) = match parsed {
        Ok(x) => x,
        Err((pos, message)) => {
            let (mut doc, located) = invalid_input(pos, &message);
            doc.insert("version".into(), 1.into());
            doc.insert("complete".into(), false.into());
            doc.insert("missing".into(), serde_json::json!([]));
            doc.insert("retained".into(), serde_json::json!([]));
            if args.format == Format::Json {
                write_stdout(format!("{:#}\n", serde_json::Value::Object(doc)).as_bytes())?;
            }
            return Err(anyhow::anyhow!(located));
        }
    };
    let c = crate::provider::coverage::assess(&required, &outcomes);
    match args.format {
        Format::Json => {
            let mut doc = serde_json::to_value(&c)?;
            doc["version"] = 1.into();
            let mut s = crate::text::json_escape_controls(serde_json::to_string_pretty(&doc)?);
            s.push('\n');
            write_stdout(s.as_bytes())?;
        }
        Format::Human => write_stdout(coverage_human(&c).as_bytes())?,
    }
    Ok(if c.complete {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// The coverage verdict for people.
fn coverage_human(c: &crate::provider::coverage::Coverage) -> String {
    let mut out = if c.complete {
        "Coverage complete: every required role reported.\n".to_string()
    } else {
        format!(
            "Coverage incomplete: missing {}.\n",
            c.missing
                .iter()
                .map(|r| format!("`{}`", escape_line(r)))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    for r in &c.retained {
        out.push_str(&format!(
            "Retained report from `{}`.\n",
            escape_line(&r.role)
        ));
    }
    out
}
