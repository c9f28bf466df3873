//! One finding: the data every renderer works from.

use std::ops::Range;
use std::path::PathBuf;

use crate::lint::fix::Fix;
use crate::role::Position;
pub use crate::severity::Severity;

/// A second place in the same file that explains the finding (e.g. a duplicate
/// key's first occurrence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub span: Range<usize>,
    pub start: Position,
    pub end: Position,
    pub label: String,
}

/// One lint finding.
///
/// `span` is a byte range in the file; `start` and `end` are 1-based lines and
/// columns in Unicode scalar values, `end` exclusive (the position just after the
/// span). A finding about the file as a whole sits at 1:1 with an empty span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule id, e.g. `unknown-key`.
    pub rule: &'static str,
    pub severity: Severity,
    /// One line: what is wrong.
    pub message: String,
    /// What to do about it (did-you-mean, the fix).
    pub help: Option<String>,
    pub path: PathBuf,
    pub span: Range<usize>,
    pub start: Position,
    pub end: Position,
    /// The short label shown under the span in human output.
    pub label: String,
    pub related: Vec<Related>,
    /// Mechanical repairs, when there are any (see [`crate::lint::fix`]).
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    /// A finding about a file that could not be read as text (no position inside it).
    pub fn whole_file(
        rule: &'static str,
        severity: Severity,
        path: PathBuf,
        message: String,
        help: Option<String>,
    ) -> Diagnostic {
        let origin = Position { line: 1, column: 1 };
        Diagnostic {
            rule,
            severity,
            message,
            help,
            path,
            span: 0..0,
            start: origin,
            end: origin,
            label: String::new(),
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    /// The order findings are shown in: by path, then position, then rule.
    pub fn sort_key(&self) -> (&PathBuf, Position, Position, &'static str) {
        (&self.path, self.start, self.end, self.rule)
    }
}
