//! Byte offsets ↔ 1-based line and column (in Unicode scalar values).

/// Line starts of one text, for turning byte offsets into positions.
///
/// A position costs a binary search plus a count of at most [`BLOCK`] bytes, whatever
/// the length of the line, so a file with a hundred thousand findings on one long
/// line stays linear.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// `chars[i]`: how many characters start before byte `i * BLOCK`.
    chars: Vec<usize>,
}

/// A 1-based line and column; the column counts Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// Bytes between two character-count checkpoints (the language server's
/// code-unit checkpoints too).
pub(crate) const BLOCK: usize = 1024;

/// Characters starting in `bytes`: every byte that is not a UTF-8 continuation byte
/// (a character split at either end counts where its first byte is).
pub(crate) fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// UTF-16 code units of the characters starting in `bytes`: one per character, and
/// one more for a four-byte character (a surrogate pair).
pub(crate) fn count_utf16(bytes: &[u8]) -> usize {
    count_chars(bytes) + bytes.iter().filter(|&&b| b >= 0xF0).count()
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // A SIMD search, not a byte-by-byte loop; a presized Vec.
        let mut starts = Vec::with_capacity(text.len() / 32 + 2);
        starts.push(0);
        starts.extend(crate::text::scan::byte_positions(b'\n', text.as_bytes()).map(|i| i + 1));
        // A checkpoint at every multiple of BLOCK up to the end (the end included:
        // a position at the very end of a text of whole blocks).
        let mut chars = Vec::with_capacity(text.len() / BLOCK + 1);
        chars.push(0);
        let mut total = 0;
        for block in text.as_bytes().chunks_exact(BLOCK) {
            total += count_chars(block);
            chars.push(total);
        }
        LineIndex { starts, chars }
    }

    /// Characters starting before byte `offset` of `text`.
    fn chars_before(&self, text: &str, offset: usize) -> usize {
        let block = offset / BLOCK;
        let base = self.chars.get(block).copied().unwrap_or(0);
        base + count_chars(&text.as_bytes()[block * BLOCK..offset])
    }

    /// The 0-based line that byte `offset` is on.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// The position of byte `offset` in `text` (clamped into the text, and back to a
    /// character boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.starts[line];
        let column = if offset - start <= BLOCK {
            count_chars(&text.as_bytes()[start..offset]) + 1
        } else {
            self.chars_before(text, offset) - self.chars_before(text, start) + 1
        };
        Position {
            line: line + 1,
            column,
        }
    }

    /// The byte offset where 1-based `line` starts.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.checked_sub(1)?).copied()
    }

    /// Where the line holding byte `offset` of `text` ends: its `\n`, or the end of
    /// the text. A lookup, not a scan: asked for each finding or item on one long
    /// line, it stays linear.
    pub fn line_end(&self, text: &str, offset: usize) -> usize {
        self.starts
            .get(self.line_of(offset) + 1)
            .map_or(text.len(), |next| next - 1)
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end of every offset's line is where a scan for `\n` from it stops.
    #[test]
    fn line_end_is_where_a_scan_stops() {
        for text in [
            "",
            "a",
            "\n",
            "ab\ncd",
            "ab\r\ncd\n",
            "\n\nx\n\n",
            "日本\né\n",
        ] {
            let idx = LineIndex::new(text);
            for o in 0..=text.len() {
                let want = text.as_bytes()[o..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(text.len(), |i| o + i);
                assert_eq!(idx.line_end(text, o), want, "{text:?} at {o}");
            }
        }
    }

    #[test]
    fn columns_count_characters_on_long_lines() {
        let text = format!("a\n{}é{}x\n", "b".repeat(3000), "日".repeat(2000));
        let idx = LineIndex::new(&text);
        let x = text.find('x').unwrap();
        assert_eq!(
            idx.position(&text, x),
            Position {
                line: 2,
                column: 5002
            }
        );
        let naive = |o: usize| text[..o].rsplit('\n').next().unwrap().chars().count() + 1;
        for o in (0..text.len())
            .filter(|&o| text.is_char_boundary(o))
            .step_by(97)
        {
            assert_eq!(idx.position(&text, o).column, naive(o), "{o}");
        }
        assert_eq!(idx.line_of(0), 0);
        assert_eq!(idx.line_of(2), 1);
    }

    /// The end of a text of whole blocks (a finding at the very end of a file).
    #[test]
    fn the_end_of_a_text_of_whole_blocks() {
        for text in ["é".repeat(BLOCK), "a".repeat(2 * BLOCK), "日".repeat(BLOCK)] {
            let end = text.len();
            let idx = LineIndex::new(&text);
            assert_eq!(idx.position(&text, end).column, text.chars().count() + 1);
        }
    }
}
