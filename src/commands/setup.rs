//! Command glue for `pwk setup`: resolve the target, open it safely, plan, apply,
//! write the manifest, report.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::cli::{Format, SetupArgs};
use crate::display::{eprintln_safe, write_stdout};
use crate::fs::write::{self as safe, Inspect, NoHooks, Replace, SafeDir, WriteOptions};
use crate::install::hint::ModelHint;
use crate::install::manifest::{MANIFEST_NAME, Manifest};
use crate::install::pi_check::{self, ModelCheck};
use crate::install::plan::{self, Options, Outcome};
use crate::install::render::Report;
use crate::{Context, ExitStatus};

/// Where the roles go: a trust anchor the user named, and the directories below
/// it that are opened without following symlinks.
struct Target {
    root: PathBuf,
    below: Vec<&'static str>,
    /// The root may be created (pi's agent dir); a project dir must exist.
    create_root: bool,
}

impl Target {
    fn agents_dir(&self) -> PathBuf {
        self.below.iter().fold(self.root.clone(), |p, c| p.join(c))
    }
}

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
    let target = if args.global {
        let Some(global) = ctx.env.global_agents_dir() else {
            anyhow::bail!(
                "--global needs PI_CODING_AGENT_DIR or HOME to find pi's agent directory"
            );
        };
        // pi's agent dir is the anchor; `agents` below it is opened no-follow.
        let root = global
            .parent()
            .map_or_else(|| global.clone(), Path::to_path_buf);
        Target {
            root,
            below: vec!["agents"],
            create_root: true,
        }
    } else {
        Target {
            root: project.root.clone(),
            below: project_dir.to_vec(),
            create_root: false,
        }
    };
    let agents_path = target.agents_dir();
    let look_only = args.dry_run || args.check;
    let mut hooks = NoHooks;
    let mut warnings = Vec::new();

    // The model check asks pi only; it changes nothing, so dry runs do it too.
    if let Some(m) = &fast_model {
        match pi_check::check_model(&ctx.env, m, pi_check::LIST_MODELS_TIMEOUT) {
            ModelCheck::Resolvable => {}
            ModelCheck::NotListed { pi, listed } => warnings.push(format!(
                "pi (`{}`) does not list the model `{}` (it lists {} for provider `{}`). \
                 nicobailon's pi-subagents refuses to launch a role whose model it cannot resolve, \
                 so the reviewers given this hint would be out of service there; check `pi --list-models {}`",
                pi.display(),
                m.as_str(),
                if listed.is_empty() { "no models".to_string() } else { listed.join(", ") },
                m.provider(),
                m.provider(),
            )),
            ModelCheck::Unchecked { why } => warnings.push(format!(
                "could not check that pi can resolve `{}` ({why}); hosts that cannot resolve it \
                 (nicobailon's pi-subagents) refuse to launch the role",
                m.as_str()
            )),
        }
    }

    // Open the anchor, then the agents directory below it, never through a symlink.
    let root_exists = std::fs::metadata(&target.root).is_ok();
    if !root_exists && !target.create_root {
        anyhow::bail!(
            "`{}` does not exist; give an existing project directory",
            ctx.display_path(&target.root)
        );
    }
    if !root_exists && !look_only {
        std::fs::create_dir_all(&target.root)
            .with_context(|| format!("cannot create `{}`", ctx.display_path(&target.root)))?;
    }
    let dir = if root_exists || !look_only {
        match open_agents_dir(&target, !look_only, ctx) {
            Ok(d) => d,
            Err(e) => anyhow::bail!(
                "{e}\n  pwk setup only writes into a real directory `{}`; move what is in the way and re-run",
                ctx.display_path(&agents_path)
            ),
        }
    } else {
        None
    };

    // Hold the directory lock from the first read to the last write, so two runs
    // at once see each other's results rather than interleaving.
    let mut stray_temps_removed = 0;
    if let Some(d) = &dir {
        d.lock(!look_only).map_err(anyhow::Error::from)?;
        if !look_only {
            let mut names: Vec<String> = roles.iter().map(|r| r.file_name()).collect();
            names.push(MANIFEST_NAME.to_string());
            // Backups are written through temps too: `.bak`, then `.bak.1` … `.bak.99`
            // (fs::write::SafeDir::write_backup), and an interrupted --force leaves those behind.
            for r in roles.iter() {
                let file = r.file_name();
                names.push(format!("{file}.bak"));
                names.extend((1..100).map(|n| format!("{file}.bak.{n}")));
            }
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            stray_temps_removed = d.remove_stray_temps(&refs);
        }
    }

    let (manifest, manifest_state) = read_manifest(dir.as_ref(), &mut warnings);
    let opts = Options {
        force: args.force,
        fast_model,
        all_roles: args.all_roles,
        want_diff: args.diff,
    };
    let planned = plan::plan(
        &roles,
        dir.as_ref(),
        &agents_path,
        &manifest,
        &opts,
        &mut hooks,
    )?;

    let results = match (&dir, look_only) {
        (Some(d), false) => {
            let results = plan::apply(planned, d, &mut hooks);
            let next = plan::next_manifest(&manifest, &results);
            if let Err(e) = write_manifest(d, &next, &manifest_state) {
                warnings.push(e);
            }
            results
        }
        _ => planned.into_iter().map(|p| p.result).collect(),
    };

    let manifest_failed = warnings
        .iter()
        .any(|w| w.starts_with("the install manifest was not written"));
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
        stray_temps_removed,
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

    let mut status = ExitStatus::Success;
    for r in &report.results {
        status = status.max(match r.outcome {
            Outcome::Conflict | Outcome::Refused => ExitStatus::Failure,
            Outcome::Failed => ExitStatus::Error,
            _ => ExitStatus::Success,
        });
    }
    if args.check && report.would_change() {
        status = status.max(ExitStatus::Failure);
    }
    if manifest_failed {
        status = status.max(ExitStatus::Error);
    }
    Ok(status)
}

fn open_agents_dir(
    target: &Target,
    create: bool,
    ctx: &Context,
) -> Result<Option<SafeDir>, safe::SafeWriteError> {
    // Through the one confinement check (`crate::fs`): the anchor is the project
    // root, or pi's agent directory for --global (the output directory the
    // environment names); the agents directory below it is pwk's choice.
    let anchors = crate::fs::Anchors::new(&ctx.cwd, &target.root, &[]);
    let dir = anchors.open_dir(
        &target.agents_dir(),
        &crate::fs::NamedBy::Pwk,
        create,
        &mut NoHooks,
    )?;
    // Messages name paths relative to the current directory, as everywhere.
    Ok(dir.map(|d| d.with_display_path(PathBuf::from(ctx.display_path(&target.agents_dir())))))
}

/// What was at the manifest's name when it was read.
enum ManifestState {
    Absent,
    File {
        bytes: Vec<u8>,
        ident: safe::Ident,
        mode: u32,
    },
    /// Something pwk will not replace (symlink, FIFO, …): leave it.
    Untouchable,
}

fn read_manifest(dir: Option<&SafeDir>, warnings: &mut Vec<String>) -> (Manifest, ManifestState) {
    let Some(d) = dir else {
        return (Manifest::new(), ManifestState::Absent);
    };
    match d.inspect(MANIFEST_NAME, crate::fs::Kind::Role, &mut NoHooks) {
        Ok(Inspect::Absent) => (Manifest::new(), ManifestState::Absent),
        Ok(Inspect::File(ex)) => {
            let m = Manifest::parse(&ex.content).unwrap_or_else(|why| {
                warnings.push(format!(
                    "ignoring the unreadable install manifest {} ({why}); it will be rewritten",
                    d.path().join(MANIFEST_NAME).display()
                ));
                Manifest::new()
            });
            (
                m,
                ManifestState::File {
                    bytes: ex.content,
                    ident: ex.ident,
                    mode: ex.mode & 0o777,
                },
            )
        }
        Ok(Inspect::Refused(r)) => {
            warnings.push(format!(
                "the install manifest {} is left alone ({}); edited roles cannot be told from pwk's own copies",
                d.path().join(MANIFEST_NAME).display(),
                r.reason()
            ));
            (Manifest::new(), ManifestState::Untouchable)
        }
        Err(e) => {
            warnings.push(format!("cannot read the install manifest: {e}"));
            (Manifest::new(), ManifestState::Untouchable)
        }
    }
}

/// Write the manifest only when its content changes (a no-op run writes nothing).
fn write_manifest(d: &SafeDir, next: &Manifest, state: &ManifestState) -> Result<(), String> {
    let bytes = next.to_bytes();
    let written = match state {
        ManifestState::Untouchable => return Ok(()),
        ManifestState::File { bytes: old, .. } if *old == bytes => return Ok(()),
        ManifestState::File {
            bytes: old,
            ident,
            mode,
        } => d.write_file(
            MANIFEST_NAME,
            &bytes,
            Replace::Existing(crate::fs::Expected::of(*ident, old)),
            WriteOptions {
                mode: *mode,
                ..WriteOptions::default()
            },
            &mut NoHooks,
        ),
        ManifestState::Absent => d.write_file(
            MANIFEST_NAME,
            &bytes,
            Replace::Fresh,
            WriteOptions::default(),
            &mut NoHooks,
        ),
    };
    written
        .map(|_| ())
        .map_err(|e| format!("the install manifest was not written: {e}"))
}
