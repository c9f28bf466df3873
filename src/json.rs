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
}

impl JsonError {
    /// Where the error is (for a duplicate key: its second occurrence).
    pub(crate) fn pos(&self) -> Pos {
        match self {
            JsonError::Syntax { pos, .. } => *pos,
            JsonError::DuplicateKey { second, .. } => *second,
            JsonError::Shape { .. } => Pos { line: 1, column: 1 },
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

/// Parse `bytes` as JSON, refusing duplicate keys.
pub(crate) fn parse_strict(bytes: &[u8]) -> Result<Value, JsonError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| syntax(bytes, &e))?;
    check_duplicates(bytes)?;
    Ok(value)
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
