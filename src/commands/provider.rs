//! What the provider commands (`recon`, `review`, `run-request`, `coverage`) share:
//! stdin, run settings, the live display, rendering.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::{Format, ProviderRunArgs, ResultSchema, RoleRunArgs, Transport};
use crate::display::write_stdout;
use crate::provider::contract::SCOUT_FALLBACK;
use crate::provider::mapping::DiscoverCatalog;
use crate::provider::pi::{LazyModels, PiExecutor};
use crate::provider::progress::ProgressDisplay;
use crate::provider::request::{DelegationRequest, Operation, Status};
use crate::provider::{RunOutput, RunSettings};
use crate::text::{escape_block, escape_line};
use crate::{Context, ExitStatus};

/// The most stdin pwk reads for a request or a coverage check.
pub(super) const MAX_STDIN_BYTES: u64 = 16 * 1024 * 1024;

/// Input that is not acceptable JSON: the located message once on stderr, and the
/// `error` object of the one JSON document on stdout (callers add the rest).
pub(super) fn invalid_input(
    pos: Option<crate::json::Pos>,
    message: &str,
) -> (serde_json::Map<String, serde_json::Value>, String) {
    let located = match pos {
        Some(p) => format!("stdin:{p}: {message}"),
        None => format!("stdin: {message}"),
    };
    let mut doc = serde_json::Map::new();
    doc.insert(
        "error".into(),
        serde_json::json!({
            "code": "INVALID_REQUEST",
            "message": located,
            "line": pos.map(|p| p.line),
            "column": pos.map(|p| p.column),
        }),
    );
    (doc, located)
}

pub(super) fn exit_for(out: &RunOutput) -> ExitStatus {
    if out.coverage.complete {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    }
}

/// Run a validated request on the real pi with the live display on stderr.
pub(super) fn execute(req: &DelegationRequest, settings: &RunSettings, ctx: &Context) -> RunOutput {
    let catalog = DiscoverCatalog::new(&req.cwd, &ctx.env);
    let models = LazyModels::new(&ctx.env, &req.cwd);
    let display = ProgressDisplay::new(
        &req.roles,
        std::io::stderr().is_terminal(),
        ctx.color_stderr,
    );
    let executor = PiExecutor {
        env: &ctx.env,
        rpc: settings.steer,
        remote: None,
    };
    // Install the signal flag now: an interrupted run still prints its results.
    let _ = crate::provider::pi::interruption();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        // Keep elapsed times moving on a terminal while roles are quiet.
        scope.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                display.tick();
            }
        });
        let out = crate::provider::run(req, settings, &catalog, &models, &executor, &|p| {
            display.update(&p)
        });
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        out
    })
}

pub(super) fn run_settings(a: &ProviderRunArgs) -> anyhow::Result<RunSettings> {
    settings(&a.roles)
}

pub(super) fn settings(a: &RoleRunArgs) -> anyhow::Result<RunSettings> {
    if a.timeout == 0 {
        anyhow::bail!("--timeout must be at least 1 second");
    }
    if a.max_parallel == Some(0) {
        anyhow::bail!("--max-parallel must be at least 1");
    }
    Ok(RunSettings {
        timeout: Duration::from_secs(a.timeout),
        stall_timeout: Some(Duration::from_secs(a.stall_timeout)).filter(|d| !d.is_zero()),
        max_parallel: a.max_parallel,
        six_field: a.result_schema == Some(ResultSchema::SixField),
        steer: a.transport == Transport::Rpc,
        budget: crate::delegate::Budget::default(),
    })
}

/// `[delegate] budget` of the project pwk runs in (`--dir`, else the current
/// directory): the default limits of each role's run.
pub(super) fn default_budget(
    ctx: &Context,
    dir: Option<&Path>,
    config: Option<&Path>,
) -> anyhow::Result<crate::delegate::Budget> {
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            dir,
            config,
            ..Default::default()
        },
    )?;
    let found = project
        .delegate_budget()
        .map_err(|e| super::config_error(ctx, e))?;
    Ok(found.map(|v| v.value).unwrap_or_default())
}

/// The `--budget [ROLE:]LIMIT=N,...` flags of `review` / `recon`: the limits of
/// every role, and each named role's own. A role not in `roles` is a usage error.
pub(super) fn budget_flags(
    flags: &[String],
    roles: &[crate::provider::LogicalRole],
) -> anyhow::Result<crate::provider::request::Budgets> {
    use crate::delegate::Budget;
    use crate::provider::LogicalRole;
    let mut all = Budget::default();
    let mut per_role: Vec<(LogicalRole, Budget)> = Vec::new();
    for flag in flags {
        let (role, limits) = match flag.split_once(':') {
            Some((r, rest)) if !r.contains('=') => {
                let Some(role) = LogicalRole::from_name_or_short(r) else {
                    anyhow::bail!(
                        "--budget {}: {:?} is not a role (use scout, spec, tracing, smell or hazard)",
                        escape_line(flag),
                        escape_line(r)
                    );
                };
                if !roles.contains(&role) {
                    anyhow::bail!(
                        "--budget {}: {} is not one of the roles this run starts",
                        escape_line(flag),
                        role.short()
                    );
                }
                (Some(role), rest)
            }
            _ => (None, flag.as_str()),
        };
        let mut obj = serde_json::Map::new();
        for part in limits.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((k, v)) = part.split_once('=') else {
                anyhow::bail!(
                    "--budget {}: `{}` is not LIMIT=N (max-tokens, max-cost-usd, max-wall-seconds, on-unknown-usage)",
                    escape_line(flag),
                    escape_line(part)
                );
            };
            let key = match k.trim() {
                "max-tokens" | "max_tokens" | "maxTokens" => "maxTokens",
                "max-cost-usd" | "max_cost_usd" | "maxCostUsd" => "maxCostUsd",
                "max-wall-seconds" | "max_wall_seconds" | "maxWallSeconds" => "maxWallSeconds",
                "on-unknown-usage" | "on_unknown_usage" | "onUnknownUsage" => "onUnknownUsage",
                other => {
                    let known = [
                        "max-tokens",
                        "max-cost-usd",
                        "max-wall-seconds",
                        "on-unknown-usage",
                    ];
                    let hint = crate::suggest::did_you_mean(other, known.iter().copied())
                        .map(|s| format!(" (did you mean `{s}`?)"))
                        .unwrap_or_default();
                    anyhow::bail!(
                        "--budget {}: unknown limit `{}`{hint}; the limits are {}",
                        escape_line(flag),
                        escape_line(other),
                        known.join(", ")
                    );
                }
            };
            let value = serde_json::from_str(v.trim())
                .unwrap_or_else(|_| serde_json::Value::String(v.trim().to_string()));
            if obj.insert(key.to_string(), value).is_some() {
                anyhow::bail!(
                    "--budget {}: `{}` is given twice; give each limit once",
                    escape_line(flag),
                    escape_line(k.trim())
                );
            }
        }
        if obj.is_empty() {
            anyhow::bail!(
                "--budget {}: no limit given (e.g. max-tokens=20000)",
                escape_line(flag)
            );
        }
        let b = Budget::parse(&serde_json::Value::Object(obj), "--budget").map_err(|p| {
            anyhow::anyhow!(
                "--budget {}: {}",
                escape_line(flag),
                p.into_iter().map(|(_, m)| m).collect::<Vec<_>>().join("; ")
            )
        })?;
        // A limit given twice for the same roles (in two flags) is an error: the
        // last one never wins silently.
        let (scope, old) = match role {
            None => ("every role".to_string(), &mut all),
            Some(r) => {
                if !per_role.iter().any(|(x, _)| *x == r) {
                    per_role.push((r, Budget::default()));
                }
                let slot = per_role.iter_mut().find(|(x, _)| *x == r).map(|(_, b)| b);
                (r.short().to_string(), slot.expect("just pushed"))
            }
        };
        let twice = old.overlap(&b);
        if !twice.is_empty() {
            anyhow::bail!(
                "--budget {}: {} for {scope} is already given by an earlier --budget; give each limit once",
                escape_line(flag),
                twice.join(", ")
            );
        }
        *old = b.or(*old);
    }
    Ok((all, per_role))
}

pub(super) fn repo_root(given: Option<&Path>, ctx: &Context) -> anyhow::Result<PathBuf> {
    // (Opened again by `default_budget`, which says what it does not use: not twice.)
    let flags = super::ProjectFlags {
        dir: given,
        ..Default::default()
    };
    let root = crate::project::Project::open(super::project_options(ctx, flags))
        .map_err(|e| anyhow::anyhow!(e.relative_to(&ctx.cwd)))?
        .root;
    Ok(std::fs::canonicalize(&root).unwrap_or(root))
}

/// Read all of stdin, at most [`MAX_STDIN_BYTES`]; the error is the message for the
/// result document (no position).
pub(super) fn read_stdin() -> Result<Vec<u8>, (Option<crate::json::Pos>, String)> {
    let mut buf = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| (None, format!("cannot read stdin: {e}")))?;
    if buf.len() as u64 > MAX_STDIN_BYTES {
        return Err((
            None,
            format!("stdin is larger than {MAX_STDIN_BYTES} bytes"),
        ));
    }
    Ok(buf)
}

/// `--format json`: the run-request document; human: the reports, then a summary.
pub(super) fn render(out: &RunOutput, format: Format, ctx: &Context) -> anyhow::Result<()> {
    match format {
        Format::Json => write_stdout(out.to_json().as_bytes())?,
        Format::Human => write_stdout(human(out, ctx.color_stdout).as_bytes())?,
    }
    Ok(())
}

pub(super) fn plural(n: u32, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The human rendering: each role's report (or why there is none), then coverage.
/// `1234 tokens, $0.0123`.
fn usage_text(u: &crate::delegate::Usage) -> String {
    format!(
        "{} tokens, ${:.4}",
        crate::delegate::budget::tokens(u),
        u.cost
    )
}

pub fn human(out: &RunOutput, color: bool) -> String {
    let paint = |code: &str, s: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    let mut s = String::new();
    // One error shared by every role (pi missing, say) is said once, not per role.
    let shared_error = match out.results.as_slice() {
        [first, rest @ ..] if !rest.is_empty() && first.error.is_some() => rest
            .iter()
            .all(|r| r.error == first.error && r.status == first.status)
            .then(|| first.error.clone())
            .flatten(),
        _ => None,
    };
    if let Some(e) = &shared_error {
        s.push_str(&format!("error (all {} roles): {e}\n\n", out.results.len()));
    }
    for r in &out.results {
        let status = match r.status {
            Status::Completed => paint("32", r.status.name()),
            Status::Skipped => paint("33", r.status.name()),
            _ => paint("31", r.status.name()),
        };
        let mut facts = Vec::new();
        if let Some(t) = r.turns {
            facts.push(plural(t, "turn"));
        }
        if let Some(t) = r.tool_calls {
            facts.push(plural(t, "tool call"));
        }
        if let Some(f) = r.tool_calls_failed.filter(|f| *f > 0) {
            facts.push(format!("{f} failed"));
        }
        if let Some(u) = &r.usage {
            facts.push(usage_text(u));
        }
        if let Some(ms) = r.duration_ms {
            facts.push(format!("{:.1} s", ms as f64 / 1000.0));
        }
        // The model, errors, notes and reports come from pi: escaped.
        if let Some(m) = &r.model {
            facts.push(escape_line(m).into_owned());
        }
        s.push_str(&format!(
            "== {}: {status} ({}) ==\n",
            r.role,
            facts.join(", ")
        ));
        if let Some(e) = r.error.as_ref().filter(|_| shared_error.is_none()) {
            s.push_str(&format!("error: {}\n", escape_block(e)));
        }
        for n in &r.notes {
            s.push_str(&format!("note: {}\n", escape_block(n)));
        }
        if let Some(rep) = &r.report {
            s.push('\n');
            s.push_str(&escape_block(rep.trim_end()));
            s.push('\n');
        }
        s.push('\n');
    }
    let total = out.results.len();
    let done = out
        .results
        .iter()
        .filter(|r| r.status == Status::Completed)
        .count();
    if out.coverage.complete {
        s.push_str(&format!(
            "Coverage: complete ({done}/{total} roles reported).\n"
        ));
    } else {
        s.push_str(&format!(
            "Coverage: incomplete ({done}/{total} roles reported); missing: {}. Retry those roles or do them inline{}.\n",
            out.coverage.missing.join(", "),
            if done > 0 {
                "; the completed reports above remain usable"
            } else {
                ""
            }
        ));
    }
    if out.results.iter().any(|r| r.usage.is_some()) {
        s.push_str(&format!("Usage in total: {}.\n", usage_text(&out.usage)));
    }
    if out.operation == Some(Operation::CodebaseRecon) && !out.coverage.complete {
        s.push_str(SCOUT_FALLBACK);
        s.push('\n');
    }
    s
}
