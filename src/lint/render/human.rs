//! `--format human`: miette's graphical reports, with the source line and a label
//! under the exact key or value, then a one-line summary.
//!
//! Everything that came from a file (the path, the source lines, keys and values
//! quoted in messages) is escaped by [`crate::text::escape`], so a role file cannot
//! drive the terminal or fake a line of output. Each file's text is escaped and
//! indexed once; miette is handed only the few lines around each finding, so the
//! cost per finding does not grow with the file.

use std::sync::Arc;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, MietteError,
    MietteSpanContents, NamedSource, SourceCode, SourceSpan, SpanContents,
};

use super::RenderOptions;
use crate::lint::{Diagnostic, FileReport, LintReport, Severity};
use crate::role::LineIndex;
use crate::text::{Escape, OffsetMap, escape_line, escape_mapped};

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
                    escape_line(&(opts.show_path)(&d.path)),
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
            let source = file.text.as_deref().map(Source::new);
            let mut out = String::new();
            for (d, location) in file.diagnostics.iter().zip(locations) {
                render_one(handler, d, source.as_ref(), location, &mut out);
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

/// One file's text, escaped, with its line index; shared by all of its findings.
struct Source {
    text: Arc<str>,
    lines: Arc<LineIndex>,
    map: Option<Arc<OffsetMap>>,
}

impl Source {
    fn new(text: &str) -> Source {
        let (text, map): (Arc<str>, _) = match escape_mapped(text, Escape::Block) {
            Some((escaped, map)) => (escaped.into(), Some(Arc::new(map))),
            None => (text.into(), None),
        };
        Source {
            lines: Arc::new(LineIndex::new(&text)),
            text,
            map,
        }
    }

    /// A byte span of the original file, moved onto the escaped text.
    fn span(&self, span: &std::ops::Range<usize>) -> SourceSpan {
        let map = |o: usize| self.map.as_ref().map_or(o, |m| m.map(o));
        let start = map(span.start);
        (start, map(span.end).max(start) - start).into()
    }

    fn window(&self) -> Window {
        Window {
            text: Arc::clone(&self.text),
            lines: Arc::clone(&self.lines),
        }
    }
}

/// The escaped text as miette's source: `read_span` reads only the lines around the
/// span (miette's own implementation for `str` scans from the start every time).
struct Window {
    text: Arc<str>,
    lines: Arc<LineIndex>,
}

impl SourceCode for Window {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text = &*self.text;
        let end = span.offset() + span.len();
        if end > text.len() {
            return Err(MietteError::OutOfBounds);
        }
        // 0-based lines of the span's start and end; one spare line on each side.
        let first = self.lines.line_of(span.offset());
        let last = self.lines.line_of(end);
        let from_line = first.saturating_sub(context_lines_before + 1);
        let from = self.lines.line_start(from_line + 1).unwrap_or(0);
        let to = self
            .lines
            .line_start(last + context_lines_after + 3)
            .unwrap_or(text.len());
        let window = &text.as_bytes()[from..to];
        let relative = SourceSpan::new((span.offset() - from).into(), span.len());
        let inner = window.read_span(&relative, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new(
            inner.data(),
            SourceSpan::new((inner.span().offset() + from).into(), inner.span().len()),
            inner.line() + from_line,
            inner.column(),
            inner.line_count() + from_line,
        )))
    }
}

fn render_one(
    handler: &GraphicalReportHandler,
    d: &Diagnostic,
    source: Option<&Source>,
    location: &str,
    out: &mut String,
) {
    let location = location.to_string();
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
    };
    let mut diag = MietteDiagnostic::new(escape_line(&d.message).into_owned())
        .with_code(format!("{}[{}]", d.severity, d.rule))
        .with_severity(severity);
    if let Some(help) = &d.help {
        diag = diag.with_help(escape_line(help).into_owned());
    }
    let snippet = source.is_some()
        && !(d.span.is_empty() && d.start.line == 1 && d.start.column == 1 && d.label.is_empty());
    if let (true, Some(source)) = (snippet, source) {
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            (!d.label.is_empty()).then(|| escape_line(&d.label).into_owned()),
            source.span(&d.span),
        )];
        for r in &d.related {
            labels.push(LabeledSpan::new_with_span(
                Some(escape_line(&r.label).into_owned()),
                source.span(&r.span),
            ));
        }
        diag = diag.with_labels(labels);
        let report =
            miette::Report::new(diag).with_source_code(NamedSource::new(location, source.window()));
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
    let suppressed = report.suppressed().count();
    if suppressed > 0 {
        let baseline = report
            .suppressed()
            .filter(|s| s.kind == crate::lint::suppress::SuppressionKind::Baseline)
            .count();
        let inline = suppressed - baseline;
        let mut parts = Vec::new();
        if inline > 0 {
            parts.push(format!(
                "{} by `# pwk: ignore` comments",
                plural(inline, "finding")
            ));
        }
        if baseline > 0 {
            parts.push(format!("{} by the baseline", plural(baseline, "finding")));
        }
        out.push_str(&format!("Suppressed: {}.\n", parts.join(", ")));
    }
    for s in &report.skipped {
        out.push_str(&format!("Skipped {}: {}.\n", s.path.display(), s.reason));
    }
    out
}
