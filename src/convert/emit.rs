//! The one YAML writer of `pwk convert`: frontmatter entries written from parsed
//! values (never from the source text), with quoting that reads back as the same
//! value in pwk's YAML reader and in every host's (YAML 1.1 readers included).
//!
//! A string is written plain only when nothing in it can be read as anything
//! else: no indicator first (`*`, `&`, `!`, `[`, `{`, `` ` ``, `@`, `%`, `-`, …),
//! no `: ` or ` #` inside, no leading or trailing blank, not a word YAML types
//! (`true`, `null`, `~`, YAML 1.1's `yes`/`no`/`on`/`off`), nothing that starts
//! like a number, only printable characters. A multi-line string whose lines
//! allow it is a literal block (`|`, `|-`); everything else is double-quoted,
//! with every character a host could mangle escaped.

use crate::role::yaml::{ScalarType, scalar_type};
use crate::role::{Node, Value};

/// Where a scalar sits: block context (a mapping value, a block list item) or
/// inside a flow collection (`[a, b]`), where `,[]{}` end a plain scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    Block,
    Flow,
}

/// Words YAML 1.1 readers type (booleans): quoted so every host reads a string.
const YAML11_WORDS: [&str; 8] = ["yes", "no", "on", "off", "y", "n", "true", "false"];

/// Whether `c` may appear raw in a double-quoted or plain scalar: YAML's
/// printable set, less what pwk keeps inert (bidi controls, BOM, line and
/// paragraph separators, NEL).
fn printable(c: char) -> bool {
    !(crate::text::is_forbidden_control(c)
        || crate::text::is_bidi_control(c)
        || matches!(
            c,
            '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        ))
}

/// Whether `s` can be written as a plain scalar and read back as this string.
pub(crate) fn plain_ok(s: &str, cx: Context) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let last = s.chars().next_back().unwrap_or(first);
    if scalar_type(s, true) != ScalarType::String
        || YAML11_WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))
        // Numbers, YAML 1.1 sexagesimals and `1_000`, dates: quoted.
        || first.is_ascii_digit()
        || "-?:,[]{}#&*!|>'\"%@`.+~=<\\".contains(first)
        || first.is_whitespace()
        || last.is_whitespace()
        || last == ':'
        || s.contains(": ")
        || s.contains(" #")
    {
        return false;
    }
    // In a flow collection pwk's reader refuses a blank then `-` before the next
    // `,` (`[yes -, x]`, "plain scalar cannot start with '-'"): quoted, which
    // every reader takes the same way.
    if cx == Context::Flow && s.contains(" -") {
        return false;
    }
    let flow_bad = |c: char| cx == Context::Flow && ",[]{}:#".contains(c);
    s.chars()
        .all(|c| printable(c) && !matches!(c, '\n' | '\r' | '\t') && !flow_bad(c))
}

/// `s` as a double-quoted scalar.
pub(crate) fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if !printable(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A string as a scalar in context `cx`: plain when safe, else double-quoted.
pub(crate) fn scalar(s: &str, cx: Context) -> String {
    if plain_ok(s, cx) {
        s.to_string()
    } else {
        quoted(s)
    }
}

/// A mapping key.
pub(crate) fn key(s: &str) -> String {
    scalar(s, Context::Flow)
}

/// A list of strings as a flow sequence: `[a, "b, c"]`.
pub(crate) fn flow_list(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|i| scalar(i, Context::Flow)).collect();
    format!("[{}]", inner.join(", "))
}

/// The literal-block header for `s` when it reads back exactly (`|` for one
/// final line break, `|-` for none), else `None`.
fn literal_header(s: &str) -> Option<&'static str> {
    if !s.contains('\n') {
        return None;
    }
    let (body, header) = match s.strip_suffix('\n') {
        Some(b) if b.ends_with('\n') => return None,
        Some(b) => (b, "|"),
        None => (s, "|-"),
    };
    let first = body.split('\n').next().unwrap_or_default();
    let lines_ok = body.split('\n').all(|l| {
        // A line of blanks only would be read as indentation, not text.
        l.is_empty() || !l.trim_start_matches(' ').is_empty()
    });
    let ok = !first.is_empty()
        && !first.starts_with([' ', '\t'])
        && lines_ok
        && body
            .chars()
            .all(|c| printable(c) && !matches!(c, '\r' | '\t'));
    ok.then_some(header)
}

/// A mapping entry `key: value` at `indent` spaces, ending with a line break;
/// nested values in block style, two spaces deeper.
pub(crate) fn entry(k: &str, node: &Node, indent: usize) -> String {
    let mut out = String::new();
    write_entry(&mut out, k, node, indent);
    out
}

/// A mapping entry whose value is a string.
pub(crate) fn string_entry(k: &str, value: &str) -> String {
    let mut out = String::new();
    out.push_str(&key(k));
    out.push(':');
    write_string(&mut out, value, 0);
    out
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

fn write_entry(out: &mut String, k: &str, node: &Node, indent: usize) {
    pad(out, indent);
    out.push_str(&key(k));
    out.push(':');
    write_value(out, node, indent);
}

/// The value after `key:` or `-` (the indicator is written): on the same line
/// for scalars and empty collections, else on the next lines.
fn write_value(out: &mut String, node: &Node, indent: usize) {
    match &node.value {
        Value::Scalar { text, plain } => {
            if *plain && scalar_type(text, true) != ScalarType::String {
                // A typed plain scalar (`12`, `true`, `~`): its text, which is plain.
                if !text.is_empty() {
                    out.push(' ');
                    out.push_str(text);
                }
                out.push('\n');
            } else {
                write_string(out, text, indent);
            }
        }
        Value::Sequence(items) if items.is_empty() => out.push_str(" []\n"),
        Value::Sequence(items) => {
            out.push('\n');
            for item in items {
                pad(out, indent + 2);
                out.push('-');
                write_value(out, item, indent + 2);
            }
        }
        Value::Mapping(m) if m.is_empty() => out.push_str(" {}\n"),
        Value::Mapping(m) => {
            out.push('\n');
            for (k, v) in m.iter() {
                write_entry(out, &k.text, v, indent + 2);
            }
        }
    }
}

fn write_string(out: &mut String, s: &str, indent: usize) {
    match literal_header(s) {
        Some(header) => {
            out.push(' ');
            out.push_str(header);
            out.push('\n');
            let body = s.strip_suffix('\n').unwrap_or(s);
            for line in body.split('\n') {
                if !line.is_empty() {
                    pad(out, indent + 2);
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        None => {
            out.push(' ');
            out.push_str(&scalar(s, Context::Block));
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::role::RoleDoc;
    use proptest::prelude::*;

    fn read(yaml: &str) -> Node {
        let text = format!("---\n{yaml}---\nbody\n");
        match RoleDoc::parse("r.md", text.as_bytes()).tree {
            Some(Ok(t)) => t,
            other => panic!("{yaml:?} does not parse: {other:?}"),
        }
    }

    fn round_trip(s: &str) {
        let tree = read(&string_entry("k", s));
        let v = tree.get("k").unwrap();
        assert_eq!(v.as_str(), Some(s), "{:?}", string_entry("k", s));
        let tree = read(&format!("{}: v\n", key(s)));
        assert!(tree.get(s).is_some(), "key {:?}: {:?}", key(s), tree);
        let tree = read(&format!("k: {}\n", flow_list(&[s.to_string(), "x".into()])));
        let items = crate::role::string_list(tree.get("k").unwrap());
        assert_eq!(
            tree.get("k").unwrap().as_sequence().unwrap()[0].as_str(),
            Some(s)
        );
        assert!(items.is_some());
    }

    #[test]
    fn quotes_what_yaml_would_read_otherwise() {
        for s in [
            "*",
            "&a",
            "!tag",
            "[x]",
            "{name: rev}",
            "`code`",
            "@me",
            "%TAG",
            "a: b",
            "a #b",
            " lead",
            "trail ",
            "yes",
            "No",
            "true",
            "null",
            "~",
            "12",
            "1:30",
            "0x1F",
            "1e3",
            ".inf",
            "-",
            "- x",
            "---",
            "...",
            "line\nline",
            "two\n\nbreaks\n\n",
            "tab\there",
            "esc\u{1b}",
            "bidi\u{202e}",
            "\u{feff}bom",
            "quote\"s and \\",
            "",
            "a,b",
            "#x",
            "x:",
            "read, grep",
        ] {
            round_trip(s);
        }
        assert_eq!(scalar("*", Context::Block), "\"*\"");
        assert_eq!(scalar("read, grep", Context::Block), "read, grep");
        assert_eq!(scalar("Reviews diffs.", Context::Block), "Reviews diffs.");
        assert_eq!(scalar("yes", Context::Block), "\"yes\"");
    }

    #[test]
    fn multi_line_strings_are_literal_blocks() {
        assert_eq!(string_entry("d", "a\nb\n"), "d: |\n  a\n  b\n");
        assert_eq!(string_entry("d", "a\n\nb"), "d: |-\n  a\n\n  b\n");
        assert_eq!(string_entry("d", " a\nb"), "d: \" a\\nb\"\n");
    }

    #[test]
    fn nested_values_are_block_style() {
        let tree = read("hooks: {Stop: [{command: \"echo: done\"}], n: 3, on: x, e: [], m: {}}\n");
        let node = tree.get("hooks").unwrap();
        let text = entry("hooks", node, 0);
        assert_eq!(
            text,
            "hooks:\n  Stop:\n    -\n      command: \"echo: done\"\n  \"n\": 3\n  \"on\": x\n  e: []\n  m: {}\n"
        );
        assert_eq!(read(&text).get("hooks").unwrap().to_json(), node.to_json());
    }

    fn any_text() -> impl Strategy<Value = String> {
        let atoms = prop::sample::select(vec![
            "a", "Z", "0", "9", " ", "  ", ":", ": ", "#", " #", "-", "?", ",", "[", "]", "{", "}",
            "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`", "\\", ".", "~", "\n", "\t", "\r",
            "\u{1b}", "\u{7f}", "\u{85}", "\u{a0}", "é", "\u{202e}", "\u{2028}", "\u{feff}", "yes",
            "null", "true", "0x", "1e", "---", "...", "=", "<<",
        ]);
        prop::collection::vec(atoms, 0..12).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Emit, then read with pwk's YAML reader: the same string, as a value,
        /// a key and a flow-list item.
        #[test]
        fn every_string_reads_back(s in any_text()) {
            round_trip(&s);
        }

        #[test]
        fn arbitrary_strings_read_back(s in "\\PC{0,24}") {
            round_trip(&s);
        }
    }
}
