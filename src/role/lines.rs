//! Byte offsets ↔ 1-based line and column (in Unicode scalar values).

/// Line starts of one text, for turning byte offsets into positions.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

/// A 1-based line and column; the column counts Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // A SIMD search, not a byte-by-byte loop; a presized Vec.
        let mut starts = Vec::with_capacity(text.len() / 32 + 2);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The position of byte `offset` in `text` (clamped into the text, and back to a
    /// character boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let column = text[start..offset].chars().count() + 1;
        Position {
            line: line + 1,
            column,
        }
    }

    /// The byte offset where 1-based `line` starts.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.checked_sub(1)?).copied()
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}
