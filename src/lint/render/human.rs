//! `--format human`: miette's graphical reports, with the source line and a label
//! under the exact key or value (`[*]` after the rule when `--fix` repairs it),
//! then a one-line summary and how many findings `--fix` repairs.
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
    // Snippet rendering is the costliest part of a run with many findings.
    let parts = crate::lint::map_ordered(
        &jobs,
        || Handlers::new(color, width),
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
    if opts.summary {
        out.push_str(&summary(report));
    }
    out
}

/// miette's handler, and the same one without line wrapping for text [`prewrap`]
/// has already broken into lines (textwrap is most of the cost of a finding).
struct Handlers {
    wrapping: GraphicalReportHandler,
    prewrapped: GraphicalReportHandler,
    width: usize,
}

impl Handlers {
    fn new(color: bool, width: usize) -> Handlers {
        Handlers {
            wrapping: handler(color, width),
            prewrapped: handler(color, width).with_wrap_lines(false),
            width,
        }
    }
}

/// The columns miette leaves for a message (after `  ⚠ ` / `  │ `) and for a
/// help text (after `  help: `): it wraps at the width less 2.
const MESSAGE_INDENT: usize = 4;
const HELP_INDENT: usize = 8;

/// `text` broken into lines exactly where miette's wrapping handler would break it
/// (textwrap: first fit, words split at ASCII spaces, long words kept whole) for
/// `columns` per line; `None` where that takes textwrap's general rules (text that
/// is not ASCII, so its display width is not its length; blank lines; lines that
/// start or end with a space). A property test compares the two renderings.
fn prewrap(text: &str, columns: usize) -> Option<String> {
    if !text.is_ascii() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split('\n') {
        if line.is_empty() || line.starts_with(' ') || line.ends_with(' ') {
            return None;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let bytes = line.as_bytes();
        // The output line being filled: where it starts, where its last word ends,
        // and its width so far with the spaces after its last word.
        let (mut start, mut end, mut width) = (0, 0, 0);
        let mut i = 0;
        while i < bytes.len() {
            let word_start = i;
            while i < bytes.len() && bytes[i] != b' ' {
                i += 1;
            }
            let word_end = i;
            while i < bytes.len() && bytes[i] == b' ' {
                i += 1;
            }
            let word = word_end - word_start;
            if width + word > columns && word_start > start {
                out.push_str(&line[start..end]);
                out.push('\n');
                start = word_start;
                width = 0;
            }
            width += word + (i - word_end);
            end = word_end;
        }
        out.push_str(&line[start..end]);
    }
    Some(out)
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
        // Break lines at spaces only, never inside a rule id, key or path
        // (`external-cli-unsupported`, `src/custom-agents.ts:135`). Also much cheaper
        // than finding Unicode line-break opportunities.
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        // A word longer than the line (a long path) stays whole, so it can be copied.
        .with_break_words(false)
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

/// A diagnostic with its source, rendered directly (a `miette::Report` would also
/// look up and build the global report handler, once per finding).
#[derive(Debug)]
struct WithSource {
    diag: MietteDiagnostic,
    source: NamedSource<Window>,
}

impl std::fmt::Display for WithSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.diag.fmt(f)
    }
}

impl std::error::Error for WithSource {}

impl miette::Diagnostic for WithSource {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.diag.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.diag.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.diag.help()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.diag.labels()
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
}

fn render_one(
    handlers: &Handlers,
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
    let message = escape_line(&d.message);
    let help = d.help.as_deref().map(escape_line);
    let columns = |indent: usize| handlers.width.saturating_sub(2 + indent);
    let prewrapped = prewrap(&message, columns(MESSAGE_INDENT)).and_then(|m| match &help {
        Some(h) => Some((m, Some(prewrap(h, columns(HELP_INDENT))?))),
        None => Some((m, None)),
    });
    let (handler, message, help) = match prewrapped {
        Some((m, h)) => (&handlers.prewrapped, m, h),
        None => (
            &handlers.wrapping,
            message.into_owned(),
            help.map(|h| h.into_owned()),
        ),
    };
    let mut diag = MietteDiagnostic::new(message)
        .with_code(format!(
            "{}[{}]{}",
            d.severity,
            d.rule,
            super::fix_marker(d)
        ))
        .with_severity(severity);
    if let Some(help) = help {
        diag = diag.with_help(help);
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
        let with_source = WithSource {
            diag,
            source: NamedSource::new(location, source.window()),
        };
        let _ = handler.render_report(out, &with_source);
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
    out.push_str(&super::fix_summary(report));
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
    out.push_str(&host_specific_note(report));
    out
}

/// Under the portable profile: the keys only some hosts read, named once, with how
/// to name the host (empty when there are none).
pub fn host_specific_note(report: &LintReport) -> String {
    if report.host_specific.is_empty() {
        return String::new();
    }
    let keys: Vec<String> = report
        .host_specific
        .keys()
        .map(|k| format!("`{}`", escape_line(k)))
        .collect();
    format!(
        "Note: {} {} read by only some hosts (these files were linted for the portable profile, safe on every host); to lint for yours, name it: `host = \"tintinweb\"` (or nicobailon, herdr, …) in pwk.toml, or `--host tintinweb`.\n",
        keys.join(", "),
        if keys.len() == 1 { "is" } else { "are" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rendered(h: &GraphicalReportHandler, message: String, help: Option<String>) -> String {
        let mut diag = MietteDiagnostic::new(message)
            .with_code("warning[some-rule]")
            .with_severity(miette::Severity::Warning);
        if let Some(help) = help {
            diag = diag.with_help(help);
        }
        let mut out = String::new();
        h.render_report(&mut out, &diag).unwrap();
        out
    }

    /// Where `prewrap` takes a text, miette without wrapping renders it exactly as
    /// miette's own wrapping does: the same bytes, colour or not, at any width.
    #[test]
    fn prewrapped_text_renders_as_miette_wraps_it() {
        let ascii = vec![
            "a",
            "is",
            "read",
            "`max_turns`",
            "tintinweb",
            "(nicobailon",
            "bound;",
            "`toolBudget: {\"soft\": 20, \"hard\": 30}`",
            "src/custom-agents.ts:135",
            "external-cli-unsupported",
            "x",
            "averyveryveryveryveryveryveryveryverylongwordthatdoesnotfitonanyline",
        ];
        let mut every = ascii.clone();
        every.extend(["é", "⚠", "漢字"]);
        let join = |parts: Vec<(&str, &str)>| {
            let mut s = String::new();
            for (w, g) in parts {
                s.push_str(w);
                s.push_str(g);
            }
            s.trim_end_matches([' ', '\n']).to_string()
        };
        // Mostly text prewrap takes (ASCII words, single and double spaces, line
        // breaks), sometimes text it must refuse.
        let clean = prop::collection::vec(
            (
                prop::sample::select(ascii),
                prop::sample::select(vec![" ", " ", " ", " ", " ", "  ", "   ", "\n"]),
            ),
            1..40,
        )
        .prop_map(join);
        let dirty = prop::collection::vec(
            (
                prop::sample::select(every),
                prop::sample::select(vec![" ", "  ", "\n", " \n", "\n\n"]),
            ),
            1..20,
        )
        .prop_map(join);
        let text = prop_oneof![4 => clean, 1 => dirty];
        let cases = (
            text.clone(),
            prop::option::of(text),
            20usize..130,
            any::<bool>(),
        );
        let taken = std::cell::Cell::new(0);
        proptest!(ProptestConfig::with_cases(4_000), |((message, help, width, color) in cases)| {
            let h = Handlers::new(color, width);
            let columns = |indent: usize| width.saturating_sub(2 + indent);
            let pre = prewrap(&message, columns(MESSAGE_INDENT)).and_then(|m| match &help {
                Some(t) => Some((m, Some(prewrap(t, columns(HELP_INDENT))?))),
                None => Some((m, None)),
            });
            if let Some((m, hp)) = pre {
                taken.set(taken.get() + 1);
                prop_assert_eq!(
                    rendered(&h.prewrapped, m, hp),
                    rendered(&h.wrapping, message.clone(), help.clone())
                );
            }
        });
        // Most generated texts are ones prewrap takes.
        let taken = taken.get();
        assert!(taken > 1_000, "prewrap took only {taken} of 4000 texts");
    }

    #[test]
    fn prewrap_refuses_what_it_does_not_model() {
        assert_eq!(prewrap("a b c", 3).as_deref(), Some("a b\nc"));
        assert_eq!(prewrap("toolong ab", 3).as_deref(), Some("toolong\nab"));
        for text in ["é a", "a\n\nb", " a", "a ", ""] {
            assert_eq!(prewrap(text, 10), None, "{text:?}");
        }
    }
}
