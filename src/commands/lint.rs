//! Command glue for `pwk lint`: files from the flags, `pwk.toml` and the project;
//! `--fix`/`--diff`, the baseline, one render per format.

use anyhow::Context as _;

use crate::cli::{LintArgs, LintFormat};
use crate::context::{eprintln_safe, write_stdout};
use crate::lint::LintOptions;
use crate::lint::render::{RenderOptions, render};
use crate::project::FileRequest;
use crate::{Context, ExitStatus};

/// Width of human output: fixed, so output does not depend on the terminal.
const HUMAN_WIDTH: usize = 100;

pub fn run(args: &LintArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            host: args.host.as_ref(),
            config: None,
        },
    )?;
    let rel = |e: crate::project::ProjectError| anyhow::anyhow!(e.relative_to(&ctx.cwd));
    let set = project
        .file_set(&FileRequest {
            paths: args.paths.clone(),
            recursive: args.recursive,
            allow_empty: args.allow_empty,
        })
        .map_err(rel)?;
    let models = if args.check_models {
        let program = crate::pi::locate(&ctx.env)
            .map_err(|e| anyhow::anyhow!("--check-models needs pi: {e}"))?;
        let agent_dir = ctx.env.agent_dir();
        let scope = crate::pi::models::scope_for(&program, agent_dir.as_deref(), &project.cwd)
            .map_err(|e| anyhow::anyhow!("--check-models: {e}"))?;
        Some(crate::lint::Models(std::sync::Arc::new(scope)))
    } else {
        None
    };
    let base = crate::lint::FileSettings {
        no_inline_suppressions: args.no_inline_suppressions,
        levels: flag_levels(&args.select, &args.ignore)?,
        models,
    };
    let set_anchors = set.anchors.clone();
    let plan = project
        .plan(set, &base)
        .map_err(|e| super::config_error(ctx, e))?;
    // The baseline matches findings by their text.
    let keep_text =
        args.format == LintFormat::Human || args.baseline.is_some() || args.write_baseline;
    // Files `--fix` could not write: named once each by the fatal path.
    let mut fix_errors: Vec<String> = Vec::new();
    if args.fix || args.diff || args.unsafe_fixes {
        // What `--fix` / `--diff` did, over every host group.
        let mut tally = FixTally::default();
        for group in &plan.groups {
            let opts = plan.options(group, keep_text);
            fix_step(args, ctx, &set_anchors, &group.files, &opts, &mut tally);
        }
        fix_errors.append(&mut tally.failed);
        if let Some(status) = tally.finish(args.diff) {
            // `--diff` ends here: paths it could not look at are named too.
            fix_errors.extend(plan.walk_errors.iter().map(|e| {
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
    // With no path: which agents directories were linted, each for whom (said when
    // there is more than pi's one directory, where the summary's host says it all).
    let dirs_note = linted_dirs_note(ctx, &plan);
    let mut report = plan.lint(keep_text);
    if args.quiet {
        for f in &mut report.files {
            f.diagnostics
                .retain(|d| d.severity == crate::lint::Severity::Error);
        }
    }
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
    let mut text = render(format, &report, &render_opts);
    if let (Some(note), LintFormat::Human) = (&dirs_note, args.format) {
        text.push_str(note);
    }
    write_stdout(text.as_bytes()).context("cannot write to stdout")?;
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
/// the unsafe ones with `--unsafe-fixes`), reading and writing it through the
/// file set's trust anchors; `--diff` collects the diffs, `--fix` writes and says
/// what it fixed on stderr.
fn fix_step(
    args: &LintArgs,
    ctx: &Context,
    anchors: &crate::fs::Anchors,
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
            Outcome::NotRead(e) | Outcome::NotWritten(e) => {
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

/// `Linted .agents/agents/ (tintinweb@0.18) and .claude/agents/ (claude-code@2.1).`
/// when a run with no path covered more than one agents directory or another
/// host's directory; `None` otherwise.
fn linted_dirs_note(ctx: &Context, plan: &crate::project::LintPlan) -> Option<String> {
    let dirs = &plan.dirs;
    if dirs.is_empty() || (dirs.len() == 1 && dirs[0].host.is_none()) {
        return None;
    }
    let parts: Vec<String> = dirs
        .iter()
        .map(|d| {
            let profile = plan
                .groups
                .iter()
                .find(|g| g.files.iter().any(|f| f.starts_with(&d.path)))
                .map(|g| g.chosen.profile.label());
            let shown = crate::text::escape_line(&ctx.display_path(&d.path)).into_owned();
            match profile {
                Some(p) => format!("{shown}/ ({p})"),
                None => format!("{shown}/ (no role files)"),
            }
        })
        .collect();
    Some(format!("Linted {}.\n", parts.join(", ")))
}

/// `--select` / `--ignore` as rule levels: with `--select`, every rule not named is
/// off; `--ignore` turns its rules off. An unknown id is an error with a did-you-mean.
fn flag_levels(
    select: &[String],
    ignore: &[String],
) -> anyhow::Result<std::collections::BTreeMap<String, crate::lint::RuleLevel>> {
    use crate::lint::RuleLevel;
    use crate::lint::rules::{RULES, did_you_mean, find};
    for (flag, ids) in [("--select", select), ("--ignore", ignore)] {
        for id in ids {
            if find(id).is_none() {
                let hint = did_you_mean(id, RULES.iter().map(|r| r.id))
                    .map(|s| format!("did you mean `{s}`?"))
                    .unwrap_or_else(|| "`pwk rules` lists them".into());
                anyhow::bail!("{flag}: no rule `{}`; {hint}", crate::text::escape_line(id));
            }
        }
    }
    let mut levels = std::collections::BTreeMap::new();
    if !select.is_empty() {
        for r in RULES.iter() {
            if !select.iter().any(|s| s == r.id) {
                levels.insert(r.id.to_string(), RuleLevel::Off);
            }
        }
    }
    for id in ignore {
        levels.insert(id.clone(), RuleLevel::Off);
    }
    Ok(levels)
}
