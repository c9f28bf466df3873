//! `--format human`: miette's graphical reports, with the source line and a label
//! under the exact key or value, then a one-line summary.

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

use super::RenderOptions;
use crate::lint::{Diagnostic, FileReport, LintReport, Severity};

pub fn render(report: &LintReport, opts: &RenderOptions<'_>) -> String {
    // Files with findings, each with its findings' `path:line:col` (shown here:
    // `show_path` stays on this thread).
    let jobs: Vec<(&FileReport, Vec<String>)> = report
        .files
        .iter()
        .filter(|f| !f.diagnostics.is_empty())
        .map(|f| {
            let at = |d: &Diagnostic| {
                format!(
                    "{}:{}:{}",
                    (opts.show_path)(&d.path),
                    d.start.line,
                    d.start.column
                )
            };
            (f, f.diagnostics.iter().map(at).collect())
        })
        .collect();
    let (color, width) = (opts.color, opts.width);
    let parts = render_parallel(
        &jobs,
        || handler(color, width),
        |handler, (file, locations)| {
            let mut out = String::new();
            for (d, location) in file.diagnostics.iter().zip(locations) {
                render_one(handler, d, file.text.as_deref(), location, &mut out);
            }
            out
        },
    );
    let mut out = parts.concat();
    out.push_str(&summary(report));
    out
}

fn handler(color: bool, width: usize) -> GraphicalReportHandler {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_links(false)
        .without_primary_span_start()
        .with_context_lines(1)
        // Never break a word at a hyphen (`external-cli-unsupported`, rule ids).
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
}

/// `f` over `items` on every core (a handler per thread), results in order. Snippet
/// rendering is the costliest part of a run with many findings.
fn render_parallel<T: Sync>(
    items: &[T],
    make: impl Fn() -> GraphicalReportHandler + Sync,
    f: impl Fn(&GraphicalReportHandler, &T) -> String + Sync,
) -> Vec<String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let run = |chunk: &[T]| {
        let handler = make();
        chunk.iter().map(|i| f(&handler, i)).collect::<Vec<_>>()
    };
    if items.len() < 16 || cores < 2 {
        return run(items);
    }
    let chunks: Vec<&[T]> = items.chunks(items.len().div_ceil(cores)).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks[1..]
            .iter()
            .map(|c| std::thread::Builder::new().spawn_scoped(s, || run(c)))
            .collect();
        let mut out = run(chunks[0]);
        for (h, c) in handles.into_iter().zip(&chunks[1..]) {
            match h {
                Ok(h) => out.extend(h.join().expect("render worker panicked")),
                // No thread: render that part here.
                Err(_) => out.extend(run(c)),
            }
        }
        out
    })
}

fn render_one(
    handler: &GraphicalReportHandler,
    d: &Diagnostic,
    text: Option<&str>,
    location: &str,
    out: &mut String,
) {
    let location = location.to_string();
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
    };
    let mut diag = MietteDiagnostic::new(d.message.clone())
        .with_code(format!("{}[{}]", d.severity, d.rule))
        .with_severity(severity);
    if let Some(help) = &d.help {
        diag = diag.with_help(help.clone());
    }
    let snippet = text.is_some()
        && !(d.span.is_empty() && d.start.line == 1 && d.start.column == 1 && d.label.is_empty());
    if let (true, Some(text)) = (snippet, text) {
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            (!d.label.is_empty()).then(|| d.label.clone()),
            d.span.clone(),
        )];
        for r in &d.related {
            labels.push(LabeledSpan::new_with_span(
                Some(r.label.clone()),
                r.span.clone(),
            ));
        }
        diag = diag.with_labels(labels);
        let report = miette::Report::new(diag)
            .with_source_code(NamedSource::new(location, text.to_string()));
        let _ = handler.render_report(out, report.as_ref());
    } else {
        let _ = handler.render_report(out, &diag);
        // No source to show: say where.
        out.push_str(&format!("  at {location}\n"));
    }
    out.push('\n');
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `Found 2 errors and 1 warning in 2 of 5 files.` / `5 files checked: no problems.`
pub fn summary(report: &LintReport) -> String {
    let (errors, warnings) = report.counts();
    let files = report.files.len();
    let host = if report.host.is_empty() {
        String::new()
    } else {
        format!(" for {}", report.host)
    };
    let mut out = if errors + warnings == 0 {
        format!("{} checked{host}: no problems.\n", plural(files, "file"))
    } else {
        let with = report
            .files
            .iter()
            .filter(|f| !f.diagnostics.is_empty())
            .count();
        format!(
            "Found {} and {} in {with} of {}{host}.\n",
            plural(errors, "error"),
            plural(warnings, "warning"),
            plural(files, "file")
        )
    };
    for s in &report.skipped {
        out.push_str(&format!("Skipped {}: {}.\n", s.path.display(), s.reason));
    }
    out
}
