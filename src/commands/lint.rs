//! Command glue for `pwk lint`: files from the flags, `pwk.toml` and the project;
//! `--fix`/`--diff`, the baseline, one render per format.

use anyhow::Context as _;

use crate::cli::{LintArgs, LintFormat};
use crate::display::{eprintln_safe, write_stdout};
use crate::lint::LintOptions;
use crate::lint::render::{RenderOptions, render};
use crate::project::FileRequest;
use crate::{Context, ExitStatus};

/// Width of human output: fixed, so output does not depend on the terminal.
const HUMAN_WIDTH: usize = 100;

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &LintArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    if args.statistics.is_some() && matches!(args.format(), LintFormat::Sarif | LintFormat::Github)
    {
        anyhow::bail!(
            "--statistics prints a table (`--format human` or `concise`) or a JSON document (`--format json`), not `--format {}`",
            if args.format() == LintFormat::Sarif {
                "sarif"
            } else {
                "github"
            }
        );
    }
    let status = lint(args, ctx)?;
    // `--exit-zero`: findings (and `--diff`'s changes) do not fail the run; pwk's
    // own failures still do (they are errors, returned above).
    Ok(
        if args.exit_zero.is_some() && status == ExitStatus::Failure {
            ExitStatus::Success
        } else {
            status
        },
    )
}

fn lint(args: &LintArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let stdin = stdin_requested(args)?;
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            host: args.host.as_ref(),
            config: args.config.file.as_deref(),
        },
    )?;
    let models = if args.check_models.is_some() {
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
        no_inline_suppressions: args.no_inline_suppressions.is_some(),
        levels: flag_levels(&args.select, &args.extend_select, &args.ignore)?,
        // A rule named on the command line is reported even where pwk.toml turns
        // it off (as ruff's command line beats its configuration).
        enable: args
            .select
            .iter()
            .chain(&args.extend_select)
            .cloned()
            .collect(),
        skills: Some(project.skill_places()),
        models,
    };
    if stdin {
        return run_stdin(args, ctx, &project, &base);
    }
    let rel = |e: crate::project::ProjectError| anyhow::anyhow!(e.relative_to(&ctx.cwd));
    let set = project
        .file_set(&FileRequest {
            paths: args.paths.clone(),
            recursive: args.recursive.is_some(),
            allow_empty: args.allow_empty.is_some(),
        })
        .map_err(rel)?;
    let set_anchors = set.anchors.clone();
    let set_named_by = set.named_by.clone();
    let plan = project
        .plan(set, &base)
        .map_err(|e| super::config_error(ctx, e))?;
    // The baseline matches findings by their text.
    let files: Vec<std::path::PathBuf> = plan
        .groups
        .iter()
        .flat_map(|g| g.files.iter().cloned())
        .collect();
    let baselines = baselines(args, ctx, &project, &files)?;
    let any_baseline = baselines.iter().any(|(b, _)| b.is_some());
    // Human output shows the source; SARIF fingerprints and the baseline hash the
    // flagged text.
    let keep_text = matches!(args.format(), LintFormat::Human | LintFormat::Sarif)
        || any_baseline
        || args.write_baseline.is_some();
    // Files `--fix` could not write: named once each by the fatal path.
    let mut fix_errors: Vec<String> = Vec::new();
    if args.fix.is_some() || args.diff.is_some() || args.unsafe_fixes.is_some() {
        // What `--fix` / `--diff` did, over every host group.
        let mut tally = FixTally::default();
        for group in &plan.groups {
            let opts = plan.options(group, keep_text);
            let place = (&set_anchors, &set_named_by);
            fix_step(args, ctx, place, &group.files, &opts, &mut tally);
        }
        fix_errors.append(&mut tally.failed);
        if let Some(status) = tally.finish(args.diff.is_some()) {
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
    if args.quiet.is_some() {
        quiet(&mut report);
    }
    for (baseline, files) in &baselines {
        if baseline.is_none() && args.write_baseline.is_none() {
            continue;
        }
        // Each baseline over the files it covers.
        let covered: std::collections::HashSet<&std::path::Path> =
            files.iter().map(|f| f.as_path()).collect();
        let (mine, rest) = std::mem::take(&mut report.files)
            .into_iter()
            .partition(|f| covered.contains(f.path.as_path()));
        report.files = rest;
        let mut part = crate::lint::LintReport {
            files: mine,
            ..crate::lint::LintReport::default()
        };
        let stepped = baseline_step(
            args,
            ctx,
            baseline.as_ref(),
            &project.root,
            &mut part,
            false,
        );
        report.files.append(&mut part.files);
        stepped?;
    }
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    // The documents, and GitHub's annotations (stderr is no annotation), keep it.
    let documents = matches!(
        args.format(),
        LintFormat::Json | LintFormat::Sarif | LintFormat::Github
    );
    if !documents {
        said_by_the_fatal_path(&mut report);
    }
    let mut text = render_report(args, ctx, &report, ctx.color_stdout);
    if let (Some(note), LintFormat::Human | LintFormat::Concise, false) =
        (&dirs_note, args.format(), args.quiet.is_some())
    {
        text.push_str(note);
    }
    say_decisions(args, ctx, &report);
    say_newer_hosts(args, ctx, &report);
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
    Ok(exit_status(args, &report))
}

/// What `--host auto` decided and why, one line per decision, on stderr (as cargo
/// and ruff say what they did beside their output): for the human, concise and
/// github formats; JSON and SARIF carry it as data (`host.decisions`,
/// `properties.hostDecisions`). `--quiet` keeps it quiet.
fn say_decisions(args: &LintArgs, ctx: &Context, report: &crate::lint::LintReport) {
    if args.quiet.is_some() || matches!(args.format(), LintFormat::Json | LintFormat::Sarif) {
        return;
    }
    let show = |p: &std::path::Path| shown(ctx, p);
    let opts = RenderOptions {
        show_path: &show,
        color: false,
        width: HUMAN_WIDTH,
        summary: false,
    };
    for line in crate::lint::render::decision_lines(report, &opts) {
        eprintln_safe(&line);
    }
}

/// A host of the run installed here at a version newer than pwk's facts about it:
/// said once per host on stderr (not with `--quiet`).
fn say_newer_hosts(args: &LintArgs, ctx: &Context, report: &crate::lint::LintReport) {
    if args.quiet.is_some() {
        return;
    }
    let detected: Vec<crate::host::Found> = report
        .decisions
        .iter()
        .flat_map(|d| d.detection.found.iter().cloned())
        .collect();
    let profiles = std::iter::once(report.host.as_str())
        .chain(report.decisions.iter().map(|d| d.profile.as_str()));
    for line in
        crate::verify::installed::newer_than_facts(profiles, &detected, ctx.env.path.as_ref())
    {
        eprintln_safe(&format!("pwk: note: {line}"));
    }
}

/// 1 when errors remain (or warnings, with `--deny-warnings`), else 0.
fn exit_status(args: &LintArgs, report: &crate::lint::LintReport) -> ExitStatus {
    let (errors, warnings) = report.counts();
    if errors > 0 || (args.deny_warnings.is_some() && warnings > 0) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

/// A file pwk could not read is named once, by the fatal path (`pwk: error: cannot
/// read …`, exit 2): in the formats people read, not also as an `unreadable-file`
/// finding and a file in the summary. The documents (JSON, SARIF) and GitHub's
/// annotations keep the finding, so every finding count includes it.
fn said_by_the_fatal_path(report: &mut crate::lint::LintReport) {
    if report.failures.is_empty() {
        return;
    }
    let failed: std::collections::HashSet<std::path::PathBuf> =
        report.failures.iter().map(|f| f.path.clone()).collect();
    let unreadable = crate::lint::rules::unreadable_file::RULE.id;
    for f in &mut report.files {
        if failed.contains(&f.path) {
            f.diagnostics.retain(|d| d.rule != unreadable);
        }
    }
    report.files.retain(|f| {
        !(failed.contains(&f.path) && f.diagnostics.is_empty() && f.suppressed.is_empty())
    });
}

/// `--quiet`: errors only.
fn quiet(report: &mut crate::lint::LintReport) {
    for f in &mut report.files {
        f.diagnostics
            .retain(|d| d.severity == crate::lint::Severity::Error);
    }
}

/// The report in the chosen format. The text read from stdin without
/// `--stdin-filename` (linted as a nameless file) is shown as `<stdin>`.
fn render_report(
    args: &LintArgs,
    ctx: &Context,
    report: &crate::lint::LintReport,
    color: bool,
) -> String {
    let show = |p: &std::path::Path| {
        if p.as_os_str().is_empty() {
            STDIN_NAME.to_string()
        } else {
            shown(ctx, p)
        }
    };
    let render_opts = RenderOptions {
        show_path: &show,
        color,
        width: HUMAN_WIDTH,
        // `--quiet` prints the findings and nothing else; with no file linted (each
        // path unreadable, said once by the fatal path), there is nothing to sum up.
        summary: args.quiet.is_none() && (!report.files.is_empty() || report.failures.is_empty()),
    };
    if args.statistics.is_some() {
        use crate::lint::render::statistics;
        return match args.format() {
            LintFormat::Json => statistics::render_json(report),
            _ => statistics::render_human(report, &render_opts),
        };
    }
    let format = match args.format() {
        LintFormat::Human => crate::lint::render::Format::Human,
        LintFormat::Concise => crate::lint::render::Format::Concise,
        LintFormat::Json => crate::lint::render::Format::Json,
        LintFormat::Sarif => crate::lint::render::Format::Sarif,
        LintFormat::Github => crate::lint::render::Format::Github,
    };
    render(format, report, &render_opts)
}

/// A path as the report shows it: relative to the current directory, which is `.`.
fn shown(ctx: &Context, p: &std::path::Path) -> String {
    if p == ctx.cwd {
        ".".to_string()
    } else {
        ctx.display_path(p)
    }
}

/// How the text read from stdin is named without `--stdin-filename`.
const STDIN_NAME: &str = "<stdin>";

/// Whether this run reads one role from stdin: the path `-`, or
/// `--stdin-filename` with no path. `-` stands alone.
fn stdin_requested(args: &LintArgs) -> anyhow::Result<bool> {
    let dash = args.paths.iter().any(|p| p.as_os_str() == "-");
    if dash && args.paths.len() > 1 {
        anyhow::bail!(
            "`-` reads one role from stdin and stands alone; lint the other paths in another run"
        );
    }
    if args.stdin_filename.is_some() && !dash && !args.paths.is_empty() {
        anyhow::bail!(
            "--stdin-filename names the text read from stdin; pass `-` instead of paths (`pwk lint - --stdin-filename PATH`)"
        );
    }
    let stdin = dash || args.stdin_filename.is_some();
    if stdin && args.write_baseline.is_some() {
        anyhow::bail!(
            "--write-baseline records every finding of the project; it does not take `-` (stdin). Run `pwk lint --write-baseline` on the files"
        );
    }
    Ok(stdin)
}

/// `pwk lint -`: one role read from stdin (the role file's size cap), linted as
/// the file `--stdin-filename` names (its host, its configuration, its name in the
/// report), else as a nameless file in the current directory. A file named so is
/// linted even if `exclude` lists it, as any file named on the command line.
/// With `--fix`, the fixed text goes to stdout and the findings that remain to
/// stderr (as ruff does); with `--diff`, the diff to stdout.
#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
fn run_stdin(
    args: &LintArgs,
    ctx: &Context,
    project: &crate::project::Project,
    base: &crate::lint::FileSettings,
) -> anyhow::Result<ExitStatus> {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        eprintln_safe("pwk lint: reading a role from stdin (end it with Ctrl-D)");
    }
    let bytes = match crate::fs::read_stream(std::io::stdin().lock(), crate::fs::Kind::Role) {
        Ok(b) => b,
        Err(crate::fs::ReadError::TooLarge { kind, .. }) => anyhow::bail!(
            "stdin holds more than {} bytes, the limit for a {}",
            kind.cap(),
            kind.noun()
        ),
        Err(e) => anyhow::bail!("cannot read stdin: {e}"),
    };
    // The file the text stands for: it decides the configuration and the host.
    let (file, reported) = match &args.stdin_filename {
        Some(p) => {
            let abs = std::path::absolute(ctx.cwd.join(p)).unwrap_or_else(|_| ctx.cwd.join(p));
            (abs.clone(), abs)
        }
        None => (ctx.cwd.join(STDIN_NAME), std::path::PathBuf::new()),
    };
    let set = crate::project::FileSet {
        files: vec![file.clone()],
        ..Default::default()
    };
    let plan = project
        .plan(set, base)
        .map_err(|e| super::config_error(ctx, e))?;
    let group = &plan.groups[0];
    // The settings of `file`, for the text reported as `reported`.
    let settings = plan.settings.0(&file);
    let mut opts = plan.options(group, true);
    opts.settings = Some(crate::lint::SettingsSource(std::sync::Arc::new({
        let settings = settings.clone();
        move |_: &std::path::Path| settings.clone()
    })));
    let shown = if reported.as_os_str().is_empty() {
        STDIN_NAME.to_string()
    } else {
        ctx.display_path(&reported)
    };
    let mut text = bytes;
    let mut fixed_out = None;
    if args.fix.is_some() || args.diff.is_some() || args.unsafe_fixes.is_some() {
        use crate::lint::fix::{Applicability, fix_text};
        let Ok(original) = std::str::from_utf8(&text) else {
            anyhow::bail!(
                "`{}` is not UTF-8 text; nothing to fix",
                crate::text::escape_line(&shown)
            );
        };
        let applicability = if args.unsafe_fixes.is_some() {
            Applicability::All
        } else {
            Applicability::Safe
        };
        // The host the text is for, decided once on the text as given.
        let profile = opts
            .profile_for()
            .resolve(&crate::role::RoleDoc::parse(&reported, original.as_bytes()))
            .0;
        let fixed = fix_text(original, applicability, |t| {
            crate::lint::lint_text(&reported, t, profile, &settings)
        });
        let n = fixed.applied.len();
        let changed = usize::from(fixed.text != original);
        if args.diff.is_some() {
            let diff = crate::lint::rewrite::unified_diff(original, &fixed.text, &shown);
            write_stdout(crate::text::escape_block(&diff).as_bytes())
                .context("cannot write to stdout")?;
            eprintln_safe(&format!(
                "pwk: {n} fix{} would change {changed} file{}; nothing was written",
                if n == 1 { "" } else { "es" },
                if changed == 1 { "" } else { "s" }
            ));
            return Ok(if changed > 0 {
                ExitStatus::Failure
            } else {
                ExitStatus::Success
            });
        }
        if n > 0 {
            eprintln_safe(&format!(
                "pwk: fixed `{}`: {}",
                crate::text::escape_line(&shown),
                crate::text::escape_line(&fixed.applied.join("; "))
            ));
        }
        text = fixed.text.clone().into_bytes();
        fixed_out = Some(fixed.text);
    }
    let mut report = crate::lint::lint_text_report(&reported, text, &opts);
    if args.quiet.is_some() {
        quiet(&mut report);
    }
    // `baseline` of the configuration that governs the named file.
    let dir = file.parent().unwrap_or(&ctx.cwd).to_path_buf();
    if let Some(baseline) = baseline_file(args, ctx, project, &dir)? {
        // One file against the project's baseline: the other files' entries are
        // not stale.
        let one_file = true;
        baseline_step(
            args,
            ctx,
            Some(&baseline),
            &project.root,
            &mut report,
            one_file,
        )?;
    }
    say_decisions(args, ctx, &report);
    match fixed_out {
        // The fixed text on stdout, raw when it goes to a file or a pipe (it is the
        // file); escaped when stdout is a terminal, which must never get a role's
        // control characters raw. The findings on stderr.
        Some(fixed) => {
            use std::io::IsTerminal;
            let out = if std::io::stdout().is_terminal() {
                crate::text::escape_block(&fixed)
            } else {
                std::borrow::Cow::Borrowed(fixed.as_str())
            };
            write_stdout(out.as_bytes()).context("cannot write to stdout")?;
            let rendered = render_report(args, ctx, &report, false);
            let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), rendered.as_bytes());
        }
        None => {
            let rendered = render_report(args, ctx, &report, ctx.color_stdout);
            write_stdout(rendered.as_bytes()).context("cannot write to stdout")?;
        }
    }
    Ok(exit_status(args, &report))
}

/// The baseline a run reports against, and where the configuration named it.
struct BaselineFile {
    /// As given to `--baseline`, or the configuration's, shown from the current
    /// directory.
    path: std::path::PathBuf,
    /// `file:line:col` of `baseline` in the configuration (`None`: the flag).
    set_at: Option<String>,
}

/// The baseline this run reports against: `--baseline FILE`, else `baseline` in
/// the configuration that governs `dir` (relative to the file that declares it);
/// `None` when neither names one.
fn baseline_file(
    args: &LintArgs,
    ctx: &Context,
    project: &crate::project::Project,
    dir: &std::path::Path,
) -> anyhow::Result<Option<BaselineFile>> {
    if let Some(b) = &args.baseline {
        return Ok(Some(BaselineFile {
            path: b.clone(),
            set_at: None,
        }));
    }
    let config = project
        .config_for(dir)
        .map_err(|e| super::config_error(ctx, e))?;
    Ok(config.and_then(|c| {
        c.baseline().map(|b| BaselineFile {
            path: std::path::PathBuf::from(ctx.display_path(&b.value)),
            set_at: Some(match &b.origin {
                crate::config::Origin::File { path, line, column } => {
                    format!("{}:{line}:{column}", ctx.display_path(path))
                }
                other => other.to_string(),
            }),
        })
    }))
}

/// The baselines of a run, each with the files it covers: `--baseline FILE`
/// covers every file; else each file is reported against `baseline` of the
/// configuration that governs it (N20), as `pwk lint - --stdin-filename FILE` and
/// `pwk config FILE` take it, wherever the run starts. Files without one form the
/// `None` group (`--write-baseline` writes them to `pwk-baseline.json`). No file:
/// the configuration of the current directory.
type Baselines = Vec<(Option<BaselineFile>, Vec<std::path::PathBuf>)>;

fn baselines(
    args: &LintArgs,
    ctx: &Context,
    project: &crate::project::Project,
    files: &[std::path::PathBuf],
) -> anyhow::Result<Baselines> {
    if files.is_empty() {
        return Ok(vec![(
            baseline_file(args, ctx, project, &project.cwd)?,
            Vec::new(),
        )]);
    }
    let mut by_dir: std::collections::HashMap<&std::path::Path, Option<std::path::PathBuf>> =
        std::collections::HashMap::new();
    let mut out: Baselines = Vec::new();
    for f in files {
        let dir = crate::fs::dir_of(f);
        let key = match by_dir.get(dir) {
            Some(k) => k.clone(),
            None => {
                let b = baseline_file(args, ctx, project, dir)?;
                let key = b.as_ref().map(|b| b.path.clone());
                if !out
                    .iter()
                    .any(|(o, _)| o.as_ref().map(|o| &o.path) == key.as_ref())
                {
                    out.push((b, Vec::new()));
                }
                by_dir.insert(dir, key.clone());
                key
            }
        };
        let group = out
            .iter_mut()
            .find(|(o, _)| o.as_ref().map(|o| &o.path) == key.as_ref())
            .expect("added above");
        group.1.push(f.clone());
    }
    Ok(out)
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
#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
fn fix_step(
    args: &LintArgs,
    ctx: &Context,
    (anchors, by): (&crate::fs::Anchors, &crate::fs::NamedBy),
    files: &[std::path::PathBuf],
    opts: &LintOptions,
    tally: &mut FixTally,
) {
    use crate::lint::fix::Applicability;
    use crate::lint::rewrite::{Mode, Outcome, fix_file};
    let applicability = if args.unsafe_fixes.is_some() {
        Applicability::All
    } else {
        Applicability::Safe
    };
    let mode = if args.diff.is_some() {
        Mode::Diff
    } else {
        Mode::Write
    };
    for path in files {
        let shown = ctx.display_path(path);
        let out = fix_file(
            path,
            anchors,
            by,
            opts.profile_for(),
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
/// `one_file` (stdin): entries of other files are not named as stale.
fn baseline_step(
    args: &LintArgs,
    ctx: &Context,
    baseline: Option<&BaselineFile>,
    root: &std::path::Path,
    report: &mut crate::lint::LintReport,
    one_file: bool,
) -> anyhow::Result<()> {
    use crate::fs::{Kind, NamedBy, NoHooks, Replace, WriteOptions};
    use crate::lint::baseline::Baseline;
    let path = baseline
        .map(|b| b.path.clone())
        .unwrap_or_else(|| std::path::PathBuf::from("pwk-baseline.json"));
    let set_at = baseline
        .and_then(|b| b.set_at.as_deref())
        .map(|at| format!(" (`baseline` at {})", crate::text::escape_line(at)))
        .unwrap_or_default();
    // The directory the entries are relative to: the baseline file's, resolved.
    let abs = crate::fs::canonical_dir_path(&ctx.cwd, &path);
    let dir = abs
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let shown = ctx.display_path(&path);
    let exists = std::fs::symlink_metadata(&abs).is_ok();
    let old = if exists || args.write_baseline.is_none() {
        Some(Baseline::read(&path).map_err(|e| {
            anyhow::anyhow!(
                "{e}{set_at}{}",
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
    if args.write_baseline.is_some() {
        // Every current finding, those the old baseline hid included.
        let new = Baseline::of(report, &dir);
        let text = new.to_json();
        // The one confinement rule (`crate::fs`): a `--baseline FILE` is the user's
        // choice; the configuration's `baseline` stays in the project.
        let (named, by) = match baseline {
            Some(BaselineFile { set_at: None, .. }) => (
                vec![ctx.cwd.join(&path)],
                NamedBy::User("--baseline".into()),
            ),
            Some(BaselineFile {
                set_at: Some(at), ..
            }) => (
                Vec::new(),
                NamedBy::Config {
                    key: "baseline",
                    at: at.clone(),
                    help: Some(
                        "name a file in the project, or choose one with `--baseline FILE`".into(),
                    ),
                },
            ),
            None => (Vec::new(), NamedBy::Pwk),
        };
        let anchors = crate::fs::Anchors::new(&ctx.cwd, root, &named);
        let hooks = &mut NoHooks;
        let (handle, name) = anchors
            .open_parent(&ctx.cwd.join(&path), &by, true, hooks)?
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
        if stale > 0 && !one_file {
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

/// `--select` / `--extend-select` / `--ignore` as rule levels: with `--select`,
/// every rule not named by it or `--extend-select` is off; `--ignore` turns its
/// rules off. An unknown id is an error with a did-you-mean.
fn flag_levels(
    select: &[String],
    extend_select: &[String],
    ignore: &[String],
) -> anyhow::Result<std::collections::BTreeMap<String, crate::lint::RuleLevel>> {
    use crate::lint::RuleLevel;
    use crate::lint::rules::{RULES, lookup};
    for (flag, ids) in [
        ("--select", select),
        ("--extend-select", extend_select),
        ("--ignore", ignore),
    ] {
        for id in ids {
            if let Err(e) = lookup(id) {
                let hint = e.help("`pwk rules` lists them");
                anyhow::bail!("{flag}: no rule `{}`; {hint}", crate::text::escape_line(id));
            }
        }
    }
    let mut levels = std::collections::BTreeMap::new();
    if !select.is_empty() {
        for r in RULES.iter() {
            if !select.iter().chain(extend_select).any(|s| s == r.id) {
                levels.insert(r.id.to_string(), RuleLevel::Off);
            }
        }
    }
    for id in ignore {
        levels.insert(id.clone(), RuleLevel::Off);
    }
    Ok(levels)
}
