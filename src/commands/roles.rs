//! Command glue for `pwk list`, `show`, `new` and `smoke`.

use std::path::PathBuf;

use anyhow::Context as _;

use crate::cli::{Format, ListArgs, NewArgs, ShowArgs, SmokeArgs};
use crate::context::write_stdout;
use crate::discover::render::{self, Style};
use crate::discover::template::{self, Kind};
use crate::discover::{Discovery, HostId};
use crate::{Context, ExitStatus};

fn json_line(value: &impl serde::Serialize) -> anyhow::Result<Vec<u8>> {
    let text = serde_json::to_string_pretty(value).context("cannot encode the JSON output")?;
    let mut out = crate::text::json_escape_controls(text).into_bytes();
    out.push(b'\n');
    Ok(out)
}

/// Colour and width for human output on stdout: the terminal's width clamped to
/// 80..=100 columns, or 100 when stdout is not a terminal.
fn style(ctx: &Context) -> Style {
    use std::io::IsTerminal;
    let stdout = std::io::stdout();
    let width = if stdout.is_terminal() {
        rustix::termios::tcgetwinsize(&stdout)
            .map(|w| usize::from(w.ws_col).clamp(80, render::WIDTH))
            .unwrap_or(render::WIDTH)
    } else {
        render::WIDTH
    };
    Style {
        color: ctx.color_stdout,
        width,
    }
}

/// Human output: absolute paths under `$HOME` as `~/…` (paths under the current
/// directory are already relative).
fn tilde(text: &str, ctx: &Context) -> String {
    match &ctx.env.home {
        Some(home) if home.parent().is_some() => {
            text.replace(&format!("{}/", home.display()), "~/")
        }
        _ => text.to_string(),
    }
}

/// `pwk list`: exit 0, or 1 when a role file is broken.
pub fn list(args: &ListArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let d = super::project(ctx, args.dir.as_deref())?.discover(ctx, &args.host);
    let rows = render::list_rows(&d, args.all);
    match args.format {
        Format::Json => write_stdout(&json_line(&render::list_doc(&d, &rows))?)?,
        Format::Human => {
            let text = render::list_human(&d, &rows, args.all, style(ctx));
            write_stdout(tilde(&text, ctx).as_bytes())?;
        }
    }
    Ok(if d.has_broken() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// `pwk show NAME`: exit 0; 1 when the name exists but the host cannot load it;
/// 2 when nothing answers to the name.
pub fn show(args: &ShowArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let project = super::project(ctx, args.dir.as_deref())?;
    let d = project.discover(ctx, &args.host);
    let Some(role) = d.find(&args.name) else {
        return show_unavailable(&d, &args.name, args.format, ctx);
    };
    let rt = render::runtime_of(&d, role, args.model.as_deref(), &ctx.env, &project.cwd);
    let provider_run = crate::provider::mapping::provider_run(&role.name, role.role.max_turns);
    match args.format {
        Format::Json => {
            let run = provider_run
                .as_ref()
                .map(|r| serde_json::to_value(r).expect("plain data serializes"));
            write_stdout(&json_line(&render::show_doc(&d, role, &rt, &ctx.cwd, run))?)?
        }
        Format::Human => {
            let mut text = render::show_human(&d, role, &rt, style(ctx));
            if let Some(run) = &provider_run {
                text.push_str(&provider_run_human(run));
            }
            write_stdout(tilde(&text, ctx).as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}

/// How `pwk review` / `pwk recon` run a contract role, for people.
fn provider_run_human(run: &crate::provider::mapping::ProviderRun) -> String {
    format!(
        "\nAs `{}` runs it:\n  transport   {}\n  budget      {} turns (from {}); at the budget: {}\n",
        run.command, run.transport, run.turn_budget, run.budget_from, run.at_budget
    )
}

/// No effective definition answers to `name`: explain why, or suggest names.
fn show_unavailable(
    d: &Discovery,
    name: &str,
    format: Format,
    ctx: &Context,
) -> anyhow::Result<ExitStatus> {
    let host = d.host.as_str();
    let files = d.unloaded(name);
    if !files.is_empty() {
        let reasons: Vec<(String, &crate::discover::RoleFile)> = files
            .iter()
            .map(|f| {
                let source = d.source(f.source);
                let why = if !f.loadable {
                    format!(
                        "broken: {}",
                        f.problem.as_deref().unwrap_or("cannot be loaded")
                    )
                } else {
                    format!(
                        "not read by {host}: {}",
                        source.unread_reason.as_deref().unwrap_or_default()
                    )
                };
                (why, *f)
            })
            .collect();
        match format {
            Format::Json => {
                let files: Vec<serde_json::Value> = reasons
                    .iter()
                    .map(|(why, f)| {
                        serde_json::json!({
                            "path": f.path.display(&d.cwd),
                            "source": f.layer,
                            "broken": !f.loadable,
                            "error": f.problem,
                            "reason": why,
                        })
                    })
                    .collect();
                let doc = serde_json::json!({
                    "version": 1, "host": d.host, "name": name, "available": false, "files": files,
                });
                write_stdout(&json_line(&doc)?)?;
            }
            Format::Human => {
                let mut text = format!("`{name}` is not available to {host}:\n");
                for (why, f) in &reasons {
                    text.push_str(&format!(
                        "  {} ({})\n    {why}\n",
                        f.path.display(&d.cwd),
                        f.layer.as_str()
                    ));
                }
                write_stdout(tilde(&text, ctx).as_bytes())?;
            }
        }
        return Ok(ExitStatus::Failure);
    }

    let mut msg = format!("no role named `{name}`");
    if d.host.host != HostId::Pwk {
        msg.push_str(&format!(" (as {host} sees roles)"));
    }
    let mut hints: Vec<String> = Vec::new();
    for f in &d.files {
        let declared = f.role.as_ref().and_then(|r| r.name.as_deref());
        if declared == Some(name) && f.identity != name {
            hints.push(format!(
                "{} declares `name: {name}`, but {host} knows it by its file stem `{}`",
                f.path.display(&d.cwd),
                f.identity
            ));
        } else if f.stem == name && f.identity != name {
            hints.push(format!(
                "{} is named `{}` by its `name`, not after its file",
                f.path.display(&d.cwd),
                f.identity
            ));
        }
    }
    let suggestions = crate::suggest::close_matches(name, d.roles.iter().map(|r| r.name.as_str()));
    for h in hints {
        msg.push_str(&format!("\n  hint: {h}"));
    }
    match suggestions.as_slice() {
        [] => msg.push_str("\n  `pwk list --all` shows every role"),
        [one] => msg.push_str(&format!("\n  did you mean `{one}`?")),
        many => {
            let list: Vec<String> = many.iter().map(|s| format!("`{s}`")).collect();
            msg.push_str(&format!("\n  did you mean one of {}?", list.join(", ")));
        }
    }
    anyhow::bail!("{}", tilde(&msg, ctx))
}

/// `pwk new NAME`: exit 0 when written; 2 for a bad name, an existing file or an I/O error.
pub fn new(args: &NewArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    template::validate_name(&args.name)?;
    let kind = match args.kind {
        crate::cli::RoleKind::Leaf => Kind::Leaf,
        crate::cli::RoleKind::Coordinator => Kind::Coordinator,
        crate::cli::RoleKind::Adapter => Kind::Adapter,
    };
    let project = super::project(ctx, args.dir.as_deref())?;
    let dir = match &args.agents_dir {
        Some(d) => ctx.cwd.join(d),
        None => project.root.join(".agents").join("agents"),
    };
    let file_name = format!("{}.md", args.name);
    let target: PathBuf = dir.join(&file_name);
    if std::fs::symlink_metadata(&target).is_ok() {
        anyhow::bail!(
            "{} already exists; `pwk new` never overwrites a file (edit it, remove it, or choose another name)",
            ctx.display_path(&target)
        );
    }
    let content = template::render(&args.name, kind);
    let path = crate::install::safe::create_file_exclusive(&dir, &file_name, content.as_bytes())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let shown = ctx.display_path(&path);

    // Where the new file stands among the layers pwk reads.
    let d = project.discover(
        ctx,
        &crate::host::HostChoice::Spec(crate::host::HostSpec::newest(HostId::Pwk)),
    );
    let read_here = d
        .sources
        .iter()
        .any(|s| s.path.as_deref().is_some_and(|p| same_path(p, &dir)));
    let mut shadows = Vec::new();
    let mut notes = Vec::new();
    match d.find(&args.name) {
        Some(r) if r.path.as_file().is_some_and(|p| same_path(p, &path)) => {
            shadows.extend(r.shadows.iter().map(|s| (s.path.clone(), s.source)));
        }
        Some(r) if read_here => notes.push(format!(
            "{} ({}) wins over it: a higher-priority definition of `{}` exists.",
            r.path.display(&ctx.cwd),
            r.layer.as_str(),
            args.name
        )),
        _ => {}
    }
    if !read_here {
        notes.push(format!(
            "roles are discovered in .agents/agents/ and .pi/agents/ of the project, and in the global agents directory; {} is none of them.",
            ctx.display_path(&dir)
        ));
    }
    let next = format!(
        "replace the description and the body, then run `pwk lint {shown}` and `pwk show {}`",
        args.name
    );
    match args.format {
        Format::Json => {
            let doc = serde_json::json!({
                "version": 1,
                "created": shown,
                "name": args.name,
                "kind": kind.as_str(),
                "shadows": shadows
                    .iter()
                    .map(|(p, layer)| serde_json::json!({"path": p, "source": layer}))
                    .collect::<Vec<_>>(),
                "notes": notes,
                "next": next,
            });
            write_stdout(&json_line(&doc)?)?;
        }
        Format::Human => {
            let mut text = format!("Created {shown} ({} role).\n", kind.as_str());
            for (p, layer) in &shadows {
                text.push_str(&format!("It shadows {p} ({}).\n", layer.as_str()));
            }
            for n in &notes {
                text.push_str(&format!("note: {n}\n"));
            }
            let mut c = next.chars();
            let next: String = c
                .next()
                .map(|f| f.to_ascii_uppercase())
                .into_iter()
                .chain(c)
                .collect();
            text.push_str(&format!("Next: {next}.\n"));
            write_stdout(tilde(&crate::text::escape_block(&text), ctx).as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}

/// Whether two paths name the same file or directory (`..` and symlinked parents
/// resolved when both exist).
fn same_path(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The prompt `pwk smoke --run` sends: asks for nothing but a one-line answer.
pub const SMOKE_PROMPT: &str = "This is a smoke test of your role definition, started by `pwk smoke`. \
Do not read, search, change or run anything, and call no tools. Reply with one short line: \
your role's name and the tools you were given.";

/// How long `pwk smoke --run` lets the role run.
const SMOKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(180);

/// `pwk smoke NAME [--run]`: lint the winning definition, show how it was resolved and
/// the exact launch the runner uses for it; with `--run`, launch it once.
///
/// Exit 0 when the role lints without errors (and, with `--run`, completed); 1 when it
/// has lint errors or the run did not complete; 2 when no role answers to the name.
pub fn smoke(args: &SmokeArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    use crate::delegate::{PiRunSpec, plan_launch, run_pi};

    let project = super::project(ctx, args.dir.as_deref())?;
    let d = project.discover(ctx, &args.host);
    let Some(role) = d.find(&args.name) else {
        return show_unavailable(&d, &args.name, args.format, ctx);
    };
    let diagnostics = crate::lint::check_doc(&role.doc, d.host);
    let errors = diagnostics
        .iter()
        .filter(|x| x.severity == crate::lint::Severity::Error)
        .count();
    let warnings = diagnostics.len() - errors;

    let provider_run = crate::provider::mapping::provider_run(&role.name, role.role.max_turns);
    let mut spec = PiRunSpec::for_role(&role.role, &project.cwd, SMOKE_PROMPT.to_string());
    spec.timeout = Some(SMOKE_TIMEOUT);
    let plan = plan_launch(&spec, &ctx.env);

    let outcome = if args.run {
        let progress = |p: &crate::delegate::Progress| {
            crate::context::eprintln_safe(&format!("{} {p}", spec.label));
        };
        Some(run_pi(&spec, &ctx.env, &progress))
    } else {
        None
    };

    let path = role.path.display(&ctx.cwd);
    match args.format {
        Format::Json => {
            let diags: Vec<serde_json::Value> = diagnostics
                .iter()
                .map(|x| {
                    serde_json::json!({
                        "rule": x.rule, "severity": x.severity.as_str(), "message": x.message,
                        "help": x.help, "line": x.start.line, "column": x.start.column,
                    })
                })
                .collect();
            let run = outcome.as_ref().map(|o| {
                serde_json::json!({
                    "status": o.status,
                    "error": o.error,
                    "finalText": o.final_text,
                    "provider": o.provider,
                    "model": o.model,
                    "turns": o.turns,
                    "toolCalls": o.tool_calls,
                    "durationMs": o.duration.as_millis() as u64,
                    "launch": o.launch,
                })
            });
            let doc = serde_json::json!({
                "version": 1,
                "host": d.host,
                "name": role.name,
                "source": role.layer,
                "path": path,
                "shadows": role.shadows,
                "hostNotes": role.notes,
                "lint": {"errors": errors, "warnings": warnings, "diagnostics": diags},
                "launch": plan.as_ref().ok(),
                "launchError": plan.as_ref().err(),
                "prompt": SMOKE_PROMPT,
                "maxTurns": spec.max_turns,
                "providerRun": provider_run,
                "run": run,
            });
            write_stdout(&json_line(&doc)?)?;
        }
        Format::Human => {
            let mut t = String::new();
            t.push_str(&format!(
                "Smoke test of `{}` ({} host)\n\n",
                role.name,
                d.host.as_str()
            ));
            if diagnostics.is_empty() {
                t.push_str("Lint:      clean\n");
            } else {
                t.push_str(&format!(
                    "Lint:      {errors} error(s), {warnings} warning(s)\n"
                ));
                for x in &diagnostics {
                    t.push_str(&format!(
                        "  {path}:{}:{}: {} [{}] {}\n",
                        x.start.line,
                        x.start.column,
                        x.severity.as_str(),
                        x.rule,
                        x.message
                    ));
                }
            }
            t.push_str(&format!("Resolved:  {path} ({})\n", role.layer.as_str()));
            for s in &role.shadows {
                t.push_str(&format!("  shadows  {} ({})\n", s.path, s.source.as_str()));
            }
            for n in &role.notes {
                t.push_str(&format!("  note: {n}\n"));
            }
            match &plan {
                Ok(l) => {
                    t.push_str(&format!("Program:   {}\n", l.program.display()));
                    t.push_str("Arguments:\n");
                    for a in &l.args {
                        t.push_str(&format!("  {}\n", shell_quote(a)));
                    }
                    t.push_str(&format!(
                        "Prompt:    on {} ({} bytes), then stdin is closed\n",
                        match l.prompt_transport {
                            crate::delegate::PromptTransport::Stdin => "stdin",
                            crate::delegate::PromptTransport::Argv => "the command line",
                        },
                        SMOKE_PROMPT.len()
                    ));
                    if spec.system_prompt.is_some() {
                        t.push_str(&format!(
                            "System:    the role body ({} bytes), written to a private temp file for --system-prompt\n",
                            role.role.body.len()
                        ));
                    }
                }
                Err(e) => t.push_str(&format!("Launch:    cannot be planned: {}\n", e.message)),
            }
            match spec.max_turns {
                Some(n) => t.push_str(&format!(
                    "Budget:    {n} turns (pi has no turn limit; the runner stops it past {n})\n"
                )),
                None => t.push_str("Budget:    no max_turns; only the timeout bounds the run\n"),
            }
            match &outcome {
                None => t.push_str("\nNothing was launched; `pwk smoke --run` starts it once.\n"),
                Some(o) => {
                    t.push_str(&format!(
                        "\nRun:       {:?} after {:.1} s, {} turn(s), {} tool call(s)\n",
                        o.status,
                        o.duration.as_secs_f64(),
                        o.turns,
                        o.tool_calls
                    ));
                    if let (Some(p), Some(m)) = (&o.provider, &o.model) {
                        t.push_str(&format!("Model:     {p}/{m}\n"));
                    }
                    if let Some(e) = &o.error {
                        t.push_str(&format!("Error:     {:?}: {}\n", e.code, e.message));
                    }
                    if let Some(text) = &o.final_text {
                        t.push_str(&format!("Answer:    {}\n", text.trim()));
                    }
                }
            }
            if let Some(run) = &provider_run {
                t.push_str(&provider_run_human(run));
            }
            write_stdout(tilde(&t, ctx).as_bytes())?;
        }
    }
    let run_ok = outcome
        .as_ref()
        .is_none_or(|o| o.status == crate::delegate::RunStatus::Completed);
    Ok(if errors == 0 && run_ok {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// An argument as a POSIX shell would need it written (for display only; pwk never
/// runs a shell).
fn shell_quote(a: &str) -> String {
    let safe = !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./,=:@+%".contains(&b));
    if safe {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}
