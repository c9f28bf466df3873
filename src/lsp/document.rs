//! The open buffers: full text, version, and edits applied as the client sends
//! them (full and incremental sync).

use std::path::PathBuf;

use lsp_types as lt;
use lsp_types::{TextDocumentContentChangeEvent, Uri};

use super::position::{Encoding, Lines};
use crate::lint::{Diagnostic, NameSite};

/// One open buffer.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    pub uri: Uri,
    /// The file's path (`file:` URIs only).
    pub path: PathBuf,
    pub version: i32,
    pub text: String,
    pub lines: Lines,
}

impl Document {
    pub(crate) fn new(uri: Uri, path: PathBuf, version: i32, text: String) -> Document {
        let lines = Lines::new(&text);
        Document {
            uri,
            path,
            version,
            text,
            lines,
        }
    }

    /// Apply the changes of one `didChange`, in order. A change without a range
    /// replaces the whole text; a range is clamped into the text (a stale or
    /// out-of-range edit never panics).
    pub(crate) fn apply(
        &mut self,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        enc: Encoding,
    ) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let start = self.lines.offset(&self.text, range.start, enc);
                    let end = self.lines.offset(&self.text, range.end, enc).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
            }
            self.lines = Lines::new(&self.text);
        }
        self.version = version;
    }

    /// Byte offset ↔ LSP position in this buffer.
    pub(crate) fn offset(&self, pos: lsp_types::Position, enc: Encoding) -> usize {
        self.lines.offset(&self.text, pos, enc)
    }

    pub(crate) fn position(&self, offset: usize, enc: Encoding) -> lsp_types::Position {
        self.lines.position(&self.text, offset, enc)
    }

    pub(crate) fn range(&self, span: std::ops::Range<usize>, enc: Encoding) -> lsp_types::Range {
        lsp_types::Range::new(self.position(span.start, enc), self.position(span.end, enc))
    }
}

/// One open buffer with what pwk made of it.
pub(crate) struct Open {
    pub doc: Document,
    /// Whether pwk serves it (see [`super::workspace::Workspace::owns`]).
    pub owned: bool,
    /// Single-file findings, when up to date.
    pub single: Option<Vec<Diagnostic>>,
    pub name: Option<NameSite>,
    /// Cross-file findings.
    pub cross: Vec<Diagnostic>,
    /// What was last published (to publish only changes).
    pub(super) published: Option<(i32, Vec<lt::Diagnostic>)>,
}

impl Open {
    /// Every finding, sorted by position.
    pub(crate) fn diagnostics(&self) -> Vec<&Diagnostic> {
        let mut all: Vec<&Diagnostic> = self.single.iter().flatten().chain(&self.cross).collect();
        all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        all
    }
}

/// A finding as LSP shows it: the rule id as `code` (linked to its page by
/// `codeDescription`), `pwk` as source, the help
/// after the message, related spans as related information.
pub(crate) fn to_lsp(doc: &Document, d: &Diagnostic, enc: Encoding) -> lt::Diagnostic {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<lt::DiagnosticRelatedInformation> = d
        .related
        .iter()
        .map(|r| lt::DiagnosticRelatedInformation {
            location: lt::Location::new(doc.uri.clone(), doc.range(r.span.clone(), enc)),
            message: r.label.clone(),
        })
        .collect();
    lt::Diagnostic {
        range: doc.range(d.span.clone(), enc),
        severity: Some(match d.severity {
            crate::lint::Severity::Error => lt::DiagnosticSeverity::ERROR,
            crate::lint::Severity::Warning => lt::DiagnosticSeverity::WARNING,
        }),
        code: Some(lt::NumberOrString::String(d.rule.to_string())),
        // The rule's page (the editor links the code to it).
        code_description: crate::lint::rule::url(d.rule)
            .parse::<lt::Uri>()
            .ok()
            .map(|href| lt::CodeDescription { href }),
        source: Some("pwk".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    #[test]
    fn incremental_edits_in_utf16() {
        let uri: Uri = "file:///r.md".parse().unwrap();
        let mut d = Document::new(
            uri,
            "/r.md".into(),
            1,
            "---\nd: 日本\ntols: x\n---\n".into(),
        );
        let edit = |l1, c1, l2, c2, t: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            range_length: None,
            text: t.into(),
        };
        d.apply(
            2,
            vec![edit(2, 2, 2, 2, "o"), edit(1, 3, 1, 4, "")],
            Encoding::Utf16,
        );
        assert_eq!(d.text, "---\nd: 本\ntools: x\n---\n");
        assert_eq!(d.version, 2);
        // Out of range: clamped, no panic.
        d.apply(3, vec![edit(99, 0, 2, 0, "z")], Encoding::Utf16);
        assert!(d.text.ends_with('z'));
    }
}
