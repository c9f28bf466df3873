//! Command glue for `pwk setup`: pick the host and the target, check the model
//! hint, install ([`crate::install::ops`]), report.

use std::path::Path;

use crate::cli::{Format, SetupArgs};
use crate::display::{eprintln_safe, write_stdout};
use crate::install::hint::ModelHint;
use crate::install::ops::{self, Target};
use crate::install::pi_check::{self, ModelCheck};
use crate::install::plan::{Options, Outcome};
use crate::install::render::Report;
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &SetupArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let fast_model = args
        .fast_model
        .as_deref()
        .map(ModelHint::parse)
        .transpose()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    // The roles as the project's host receives them (pwk.toml's `host`, else the
    // host pi's settings name, else the portable profile), and where it reads them.
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            host: args.host.as_ref(),
            config: args.config.file.as_deref(),
        },
    )?;
    let chosen = project.host().map_err(|e| super::config_error(ctx, e))?;
    if !chosen.profile.host.is_pi() {
        // The canonical roles are pi roles: a host with its own format never reads
        // them where setup would write them (as `pwk new` says).
        let to = chosen.profile.host.as_str();
        anyhow::bail!(
            "`pwk setup` installs the canonical roles for pi hosts, and this project uses {}; install them for pi, then convert them: `pwk setup --host pwk`, then `pwk convert --from tintinweb --to {to} .agents/agents/ --out <the directory {to} reads>`",
            chosen.explain(&ctx.cwd)
        );
    }
    let (roles, project_dir) = crate::install::bundled::rendered_for(chosen.profile);
    let target = target(args, ctx, &project.root, &project_dir)?;
    let agents_path = target.agents_dir();
    let look_only = args.dry_run || args.check;
    // The model check asks pi only; it changes nothing, so dry runs do it too.
    let mut warnings: Vec<String> = fast_model
        .as_ref()
        .and_then(|m| model_hint_warning(ctx, m))
        .into_iter()
        .collect();
    let installed = ops::install(ops::Request {
        roles: &roles,
        target: &target,
        options: Options {
            force: args.force,
            fast_model,
            all_roles: args.all_roles,
            want_diff: args.diff,
        },
        look_only,
        cwd: &ctx.cwd,
    })?;
    warnings.extend(installed.warnings);
    let results = installed.results;
    // With no host named, the roles go to the PWK contract's shared directory: say
    // who reads it and what each does with them.
    let (readers, not_readers) = if chosen.profile.is_portable() && !args.global {
        (
            crate::install::readers::readers(&roles, project_dir),
            crate::install::readers::not_readers(project_dir),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let report = Report {
        readers,
        not_readers,
        target: ctx.display_path(&agents_path),
        paths: results.iter().map(|r| ctx.display_path(&r.path)).collect(),
        results,
        dry_run: args.dry_run,
        check: args.check,
        warnings,
        stray_temps_removed: installed.stray_temps_removed,
    };
    for w in &report.warnings {
        eprintln_safe(&format!("pwk: warning: {w}"));
    }
    match args.format {
        Format::Json => {
            let mut text =
                crate::text::json_escape_controls(serde_json::to_string_pretty(&report.to_json())?);
            text.push('\n');
            write_stdout(text.as_bytes())?;
        }
        Format::Human => write_stdout(report.to_human(ctx.color_stdout).as_bytes())?,
    }

    Ok(exit_status(&report, args.check, installed.manifest_failed))
}

/// A warning when pi cannot resolve the `--fast-model` hint (or could not be asked).
fn model_hint_warning(ctx: &Context, m: &ModelHint) -> Option<String> {
    match pi_check::check_model(&ctx.env, m, pi_check::LIST_MODELS_TIMEOUT) {
        ModelCheck::Resolvable => None,
        ModelCheck::NotListed { pi, listed } => Some(format!(
            "pi (`{}`) does not list the model `{}` (it lists {} for provider `{}`). \
             nicobailon's pi-subagents refuses to launch a role whose model it cannot resolve, \
             so the reviewers given this hint would be out of service there; check `pi --list-models {}`",
            pi.display(),
            m.as_str(),
            if listed.is_empty() {
                "no models".to_string()
            } else {
                listed.join(", ")
            },
            m.provider(),
            m.provider(),
        )),
        ModelCheck::Unchecked { why } => Some(format!(
            "could not check that pi can resolve `{}` ({why}); hosts that cannot resolve it \
             (nicobailon's pi-subagents) refuse to launch the role",
            m.as_str()
        )),
    }
}

/// Where `setup` writes: pi's agent directory with `--global`, else the project's
/// agents directory for its host.
fn target(
    args: &SetupArgs,
    ctx: &Context,
    project_root: &Path,
    project_dir: &[&'static str],
) -> anyhow::Result<Target> {
    if !args.global {
        return Ok(Target {
            root: project_root.to_path_buf(),
            below: project_dir.to_vec(),
            create_root: false,
        });
    }
    let Some(global) = ctx.env.global_agents_dir() else {
        anyhow::bail!("--global needs PI_CODING_AGENT_DIR or HOME to find pi's agent directory");
    };
    // pi's agent dir is the anchor; `agents` below it is opened no-follow.
    let root = global
        .parent()
        .map_or_else(|| global.clone(), Path::to_path_buf);
    Ok(Target {
        root,
        below: vec!["agents"],
        create_root: true,
    })
}

/// 1 when a role conflicts or is refused (or `--check` finds a change), 2 when a
/// write failed or the manifest could not be written.
fn exit_status(report: &Report, check: bool, manifest_failed: bool) -> ExitStatus {
    let mut status = ExitStatus::Success;
    for r in &report.results {
        status = status.max(match r.outcome {
            Outcome::Conflict | Outcome::Refused => ExitStatus::Failure,
            Outcome::Failed => ExitStatus::Error,
            _ => ExitStatus::Success,
        });
    }
    if check && report.would_change() {
        status = status.max(ExitStatus::Failure);
    }
    if manifest_failed {
        status = status.max(ExitStatus::Error);
    }
    status
}
