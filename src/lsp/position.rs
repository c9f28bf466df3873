//! LSP positions (0-based line, column in the negotiated encoding's code units) ↔
//! byte offsets in a buffer.
//!
//! LSP counts columns in UTF-16 code units unless client and server agree on
//! `utf-8` or `utf-32` (`general.positionEncodings`, LSP 3.17). pwk prefers
//! `utf-8` (its own offsets, no counting), then `utf-32`, and falls back to `utf-16`.

use lsp_types::{Position, PositionEncodingKind};

use crate::role::lines::{BLOCK, count_chars, count_utf16};

/// The unit of a position's `character`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// The encoding to use given what the client offers (`None`: it offered none,
    /// so UTF-16, as the protocol requires).
    pub(crate) fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        let offered = offered.unwrap_or_default();
        let has = |k: &PositionEncodingKind| offered.iter().any(|o| o == k);
        if has(&PositionEncodingKind::UTF8) {
            Encoding::Utf8
        } else if has(&PositionEncodingKind::UTF32) {
            Encoding::Utf32
        } else {
            Encoding::Utf16
        }
    }

    pub(crate) fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf32 => 1,
        }
    }
}

/// The code units of the characters that start in `bytes`, counted as the CLI's
/// [`crate::role::LineIndex`] counts characters.
fn units_in(bytes: &[u8], enc: Encoding) -> usize {
    crate::meter::add(crate::meter::Work::Scan, bytes.len());
    match enc {
        Encoding::Utf8 => bytes.len(),
        Encoding::Utf32 => count_chars(bytes),
        Encoding::Utf16 => count_utf16(bytes),
    }
}

/// Where each line of a text starts (bytes), and code-unit checkpoints: a
/// position costs a binary search and a count of at most [`BLOCK`] bytes,
/// whatever the length of its line (thousands of findings on one long line
/// stay linear, as [`crate::role::LineIndex`] keeps the CLI's). The checkpoints
/// are counted the first time a position lies more than a block into its line:
/// a buffer of short lines, rebuilt on every edit, never pays for them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lines {
    starts: Vec<usize>,
    checkpoints: std::sync::OnceLock<Checkpoints>,
}

/// `utf16[k]`, `utf32[k]`: the code units of the characters starting before byte
/// `k * BLOCK`.
#[derive(Debug, Clone, Default)]
struct Checkpoints {
    utf16: Vec<usize>,
    utf32: Vec<usize>,
}

impl Checkpoints {
    fn of(text: &str) -> Checkpoints {
        let blocks = text.len() / BLOCK + 1;
        let (mut utf16, mut utf32) = (Vec::with_capacity(blocks), Vec::with_capacity(blocks));
        let (mut at16, mut at32) = (0, 0);
        utf16.push(0);
        utf32.push(0);
        for block in text.as_bytes().chunks_exact(BLOCK) {
            at16 += units_in(block, Encoding::Utf16);
            at32 += units_in(block, Encoding::Utf32);
            utf16.push(at16);
            utf32.push(at32);
        }
        Checkpoints { utf16, utf32 }
    }
}

impl Lines {
    pub(crate) fn new(text: &str) -> Lines {
        let mut starts = Vec::with_capacity(text.len() / 32 + 2);
        starts.push(0);
        starts.extend(crate::text::scan::byte_positions(b'\n', text.as_bytes()).map(|i| i + 1));
        Lines {
            starts,
            checkpoints: std::sync::OnceLock::new(),
        }
    }

    /// The code units of the characters starting before byte `offset` of `text`
    /// (the text these lines are of).
    fn units_before(&self, text: &str, offset: usize, enc: Encoding) -> usize {
        if enc == Encoding::Utf8 {
            return offset;
        }
        let block = offset / BLOCK;
        let at = self.checkpoints.get_or_init(|| Checkpoints::of(text));
        let base = match enc {
            Encoding::Utf16 => at.utf16[block],
            _ => at.utf32[block],
        };
        base + units_in(&text.as_bytes()[block * BLOCK..offset], enc)
    }

    /// The text of 0-based `line` without its line break; `None` past the end.
    fn line<'t>(&self, text: &'t str, line: usize) -> Option<(usize, &'t str)> {
        let start = *self.starts.get(line)?;
        let end = self.starts.get(line + 1).map_or(text.len(), |&n| n - 1);
        let s = &text[start..end.max(start)];
        Some((start, s.strip_suffix('\r').unwrap_or(s)))
    }

    /// The LSP position of byte `offset` (clamped into the text and back to a
    /// character boundary).
    pub(crate) fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let bytes = text.as_bytes();
        let column = if offset - start <= BLOCK {
            units_in(&bytes[start..offset], enc)
        } else {
            self.units_before(text, offset, enc) - self.units_before(text, start, enc)
        };
        Position::new(line as u32, column as u32)
    }

    /// The byte offset of an LSP position. A line past the end is the end of the
    /// text; a column past the end of its line is the end of the line (as LSP
    /// says); a column inside a character (half a surrogate pair, the middle of a
    /// UTF-8 sequence) is that character's start.
    pub(crate) fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let Some((start, line)) = self.line(text, pos.line as usize) else {
            return text.len();
        };
        let want = pos.character as usize;
        let mut units = 0;
        for (i, c) in line.char_indices() {
            let next = units + enc.units(c);
            if next > want {
                return start + i;
            }
            units = next;
        }
        start + line.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_in_each_encoding() {
        // `é` is 2 bytes, 1 UTF-16 unit; `😀` is 4 bytes, 2 UTF-16 units, 1 scalar.
        let text = "---\nn: é😀x\r\n";
        let lines = Lines::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(lines.position(text, x, Encoding::Utf8), Position::new(1, 9));
        assert_eq!(
            lines.position(text, x, Encoding::Utf16),
            Position::new(1, 6)
        );
        assert_eq!(
            lines.position(text, x, Encoding::Utf32),
            Position::new(1, 5)
        );
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let p = lines.position(text, x, enc);
            assert_eq!(lines.offset(text, p, enc), x);
        }
        // Past the end of a line: the line end (before CRLF); past the last line: EOF.
        assert_eq!(
            lines.offset(text, Position::new(1, 99), Encoding::Utf16),
            x + 1
        );
        assert_eq!(
            lines.offset(text, Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
        // Inside a surrogate pair: the character's start.
        let smile = text.find('😀').unwrap();
        assert_eq!(
            lines.offset(text, Position::new(1, 5), Encoding::Utf16),
            smile
        );
    }

    /// A position from the checkpoints is the one a count from the line's start
    /// gives, in each encoding, on lines longer and shorter than a block of one-,
    /// two-, three- and four-byte characters, at every character boundary.
    #[test]
    fn positions_on_long_lines_are_counted_from_the_line_start() {
        let pieces = ["a", "é", "日", "😀", "\n", "\r\n", "bb"];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in [0usize, 10, 700, 3000, 6000] {
            let mut text = String::new();
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // A line break one piece in 500: most lines run past a block.
                let i = (seed % 1000) as usize;
                text.push_str(pieces[if i < 2 { 4 + i } else { [0, 1, 2, 3, 6][i % 5] }]);
            }
            let lines = Lines::new(&text);
            for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
                // The count from the line's start, kept as the text is walked.
                let (mut line, mut column) = (0u32, 0usize);
                for (offset, c) in text.char_indices().chain([(text.len(), '\0')]) {
                    assert_eq!(
                        lines.position(&text, offset, enc),
                        Position::new(line, column as u32),
                        "{enc:?} at {offset} of {len}"
                    );
                    if c == '\n' {
                        (line, column) = (line + 1, 0);
                    } else {
                        column += enc.units(c);
                    }
                }
            }
        }
    }

    #[test]
    fn negotiation_prefers_utf8() {
        let all = [
            PositionEncodingKind::UTF16,
            PositionEncodingKind::UTF32,
            PositionEncodingKind::UTF8,
        ];
        assert_eq!(Encoding::negotiate(Some(&all)), Encoding::Utf8);
        assert_eq!(Encoding::negotiate(Some(&all[..2])), Encoding::Utf32);
        assert_eq!(Encoding::negotiate(None), Encoding::Utf16);
    }
}
