//! Finding the `---` fenced YAML frontmatter of a Markdown file, keeping byte offsets.
//!
//! Offsets always refer to the original text (BOM and `\r` included), so every
//! position pwk reports is a position in the `.md` file itself.

use std::ops::Range;

/// How the frontmatter was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseKind {
    /// `---`
    Dashes,
    /// `...` (YAML's document end marker; several hosts do not accept it)
    Dots,
}

/// Where the pieces of a role file are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fences {
    /// The file starts with a UTF-8 byte order mark.
    pub bom: bool,
    /// The opening `---` line, without its line break.
    pub open: Range<usize>,
    /// The YAML text between the fences (may be empty).
    pub yaml: Range<usize>,
    /// The closing line, without its line break.
    pub close: Range<usize>,
    pub close_kind: CloseKind,
    /// Everything after the closing line's line break.
    pub body: Range<usize>,
}

/// Why no frontmatter could be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitError {
    /// The first line is not `---`. `first_line` is that line (BOM excluded).
    MissingOpeningFence { first_line: Range<usize> },
    /// An opening `---` without a closing `---` or `...` line.
    Unterminated { open: Range<usize> },
}

/// Where a host ends the frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Closing {
    /// At the first line that is `---` (or `...`), as pwk splits.
    #[default]
    Line,
    /// At the first `---` anywhere after the opening line, even mid-line or
    /// indented (Claude Code 2.1.332: `/^---\s*\n([\s\S]*?)---\s*\n?/`).
    FirstDashes,
}

/// Under [`Closing::FirstDashes`]: the offset of a `---` that ends the frontmatter
/// before pwk's closing line, if there is one.
pub(crate) fn early_dashes(text: &str, f: &Fences) -> Option<usize> {
    if f.close_kind != CloseKind::Dashes {
        return None;
    }
    let from = f.open.start + 3;
    let at = from + crate::text::scan::find(&text.as_bytes()[from..f.close.start], b"---")?;
    Some(at)
}

/// Under [`Closing::FirstDashes`], for a frontmatter with no closing line: the
/// offset of the first `---` after the opening line (`---B`, `a---`), where that
/// host ends the frontmatter anyway.
pub(crate) fn dashes_after_open(text: &str, open: &Range<usize>) -> Option<usize> {
    let from = (open.end + 1).min(text.len());
    Some(from + crate::text::scan::find(&text.as_bytes()[from..], b"---")?)
}

const BOM: &str = "\u{feff}";

/// The lines of `text[range]` as (start offset in `text`, line without `\n`).
pub(crate) fn lines_in(
    text: &str,
    range: Range<usize>,
) -> impl Iterator<Item = (usize, &str)> + '_ {
    lines_from(text, range.start)
        .take_while(move |(line, _)| line.start < range.end)
        .map(move |(line, _)| (line.start, &text[line.start..line.end.min(range.end)]))
}

/// The lines of `text` from byte `from`: (line range without `\n`, offset after the `\n`).
fn lines_from(text: &str, from: usize) -> impl Iterator<Item = (Range<usize>, usize)> + '_ {
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= text.len() {
            return None;
        }
        let start = pos;
        let (end, next) = match crate::text::scan::find_byte(b'\n', &text.as_bytes()[start..]) {
            Some(i) => (start + i, start + i + 1),
            None => (text.len(), text.len()),
        };
        pos = next;
        Some((start..end, next))
    })
}

/// A fence line's content with trailing spaces, tabs and `\r` removed.
fn fence_text(line: &str) -> &str {
    line.trim_end_matches([' ', '\t', '\r'])
}

/// Split `text` into frontmatter and body.
pub(crate) fn split(text: &str) -> Result<Fences, SplitError> {
    let bom = text.starts_with(BOM);
    let start = if bom { BOM.len() } else { 0 };
    let mut lines = lines_from(text, start);
    let Some((open, after_open)) = lines.next() else {
        return Err(SplitError::MissingOpeningFence {
            first_line: start..start,
        });
    };
    if fence_text(&text[open.clone()]) != "---" {
        return Err(SplitError::MissingOpeningFence { first_line: open });
    }
    for (line, next) in lines {
        let kind = match fence_text(&text[line.clone()]) {
            "---" => CloseKind::Dashes,
            "..." => CloseKind::Dots,
            _ => continue,
        };
        return Ok(Fences {
            bom,
            open,
            yaml: after_open..line.start,
            close: line,
            close_kind: kind,
            body: next..text.len(),
        });
    }
    Err(SplitError::Unterminated { open })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_plain_file() {
        let t = "---\nname: a\n---\nbody\n";
        let f = split(t).unwrap();
        assert_eq!(&t[f.yaml.clone()], "name: a\n");
        assert_eq!(&t[f.body.clone()], "body\n");
        assert_eq!(f.close_kind, CloseKind::Dashes);
    }

    #[test]
    fn keeps_offsets_with_bom_and_crlf() {
        let t = "\u{feff}---\r\nname: a\r\n...\r\nbody";
        let f = split(t).unwrap();
        assert!(f.bom);
        assert_eq!(&t[f.yaml.clone()], "name: a\r\n");
        assert_eq!(f.close_kind, CloseKind::Dots);
        assert_eq!(&t[f.body.clone()], "body");
    }

    #[test]
    fn reports_missing_and_unterminated() {
        assert!(matches!(
            split("# title\n"),
            Err(SplitError::MissingOpeningFence { .. })
        ));
        assert!(matches!(
            split(""),
            Err(SplitError::MissingOpeningFence { .. })
        ));
        assert!(matches!(
            split("---\nname: a\n"),
            Err(SplitError::Unterminated { .. })
        ));
    }

    #[test]
    fn early_dashes_are_found_only_before_the_closing_line() {
        let at = |t: &str| early_dashes(t, &split(t).unwrap());
        assert_eq!(at("---\na: x---y\n---\nb\n"), Some(8));
        assert_eq!(at("---\na: |\n  ---\n---\n"), Some(11));
        assert_eq!(at("---\na: x\n---\n---\n"), None);
        assert_eq!(at("---\na: x\n...\n---\n"), None);
    }

    #[test]
    fn empty_frontmatter() {
        let t = "---\n---\n";
        let f = split(t).unwrap();
        assert!(f.yaml.is_empty());
    }
}
