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
    // Where `--fix` and `--write-baseline` open files from (see `crate::fs`).
    let anchors = crate::fs::Anchors::new(&ctx.cwd, &project.root, &paths);
    // A directory in the project reached through a symbolic link (a cloned
    // repository's `.agents -> /elsewhere`) is not entered: reported, not linted.
    let (paths, linked): (Vec<_>, Vec<_>) = paths
        .into_iter()
        .partition(|p| args.paths.contains(p) || anchors.symlink_on_the_way(p).is_none());
    let collected = collect_files(&paths, args.recursive);
    let mut walk_errors = collected.errors;
    for dir in linked {
        let link = anchors
            .symlink_on_the_way(&dir)
            .unwrap_or_else(|| dir.clone());
        walk_errors.push(crate::lint::WalkError::Io {
            source: std::io::Error::other(format!(
                "`{}` is a symbolic link; pwk does not read or write the project's roles through one (make it a real directory, or name the target directory on the command line)",
                ctx.display_path(&link)
            )),
            path: dir,
        });
    }
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
            let (status, failed) = fix_step(args, ctx, &anchors, group, &opts);
            fix_errors.extend(failed);
            if let Some(status) = status {
                // `--diff` ends here: paths it could not look at are named too.
                fix_errors.extend(walk_errors.iter().map(|e| {
                    format!(
                        "cannot read `{}`: {}",
                        crate::text::escape_line(&ctx.display_path(e.path())),
                        crate::text::escape_line(&e.reason())
                    )
                }));
                if !fix_errors.is_empty() {
                    anyhow::bail!("{}", fix_errors.join("\n  "));
                }
                return Ok(status);
            }
        }
        let part = lint_files(group, &opts);
        report = Some(match report {
            None => part,
            Some(r) => r.merge(part),
        });
    }
    let mut report = report.expect("at least one group");
    report.add_walk_errors(walk_errors);
    if args.baseline.is_some() || args.write_baseline {
        baseline_step(args, ctx, &project.root, &mut report)?;
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

/// `--fix` / `--diff`: fix each file (the safe fixes, and the unsafe ones with
/// `--unsafe-fixes`). `--diff` prints the diffs and returns its exit status (1
/// when a file would change); `--fix` writes, says what it fixed on stderr, and
/// returns the files it could not write (each left alone, with why).
fn fix_step(
    args: &LintArgs,
    ctx: &Context,
    anchors: &crate::fs::Anchors,
    files: &[std::path::PathBuf],
    opts: &LintOptions,
) -> (Option<ExitStatus>, Vec<String>) {
    use crate::lint::fix::Applicability;
    use crate::lint::rewrite::{Mode, Outcome, fix_file};
    let applicability = if args.unsafe_fixes {
        Applicability::All
    } else {
        Applicability::Safe
    };
    let mode = if args.diff { Mode::Diff } else { Mode::Write };
    let mut changed = 0;
    let mut fixes = 0;
    let mut failed = Vec::new();
    let mut diffs = String::new();
    for path in files {
        let shown = ctx.display_path(path);
        let out = fix_file(
            path,
            anchors,
            opts.host,
            &opts.settings_for(path),
            applicability,
            mode,
            &shown,
        );
        match out.outcome {
            Outcome::Unchanged | Outcome::NotText => {}
            Outcome::Fixed { applied, diff } => {
                changed += 1;
                fixes += applied.len();
                match diff {
                    Some(d) => diffs.push_str(&crate::text::escape_block(&d)),
                    None => eprintln_safe(&format!(
                        "pwk: fixed `{}`: {}",
                        crate::text::escape_line(&shown),
                        crate::text::escape_line(&applied.join("; "))
                    )),
                }
            }
            Outcome::NotRead(e) | Outcome::NotWritten(e) => {
                failed.push(format!(
                    "`{}` was not fixed: {}",
                    crate::text::escape_line(&shown),
                    crate::text::escape_line(&e.to_string())
                ));
            }
        }
    }
    let files_word = |n: usize| if n == 1 { "file" } else { "files" };
    let fixes_word = if fixes == 1 { "fix" } else { "fixes" };
    if mode == Mode::Diff {
        let _ = write_stdout(diffs.as_bytes());
        eprintln_safe(&format!(
            "pwk: {fixes} {fixes_word} would change {changed} {}; nothing was written",
            files_word(changed)
        ));
        let status = if changed > 0 {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        };
        return (Some(status), failed);
    }
    eprintln_safe(&format!(
        "pwk: applied {fixes} {fixes_word} in {changed} {}; the remaining findings follow",
        files_word(changed)
    ));
    (None, failed)
}

/// `--baseline` / `--write-baseline`: hide the known findings; write the file.
/// Entries name files relative to the baseline file's directory. The file is
/// written through the one writer, anchored at the project root when it lies in
/// the project (no symlinked directory on the way), else at its own directory.
fn baseline_step(
    args: &LintArgs,
    ctx: &Context,
    root: &std::path::Path,
    report: &mut crate::lint::LintReport,
) -> anyhow::Result<()> {
    use crate::fs::{Kind, NoHooks, Replace, WriteOptions};
    use crate::lint::baseline::Baseline;
    let path = args
        .baseline
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from("pwk-baseline.json"));
    // The directory the entries are relative to: the baseline file's, resolved.
    let abs = crate::fs::canonical_dir_path(&ctx.cwd, &path);
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
        let anchors = crate::fs::Anchors::new(&ctx.cwd, root, &[]);
        let hooks = &mut NoHooks;
        let (handle, name) = anchors
            .open_parent(&ctx.cwd.join(&path), true, hooks)?
            .ok_or_else(|| anyhow::anyhow!("the directory of `{shown}` does not exist"))?;
        let opts = WriteOptions {
            kind: Kind::Baseline,
            ..WriteOptions::default()
        };
        if old.is_some() {
            let before = handle.read_for_replace(&name, Kind::Baseline, hooks)?;
            if before.content != text.as_bytes() {
                handle.replace(&name, &before, text.as_bytes(), Kind::Baseline, hooks)?;
            }
        } else {
            handle.write_file(&name, text.as_bytes(), Replace::Fresh, opts, hooks)?;
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
