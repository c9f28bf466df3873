//! Command glue for `pwk rules` and `pwk explain`: every rule, or one explained
//! with examples.

use crate::cli::{ExplainArgs, Format, RulesArgs};
use crate::display::write_stdout;
use crate::host::{self};
use crate::lint::rules;
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &RulesArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    let Some(id) = &args.rule else {
        let text = match args.format {
            Format::Json => {
                let list: Vec<_> = rules::RULES.iter().map(|r| rules::rule_doc(r)).collect();
                let doc = serde_json::json!({"version": 1, "rules": list});
                format!("{}\n", serde_json::to_string_pretty(&doc)?)
            }
            Format::Human => {
                let width = rules::RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
                let sev = rules::RULES
                    .iter()
                    .map(|r| r.severities().len())
                    .max()
                    .unwrap_or(0);
                let mut out = String::new();
                for r in rules::RULES {
                    out.push_str(&format!(
                        "{:width$}  {:sev$}  {}\n",
                        r.id,
                        r.severities(),
                        r.summary
                    ));
                }
                out.push_str("\nRun `pwk rules <ID>` for an explanation with examples.\n");
                out
            }
        };
        write_stdout(text.as_bytes())?;
        return Ok(ExitStatus::Success);
    };
    explain_rule(id, args.format)
}

/// `pwk explain RULE`: `pwk rules RULE` under the name ruff users know.
#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn explain(args: &ExplainArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    explain_rule(&args.rule, args.format)
}

/// One rule explained; an unknown id is an error with suggest.rs's did-you-mean.
fn explain_rule(id: &str, format: Format) -> anyhow::Result<ExitStatus> {
    let rule = match rules::lookup(id) {
        Ok(rule) => rule,
        Err(e) => anyhow::bail!("no rule `{id}`; {}", e.help("`pwk rules` lists them")),
    };
    let text = match format {
        Format::Json => {
            let mut doc = rules::rule_doc(rule);
            doc["version"] = 1.into();
            format!("{}\n", serde_json::to_string_pretty(&doc)?)
        }
        Format::Human => {
            let per_host: Vec<String> = host::ALL
                .iter()
                .flat_map(|h| h.profiles())
                .filter_map(|p| {
                    rules::host_fact(rule.id, p).map(|f| {
                        crate::text::wrap_words(&format!("{}: {f}", p.label()), 84).join("\n      ")
                    })
                })
                .collect();
            // Both severities, when the rule raises two.
            let extra = match rule.also {
                None => String::new(),
                Some((other, when)) => format!(
                    "\n\n{}",
                    crate::text::wrap_words(
                        &format!("Severity: {} by default; {other} {when}.", rule.severity),
                        88
                    )
                    .join("\n")
                ),
            };
            let hosts = if per_host.is_empty() {
                String::new()
            } else {
                format!("\n\nPer host profile:\n  {}", per_host.join("\n  "))
            };
            format!(
                "{id} [{severity}]\n\n{summary}.{extra}\n\n{explanation}{hosts}\n\nBad:\n{bad}\n\nGood:\n{good}\n\nDocs: {url}\n",
                id = rule.id,
                severity = rule.severities(),
                summary = capitalize(rule.summary),
                explanation = crate::text::wrap_words(rule.explanation, 88).join("\n"),
                bad = indent(rule.bad),
                good = indent(rule.good),
                url = rule.url(),
            )
        }
    };
    write_stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn indent(s: &str) -> String {
    s.trim_end_matches('\n')
        .lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
