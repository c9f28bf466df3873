//! Strict JSON: the one reader for every JSON document pwk takes as input (a
//! delegate request, a DelegationRequest, coverage input, `pwk lsp` messages,
//! `pwk mcp` messages and tool arguments, baselines): serde_json's syntax check,
//! plus what serde_json
//! silently allows — a duplicate key in one object, where the last value would win
//! (`"profile":"readonly"` then `"profile":"implementation"` would run with mutating
//! tools). Positions are 1-based lines and 1-based columns counted in characters.

use std::collections::HashMap;

use serde_json::Value;

/// A 1-based line and column (characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Why input is not acceptable JSON. The message never repeats the position: show
/// it as `<source>:<pos>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum JsonError {
    #[error("not valid JSON: {message}")]
    Syntax { pos: Pos, message: String },
    #[error("duplicate key {key:?} (first at {first}); pwk does not pick one of the values")]
    DuplicateKey {
        key: String,
        first: Pos,
        second: Pos,
    },
    /// Valid JSON of the wrong shape for what was asked ([`from_slice_strict`]).
    #[error("{message}")]
    Shape { message: String },
    /// A document whose tree would take more memory than [`memory_budget`] allows
    /// for its size (`[0,0,…]`: 32 bytes of tree for every 2 bytes of text).
    #[error(
        "the document would take about {estimate} bytes of memory once read ({bytes} bytes of text; pwk allows {budget}): refused unread"
    )]
    TooLarge {
        bytes: usize,
        estimate: usize,
        budget: usize,
    },
}

impl JsonError {
    /// Where the error is (for a duplicate key: its second occurrence).
    pub(crate) fn pos(&self) -> Pos {
        match self {
            JsonError::Syntax { pos, .. } => *pos,
            JsonError::DuplicateKey { second, .. } => *second,
            JsonError::Shape { .. } | JsonError::TooLarge { .. } => Pos { line: 1, column: 1 },
        }
    }
}

/// `null`, `a boolean`, `a number`, `a string`, `an array` or `an object`.
pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parse `bytes` strictly ([`parse_strict`]) into `T`. A document of the wrong
/// shape is a `Shape` error with serde's message.
pub(crate) fn from_slice_strict<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
) -> Result<T, JsonError> {
    let value = parse_strict(bytes)?;
    serde_json::from_value(value).map_err(|e| JsonError::Shape {
        message: e.to_string(),
    })
}

/// Parse `bytes` as JSON, refusing duplicate keys, and refusing unread a document
/// whose tree would take more than [`memory_budget`] (a syntax error is still
/// reported as one).
pub(crate) fn parse_strict(bytes: &[u8]) -> Result<Value, JsonError> {
    let (estimate, budget) = (tree_estimate(bytes), memory_budget(bytes.len()));
    if estimate > budget {
        // A pass that builds nothing, so a syntax error is still named as one.
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(|e| syntax(bytes, &e))?;
        return Err(JsonError::TooLarge {
            bytes: bytes.len(),
            estimate,
            budget,
        });
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|e| syntax(bytes, &e))?;
    check_duplicates(bytes)?;
    Ok(value)
}

/// The most memory a document of `len` bytes may take as a tree: 8 times its size,
/// plus 64 MiB. Text (a role's 1 MiB buffer in a `didOpen`) costs about its size;
/// a request of 100,000 watched-file events about 20 times its size, under the
/// 64 MiB floor up to 3 MB; an array of zeros 25 times, of one-key objects 86 times.
pub(crate) fn memory_budget(len: usize) -> usize {
    len.saturating_mul(8).saturating_add(64 << 20)
}

/// An upper estimate of the memory `serde_json::Value` takes for `bytes` (measured
/// with a counting allocator: 32 bytes a value, grown arrays up to 48; a B-tree
/// node of about 630 bytes for each object with a member, about 120 a member
/// once nodes split; strings their length), from one scan that allocates nothing.
/// The scan assumes valid JSON; on anything else it still ends, with some number.
fn tree_estimate(bytes: &[u8]) -> usize {
    let (mut values, mut strings, mut objects, mut members) = (0usize, 0usize, 0usize, 0usize);
    // The last significant byte, to tell a key from a string value.
    let mut prev = b' ';
    // Whether each open container is an object, and whether it has a member.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'{' | b'[' => {
                values += 1;
                stack.push((b == b'{', false));
            }
            b'}' | b']' => {
                if let Some((true, true)) = stack.pop() {
                    objects += 1;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                strings += i.min(bytes.len()) - start;
                let key = matches!(prev, b'{' | b',') && matches!(stack.last(), Some((true, _)));
                if key {
                    members += 1;
                    if let Some(top) = stack.last_mut() {
                        top.1 = true;
                    }
                } else {
                    values += 1;
                }
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                values += 1;
                while i + 1 < bytes.len()
                    && !matches!(
                        bytes[i + 1],
                        b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t'
                    )
                {
                    i += 1;
                }
            }
            _ => {}
        }
        if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            prev = b;
        }
        i += 1;
    }
    values
        .saturating_mul(48)
        .saturating_add(strings)
        .saturating_add(objects.saturating_mul(630))
        .saturating_add(members.saturating_mul(120))
}

fn syntax(bytes: &[u8], e: &serde_json::Error) -> JsonError {
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    // serde_json counts columns in bytes, and reports column 0 at the end of input.
    let line = e.line().max(1);
    let start = line_start(bytes, line);
    let end = (start + e.column()).min(bytes.len());
    let chars = String::from_utf8_lossy(&bytes[start..end]).chars().count();
    JsonError::Syntax {
        pos: Pos {
            line,
            column: chars.max(1),
        },
        message,
    }
}

/// The byte offset where 1-based `line` starts.
fn line_start(bytes: &[u8], line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(line - 2)
        .map_or(bytes.len(), |(i, _)| i + 1)
}

fn pos_at(bytes: &[u8], offset: usize) -> Pos {
    let before = &bytes[..offset];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&bytes[start..offset])
        .chars()
        .count()
        + 1;
    Pos { line, column }
}

enum Frame {
    Object {
        keys: HashMap<String, usize>,
        want_key: bool,
    },
    Array,
}

/// Walk syntactically valid JSON and fail at the first key seen twice in one object.
fn check_duplicates(bytes: &[u8]) -> Result<(), JsonError> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => stack.push(Frame::Object {
                keys: HashMap::new(),
                want_key: true,
            }),
            b'[' => stack.push(Frame::Array),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Frame::Object { want_key, .. }) = stack.last_mut() {
                    *want_key = true;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object { keys, want_key }) = stack.last_mut()
                    && *want_key
                {
                    *want_key = false;
                    let raw = &bytes[start..(i + 1).min(bytes.len())];
                    // Decoded, so "a" and "\u0061" are the same key.
                    let key: String = serde_json::from_slice(raw).unwrap_or_default();
                    if let Some(&first) = keys.get(&key) {
                        return Err(JsonError::DuplicateKey {
                            key,
                            first: pos_at(bytes, first),
                            second: pos_at(bytes, start),
                        });
                    }
                    keys.insert(key, start);
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_whose_tree_outgrows_its_text_is_refused_unread() {
        // 8 MB of zeros: about 200 MB as a tree; refused before it is built.
        let zeros = format!("[{}0]", "0,".repeat(4 << 20));
        match parse_strict(zeros.as_bytes()) {
            Err(JsonError::TooLarge {
                bytes,
                estimate,
                budget,
            }) => {
                assert_eq!(bytes, zeros.len());
                assert!(estimate > budget && budget == memory_budget(bytes));
            }
            other => panic!("{other:?}"),
        }
        let objects = format!("[{}{{}}]", "{\"a\":0},".repeat(1 << 20));
        assert!(matches!(
            parse_strict(objects.as_bytes()),
            Err(JsonError::TooLarge { .. })
        ));
        // Text costs its size: 16 MB of it is read.
        let text = format!("{{\"text\":\"{}\"}}", "x".repeat(16 << 20));
        assert!(parse_strict(text.as_bytes()).is_ok());
        // Under the floor, even a costly shape is read.
        assert!(parse_strict(format!("[{}0]", "0,".repeat(100_000)).as_bytes()).is_ok());
        // A syntax error is still reported as one.
        let broken = format!("[{}0", "0,".repeat(4 << 20));
        assert!(matches!(
            parse_strict(broken.as_bytes()),
            Err(JsonError::Syntax { .. })
        ));
    }

    #[test]
    fn the_estimate_counts_values_members_and_text() {
        assert_eq!(tree_estimate(b"[0,1,2]"), 4 * 48);
        assert_eq!(tree_estimate(b"{}"), 48);
        // One object with a member: its node, the member, the value, the key text.
        assert_eq!(
            tree_estimate(br#"{"a": "bc"}"#),
            48 + 630 + 120 + 48 + 2 + 3
        );
        assert_eq!(tree_estimate(br#"["a\"b"]"#), 2 * 48 + 5);
    }

    #[test]
    fn duplicate_keys_are_refused_with_both_positions() {
        let text = "{\"profile\":\"readonly\",\n  \"x\": {\"profile\": 1},\n  \"pr\\u006ffile\":\"implementation\"}";
        match parse_strict(text.as_bytes()) {
            Err(JsonError::DuplicateKey { key, first, second }) => {
                assert_eq!(key, "profile");
                assert_eq!(first, Pos { line: 1, column: 2 });
                assert_eq!(second, Pos { line: 3, column: 3 });
            }
            other => panic!("{other:?}"),
        }
        // The same key in different objects, or as a value, is fine.
        assert!(parse_strict(br#"{"a":{"a":"a"},"b":["a","a"],"c":{"a":1}}"#).is_ok());
    }

    #[test]
    fn syntax_errors_have_1_based_character_columns() {
        let e = parse_strict("{\"é\": ?}".as_bytes()).unwrap_err();
        assert_eq!(e.pos(), Pos { line: 1, column: 7 });
        assert!(!e.to_string().contains("line"), "{e}");
        assert!(e.to_string().starts_with("not valid JSON: "), "{e}");
        let e = parse_strict(b"").unwrap_err();
        assert_eq!(e.pos(), Pos { line: 1, column: 1 });
        let e = parse_strict(b"{\n").unwrap_err();
        assert_eq!(e.pos().line, 2);
        assert!(e.pos().column >= 1);
    }

    proptest::proptest! {
        #![proptest_config(crate::testing::fuzz_config())]
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = parse_strict(&bytes);
        }
    }
}
