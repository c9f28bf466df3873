//! Command glue for `pwk convert`: the files, the source host per file, writing,
//! the report, the exit status. The conversion itself is `crate::convert`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde_json::json;

use crate::cli::{ConvertArgs, Format};
use crate::convert::{
    Conversion, ConvertOptions, ConvertOrSettingsError, Destination, Outcome, WriteResult, Written,
    convert_to, write,
};
use crate::display::write_stdout;
use crate::host::{HostChoice, HostProfile, detect_from_paths};
use crate::lint::{Severity, collect_files};
use crate::project::Project;
use crate::role::RoleDoc;
use crate::text::escape_line;
use crate::{Context, ExitStatus};

impl Done {
    /// Converted, but nothing is on disk for it: the write was refused (a symbolic
    /// or hard link, a directory there) or a different file was kept (no `--force`).
    /// A file that would widen is not written either, and is counted on its own.
    fn refused_write(&self) -> bool {
        (self.write_error.is_some() && self.conversion.widening().next().is_none())
            || self
                .write
                .as_ref()
                .is_some_and(|w| w.written == Written::Kept)
    }
}

/// `--model-map` pairs as one map. A model mapped twice to different names is an
/// error: the last one never wins silently (the same pair twice is harmless).
fn model_map(
    pairs: &[(String, String)],
) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    let mut map = std::collections::BTreeMap::new();
    for (from, to) in pairs {
        if let Some(old) = map.insert(from.clone(), to.clone())
            && old != *to
        {
            anyhow::bail!(
                "--model-map `{}` is given twice (`{}`, then `{}`); map each model once",
                escape_line(&crate::text::clip(from)),
                escape_line(&crate::text::clip(&old)),
                escape_line(&crate::text::clip(to))
            );
        }
    }
    Ok(map)
}

struct Done {
    conversion: Conversion,
    write: Option<WriteResult>,
    write_error: Option<String>,
    /// The write was tried and failed (exit 2).
    write_failed: bool,
    /// Why this source host.
    from_reason: String,
}

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &ConvertArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let to = args.to.profile()?;
    let model_map = model_map(&args.model_map)?;
    let paths: Vec<PathBuf> = args.paths.iter().map(|p| ctx.cwd.join(p)).collect();
    let files = files_to_convert(args, &paths, ctx)?;
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            config: args.config.file.as_deref(),
            ..Default::default()
        },
    )?;
    let dest = match (&args.out, args.in_place) {
        (Some(d), _) => Destination::Dir(ctx.cwd.join(d)),
        (None, true) => Destination::InPlace,
        // --dry-run without a destination: report as if next to the source.
        (None, false) => Destination::InPlace,
    };
    // Where files are written from (see `crate::fs`): the project root for paths
    // in the project, else the directory named by --out or by the paths given.
    let mut named = paths.clone();
    if let Destination::Dir(d) = &dest {
        named.push(d.clone());
    }
    let batch = Batch {
        args,
        ctx,
        project: &project,
        opts: ConvertOptions { to, model_map },
        anchors: crate::fs::Anchors::new(&ctx.cwd, &project.root, &named),
        dest,
    };
    let mut done: Vec<Done> = Vec::new();
    // Files that could not be converted: named once each after the report of the
    // others. A file its own host cannot load is refused (exit 1); anything else
    // (unreadable, no source host, two files to one target) is an error (exit 2).
    let mut errors: Vec<String> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    // The outputs so far, asked once per file (a set: a directory of n files is n
    // lookups, not n² path comparisons).
    let mut targets: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    for file in &files {
        match batch.one(file, &mut targets) {
            Ok(d) => done.push(d),
            Err(NotConverted::Refused(r)) => refused.push(r),
            Err(NotConverted::Error(e)) => errors.push(e),
        }
    }
    let not_converted: Vec<String> = refused.iter().chain(&errors).cloned().collect();
    let text = match args.format {
        // Nothing converted: no report, only the errors (no success summary).
        Format::Human if done.is_empty() => String::new(),
        Format::Human => human(&done, to, ctx, not_converted.len()),
        Format::Json => format!(
            "{}\n",
            crate::text::json_escape_controls(serde_json::to_string_pretty(&doc_json(
                &done,
                to,
                ctx,
                &not_converted
            ))?)
        ),
    };
    write_stdout(text.as_bytes()).context("cannot write to stdout")?;
    if !errors.is_empty() {
        anyhow::bail!("{}", not_converted.join("\n  "));
    }
    for r in &refused {
        crate::display::eprintln_safe(&format!("pwk: not converted: {r}"));
    }
    Ok(exit_status(&done, !refused.is_empty()))
}

/// The `*.md` files the paths name (an error when there are none).
fn files_to_convert(
    args: &ConvertArgs,
    paths: &[PathBuf],
    ctx: &Context,
) -> anyhow::Result<Vec<PathBuf>> {
    let collected = collect_files(paths, args.recursive);
    if let Some(e) = collected.errors.first() {
        anyhow::bail!(
            "cannot convert `{}`: {}",
            escape_line(&ctx.display_path(e.path())),
            e.reason()
        );
    }
    if collected.files.is_empty() {
        anyhow::bail!(
            "nothing to convert: no `*.md` file in {}{}",
            args.paths
                .iter()
                .map(|p| format!("`{}`", escape_line(&p.display().to_string())))
                .collect::<Vec<_>>()
                .join(", "),
            if args.recursive {
                ""
            } else {
                " (use --recursive to look in subdirectories)"
            }
        );
    }
    Ok(collected.files)
}

/// 2 when a write failed; 1 when a converted file has lint errors, a different
/// file was kept, the output would widen or needs a decision, or a file was
/// refused; else 0.
fn exit_status(done: &[Done], refused: bool) -> ExitStatus {
    let failed = done.iter().any(|d| d.write_failed);
    let lint_failed = done
        .iter()
        .any(|d| d.conversion.lint_errors().next().is_some());
    let kept = done
        .iter()
        .any(|d| d.write.as_ref().is_some_and(|w| w.written == Written::Kept));
    let widens = done
        .iter()
        .any(|d| d.conversion.widening().next().is_some());
    // A decision (a restriction the target cannot say, a model it cannot name, …)
    // leaves the output short of the source until the user decides.
    let decide = done
        .iter()
        .any(|d| d.conversion.limiting().next().is_some());
    if failed {
        ExitStatus::Error
    } else if lint_failed || kept || widens || decide || refused {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

/// A file that was not converted: refused because its own host cannot load it
/// (exit 1), or an error (exit 2). The text names the file.
enum NotConverted {
    Refused(String),
    Error(String),
}

/// What every file of one `convert` shares.
struct Batch<'a> {
    args: &'a ConvertArgs,
    ctx: &'a Context,
    project: &'a Project,
    opts: ConvertOptions,
    dest: Destination,
    anchors: crate::fs::Anchors,
}

impl Batch<'_> {
    /// Convert one file, lint the output where it would go, and write it unless
    /// this is a dry run or the output would widen. `targets` holds the outputs so
    /// far (two files to one target is an error).
    fn one(
        &self,
        file: &Path,
        targets: &mut std::collections::HashSet<PathBuf>,
    ) -> Result<Done, NotConverted> {
        let (args, ctx, project) = (self.args, self.ctx, self.project);
        let shown = ctx.display_path(file);
        let (from, from_reason) = source_host(&args.from, file, project, ctx)
            .map_err(|msg| NotConverted::Error(format!("`{}`: {msg}", escape_line(&shown))))?;
        let bytes = crate::fs::read::read_role_file(file).map_err(|e| {
            NotConverted::Error(format!("cannot read `{}`: {e}", escape_line(&shown)))
        })?;
        let doc = RoleDoc::parse(file.to_path_buf(), &bytes);
        // The output is linted at its destination with the configuration that
        // governs that path (its rule levels and overrides), as `pwk lint` would.
        let settings_at = |at: &Path| project.resolve_file(at).map(|r| r.settings());
        let conversion = match convert_to(&doc, from, &self.opts, &self.dest, settings_at) {
            Ok(c) => c,
            Err(ConvertOrSettingsError::Convert(e)) => {
                let e = e.shown_as(PathBuf::from(&shown));
                return Err(NotConverted::Refused(
                    escape_line(&e.to_string()).into_owned(),
                ));
            }
            Err(ConvertOrSettingsError::Settings(e)) => {
                return Err(NotConverted::Error(
                    escape_line(&e.relative_to(&ctx.cwd).to_string()).into_owned(),
                ));
            }
        };
        let target = crate::convert::target_path(&conversion, &self.dest);
        if targets.contains(&target) {
            return Err(NotConverted::Error(format!(
                "`{}` and an earlier file both convert to `{}`; convert them separately or rename one",
                escape_line(&shown),
                escape_line(&ctx.display_path(&target))
            )));
        }
        targets.insert(target);
        let mut write_failed = false;
        let (write_result, write_error) = if args.out.is_none() && !args.in_place {
            // --dry-run with no destination.
            (None, None)
        } else if conversion.widening().next().is_some() {
            // Never written: the host would load it and grant more than the source.
            (
                None,
                Some("it would let the role do more than the source role (see `decide`)".into()),
            )
        } else {
            match write(
                &conversion,
                &self.dest,
                &self.anchors,
                args.force,
                args.dry_run,
            ) {
                Ok(w) => (Some(w), None),
                Err(e) => {
                    write_failed = true;
                    (None, Some(e.to_string()))
                }
            }
        };
        Ok(Done {
            conversion,
            write: write_result,
            write_error,
            write_failed,
            from_reason,
        })
    }
}

fn source_host(
    choice: &HostChoice,
    file: &Path,
    project: &Project,
    ctx: &Context,
) -> Result<(&'static HostProfile, String), String> {
    if let HostChoice::Spec(spec) = choice {
        return Ok((spec.profile().map_err(|e| e.to_string())?, "--from".into()));
    }
    // The file's place first (a host's own directory, a plugin's agents), however
    // the path was spelled, as `lint` decides it.
    let place = detect_from_paths(&[file.to_path_buf()])
        .or_else(|| project.detect_place(crate::fs::dir_of(file)));
    if let Some(d) = place {
        let reason = d
            .reason_from(&ctx.cwd)
            .replace("`--host H` to choose", "`--from H` to choose");
        return Ok((d.spec.profile().map_err(|e| e.to_string())?, reason));
    }
    let configured = project
        .resolve_file(file)
        .map_err(|e| e.relative_to(&ctx.cwd).to_string())?
        .host;
    // `host = "pwk"` names no host the file is written for: pi's settings decide.
    if let HostChoice::Spec(spec) = &configured.value
        && let Ok(profile) = spec.profile()
        && !profile.is_portable()
    {
        let reason = format!(
            "`host` in the configuration ({}); `--from H` to choose",
            crate::project::describe_origin(&configured.origin, &ctx.cwd)
        );
        return Ok((profile, reason));
    }
    let chosen = choice.resolve(&project.root, ctx.env.agent_dir().as_deref());
    if chosen.profile.is_portable() {
        return Err(
            "cannot tell which host it is written for (it is not under a host's own directory such as `.claude/agents/`, and pi's settings name no single subagent host); pass `--from HOST`"
                .into(),
        );
    }
    let reason = chosen
        .detection
        .map(|d| d.reason_from(&ctx.cwd))
        .unwrap_or_else(|| "--from".into());
    Ok((chosen.profile, reason))
}

fn outcome_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Converted => "converted",
        Outcome::Dropped => "dropped",
        Outcome::Decision => "decide",
    }
}

fn written_word(w: &Option<WriteResult>, err: &Option<String>) -> String {
    if let Some(e) = err {
        return format!("NOT WRITTEN: {e}");
    }
    match w.as_ref().map(|w| &w.written) {
        None | Some(Written::DryRun) => "dry run, not written".into(),
        Some(Written::Created) => "created".into(),
        Some(Written::Replaced) => "replaced".into(),
        Some(Written::Unchanged) => "unchanged".into(),
        Some(Written::Kept) => {
            "NOT WRITTEN: a different file is there (--force replaces it, keeping a .bak)".into()
        }
    }
}

fn human(done: &[Done], to: &HostProfile, ctx: &Context, not_converted: usize) -> String {
    let mut out = String::new();
    let (mut dropped, mut decide, mut lint_bad, mut widen, mut limiting) = (0, 0, 0, 0, 0);
    for d in done {
        let c = &d.conversion;
        let target = d
            .write
            .as_ref()
            .map(|w| ctx.display_path(&w.path))
            .unwrap_or_else(|| c.file_name.clone());
        out.push_str(&format!(
            "{} ({}) → {} ({}): {}\n",
            escape_line(&ctx.display_path(&c.source)),
            c.from,
            escape_line(&target),
            c.to,
            escape_line(&written_word(&d.write, &d.write_error)),
        ));
        if let Some(b) = d.write.as_ref().and_then(|w| w.backup.as_ref()) {
            out.push_str(&format!(
                "  backup     {}\n",
                escape_line(&ctx.display_path(b))
            ));
        }
        if d.from_reason != "--from" {
            out.push_str(&format!("  from       {}\n", escape_line(&d.from_reason)));
        }
        let as_written: Vec<&str> = c
            .items
            .iter()
            .filter(|i| i.outcome == Outcome::Converted && i.note == "as written")
            .map(|i| i.key.as_str())
            .collect();
        if !as_written.is_empty() {
            out.push_str(&format!(
                "  kept       {}\n",
                escape_line(&as_written.join(", "))
            ));
        }
        // Renamed list entries on one line: `Read → read, Glob → find`.
        let mut renamed: Vec<(String, Vec<String>)> = Vec::new();
        for i in &c.items {
            if let (Outcome::Converted, Some((key, entry)), Some(to)) =
                (&i.outcome, i.key.split_once(": "), &i.to)
                && i.note != "as written"
            {
                let mut pair = format!("{entry} → {to}");
                if let Some((_, rest)) = i.note.split_once("also grants pi's ") {
                    let more = rest.split(')').next().unwrap_or_default();
                    pair.push_str(&format!(" (also {more})"));
                }
                match renamed.iter_mut().find(|(k, _)| k == key) {
                    Some((_, v)) => v.push(pair),
                    None => renamed.push((key.to_string(), vec![pair])),
                }
            }
        }
        for (key, pairs) in &renamed {
            out.push_str(&format!(
                "  {:<10} {}: {}\n",
                "converted",
                escape_line(key),
                escape_line(&pairs.join(", "))
            ));
        }
        let listed = |i: &&crate::convert::Item| {
            !(i.outcome == Outcome::Converted
                && (i.note == "as written" || (i.key.contains(": ") && i.to.is_some())))
        };
        for i in c.items.iter().filter(listed) {
            out.push_str(&format!(
                "  {:<10} {}: {}\n",
                outcome_word(&i.outcome),
                escape_line(&i.key),
                escape_line(&i.note)
            ));
        }
        dropped += c.count(Outcome::Dropped);
        decide += c.count(Outcome::Decision);
        if c.widening().next().is_some() {
            widen += 1;
        } else if c.limiting().next().is_some() {
            limiting += 1;
        }
        let errors = c.lint_errors().count();
        let warnings = c
            .lint
            .iter()
            .filter(|x| x.severity == Severity::Warning)
            .count();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        if errors == 0 && warnings == 0 {
            out.push_str(&format!("  lint       clean for {}\n", c.to));
        } else {
            if errors == 0 {
                out.push_str(&format!(
                    "  lint       clean for {} ({warnings} warning{}):\n",
                    c.to,
                    plural(warnings)
                ));
            } else {
                lint_bad += 1;
                out.push_str(&format!(
                    "  lint       FAILS for {}: {errors} error{}{}:\n",
                    c.to,
                    plural(errors),
                    if warnings > 0 {
                        format!(", {warnings} warning{}", plural(warnings))
                    } else {
                        String::new()
                    }
                ));
            }
            // Every remaining finding, named: errors first.
            let mut findings: Vec<_> = c.lint.iter().collect();
            findings.sort_by_key(|x| (x.severity != Severity::Error, x.start.line));
            for e in findings {
                out.push_str(&format!(
                    "    line {}: {}[{}] {}\n",
                    e.start.line,
                    e.severity.as_str(),
                    e.rule,
                    escape_line(&e.message)
                ));
            }
        }
    }
    // A file whose write was refused is summed up as not written (N32).
    let unwritten = done.iter().filter(|d| d.refused_write()).count();
    let plural = if done.len() == 1 { "" } else { "s" };
    let converted = match unwritten {
        0 => format!("{} file{plural} converted to {}", done.len(), to.label()),
        n if n == done.len() => format!(
            "{n} file{plural} converted to {} but NOT WRITTEN (see above)",
            to.label()
        ),
        n => format!(
            "{} file{plural} converted to {}, {n} of them NOT WRITTEN (see above)",
            done.len(),
            to.label()
        ),
    };
    out.push_str(&format!(
        "\n{converted}: {} lint clean, {} still failing; {} item{} dropped, {} need{} a decision.\n",
        done.len() - lint_bad,
        lint_bad,
        dropped,
        if dropped == 1 { "" } else { "s" },
        decide,
        if decide == 1 { "s" } else { "" },
    ));
    if widen > 0 {
        out.push_str(&format!(
            "{widen} file{} would let the role do more than the source role: not written (exit 1).\n",
            if widen == 1 { "" } else { "s" }
        ));
    } else if limiting > 0 {
        out.push_str(&format!(
            "{limiting} file{} can do less than the source role until you decide what to grant (exit 1).\n",
            if limiting == 1 { "" } else { "s" }
        ));
    }
    if not_converted > 0 {
        out.push_str(&format!(
            "{not_converted} file{} not converted (below).\n",
            if not_converted == 1 { "" } else { "s" }
        ));
    }
    out
}

fn doc_json(
    done: &[Done],
    to: &HostProfile,
    ctx: &Context,
    errors: &[String],
) -> serde_json::Value {
    let files: Vec<serde_json::Value> = done
        .iter()
        .map(|d| {
            let c = &d.conversion;
            let lint: Vec<serde_json::Value> = c
                .lint
                .iter()
                .map(|x| {
                    json!({
                        "rule": x.rule,
                        "severity": x.severity,
                        "line": x.start.line,
                        "column": x.start.column,
                        "message": x.message,
                    })
                })
                .collect();
            json!({
                "source": ctx.display_path(&c.source),
                "from": c.from,
                "from_reason": d.from_reason,
                "to": c.to,
                "file_name": c.file_name,
                "path": d.write.as_ref().map(|w| ctx.display_path(&w.path)),
                "written": d.write.as_ref().map(|w| &w.written),
                "write_error": d.write_error,
                "backup": d.write.as_ref().and_then(|w| w.backup.as_ref()).map(|b| ctx.display_path(b)),
                "items": c.items,
                "lint_clean": c.lint_errors().next().is_none(),
                "widens": c.widening().next().is_some(),
                "limits": c.limiting().next().is_some(),
                "lint": lint,
            })
        })
        .collect();
    let count = |o: Outcome| {
        done.iter()
            .map(|d| d.conversion.count(o.clone()))
            .sum::<usize>()
    };
    json!({
        "version": 1,
        "to": to.label(),
        "files": files,
        "summary": {
            "files": done.len(),
            "lint_clean": done.iter().filter(|d| d.conversion.lint_errors().next().is_none()).count(),
            "converted": count(Outcome::Converted),
            "dropped": count(Outcome::Dropped),
            "decisions": count(Outcome::Decision),
            "widening": done.iter().filter(|d| d.conversion.widening().next().is_some()).count(),
            "limiting": done.iter().filter(|d| d.conversion.limiting().next().is_some()).count(),
            "not_converted": errors.len(),
            // Converted, but the write was refused (or would widen): on disk, nothing.
            "not_written": done.iter().filter(|d| d.write_error.is_some() || d.refused_write()).count(),
        },
        "errors": errors,
    })
}
