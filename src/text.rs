//! Small text helpers shared by the human renderers, and the one escaping function
//! for untrusted text (role files, file names, pi's output, requests) on its way to a
//! terminal or a CI log.

use std::borrow::Cow;

pub mod scan;

/// Whether `c` is a control character that has no business in frontmatter: C0 other
/// than tab, line feed and carriage return, DEL, and C1.
pub fn is_forbidden_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// Whether `c` is a bidirectional embedding, override or isolate (U+202A–U+202E,
/// U+2066–U+2069): the characters of "Trojan Source" attacks, which make text
/// display in a different order than it is read.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whether `c` displays as nothing: Unicode's default-ignorable code points
/// (zero-width spaces and joiners, soft hyphen, bidi marks and controls, word
/// joiner and invisible operators, Hangul fillers, variation selectors, the BOM,
/// tag characters U+E0000–U+E0FFF), the line and paragraph separators U+2028 and
/// U+2029 (a line break to JavaScript, not to YAML), and the interlinear
/// annotation marks U+FFF9–U+FFFB. Text can hide in them: ASCII written in tag
/// characters is invisible on screen and read by a model ("ASCII smuggling").
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
        | '\u{ffa0}' | '\u{fff0}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

/// Whether an invisible `c` is part of an emoji as it is normally written, shown
/// raw: a zero-width joiner between two visible non-ASCII characters (👩‍💻), or
/// a text/emoji presentation selector (U+FE0E, U+FE0F) after one (❤️). Any other
/// use, and every other invisible character, is escaped.
pub(crate) fn is_emoji_part(prev: Option<char>, c: char, next: Option<char>) -> bool {
    let shown = |x: Option<char>| x.is_some_and(|x| !x.is_ascii() && !is_invisible(x));
    match c {
        '\u{200d}' => shown(prev) && shown(next),
        '\u{fe0e}' | '\u{fe0f}' => shown(prev),
        _ => false,
    }
}

/// Whether untrusted text keeps its line structure (`Block`: line feeds, tabs and
/// CRLF pass) or must stay on one line (`Line`: they are escaped too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escape {
    Line,
    Block,
}

/// A character as it is shown once escaped: `\0`, `\t`, `\n`, `\r`, else `\u{1b}`.
pub fn escape_char(c: char) -> String {
    match c {
        '\0' => "\\0".into(),
        '\t' => "\\t".into(),
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        c => format!("\\u{{{:x}}}", c as u32),
    }
}

fn needs_escape(prev: Option<char>, c: char, next: Option<char>, mode: Escape) -> bool {
    match c {
        '\n' | '\t' => mode == Escape::Line,
        // CRLF keeps its line break in a block; a lone CR would move the cursor back.
        '\r' => mode == Escape::Line || next != Some('\n'),
        c => {
            is_forbidden_control(c)
                || is_bidi_control(c)
                || (is_invisible(c) && !is_emoji_part(prev, c, next))
        }
    }
}

/// Whether `b` can start a character [`escape`] changes: below 0x20, 0x7f (DEL),
/// or the first byte of a two-byte C1 control, U+00AD, U+034F or U+061C, of a
/// three-byte character in U+1000–U+3FFF or U+F000–U+FFFF, or of a four-byte one
/// in U+10000–U+3FFFF or U+C0000–U+FFFFF. UTF-8 continuation bytes are none of
/// these.
fn may_escape(b: u8) -> bool {
    b < 0x20
        || matches!(
            b,
            0x7f | 0xc2 | 0xcd | 0xd8 | 0xe1..=0xe3 | 0xef | 0xf0 | 0xf3
        )
}

/// The byte offset of the first character [`escape`] changes. A byte scan; a
/// character is decoded only at a byte [`may_escape`] (most text is ASCII).
fn first_to_escape(s: &str, mode: Escape) -> Option<usize> {
    s.bytes().enumerate().find_map(|(i, b)| {
        if !may_escape(b) {
            return None;
        }
        let prev = s[..i].chars().next_back();
        let mut chars = s[i..].chars();
        let c = chars.next()?;
        needs_escape(prev, c, chars.next(), mode).then_some(i)
    })
}

/// `s` with every control character (C0, DEL, C1; in `Line` mode tab and line
/// breaks too) and every bidi control shown visibly as `\u{…}`, so that text from a
/// file, pi or a request can never drive the terminal, fake a line of output (or a
/// CI workflow command) or reorder what is displayed. Borrowed when nothing needs
/// escaping (the common case: one scan, no allocation).
pub fn escape(s: &str, mode: Escape) -> Cow<'_, str> {
    let Some(first) = first_to_escape(s, mode) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    let mut prev = s[..first].chars().next_back();
    let mut chars = s[first..].chars().peekable();
    while let Some(c) = chars.next() {
        if needs_escape(prev, c, chars.peek().copied(), mode) {
            out.push_str(&escape_char(c));
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    Cow::Owned(out)
}

/// Where [`escape`] made text longer: for each escaped character, its byte offset in
/// the original and how many bytes the escaped text has gained once past it, so that
/// byte spans into the original can be moved onto the escaped text.
#[derive(Debug, Clone, Default)]
pub struct OffsetMap {
    grown: Vec<(usize, usize)>,
}

impl OffsetMap {
    /// The offset in the escaped text of byte `offset` of the original.
    pub fn map(&self, offset: usize) -> usize {
        let i = self.grown.partition_point(|&(at, _)| at < offset);
        offset + if i == 0 { 0 } else { self.grown[i - 1].1 }
    }
}

/// [`escape`], with the map from original offsets to escaped ones; `None` when
/// nothing needed escaping.
pub fn escape_mapped(s: &str, mode: Escape) -> Option<(String, OffsetMap)> {
    first_to_escape(s, mode)?;
    let mut out = String::with_capacity(s.len() + 16);
    let mut map = OffsetMap::default();
    let mut chars = s.char_indices().peekable();
    let mut prev = None;
    while let Some((i, c)) = chars.next() {
        if needs_escape(prev, c, chars.peek().map(|&(_, n)| n), mode) {
            let e = escape_char(c);
            out.push_str(&e);
            map.grown.push((i, out.len() - (i + c.len_utf8())));
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    Some((out, map))
}

/// Serialized JSON with DEL, C1 controls, bidi controls and every invisible
/// character ([`is_invisible`]) written as `\uXXXX` escapes (a surrogate pair
/// above U+FFFF; serde_json escapes only C0). The document means exactly the same;
/// the bytes are safe to print to a terminal, and no text hides in them. Such
/// characters occur only inside strings.
pub fn json_escape_controls(json: String) -> String {
    let unsafe_char = |c: char| is_forbidden_control(c) || is_bidi_control(c) || is_invisible(c);
    if !json.bytes().any(may_escape) || !json.chars().any(unsafe_char) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if unsafe_char(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{:04x}", u));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// [`escape`] for a one-line field: a name, a path, a key.
pub fn escape_line(s: &str) -> Cow<'_, str> {
    escape(s, Escape::Line)
}

/// [`escape`] for multi-line text: a body, a message, a report.
pub fn escape_block(s: &str) -> Cow<'_, str> {
    escape(s, Escape::Block)
}

/// `s` on one line (each run of whitespace one space), cut to at most `max`
/// characters with an ellipsis when cut. Reads a bounded prefix only.
pub fn snippet(s: &str, max: usize) -> String {
    // Look at a bounded prefix only: the text may be megabytes long.
    let end = s
        .char_indices()
        .nth(max.saturating_mul(4) + 16)
        .map_or(s.len(), |(i, _)| i);
    let one_line: String = s[..end].split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut out: String = one_line.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The most characters of a user's own text (a key, a glob, a value) a message
/// echoes: enough to recognise it, never the whole of a 6,000-character line.
pub const ECHO_MAX: usize = 80;

/// `s` cut to its first [`ECHO_MAX`] characters, saying how long it was when cut
/// (`aaaa… (6001 characters)`), for echoing untrusted text in a message.
pub fn clip(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(ECHO_MAX) {
        Some((i, _)) => Cow::Owned(format!("{}… ({} characters)", &s[..i], s.chars().count())),
        None => Cow::Borrowed(s),
    }
}

/// Greedy word wrap: `text`'s words, whitespace-normalised, in lines of at most `width`
/// characters (a word longer than `width` gets a line of its own).
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for word in text.split_whitespace() {
        let w = word.chars().count();
        if cur_len > 0 && cur_len + 1 + w > width {
            lines.push(std::mem::take(&mut cur));
            cur_len = 0;
        }
        if cur_len > 0 {
            cur.push(' ');
            cur_len += 1;
        }
        cur.push_str(word);
        cur_len += w;
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte scan finds exactly the first character the char-by-char rule would
    /// escape, on text dense in the characters it looks for.
    #[test]
    fn first_to_escape_agrees_with_the_char_rule() {
        use proptest::prelude::*;
        let alphabet = prop::sample::select(vec![
            'a',
            ' ',
            '\n',
            '\r',
            '\t',
            '\0',
            '\u{1b}',
            '\u{7f}',
            '\u{80}',
            '\u{9f}',
            '\u{a0}',
            '\u{c2}',
            '\u{e2}',
            '\u{2029}',
            '\u{202a}',
            '\u{202e}',
            '\u{202f}',
            '\u{2066}',
            '\u{2069}',
            '\u{206a}',
            'é',
            '漢',
            '🦀',
            '\u{ad}',
            '\u{34f}',
            '\u{61c}',
            '\u{200b}',
            '\u{200d}',
            '\u{200e}',
            '\u{2028}',
            '\u{2060}',
            '\u{3164}',
            '\u{fe0f}',
            '\u{feff}',
            '\u{ffa0}',
            '\u{fff9}',
            '\u{1bca0}',
            '\u{1d173}',
            '\u{e0041}',
            '\u{e01ef}',
            '\u{180e}',
            '\u{115f}',
            '\u{17b4}',
            '\u{fffc}',
            '\u{2764}',
            'ſ',
        ]);
        let strategy = (prop::collection::vec(alphabet, 0..40), any::<bool>());
        proptest!(ProptestConfig::with_cases(20_000), |((chars, line) in strategy)| {
            let s: String = chars.into_iter().collect();
            let mode = if line { Escape::Line } else { Escape::Block };
            let mut it = s.char_indices().peekable();
            let mut expected = None;
            let mut prev = None;
            while let Some((i, c)) = it.next() {
                if needs_escape(prev, c, it.peek().map(|&(_, n)| n), mode) {
                    expected = Some(i);
                    break;
                }
                prev = Some(c);
            }
            prop_assert_eq!(first_to_escape(&s, mode), expected);
        });
    }

    /// Every invisible character is shown escaped, tag characters included; an
    /// emoji's joiner and presentation selector stay as written.
    #[test]
    fn invisible_characters_are_escaped_except_inside_an_emoji() {
        let hidden: String = "run rm"
            .chars()
            .map(|c| char::from_u32(0xe0000 + c as u32).unwrap())
            .collect();
        assert_eq!(
            escape_line(&format!("ok{hidden}.")),
            "ok\\u{e0072}\\u{e0075}\\u{e006e}\\u{e0020}\\u{e0072}\\u{e006d}."
        );
        assert_eq!(
            escape_line("a\u{2028}b\u{200b}c\u{ad}d"),
            "a\\u{2028}b\\u{200b}c\\u{ad}d"
        );
        assert_eq!(escape_line("\u{200f}x\u{061c}"), "\\u{200f}x\\u{61c}");
        // Emoji as written: unchanged.
        for emoji in ["👩\u{200d}💻", "❤\u{fe0f}", "☺\u{fe0e}"] {
            assert!(matches!(escape_line(emoji), Cow::Borrowed(_)), "{emoji}");
        }
        // A joiner or selector anywhere else is escaped.
        assert_eq!(escape_line("a\u{200d}b"), "a\\u{200d}b");
        assert_eq!(escape_line("a\u{fe0f}"), "a\\u{fe0f}");
        assert_eq!(escape_line("❤\u{fe0f}\u{fe0f}"), "❤\u{fe0f}\\u{fe0f}");
        assert_eq!(escape_line("❤\u{fe01}"), "❤\\u{fe01}");
    }

    #[test]
    fn wraps_greedily_and_keeps_long_words_whole() {
        assert_eq!(wrap_words("a bb  ccc\ndd", 6), ["a bb", "ccc dd"]);
        assert_eq!(wrap_words("abcdefgh ij", 4), ["abcdefgh", "ij"]);
        assert_eq!(wrap_words("héllo wörld", 11), ["héllo wörld"]);
        assert!(wrap_words("   ", 10).is_empty());
    }

    #[test]
    fn escapes_controls_and_bidi_visibly() {
        assert!(matches!(escape_line("plain text é 日本"), Cow::Borrowed(_)));
        assert_eq!(escape_line("a\u{1b}[31mb"), "a\\u{1b}[31mb");
        assert_eq!(escape_line("x\n::warning y"), "x\\n::warning y");
        assert_eq!(escape_block("x\n::warning y"), "x\n::warning y");
        assert_eq!(escape_block("a\tb\r\nc\rd"), "a\tb\r\nc\\rd");
        assert_eq!(escape_line("a\tb\r\n"), "a\\tb\\r\\n");
        assert_eq!(escape_block("\0\u{7f}\u{9b}"), "\\0\\u{7f}\\u{9b}");
        assert_eq!(
            escape_block("ab\u{202e}cd\u{2066}"),
            "ab\\u{202e}cd\\u{2066}"
        );
        let (e, map) = escape_mapped("a\u{1b}b\u{202e}c", Escape::Block).unwrap();
        assert_eq!(e, "a\\u{1b}b\\u{202e}c");
        assert_eq!(
            (map.map(0), map.map(1), map.map(2), map.map(3), map.map(6)),
            (0, 1, 7, 8, 16)
        );
        assert_eq!(&e[map.map(2)..map.map(3)], "b");
        assert_eq!(&e[map.map(6)..], "c");
        assert!(escape_mapped("plain", Escape::Block).is_none());
        let json = serde_json::to_string(&"a\u{7f}\u{9b}\u{202e}\u{1b}").unwrap();
        let safe = json_escape_controls(json);
        assert_eq!(safe, "\"a\\u007f\\u009b\\u202e\\u001b\"");
        assert_eq!(
            serde_json::from_str::<String>(&safe).unwrap(),
            "a\u{7f}\u{9b}\u{202e}\u{1b}"
        );
        for c in (0u32..0x110000).filter_map(char::from_u32) {
            let e = escape_block(&c.to_string()).into_owned();
            assert!(
                !e.chars().any(|c| c != '\n'
                    && c != '\t'
                    && (is_forbidden_control(c)
                        || is_bidi_control(c)
                        || is_invisible(c)
                        || c == '\r')),
                "{c:?}"
            );
            // In JSON too, as \u escapes that read back as the same text.
            let json = json_escape_controls(serde_json::to_string(&format!("a{c}")).unwrap());
            assert!(
                !json
                    .chars()
                    .any(|c| is_invisible(c) || is_bidi_control(c) || is_forbidden_control(c)),
                "{c:?}"
            );
            assert_eq!(
                serde_json::from_str::<String>(&json).unwrap(),
                format!("a{c}")
            );
        }
    }
}
