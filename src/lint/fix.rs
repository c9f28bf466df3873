//! Mechanical repairs as data: what `--fix`, JSON/SARIF `fixes` and the language
//! server's code actions all apply.
//!
//! A [`Fix`] is a titled list of byte-range [`Edit`]s in one file's text, with a
//! [`Safety`] level. Edits of one fix never overlap; they are applied from the
//! end of the file backwards so earlier offsets stay valid.

use std::ops::Range;

use serde::Serialize;

/// Whether a fix can be applied without a human looking at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Safety {
    /// Keeps the meaning the author intended (quoted integer → integer, CRLF → LF).
    Safe,
    /// A guess (a misspelt key with one close match, `name` to the file stem).
    Unsafe,
}

/// Replace `range` (bytes in the file) with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub range: Range<usize>,
    pub replacement: String,
}

/// One repair for one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// What the fix does, imperative: "unquote `max_turns`".
    pub title: String,
    pub safety: Safety,
    /// Non-overlapping, sorted by start.
    pub edits: Vec<Edit>,
}

impl Fix {
    pub fn new(title: impl Into<String>, safety: Safety, mut edits: Vec<Edit>) -> Fix {
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        Fix {
            title: title.into(),
            safety,
            edits,
        }
    }

    /// One edit.
    pub fn replace(
        title: impl Into<String>,
        safety: Safety,
        range: Range<usize>,
        replacement: impl Into<String>,
    ) -> Fix {
        Fix::new(
            title,
            safety,
            vec![Edit {
                range,
                replacement: replacement.into(),
            }],
        )
    }
}
