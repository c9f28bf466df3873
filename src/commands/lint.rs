//! Command glue for `pwk lint`: files from the flags, `pwk.toml` and the project;
//! `--fix`/`--diff`, the baseline, one render per format.

use anyhow::Context as _;

use crate::cli::{LintArgs, LintFormat};
use crate::context::{eprintln_safe, write_stdout};
use crate::host::HostChoice;
use crate::lint::render::{RenderOptions, render};
use crate::lint::walk::default_dirs_for;
use crate::lint::{LintOptions, collect_files, lint_files};
use crate::{Context, ExitStatus};

/// Width of human output: fixed, so output does not depend on the terminal.
const HUMAN_WIDTH: usize = 100;

pub fn run(args: &LintArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let project = super::project(ctx, args.dir.as_deref())?;
    let home = ctx.env.home.as_deref();
    let mut configs = crate::config::Configs::new(home);
    let rel = |e: crate::config::ConfigError| anyhow::anyhow!(e.relative_to(&ctx.cwd));
    let paths = if args.paths.is_empty() {
        // `paths` in the configuration, else the agents directories.
        let from_config = configs
            .for_path(&project.cwd)
            .map_err(rel)?
            .and_then(|c| c.path_files().map(|f| (f, c.path().to_path_buf())));
        match from_config {
            Some((files, _)) if !files.is_empty() => files,
            Some((_, config)) if !args.allow_empty => anyhow::bail!(
                "nothing to lint: `paths` in `{}` matches no `*.md` file",
                ctx.display_path(&config)
            ),
            Some(_) => Vec::new(),
            None => {
                let dirs = default_dirs_for(
                    &project.root,
                    &args.host.clone().unwrap_or(HostChoice::Auto),
                );
                if dirs.is_empty() && !args.allow_empty {
                    anyhow::bail!(
                        "nothing to lint: neither `.agents/agents/` nor `.pi/agents/` (nor another host's directory such as `.claude/agents/`) exists in the project `{}`; pass files or directories, or --allow-empty",
                        ctx.display_path(&project.root)
                    );
                }
                dirs
            }
        }
    } else {
        args.paths.clone()
    };
    let collected = collect_files(&paths, args.recursive);
    let walk_errors = collected.errors;
    let mut files = collected.files;
    // `exclude` leaves out what a directory walk found, never a file named.
    let mut kept = Vec::with_capacity(files.len());
    for f in files.drain(..) {
        let named = args.paths.contains(&f);
        if named
            || !configs
                .for_file(&f)
                .map_err(rel)?
                .is_some_and(|c| c.excludes(&std::path::absolute(&f).unwrap_or_else(|_| f.clone())))
        {
            kept.push(f);
        }
    }
    let files = kept;
    if files.is_empty() && walk_errors.is_empty() && !args.allow_empty {
        let shown: Vec<String> = paths
            .iter()
            .map(|p| format!("`{}`", ctx.display_path(p)))
            .collect();
        anyhow::bail!(
            "nothing to lint: no `*.md` file in {}{}",
            shown.join(", "),
            if args.recursive {
                ""
            } else {
                " (use --recursive to look in subdirectories)"
            }
        );
    }
    // Each file's configuration; files are linted in groups by host choice.
    let mut settings = std::collections::HashMap::new();
    let default_settings = crate::lint::FileSettings {
        no_inline_suppressions: args.no_inline_suppressions,
        ..Default::default()
    };
    let mut groups: Vec<(HostChoice, Vec<std::path::PathBuf>)> = Vec::new();
    for f in &files {
        let resolved = configs
            .resolve_file(f)
            .map_err(rel)?
            .with_host_flag(args.host.as_ref());
        let mut s = resolved.settings();
        s.no_inline_suppressions = args.no_inline_suppressions;
        // Only settings a configuration changed are kept per file.
        if s != default_settings {
            settings.insert(f.clone(), s);
        }
        match groups.iter_mut().find(|(h, _)| *h == resolved.host.value) {
            Some((_, g)) => g.push(f.clone()),
            None => groups.push((resolved.host.value, vec![f.clone()])),
        }
    }
    if groups.is_empty() {
        groups.push((args.host.clone().unwrap_or(HostChoice::Auto), Vec::new()));
    }
    let settings = std::sync::Arc::new(settings);
    let source = {
        let settings = settings.clone();
        crate::lint::SettingsSource(std::sync::Arc::new(
            move |p: &std::path::Path| match settings.get(p) {
                Some(s) => s.clone(),
                None => default_settings.clone(),
            },
        ))
    };
    let mut report: Option<crate::lint::LintReport> = None;
    // Files `--fix` could not write: named once each by the fatal path.
    let mut fix_errors: Vec<String> = Vec::new();
    // What `--fix` / `--diff` did, over every host group.
    let mut tally = FixTally::default();
    for (choice, group) in &groups {
        let chosen = choice.resolve_for(&project.root, ctx.env.agent_dir().as_deref(), group);
        let opts = LintOptions {
            host: chosen.profile,
            host_reason: chosen.detection.as_ref().map(|d| d.reason.clone()),
            recursive: args.recursive,
            // The baseline matches findings by their text.
            keep_text: args.format == LintFormat::Human
                || args.baseline.is_some()
                || args.write_baseline,
            cwd: Some(ctx.cwd.clone()),
            settings: Some(source.clone()),
        };
        if args.fix || args.diff || args.unsafe_fixes {
            fix_step(args, ctx, group, &opts, &mut tally);
            if args.diff {
                // `--diff` lints nothing: each group's diffs, then one verdict.
                continue;
            }
        }
        let part = lint_files(group, &opts);
        report = Some(match report {
            None => part,
            Some(r) => r.merge(part),
        });
    }
    if args.fix || args.diff || args.unsafe_fixes {
        fix_errors.append(&mut tally.failed);
        if let Some(status) = tally.finish(args.diff) {
            if !fix_errors.is_empty() {
                anyhow::bail!("{}", fix_errors.join("\n  "));
            }
            return Ok(status);
        }
    }
    let mut report = report.expect("at least one group");
    report.add_walk_errors(walk_errors);
    if args.baseline.is_some() || args.write_baseline {
        baseline_step(args, ctx, &mut report)?;
    }
    let show = |p: &std::path::Path| ctx.display_path(p);
    let render_opts = RenderOptions {
        show_path: &show,
        color: ctx.color_stdout,
        width: HUMAN_WIDTH,
    };
    let format = match args.format {
        LintFormat::Human => crate::lint::render::Format::Human,
        LintFormat::Json => crate::lint::render::Format::Json,
        LintFormat::Sarif => crate::lint::render::Format::Sarif,
        LintFormat::Github => crate::lint::render::Format::Github,
    };
    write_stdout(render(format, &report, &render_opts).as_bytes())
        .context("cannot write to stdout")?;
    if !report.failures.is_empty() || !fix_errors.is_empty() {
        let lines: Vec<String> = report
            .failures
            .iter()
            .map(|f| {
                format!(
                    "cannot read `{}`: {}",
                    crate::text::escape_line(&ctx.display_path(&f.path)),
                    f.message
                )
            })
            .chain(fix_errors)
            .collect();
        anyhow::bail!("{}", lines.join("\n  "));
    }
    let (errors, warnings) = report.counts();
    Ok(if errors > 0 || (args.deny_warnings && warnings > 0) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// What `--fix` / `--diff` did over every host group.
#[derive(Default)]
struct FixTally {
    changed: usize,
    fixes: usize,
    diffs: String,
    /// The files it could not write (each left alone, with why).
    failed: Vec<String>,
}

impl FixTally {
    /// Say what was done. `--diff`: print the diffs and return its exit status
    /// (1 when a file would change); `--fix`: `None` (the lint report follows).
    fn finish(&self, diff: bool) -> Option<ExitStatus> {
        let files_word = |n: usize| if n == 1 { "file" } else { "files" };
        let fixes_word = if self.fixes == 1 { "fix" } else { "fixes" };
        let (fixes, changed) = (self.fixes, self.changed);
        if diff {
            let _ = write_stdout(self.diffs.as_bytes());
            eprintln_safe(&format!(
                "pwk: {fixes} {fixes_word} would change {changed} {}; nothing was written",
                files_word(changed)
            ));
            return Some(if changed > 0 {
                ExitStatus::Failure
            } else {
                ExitStatus::Success
            });
        }
        eprintln_safe(&format!(
            "pwk: applied {fixes} {fixes_word} in {changed} {}; the remaining findings follow",
            files_word(changed)
        ));
        None
    }
}

/// `--fix` / `--diff` for one host group: fix each file (the safe fixes, and
/// the unsafe ones with `--unsafe-fixes`); `--diff` collects the diffs, `--fix`
/// writes and says what it fixed on stderr.
fn fix_step(
    args: &LintArgs,
    ctx: &Context,
    files: &[std::path::PathBuf],
    opts: &LintOptions,
    tally: &mut FixTally,
) {
    use crate::lint::fix::Applicability;
    use crate::lint::rewrite::{Mode, Outcome, fix_file};
    let applicability = if args.unsafe_fixes {
        Applicability::All
    } else {
        Applicability::Safe
    };
    let mode = if args.diff { Mode::Diff } else { Mode::Write };
    for path in files {
        let shown = ctx.display_path(path);
        let out = fix_file(
            path,
            opts.host,
            &opts.settings_for(path),
            applicability,
            mode,
            &shown,
        );
        match out.outcome {
            Outcome::Unchanged | Outcome::NotText => {}
            Outcome::Fixed { applied, diff } => {
                tally.changed += 1;
                tally.fixes += applied.len();
                match diff {
                    Some(d) => tally.diffs.push_str(&crate::text::escape_block(&d)),
                    None => eprintln_safe(&format!(
                        "pwk: fixed `{}`: {}",
                        crate::text::escape_line(&shown),
                        crate::text::escape_line(&applied.join("; "))
                    )),
                }
            }
            Outcome::NotWritten(e) => {
                tally.failed.push(format!(
                    "`{}` was not fixed: {}",
                    crate::text::escape_line(&shown),
                    crate::text::escape_line(&e.to_string())
                ));
            }
        }
    }
}

/// `--baseline` / `--write-baseline`: hide the known findings; write the file.
fn baseline_step(
    args: &LintArgs,
    ctx: &Context,
    report: &mut crate::lint::LintReport,
) -> anyhow::Result<()> {
    use crate::lint::baseline::Baseline;
    let path = args
        .baseline
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from("pwk-baseline.json"));
    let abs = std::path::absolute(ctx.cwd.join(&path)).unwrap_or_else(|_| path.clone());
    let dir = abs
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let shown = ctx.display_path(&path);
    let exists = std::fs::symlink_metadata(&abs).is_ok();
    let old = if exists || !args.write_baseline {
        Some(Baseline::read(&path).map_err(|e| {
            anyhow::anyhow!(
                "{e}{}",
                if exists {
                    ""
                } else {
                    "; create it with `pwk lint --write-baseline`"
                }
            )
        })?)
    } else {
        None
    };
    if args.write_baseline {
        // Every current finding, those the old baseline hid included.
        let new = Baseline::of(report, &dir);
        let text = new.to_json();
        match &old {
            Some(_) => {
                let before = crate::role::source::read_role_file(&abs)
                    .map_err(|e| anyhow::anyhow!("cannot read `{shown}`: it {e}"))?;
                if before != text.as_bytes() {
                    crate::install::safe::replace_file_if_unchanged(
                        &abs,
                        &before,
                        text.as_bytes(),
                        &mut crate::install::safe::NoHooks,
                    )?;
                }
            }
            None => {
                let name = abs
                    .file_name()
                    .and_then(|n| n.to_str())
                    .ok_or_else(|| anyhow::anyhow!("`{shown}` has no file name"))?;
                crate::install::safe::create_file_exclusive(&dir, name, text.as_bytes())?;
            }
        }
        eprintln_safe(&format!(
            "pwk: wrote {} finding{} to `{}`",
            new.findings.len(),
            if new.findings.len() == 1 { "" } else { "s" },
            crate::text::escape_line(&shown)
        ));
        new.apply(report, &dir, &shown);
        return Ok(());
    }
    if let Some(old) = old {
        let stale = old.apply(report, &dir, &shown);
        if stale > 0 {
            eprintln_safe(&format!(
                "pwk: {stale} baseline entr{} matched no finding (fixed since); `pwk lint --write-baseline --baseline {}` drops them",
                if stale == 1 { "y" } else { "ies" },
                crate::text::escape_line(&shown)
            ));
        }
    }
    Ok(())
}
