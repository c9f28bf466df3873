//! Command glue for `pwk smoke`.

use super::roles::*;
use super::show::{provider_run_human, show_unavailable};
use crate::cli::{Format, SmokeArgs};
use crate::display::write_stdout;
use crate::{Context, ExitStatus};

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
#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &SmokeArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    use crate::delegate::{PiRunSpec, plan_launch, run_pi};

    let (project, views) = super::discover(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            host: args.host.as_ref(),
            config: args.config.file.as_deref(),
        },
    )?;
    let found = crate::discover::find_in(&views, &args.name);
    let Some(&(d, role)) = found.first() else {
        return show_unavailable(&views, &args.name, args.format, ctx);
    };
    if !d.host.host.is_pi() && args.run {
        anyhow::bail!(
            "`pwk smoke --run` launches roles on pi, and {} runs `{}` itself ({}): `pwk smoke {}` without --run checks what pwk can; start it in {} to run it",
            d.host.label(),
            args.name,
            role.path.display(&ctx.cwd),
            args.name,
            d.host.as_str()
        );
    }
    // Linted as `pwk lint` lints the file: its configuration's levels apply.
    let settings = match role.path.as_file() {
        Some(p) => project
            .resolve_file(p)
            .map_err(|e| super::config_error(ctx, e))?
            .settings(),
        None => crate::lint::FileSettings::default(),
    };
    let diagnostics = crate::lint::lint_doc(&role.doc, d.host, &settings);
    let errors = diagnostics
        .iter()
        .filter(|x| x.severity == crate::lint::Severity::Error)
        .count();
    let warnings = diagnostics.len() - errors;
    if !d.host.host.is_pi() {
        // A host with its own CLI: pwk's runner does not launch it; what pwk can
        // check is the file as that host reads it and what it resolves to.
        let rt = crate::discover::render::runtime_of(d, role, None, &ctx.env, &project.cwd);
        let out = HostCliSmoke {
            d,
            role,
            rt: &rt,
            diagnostics: &diagnostics,
            errors,
            warnings,
        };
        match args.format {
            Format::Json => write_stdout(&json_line(&out.json(&ctx.cwd))?)?,
            Format::Human => write_stdout(tilde(&out.human(&ctx.cwd, style(ctx)), ctx).as_bytes())?,
        }
        return Ok(if errors == 0 {
            ExitStatus::Success
        } else {
            ExitStatus::Failure
        });
    }

    let provider_run = crate::provider::mapping::provider_run(&role.name, role.role.max_turns);
    let mut spec = PiRunSpec::for_role(&role.role, &project.cwd, SMOKE_PROMPT.to_string());
    spec.timeout = Some(SMOKE_TIMEOUT);
    let plan = plan_launch(&spec, &ctx.env);
    // The model pi is given, against what pi lists on this machine.
    let model_check = super::model_check::check(
        ctx,
        &project.cwd,
        role.role.model.as_deref(),
        role.role.thinking.as_deref(),
        d.host,
    );
    let outcome = args.run.then(|| {
        let progress = |p: &crate::delegate::Progress| {
            crate::display::eprintln_safe(&format!("{} {p}", spec.label));
        };
        run_pi(&spec, &ctx.env, &progress)
    });
    let out = PiSmoke {
        d,
        role,
        diagnostics: &diagnostics,
        errors,
        warnings,
        spec: &spec,
        plan: &plan,
        model_check: model_check.as_ref(),
        outcome: outcome.as_ref(),
        provider_run: provider_run.as_ref(),
    };
    match args.format {
        Format::Json => write_stdout(&json_line(&out.json(&ctx.cwd))?)?,
        Format::Human => write_stdout(tilde(&out.human(&ctx.cwd), ctx).as_bytes())?,
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

/// A smoke test of a role that runs on pi: its findings, the launch the runner
/// plans for it, the model check and, with `--run`, the run.
struct PiSmoke<'a> {
    d: &'a crate::discover::Discovery,
    role: &'a crate::discover::ResolvedRole,
    diagnostics: &'a [crate::lint::Diagnostic],
    errors: usize,
    warnings: usize,
    spec: &'a crate::delegate::PiRunSpec,
    plan: &'a Result<crate::delegate::PiLaunch, crate::delegate::RunError>,
    model_check: Option<&'a crate::pi::models::ModelCheck>,
    outcome: Option<&'a crate::delegate::PiRunOutcome>,
    provider_run: Option<&'a crate::provider::mapping::ProviderRun>,
}

impl PiSmoke<'_> {
    fn json(&self, cwd: &std::path::Path) -> serde_json::Value {
        let (d, role, plan) = (self.d, self.role, self.plan);
        let run = self.outcome.map(|o| {
            serde_json::json!({
                "status": o.status,
                "error": o.error.as_ref().map(run_error_json),
                "final_text": o.final_text,
                "provider": o.provider,
                "model": o.model,
                "turns": o.turns,
                "tool_calls": o.tool_calls,
                "duration_ms": o.duration.as_millis() as u64,
                "launch": o.launch.as_ref().map(launch_json),
            })
        });
        let mut doc = serde_json::json!({
            "version": 1,
            "host": d.host,
            "runs_on": "pi",
            "name": role.name,
            "source": role.layer,
            "path": role.path.display(cwd),
            "shadows": role.shadows,
            "host_notes": role.notes,
            "lint": {
                "errors": self.errors,
                "warnings": self.warnings,
                "diagnostics": diagnostics_json(self.diagnostics),
            },
            "launch": plan.as_ref().ok().map(launch_json),
            "launch_error": plan.as_ref().err().map(run_error_json),
            "prompt": SMOKE_PROMPT,
            "max_turns": self.spec.max_turns,
            "provider_run": self.provider_run,
            "run": run,
        });
        if let Some(c) = self.model_check {
            doc["model_check"] = serde_json::to_value(c).expect("plain data serializes");
        }
        doc
    }

    fn human(&self, cwd: &std::path::Path) -> String {
        let (d, role, spec) = (self.d, self.role, self.spec);
        let path = role.path.display(cwd);
        let mut t = String::new();
        t.push_str(&format!(
            "Smoke test of `{}` ({} host)\n\n",
            role.name,
            d.host.as_str()
        ));
        lint_and_resolution_human(
            &mut t,
            &path,
            role,
            self.diagnostics,
            self.errors,
            self.warnings,
        );
        if let Some(c) = self.model_check {
            t.push_str(super::model_check::human(c).trim_start_matches('\n'));
        }
        match self.plan {
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
            Err(e) => t.push_str(&format!(
                "Launch:    cannot be planned: {}: {}\n",
                e.code, e.message
            )),
        }
        match spec.max_turns {
            Some(n) => t.push_str(&format!(
                "Budget:    {n} turns (pi has no turn limit; the runner stops it past {n})\n"
            )),
            None => t.push_str(&format!(
                "Budget:    this definition sets no max_turns; the smoke run is bounded by its {} s timeout\n",
                SMOKE_TIMEOUT.as_secs()
            )),
        }
        match (self.outcome, self.plan) {
            // `--run` would fail the same way: it is not offered (issue #32).
            (None, Err(e)) => t.push_str(&format!(
                "\nNothing was launched, and `--run` cannot launch it until the launch can be planned ({}).\n",
                e.code
            )),
            (None, Ok(_)) => {
                t.push_str("\nNothing was launched; `pwk smoke --run` starts it once.\n")
            }
            (Some(o), _) => {
                t.push_str(&format!(
                    "\nRun:       {} after {:.1} s, {} turn(s), {} tool call(s)\n",
                    o.status.as_str(),
                    o.duration.as_secs_f64(),
                    o.turns,
                    o.tool_calls
                ));
                if let (Some(p), Some(m)) = (&o.provider, &o.model) {
                    t.push_str(&format!("Model:     {p}/{m}\n"));
                }
                if let Some(e) = &o.error {
                    t.push_str(&format!("Error:     {}: {}\n", e.code, e.message));
                }
                if let Some(text) = &o.final_text {
                    t.push_str(&format!("Answer:    {}\n", text.trim()));
                }
            }
        }
        if let Some(run) = self.provider_run {
            t.push_str(&provider_run_human(run));
        }
        t
    }
}

fn lint_and_resolution_human(
    t: &mut String,
    path: &str,
    role: &crate::discover::ResolvedRole,
    diagnostics: &[crate::lint::Diagnostic],
    errors: usize,
    warnings: usize,
) {
    if diagnostics.is_empty() {
        t.push_str("Lint:      clean\n");
    } else {
        t.push_str(&format!(
            "Lint:      {errors} error(s), {warnings} warning(s)\n"
        ));
        for x in diagnostics {
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
}

/// Lint findings in smoke's own document.
fn diagnostics_json(diagnostics: &[crate::lint::Diagnostic]) -> Vec<serde_json::Value> {
    diagnostics
        .iter()
        .map(|x| {
            serde_json::json!({
                "rule": x.rule, "severity": x.severity.as_str(), "message": x.message,
                "help": x.help, "line": x.start.line, "column": x.start.column,
            })
        })
        .collect()
}

/// `pwk smoke` of a role a host with its own CLI runs (Claude Code, OpenCode,
/// Gemini CLI, Copilot CLI): pwk's runner launches roles on pi only, so this
/// says what pwk checked (the file as that host reads it, which definition wins,
/// what it resolves to) and what it cannot (that the host loads it on this
/// machine, that the model exists, a run).
struct HostCliSmoke<'a> {
    d: &'a crate::discover::Discovery,
    role: &'a crate::discover::ResolvedRole,
    rt: &'a crate::discover::runtime::Runtime,
    diagnostics: &'a [crate::lint::Diagnostic],
    errors: usize,
    warnings: usize,
}

impl HostCliSmoke<'_> {
    fn checked(&self) -> Vec<String> {
        let label = self.d.host.label();
        vec![
            format!(
                "the file as {label} reads it (`pwk lint --host {}`)",
                self.d.host.as_str()
            ),
            format!(
                "which definition of `{}` {label} picks, and what it shadows",
                self.role.name
            ),
            format!(
                "the tools, model, reasoning and turn limit it resolves to from {label}'s profile (`pwk show {} --host {}`)",
                self.role.name,
                self.d.host.as_str()
            ),
        ]
    }

    fn not_checked(&self) -> Vec<String> {
        let host = self.d.host.as_str();
        vec![
            format!(
                "that the {host} installed here loads it (pwk's facts are from {}; a newer release may differ)",
                self.d.host.label()
            ),
            format!("that {host} knows the model it names"),
            format!("a run: pwk does not launch {host}"),
        ]
    }

    fn json(&self, cwd: &std::path::Path) -> serde_json::Value {
        serde_json::json!({
            "version": 1,
            "host": self.d.host,
            "runs_on": "host-cli",
            "name": self.role.name,
            "source": self.role.layer,
            "path": self.role.path.display(cwd),
            "shadows": self.role.shadows,
            "host_notes": self.role.notes,
            "lint": {
                "errors": self.errors,
                "warnings": self.warnings,
                "diagnostics": diagnostics_json(self.diagnostics),
            },
            "runtime": self.rt,
            "checked": self.checked(),
            "not_checked": self.not_checked(),
            "launch": null,
            "run": null,
        })
    }

    fn human(&self, cwd: &std::path::Path, style: crate::discover::render::Style) -> String {
        let path = self.role.path.display(cwd);
        let mut t = format!(
            "Smoke test of `{}` ({} host)\n\n",
            self.role.name,
            self.d.host.as_str()
        );
        lint_and_resolution_human(
            &mut t,
            &path,
            self.role,
            self.diagnostics,
            self.errors,
            self.warnings,
        );
        let mut out = crate::text::escape_block(&t).into_owned();
        // What the host would run: the same section as `pwk show` (escaped there;
        // it may carry colour).
        out.push('\n');
        out.push_str(&crate::discover::render::runtime_human(
            self.d, self.rt, style,
        ));
        // Bullets wrapped to the output's width, continuation lines under the text.
        let bullet = |t: &mut String, c: &str| {
            let lines = crate::text::wrap_words(c, style.width.saturating_sub(4).max(40));
            for (i, l) in lines.iter().enumerate() {
                t.push_str(if i == 0 { "  - " } else { "    " });
                t.push_str(l);
                t.push('\n');
            }
        };
        let mut t = String::from("\nChecked:\n");
        for c in self.checked() {
            bullet(&mut t, &c);
        }
        t.push_str("Not checked:\n");
        for c in self.not_checked() {
            bullet(&mut t, &c);
        }
        out.push_str(&crate::text::escape_block(&t));
        out
    }
}

/// A launch in smoke's own document (snake_case keys; `pwk delegate`'s result keeps
/// the protocol's spelling).
fn launch_json(l: &crate::delegate::PiLaunch) -> serde_json::Value {
    serde_json::json!({
        "program": l.program,
        "args": l.args,
        "prompt_transport": l.prompt_transport,
    })
}

/// A run error in smoke's own document: the same code as everywhere, snake_case keys.
fn run_error_json(e: &crate::delegate::RunError) -> serde_json::Value {
    let mut v = serde_json::json!({"code": e.code, "message": e.message});
    let extra = [
        (
            "discovery",
            e.discovery.clone().map(serde_json::Value::from),
        ),
        (
            "denied_path",
            e.denied_path.clone().map(serde_json::Value::from),
        ),
        (
            "execution_started",
            e.execution_started.map(serde_json::Value::from),
        ),
        ("line", e.line.map(serde_json::Value::from)),
        ("column", e.column.map(serde_json::Value::from)),
    ];
    for (k, x) in extra {
        if let Some(x) = x {
            v[k] = x;
        }
    }
    v
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
