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
    fn span(&self, span: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        let map = |o: usize| self.map.as_ref().map_or(o, |m| m.map(o));
        let start = map(span.start);
        start..map(span.end).max(start)
    }

    /// The byte range of 0-based `line`'s text (without its line break).
    fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        // `line_start` counts lines from 1.
        let start = self.lines.line_start(line + 1).unwrap_or(self.text.len());
        let next = self
            .lines
            .line_start(line + 2)
            .unwrap_or(self.text.len())
            .max(start);
        let content = self.text[start..next].trim_end_matches('\n');
        start..start + content.trim_end_matches('\r').len()
    }
}

/// The most characters of one source line a finding shows; a longer line is cut
/// to windows around the finding's labels, with `…` where it was cut, so what a
/// finding prints does not grow with the line (a 59 KB one-line role printed
/// 703 MB: its whole line once per finding).
const CLIP_CHARS: usize = 120;

/// Characters shown before a label on a cut line.
const CLIP_BEFORE: usize = 40;

/// A label over more lines than this (or over a line that is cut) is shown on its
/// first line only.
const MAX_LABEL_LINES: usize = 4;

/// One finding's view of the source: the lines around its labels, each cut to the
/// windows around the labels it holds, joined in one text ("virtual" offsets),
/// with the original line number of each of its lines. Columns in the
/// `path:line:col` heading stay those of the file; the caret is under the label in
/// the cut line.
struct Clip {
    text: String,
    /// (0-based line in the file, offset of its start in `text`), in order.
    lines: Vec<(usize, usize)>,
}

/// One shown piece of a line: its byte range in the escaped file text and where
/// it starts in the clip's text.
struct Piece {
    from: usize,
    to: usize,
    at: usize,
}

impl Clip {
    /// The clip of `source` for `spans` (escaped-text offsets), with each span moved
    /// onto the clip's text.
    fn new(source: &Source, spans: &[std::ops::Range<usize>]) -> (Clip, Vec<SourceSpan>) {
        let text = &*source.text;
        let last_line = source.lines.line_of(text.len());
        // Each label: its first and last line, cut to one line when long.
        let mut labels = Vec::with_capacity(spans.len());
        for span in spans {
            let start = span.start.min(text.len());
            let mut end = span.end.clamp(start, text.len());
            let first = source.lines.line_of(start);
            let mut last = source.lines.line_of(end.saturating_sub(1).max(start));
            let long = |l: usize| {
                let r = source.line_range(l);
                r.len() > CLIP_CHARS && text[r].chars().nth(CLIP_CHARS).is_some()
            };
            if last > first && (last - first >= MAX_LABEL_LINES || (first..=last).any(long)) {
                last = first;
            }
            if last == first {
                end = end.min(source.line_range(first).end.max(start));
            }
            labels.push((start, end, first, last));
        }
        // The lines shown: each label's lines and one on either side.
        let mut shown: Vec<usize> = labels
            .iter()
            .flat_map(|&(_, _, first, last)| first.saturating_sub(1)..=(last + 1).min(last_line))
            .collect();
        shown.sort_unstable();
        shown.dedup();
        let mut clip = Clip {
            text: String::new(),
            lines: Vec::with_capacity(shown.len()),
        };
        let mut pieces: Vec<Piece> = Vec::new();
        for &line in &shown {
            let range = source.line_range(line);
            let whole =
                range.len() <= CLIP_CHARS || text[range.clone()].chars().nth(CLIP_CHARS).is_none();
            // Windows (byte ranges of the line) to show.
            let mut windows: Vec<(usize, usize)> = if whole {
                vec![(range.start, range.end)]
            } else {
                let on_line: Vec<usize> = labels
                    .iter()
                    .filter(|&&(_, _, first, last)| first <= line && line <= last)
                    .map(|&(start, _, first, _)| if first == line { start } else { range.start })
                    .collect();
                let anchors = if on_line.is_empty() {
                    // A context line: the same byte columns as the labels' lines.
                    labels
                        .iter()
                        .map(|&(start, _, first, _)| {
                            let col = start - source.line_range(first).start;
                            floor_char(text, (range.start + col).min(range.end))
                        })
                        .collect()
                } else {
                    on_line
                };
                anchors
                    .into_iter()
                    .map(|at| {
                        let from = back_chars(text, at, CLIP_BEFORE).max(range.start);
                        (from, forward_chars(text, from, CLIP_CHARS).min(range.end))
                    })
                    .collect()
            };
            windows.sort_unstable();
            let mut merged: Vec<(usize, usize)> = Vec::with_capacity(windows.len());
            for (a, b) in windows {
                match merged.last_mut() {
                    Some(last) if a <= last.1 => last.1 = last.1.max(b),
                    _ => merged.push((a, b)),
                }
            }
            clip.lines.push((line, clip.text.len()));
            let mut shown_to = range.start;
            for (a, b) in merged {
                if a > shown_to {
                    clip.text.push('…');
                }
                pieces.push(Piece {
                    from: a,
                    to: b,
                    at: clip.text.len(),
                });
                clip.text.push_str(&text[a..b]);
                shown_to = b;
            }
            if shown_to < range.end {
                clip.text.push('…');
            }
            clip.text.push('\n');
        }
        crate::meter::add(crate::meter::Work::Snippet, clip.text.len());
        // Offsets in the file to offsets in the clip: the piece that holds them.
        let place = |at: usize| -> Option<(usize, &Piece)> {
            let i = pieces.partition_point(|p| p.from <= at);
            let p = pieces.get(i.checked_sub(1)?)?;
            (at <= p.to).then_some((p.at + at - p.from, p))
        };
        let spans = labels
            .iter()
            .map(|&(start, end, first, last)| {
                let Some((s, piece)) = place(start) else {
                    return SourceSpan::from((0, 0));
                };
                let e = if last > first {
                    place(end).map_or(s, |(e, _)| e)
                } else {
                    piece.at + end.min(piece.to) - piece.from
                };
                (s, e.max(s) - s).into()
            })
            .collect();
        (clip, spans)
    }
}

/// `at`, or the start of the character it is inside.
fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The offset `n` characters before `at` (or the start).
fn back_chars(text: &str, at: usize, n: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i)
}

/// The offset `n` characters after `at` (or the end).
fn forward_chars(text: &str, at: usize, n: usize) -> usize {
    text[at..]
        .char_indices()
        .nth(n)
        .map_or(text.len(), |(i, _)| at + i)
}

impl SourceCode for Clip {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let end = span.offset() + span.len();
        if end > self.text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let index = |at: usize| {
            self.lines
                .partition_point(|&(_, s)| s <= at)
                .saturating_sub(1)
        };
        let mut first = index(span.offset());
        let mut last = index(end.saturating_sub(1).max(span.offset()));
        // Context lines: only neighbours in the file (the clip skips the lines
        // between two far-apart labels).
        for _ in 0..context_lines_before {
            if first > 0 && self.lines[first - 1].0 + 1 == self.lines[first].0 {
                first -= 1;
            }
        }
        for _ in 0..context_lines_after {
            if last + 1 < self.lines.len() && self.lines[last].0 + 1 == self.lines[last + 1].0 {
                last += 1;
            }
        }
        let from = self.lines[first].1;
        let to = self
            .lines
            .get(last + 1)
            .map_or(self.text.len(), |&(_, s)| s);
        Ok(Box::new(MietteSpanContents::new(
            &self.text.as_bytes()[from..to],
            SourceSpan::new(from.into(), to - from),
            self.lines[first].0,
            0,
            last - first + 1,
        )))
    }
}

/// A diagnostic with its source, rendered directly (a `miette::Report` would also
/// look up and build the global report handler, once per finding).
#[derive(Debug)]
struct WithSource {
    diag: MietteDiagnostic,
    source: NamedSource<Clip>,
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
        let spans: Vec<std::ops::Range<usize>> = std::iter::once(&d.span)
            .chain(d.related.iter().map(|r| &r.span))
            .map(|span| source.span(span))
            .collect();
        let (clip, spans) = Clip::new(source, &spans);
        let mut spans = spans.into_iter();
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            (!d.label.is_empty()).then(|| escape_line(&d.label).into_owned()),
            spans.next().expect("the primary span"),
        )];
        for (r, span) in d.related.iter().zip(spans) {
            labels.push(LabeledSpan::new_with_span(
                Some(escape_line(&r.label).into_owned()),
                span,
            ));
        }
        diag = diag.with_labels(labels);
        let with_source = WithSource {
            diag,
            source: NamedSource::new(location, clip),
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

    /// A long line is cut to a window around each label, with `…` where it was
    /// cut; the label still covers its own text; short lines are whole.
    #[test]
    fn a_long_line_is_clipped_around_each_label() {
        let items: Vec<String> = (0..2_000).map(|i| format!("k{i}: v")).collect();
        let text = format!("---\n{{{}}}\nshort: line\n---\nBody\n", items.join(", "));
        let source = Source::new(&text);
        let at = |key: &str| text.find(&format!(" {key}:")).unwrap() + 1;
        let (k1500, k10) = (at("k1500"), at("k10"));
        let (clip, spans) = Clip::new(&source, &[k1500..k1500 + 5, k10..k10 + 3]);
        let lines: Vec<&str> = clip.text.lines().collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[0], "---");
        assert_eq!(lines[2], "short: line");
        // Two windows on the long line, each at most CLIP_CHARS characters.
        let long = lines[1];
        assert!(long.starts_with('…') && long.contains(" k10: v"), "{long}");
        assert_eq!(long.matches('…').count(), 3, "{long}");
        let parts: Vec<usize> = long.split('…').map(|p| p.chars().count()).collect();
        assert!(long.chars().count() <= 2 * CLIP_CHARS + 3, "{parts:?}");
        let shown = |s: &SourceSpan| &clip.text[s.offset()..s.offset() + s.len()];
        assert_eq!(shown(&spans[0]), "k1500");
        assert_eq!(shown(&spans[1]), "k10");
        // The clip's lines keep their numbers in the file.
        assert_eq!(
            clip.lines.iter().map(|l| l.0).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        // A label longer than the window is cut at the window's end.
        let (clip, spans) = Clip::new(
            &source,
            std::slice::from_ref(&(4..text.find("\nshort").unwrap())),
        );
        assert!(spans[0].len() <= CLIP_CHARS * 4, "{}", spans[0].len());
        assert!(clip.text.len() < 3 * CLIP_CHARS * 4);
    }

    /// What one finding prints does not grow with its line: the same finding on a
    /// line 8 times as long prints the same number of bytes.
    #[test]
    fn a_findings_snippet_does_not_grow_with_its_line() {
        let render = |n: usize| {
            let items: Vec<String> = (0..n).map(|i| format!("k{i}: v")).collect();
            let text = format!("---\n{{{}}}\n---\n", items.join(", "));
            let source = Source::new(&text);
            let at = text.find(" k5:").unwrap() + 1;
            let (clip, _) = Clip::new(&source, std::slice::from_ref(&(at..at + 2)));
            clip.text.len()
        };
        assert_eq!(render(1_000), render(8_000));
    }

    /// `lint::render::human::tests::fuzz` (`scripts/fuzz.sh render`): one finding
    /// (and up to three related spans) anywhere in a text of long lines full of
    /// control, bidi, invisible and wide characters, with such text in its message,
    /// label and help, at any width, colour or not. Rendering never panics, prints
    /// no raw control, bidi or invisible character, and prints a bounded amount
    /// whatever the length of the lines the spans sit on (a window of each line).
    mod fuzz {
        use super::super::*;
        use crate::role::Position;
        use proptest::prelude::*;

        /// Pieces of text: plain words and YAML punctuation, and the characters
        /// a renderer must never print raw.
        const PIECES: &[&str] = &[
            "k",
            "name",
            ": ",
            ", ",
            "[",
            "]",
            "{",
            "}",
            " ",
            "  ",
            "\t",
            "é",
            "漢字",
            "😀",
            "\n",
            "\r\n",
            "\u{1b}[31m",
            "\u{7}",
            "\u{0}",
            "\u{85}",
            "\u{9b}",
            "\u{202e}",
            "\u{2066}",
            "\u{200f}",
            "\u{200b}",
            "\u{2028}",
            "\u{2029}",
            "\u{e0041}",
            "\u{feff}",
            "\u{61c}",
            "\u{7f}",
            "---\n",
        ];

        fn text(max: usize) -> impl Strategy<Value = String> {
            prop::collection::vec(
                prop_oneof![
                    8 => prop::sample::select(&PIECES[..14]),
                    3 => prop::sample::select(PIECES),
                ],
                0..max,
            )
            .prop_map(|v| v.concat())
        }

        /// A span of `t` from two fractions, on character boundaries.
        fn span(t: &str, a: f64, b: f64) -> std::ops::Range<usize> {
            let at = |f: f64| floor_char(t, ((t.len() as f64) * f) as usize);
            let (x, y) = (at(a.min(b)), at(a.max(b)));
            x..y
        }

        proptest! {
            #![proptest_config(crate::testing::fuzz_config())]
            #[test]
            fn fuzz(
                file in (text(60), prop::collection::vec(prop::sample::select(&PIECES[..14]), 0..3_000), text(60))
                    .prop_map(|(a, long, b)| format!("{a}{}{b}", long.concat())),
                message in text(30),
                label in text(10),
                help in proptest::option::of(text(20)),
                at in (0.0f64..=1.0, 0.0f64..=1.0),
                related in prop::collection::vec((0.0f64..=1.0, 0.0f64..=1.0, text(6)), 0..4),
                width in 20usize..200,
                color in any::<bool>(),
            ) {
                let index = LineIndex::new(&file);
                let pos = |o: usize| {
                    let p: Position = index.position(&file, o);
                    p
                };
                let main = span(&file, at.0, at.1);
                let d = Diagnostic {
                    rule: "some-rule",
                    severity: Severity::Warning,
                    message: message.clone(),
                    help: help.clone(),
                    path: "a.md".into(),
                    start: pos(main.start),
                    end: pos(main.end),
                    span: main,
                    label: label.clone(),
                    related: related
                        .iter()
                        .map(|(a, b, l)| {
                            let s = span(&file, *a, *b);
                            crate::lint::diagnostic::Related {
                                start: pos(s.start),
                                end: pos(s.end),
                                span: s,
                                label: l.clone(),
                            }
                        })
                        .collect(),
                    fixes: Vec::new(),
                };
                let handlers = Handlers::new(color, width);
                let source = Source::new(&file);
                let mut out = String::new();
                render_one(&handlers, &d, Some(&source), "a.md:1:1", &mut out);
                for c in out.chars() {
                    prop_assert!(
                        !(crate::text::is_forbidden_control(c) && !(color && c == '\u{1b}'))
                            && !crate::text::is_invisible(c)
                            && c != '\r',
                        "raw {:?} in {:?}", c, out
                    );
                }
                // No line of the output grows with a line of the file: a window of
                // at most CLIP_CHARS (escaped) characters on each side of each label,
                // next to what the finding says (escaped: up to 10 characters each)
                // and miette's gutter and underlines.
                let said = message.chars().count() + label.chars().count()
                    + help.as_ref().map_or(0, |h| h.chars().count())
                    + related.iter().map(|r| r.2.chars().count()).sum::<usize>();
                let line_max = 80 + width + 10 * said + (1 + related.len()) * (2 * CLIP_CHARS + 6);
                for line in out.lines() {
                    let n = line.chars().count();
                    prop_assert!(n <= line_max, "a {}-character line (max {}) for a {}-byte file", n, line_max, file.len());
                }
                let lines_max = 40 + 12 * (1 + related.len()) + 10 * said;
                prop_assert!(out.lines().count() <= lines_max, "{} lines > {}", out.lines().count(), lines_max);
            }
        }
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
