//! The frontmatter YAML as a tree in which every key and value carries its byte
//! span in the original `.md` file.
//!
//! Parsing is done by `marked-yaml` (anchors and aliases are refused, so no
//! expansion bombs); this module converts its character markers into byte spans
//! of the whole file, works out where each scalar ends, and types plain scalars by
//! the YAML 1.2 core schema.
//!
//! Hostile input is stopped before that parser sees it: control characters are
//! refused (yaml-rust2 reads NUL as the end of the input and silently drops the
//! rest), and nesting deeper than [`MAX_DEPTH`] is refused after one pass of
//! yaml-rust2's event parser, which keeps its state on the heap; the tree
//! builder, the tree conversion, the schema validator and `Drop` all recurse.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use marked_yaml::{LoadError, LoaderOptions, Node as MNode};
use yaml_rust2::parser::{Event, Parser};

pub use crate::text::{is_bidi_control, is_forbidden_control};

/// How deeply collections (block or flow, together) may nest in frontmatter. Role
/// files need three levels; anything near this limit is an attack or an accident.
pub const MAX_DEPTH: usize = 64;

use crate::meter::{self, Work};
use crate::role::validate::{Instance, Number, Shape};

/// A byte range in the whole file.
pub type Span = Range<usize>;

/// One YAML node with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub span: Span,
    pub value: Value,
}

/// A mapping key: always a scalar.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub text: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A scalar; `plain` is false for quoted and block scalars (always strings).
    Scalar {
        text: String,
        plain: bool,
    },
    Sequence(Vec<Node>),
    Mapping(Mapping),
}

/// A mapping's entries in file order, with an index by key for large mappings, so
/// looking a key up is O(1) whatever the file holds (keys are unique: duplicates
/// are refused by the parser).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mapping {
    entries: Vec<(Key, Node)>,
    index: Option<HashMap<String, usize>>,
}

impl Mapping {
    /// Below this many entries a linear scan is faster than hashing.
    const INDEX_FROM: usize = 16;

    pub fn new(entries: Vec<(Key, Node)>) -> Mapping {
        let index = (entries.len() >= Mapping::INDEX_FROM).then(|| {
            let mut index = HashMap::with_capacity(entries.len());
            for (i, (k, _)) in entries.iter().enumerate() {
                index.entry(k.text.clone()).or_insert(i);
            }
            index
        });
        Mapping { entries, index }
    }

    /// The entry with key `key`.
    pub fn find(&self, key: &str) -> Option<&(Key, Node)> {
        match &self.index {
            Some(index) => index.get(key).map(|&i| &self.entries[i]),
            None => self.entries.iter().find(|(k, _)| k.text == key),
        }
    }
}

impl std::ops::Deref for Mapping {
    type Target = [(Key, Node)];
    fn deref(&self) -> &[(Key, Node)] {
        &self.entries
    }
}

/// The type a scalar has under the YAML 1.2 core schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarType {
    Null,
    Bool,
    Int,
    Float,
    String,
}

/// Why the YAML could not be turned into a tree.
#[derive(Debug, Clone, PartialEq)]
pub enum YamlError {
    /// A syntax error at `at`.
    Syntax { message: String, at: usize },
    /// The same key twice in one mapping.
    DuplicateKey {
        key: String,
        first: Span,
        second: Span,
    },
    /// An anchor (`&name`) or alias; refused so nothing can expand.
    Anchor { at: usize },
    /// An explicit tag (`!!str`, `!foo`).
    Tag { at: usize },
    /// The top level is not a mapping.
    NotMapping { at: usize },
    /// A mapping key that is not a scalar.
    ComplexKey { at: usize },
    /// Collections nest deeper than [`MAX_DEPTH`]; `at` is the first one too deep.
    TooDeep { at: usize },
    /// A control character (NUL, ESC, DEL, C1, …; tab and line breaks are fine).
    ControlCharacter { at: usize, ch: char },
}

impl Node {
    pub fn as_mapping(&self) -> Option<&[(Key, Node)]> {
        match &self.value {
            Value::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_sequence(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Sequence(s) => Some(s),
            _ => None,
        }
    }

    /// The scalar text, whatever its type.
    pub fn as_scalar(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The scalar as a string only when YAML would type it as a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, plain } if scalar_type(text, *plain) == ScalarType::String => {
                Some(text)
            }
            _ => None,
        }
    }

    /// A mapping entry by key.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// A mapping entry (key and value) by key.
    pub fn entry(&self, key: &str) -> Option<(&Key, &Node)> {
        match &self.value {
            Value::Mapping(m) => m.find(key).map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    /// What JSON Schema should see for this node (YAML 1.2 core typing).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Scalar { text, plain } => match json_scalar(text, *plain) {
                Shape::Null => J::Null,
                Shape::Bool(b) => J::Bool(b),
                Shape::Number(Number::Int(i)) => J::from(i),
                Shape::Number(n) => serde_json::Number::from_f64(n.as_f64())
                    .map(J::Number)
                    .unwrap_or(J::String(text.clone())),
                _ => J::String(text.clone()),
            },
            Value::Sequence(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Mapping(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.text.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// The node at a JSON pointer (`/tools/2`), with the key that leads to it.
    pub fn pointer(&self, pointer: &str) -> Option<(Option<&Key>, &Node)> {
        let mut node = self;
        let mut key = None;
        for raw in pointer.split('/').skip(1) {
            let part = raw.replace("~1", "/").replace("~0", "~");
            match &node.value {
                Value::Mapping(m) => {
                    let (k, v) = m.find(&part)?;
                    key = Some(k);
                    node = v;
                }
                Value::Sequence(s) => {
                    node = s.get(part.parse::<usize>().ok()?)?;
                    key = None;
                }
                Value::Scalar { .. } => return None,
            }
        }
        Some((key, node))
    }
}

/// A scalar as JSON Schema sees it (the one typing both `to_json` and validation use).
fn json_scalar<'a>(text: &'a str, plain: bool) -> Shape<'a, Node> {
    match scalar_type(text, plain) {
        ScalarType::Null => Shape::Null,
        ScalarType::Bool => Shape::Bool(matches!(text, "true" | "True" | "TRUE")),
        ScalarType::Int => {
            parse_int(text).map_or(Shape::String(text), |i| Shape::Number(Number::Int(i)))
        }
        ScalarType::Float => parse_float(text)
            .filter(|f| f.is_finite())
            .map_or(Shape::String(text), |f| Shape::Number(Number::Float(f))),
        ScalarType::String => Shape::String(text),
    }
}

/// The frontmatter is validated as it is, without a JSON copy.
impl Instance for Node {
    fn shape(&self) -> Shape<'_, Node> {
        match &self.value {
            Value::Scalar { text, plain } => json_scalar(text, *plain),
            Value::Sequence(items) => Shape::Array(items),
            Value::Mapping(_) => Shape::Object,
        }
    }

    fn members(&self) -> impl Iterator<Item = (&str, &Node)> {
        self.as_mapping()
            .unwrap_or_default()
            .iter()
            .map(|(k, v)| (k.text.as_str(), v))
    }

    fn to_value(&self) -> serde_json::Value {
        self.to_json()
    }
}

/// The YAML 1.2 core-schema type of a scalar.
pub fn scalar_type(text: &str, plain: bool) -> ScalarType {
    if !plain {
        return ScalarType::String;
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => ScalarType::Null,
        "true" | "True" | "TRUE" | "false" | "False" | "FALSE" => ScalarType::Bool,
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => ScalarType::Float,
        // Every other number starts with a digit, a sign or a point: most strings
        // (descriptions, names) are decided without scanning them.
        _ if !text
            .as_bytes()
            .first()
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.')) =>
        {
            ScalarType::String
        }
        _ if parse_int(text).is_some() => ScalarType::Int,
        _ if is_core_float(text) => ScalarType::Float,
        _ => ScalarType::String,
    }
}

fn parse_int(text: &str) -> Option<i64> {
    if let Some(hex) = text.strip_prefix("0x") {
        return (!hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| i64::from_str_radix(hex, 16).ok())
            .flatten();
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return (!oct.is_empty() && oct.bytes().all(|b| (b'0'..=b'7').contains(&b)))
            .then(|| i64::from_str_radix(oct, 8).ok())
            .flatten();
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i64>().ok()
}

fn is_core_float(text: &str) -> bool {
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let s = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            int.bytes().all(|b| b.is_ascii_digit())
                && frac.bytes().all(|b| b.is_ascii_digit())
                && (!int.is_empty() || !frac.is_empty())
        }
        None => !mantissa.is_empty() && mantissa.bytes().all(|b| b.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let d = e.strip_prefix(['-', '+']).unwrap_or(e);
        !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}

fn parse_float(text: &str) -> Option<f64> {
    match text.trim_start_matches('+').to_ascii_lowercase().as_str() {
        ".inf" | "-.inf" | ".nan" => None, // not representable in JSON
        t => t.parse::<f64>().ok(),
    }
}

/// Maps marked-yaml's character indices (into the YAML slice) to byte offsets in the file.
struct Offsets<'a> {
    file: &'a str,
    base: usize,
    /// Byte offset (relative to `base`) of every character, when the slice is not ASCII.
    chars: Option<Vec<usize>>,
    /// The slice's length in bytes: where the character just past its last one is.
    len: usize,
}

impl<'a> Offsets<'a> {
    fn new(file: &'a str, yaml: &Span) -> Offsets<'a> {
        let slice = &file[yaml.clone()];
        let chars = (!slice.is_ascii()).then(|| slice.char_indices().map(|(i, _)| i).collect());
        Offsets {
            file,
            base: yaml.start,
            chars,
            len: slice.len(),
        }
    }

    fn byte(&self, character: usize) -> usize {
        let rel = match &self.chars {
            None => character,
            // The end of the stream (an absent last value is marked there) is the
            // end of the frontmatter, not of the file (`k: #é` put it past the
            // closing fence: found by the flow fuzzer).
            Some(v) => v.get(character).copied().unwrap_or(self.len),
        };
        (self.base + rel).min(self.end())
    }

    fn end(&self) -> usize {
        self.base + self.file[self.base..].len()
    }

    fn marker(&self, m: Option<&marked_yaml::Marker>) -> usize {
        m.map(|m| self.byte(m.character())).unwrap_or(self.base)
    }
}

/// Parse the YAML in `file[yaml]` into a spanned tree. The top level must be a
/// mapping; empty YAML (or comments only) is an empty mapping.
pub fn parse(file: &str, yaml: Span) -> Result<Node, YamlError> {
    if let Some(tree) = parse_simple(file, &yaml) {
        return Ok(tree);
    }
    parse_full(file, yaml)
}

/// The frontmatter almost every role has, read without the YAML parser: one
/// `key: value` per line at column 0 (key of `[A-Za-z0-9_][A-Za-z0-9_.-]*`, one
/// plain scalar of printable text, or a quoted one without escapes), whole-line
/// `#` comments and empty lines. Anything else (indentation, flow or block
/// collections, `: ` or ` #` inside a value, tabs, CR, control characters, a
/// duplicate key, no key at all) is `None`, and `parse_full` decides. Yields
/// exactly the tree `parse_full` does (a property test in this module).
fn parse_simple(file: &str, yaml: &Span) -> Option<Node> {
    let slice = &file[yaml.clone()];
    // Spans run to the end of a line in the file: the YAML must end with one.
    if !slice.ends_with('\n') {
        return None;
    }
    let mut entries: Vec<(Key, Node)> = Vec::with_capacity(12);
    // The keys seen so far: a scan of `entries` while they are few (a role's
    // dozen keys, no hashing), then by hash, so a duplicate is found in O(1)
    // whatever the number of keys (an 80,000-key role was quadratic with a scan).
    let mut seen: HashSet<&str> = HashSet::new();
    let mut pos = 0;
    while pos < slice.len() {
        let nl = crate::text::scan::find_byte(b'\n', &slice.as_bytes()[pos..])
            .map_or(slice.len(), |i| pos + i);
        let line = &slice[pos..nl];
        let base = yaml.start + pos;
        meter::add(Work::Scan, nl + 1 - pos);
        pos = nl + 1;
        let lb = line.as_bytes();
        let Some(&first) = lb.first() else {
            continue;
        };
        if first == b'#' {
            if !line.chars().all(simple_char) {
                return None;
            }
            continue;
        }
        if !(first.is_ascii_alphanumeric() || first == b'_') {
            return None;
        }
        let klen = lb
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
            .unwrap_or(lb.len());
        if lb.get(klen) != Some(&b':') || lb.get(klen + 1) != Some(&b' ') {
            return None;
        }
        let mut v = klen + 2;
        while lb.get(v) == Some(&b' ') {
            v += 1;
        }
        let value = &line[v..];
        let (text, plain, len) = match value.as_bytes().first()? {
            q @ (b'"' | b'\'') => {
                let inner = &value[1..];
                let close = inner.find(*q as char)?;
                let text = &inner[..close];
                let ok = text
                    .bytes()
                    .all(|b| (b' '..=b'~').contains(&b) && b != b'\\')
                    && inner[close + 1..].bytes().all(|b| b == b' ');
                if !ok {
                    return None;
                }
                (text, false, close + 2)
            }
            c if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'/' | b'(') => {
                let text = value.trim_end_matches(' ');
                if !simple_plain(text.as_bytes()) {
                    return None;
                }
                (text, true, text.len())
            }
            _ => return None,
        };
        let key = &line[..klen];
        let repeated = if entries.len() < Mapping::INDEX_FROM {
            entries.iter().any(|(k, _)| k.text == key)
        } else {
            if seen.is_empty() {
                seen.extend(entries.iter().map(|(k, _)| &file[k.span.clone()]));
            }
            !seen.insert(key)
        };
        if repeated {
            return None;
        }
        let start = base + v;
        entries.push((
            Key {
                text: key.to_string(),
                span: base..base + klen,
            },
            Node {
                span: start..start + len,
                value: Value::Scalar {
                    text: text.to_string(),
                    plain,
                },
            },
        ));
    }
    let start = entries.first()?.0.span.start;
    let end = entries.last()?.1.span.end;
    Some(Node {
        span: start..end,
        value: Value::Mapping(Mapping::new(entries)),
    })
}

/// A character `parse_simple` takes in a comment or value: printable, not a BOM.
fn simple_char(c: char) -> bool {
    !(c.is_control() || c == '\u{feff}')
}

/// Whether a plain scalar's text (trailing spaces trimmed) is one `parse_simple`
/// takes, in one pass over its bytes: every character `simple_char`, no flow
/// indicator, no `: ` or ` #` inside and no `:` at the end.
fn simple_plain(b: &[u8]) -> bool {
    for (i, &c) in b.iter().enumerate() {
        let next = b.get(i + 1).copied();
        let bad = match c {
            0..=0x1f | 0x7f | b'[' | b']' | b'{' | b'}' => true,
            b':' => matches!(next, None | Some(b' ')),
            b'#' => i > 0 && b[i - 1] == b' ',
            // U+0080..U+009F (C1 controls) and U+FEFF, in UTF-8.
            0xc2 => matches!(next, Some(0x80..=0x9f)),
            0xef => next == Some(0xbb) && b.get(i + 2) == Some(&0xbf),
            _ => false,
        };
        if bad {
            return false;
        }
    }
    true
}

/// [`parse`] by the YAML parser.
fn parse_full(file: &str, yaml: Span) -> Result<Node, YamlError> {
    let offsets = Offsets::new(file, &yaml);
    let original = &file[yaml.clone()];
    if let Some((i, ch)) = original
        .char_indices()
        .find(|&(_, c)| is_forbidden_control(c))
    {
        return Err(YamlError::ControlCharacter {
            at: yaml.start + i,
            ch,
        });
    }
    let normalized = precheck(&offsets, original)?;
    let slice: &str = &normalized;
    let options = || {
        LoaderOptions::default()
            .error_on_duplicate_keys(true)
            .prevent_coercion(true)
    };
    // marked-yaml asserts on some states it considers impossible; a panic inside the
    // parser must never take the linter down, so it is caught and reported.
    let parsed =
        std::panic::catch_unwind(|| marked_yaml::parse_yaml_with_options(0, slice, options()));
    let node = match parsed {
        Ok(Ok(node)) => node,
        Ok(Err(err)) => return Err(convert_error(&offsets, err)),
        Err(_) => {
            return Err(YamlError::Syntax {
                message: "the YAML parser could not read this frontmatter".into(),
                at: yaml.start,
            });
        }
    };
    if slice.trim().is_empty() || only_comments(slice) {
        return Ok(Node {
            span: yaml.start..yaml.start,
            value: Value::Mapping(Mapping::default()),
        });
    }
    let tree = convert(&offsets, &node, false);
    if tree.as_mapping().is_none() {
        return Err(YamlError::NotMapping {
            at: tree.span.start,
        });
    }
    Ok(tree)
}

/// yaml-rust2 refuses a tab as the only separator after a key's `:` when a letter,
/// digit or `-` follows; pi's reader (the `yaml` package) accepts it.
const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";

/// How many `key:<tab>value` separators are rewritten before giving up (each one
/// costs a pass; beyond this the parser's error stands).
const MAX_TAB_FIXES: usize = 32;

/// One pass of yaml-rust2's event parser (iterative: its states live on the heap)
/// before the recursive loader runs: refuses nesting deeper than [`MAX_DEPTH`], and
/// turns the tabs of `key:<tab>value` separators into spaces, as pi reads them.
/// Tab and space are both one byte, so every offset stays exact.
///
/// A syntax error ends the pass early; the loader then stops at the same error,
/// before any deeper nesting.
fn precheck<'a>(offsets: &Offsets<'_>, original: &'a str) -> Result<Cow<'a, str>, YamlError> {
    let mut text = Cow::Borrowed(original);
    for _ in 0..=MAX_TAB_FIXES {
        let mut parser = Parser::new_from_str(&text);
        let mut depth = 0usize;
        let error = loop {
            match parser.next_token() {
                Ok((Event::SequenceStart(..) | Event::MappingStart(..), mark)) => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(YamlError::TooDeep {
                            at: offsets.byte(mark.index()),
                        });
                    }
                }
                Ok((Event::SequenceEnd | Event::MappingEnd, _)) => {
                    depth = depth.saturating_sub(1);
                }
                Ok((Event::StreamEnd, _)) => return Ok(text),
                Ok(_) => {}
                Err(e) => break e,
            }
        };
        let at = offsets.byte(error.marker().index()) - offsets.base;
        if error.info() == "recursion limit exceeded" {
            // yaml-rust2's own cap on flow nesting (255 levels).
            return Err(YamlError::TooDeep {
                at: offsets.base + at,
            });
        }
        if error.info() != TAB_AFTER_COLON {
            return Ok(text);
        }
        // The tabs between the value indicator and `at` separate key and value.
        let before = &text[..at.min(text.len())];
        let tabs = before.len() - before.trim_end_matches('\t').len();
        if tabs == 0 || !before[..before.len() - tabs].ends_with(':') {
            return Ok(text);
        }
        let owned = text.to_mut();
        owned.replace_range(at - tabs..at, &" ".repeat(tabs));
    }
    Ok(text)
}

fn only_comments(slice: &str) -> bool {
    slice.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#')
    })
}

fn convert_error(offsets: &Offsets<'_>, err: LoadError) -> YamlError {
    match err {
        LoadError::TopLevelMustBeMapping(m) | LoadError::TopLevelMustBeSequence(m) => {
            YamlError::NotMapping {
                at: offsets.byte(m.character()),
            }
        }
        LoadError::UnexpectedAnchor(m) => YamlError::Anchor {
            at: offsets.byte(m.character()),
        },
        LoadError::MappingKeyMustBeScalar(m) => YamlError::ComplexKey {
            at: offsets.byte(m.character()),
        },
        LoadError::UnexpectedTag(m) => YamlError::Tag {
            at: offsets.byte(m.character()),
        },
        LoadError::ScanError(m, scan) => {
            let info = scan.info().to_string();
            // An alias to an unknown anchor is still an alias: report it as such.
            if info.contains("unknown anchor") {
                return YamlError::Anchor {
                    at: offsets.byte(m.character()),
                };
            }
            YamlError::Syntax {
                message: info,
                at: offsets.byte(scan.marker().index()),
            }
        }
        LoadError::DuplicateKey(dup) => {
            let first = offsets.marker(dup.prev_key.span().start());
            let second = offsets.marker(dup.key.span().start());
            YamlError::DuplicateKey {
                key: dup.key.as_str().to_string(),
                first: first..scalar_end(offsets.file, first, in_flow(offsets.file, first)),
                second: second..scalar_end(offsets.file, second, in_flow(offsets.file, second)),
            }
        }
    }
}

/// Whether the collection marked at byte `start` is a flow collection (`[`, `{`):
/// marked-yaml marks a flow collection at its bracket, a block one at its first item.
fn opens_flow(file: &str, start: usize) -> bool {
    matches!(file.as_bytes().get(start), Some(b'[' | b'{'))
}

/// marked-yaml's tree as pwk's, with byte spans. `flow`: the node sits inside a flow
/// collection (so `,` `]` `}` end a plain scalar). Each scalar's end is found by a
/// scan of the scalar itself, never of the rest of its line: a line of n flow items
/// costs O(n), not O(n²) (a 1 MiB flow mapping took 87 s).
fn convert(offsets: &Offsets<'_>, node: &MNode, flow: bool) -> Node {
    match node {
        MNode::Scalar(s) => {
            let start = offsets.marker(s.span().start());
            // An absent value (`k:` at the end) is marked where the next token
            // starts, which can be the closing fence: its span is empty, never that
            // token's text (found by the flow fuzzer).
            let absent = s.may_coerce() && s.as_str().is_empty();
            Node {
                span: start..if absent {
                    start
                } else {
                    scalar_end(offsets.file, start, flow)
                },
                value: Value::Scalar {
                    text: s.as_str().to_string(),
                    plain: s.may_coerce(),
                },
            }
        }
        MNode::Sequence(seq) => {
            let start = offsets.marker(seq.span().start());
            let inner = flow || opens_flow(offsets.file, start);
            let items: Vec<Node> = seq.iter().map(|n| convert(offsets, n, inner)).collect();
            let end = collection_end(offsets, seq.span().end(), start, items.last());
            Node {
                span: start..end,
                value: Value::Sequence(items),
            }
        }
        MNode::Mapping(map) => {
            let marked = offsets.marker(map.span().start());
            let inner = flow || opens_flow(offsets.file, marked);
            let entries: Vec<(Key, Node)> = map
                .iter()
                .map(|(k, v)| {
                    let ks = offsets.marker(k.span().start());
                    let key = Key {
                        text: k.as_str().to_string(),
                        span: ks..scalar_end(offsets.file, ks, inner),
                    };
                    (key, convert(offsets, v, inner))
                })
                .collect();
            // marked-yaml marks a block mapping from its first key; use that key's
            // start. A flow mapping starts at its brace (`[ {a: a}]`: the mapping
            // and the sequence around it lost their brackets; found by the flow fuzzer).
            let start = match opens_flow(offsets.file, marked) {
                true => marked,
                false => entries.first().map(|(k, _)| k.span.start).unwrap_or(marked),
            };
            let end = collection_end(
                offsets,
                map.span().end(),
                start,
                entries.last().map(|(_, v)| v),
            );
            Node {
                span: start..end,
                value: Value::Mapping(Mapping::new(entries)),
            }
        }
    }
}

/// The end of a collection: its last child's end, or the closing bracket of a flow
/// collection when that is what the parser marked.
fn collection_end(
    offsets: &Offsets<'_>,
    end: Option<&marked_yaml::Marker>,
    start: usize,
    last: Option<&Node>,
) -> usize {
    let file = offsets.file;
    let flow_close = match file.as_bytes().get(start) {
        Some(b'[') => Some(b']'),
        Some(b'{') => Some(b'}'),
        _ => None,
    };
    // An empty flow collection's closing bracket is looked for after its opening
    // one (`[]` had an empty span: found by the flow fuzzer).
    let child_end = last
        .map(|n| n.span.end)
        .unwrap_or(start + usize::from(flow_close.is_some()));
    if let Some(close) = flow_close {
        let marked = offsets.marker(end);
        // The parser's end marker sits just after the closing bracket — when it is
        // past the last child: after a nested collection it can be that child's own
        // bracket (`[[]]`, `[{a: {}}]` lost their closing bracket: the flow fuzzer).
        if marked > child_end && file.as_bytes().get(marked - 1) == Some(&close) {
            return marked;
        }
        // Otherwise the bracket follows the last child, after blanks and a comma.
        let after = file.as_bytes()[child_end..]
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b','));
        meter::add(Work::Scan, after.map_or(file.len() - child_end, |i| i + 1));
        if let Some(i) = after
            && file.as_bytes()[child_end + i] == close
        {
            return child_end + i + 1;
        }
    }
    child_end.max(start)
}

/// The end of the line holding byte `at` (before its `\r\n` or `\n`, or an earlier
/// lone `\r`).
fn line_end(file: &str, at: usize) -> usize {
    let rest = &file.as_bytes()[at..];
    let len = crate::text::scan::find_byte2(b'\n', b'\r', rest).unwrap_or(rest.len());
    meter::add(Work::Scan, len + 1);
    at + len
}

/// Where the scalar token starting at byte `start` ends. `flow`: it sits inside a
/// flow collection.
///
/// Quoted scalars end at their closing quote; block scalars (`|`, `>`) at the end of
/// their indicator line; plain scalars at the end of the line, before a comment or,
/// in a flow collection, a flow indicator. The scan reads the scalar's own bytes and
/// the one after (a plain or quoted scalar) or the indicator line (a block scalar):
/// never the rest of a line full of other scalars.
pub fn scalar_end(file: &str, start: usize, flow: bool) -> usize {
    let bytes = file.as_bytes();
    let Some(&first) = bytes.get(start) else {
        return start;
    };
    match first {
        b'"' => {
            let mut i = start + 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => {
                        meter::add(Work::Scan, i + 1 - start);
                        return i + 1;
                    }
                    _ => i += 1,
                }
            }
            line_end(file, start)
        }
        b'\'' => {
            let mut i = start + 1;
            while i < bytes.len() {
                if bytes[i] == b'\'' {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    meter::add(Work::Scan, i + 1 - start);
                    return i + 1;
                }
                i += 1;
            }
            line_end(file, start)
        }
        b'|' | b'>' => line_end(file, start),
        _ => {
            // A comment starts at ` #`; in a flow context `,` `]` `}` end the scalar,
            // and `: ` ends a key.
            let mut end = start;
            let mut i = start;
            while i < bytes.len() {
                let stop = match bytes[i] {
                    b'\n' | b'\r' => true,
                    b'#' => i > start && matches!(bytes[i - 1], b' ' | b'\t'),
                    b',' | b']' | b'}' => flow,
                    b':' => bytes
                        .get(i + 1)
                        .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')),
                    _ => false,
                };
                if stop {
                    break;
                }
                if !matches!(bytes[i], b' ' | b'\t') {
                    end = i + 1;
                }
                i += 1;
            }
            meter::add(Work::Scan, i + 1 - start);
            // `end` is after the last byte that is not a blank (a UTF-8 boundary:
            // blanks are ASCII).
            end
        }
    }
}

/// Whether byte `at` is inside a flow collection on its line (a line-local check,
/// for the one scalar an error names; the tree conversion knows its context).
fn in_flow(file: &str, at: usize) -> bool {
    let line_start = file[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let before = &file.as_bytes()[line_start..at];
    meter::add(Work::Scan, before.len());
    let opens = before.iter().filter(|b| matches!(b, b'[' | b'{')).count();
    let closes = before.iter().filter(|b| matches!(b, b']' | b'}')).count();
    opens > closes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(t: &str) -> Result<Node, YamlError> {
        parse(t, 0..t.len())
    }

    #[test]
    fn spans_point_at_keys_and_values() {
        let t = "name: foo\ntools: [read, \"grep\"]\nmax_turns: \"20\" # quoted\n";
        let n = parse_all(t).unwrap();
        let (k, v) = n.entry("name").unwrap();
        assert_eq!(&t[k.span.clone()], "name");
        assert_eq!(&t[v.span.clone()], "foo");
        let tools = n.get("tools").unwrap();
        assert_eq!(&t[tools.span.clone()], "[read, \"grep\"]");
        let items = tools.as_sequence().unwrap();
        assert_eq!(&t[items[1].span.clone()], "\"grep\"");
        let mt = n.get("max_turns").unwrap();
        assert_eq!(&t[mt.span.clone()], "\"20\"");
        assert_eq!(mt.to_json(), serde_json::json!("20"));
    }

    #[test]
    fn flow_items_have_their_own_spans_on_one_line_and_across_lines() {
        let t = "a: {k0: v0, k1: \"q, r\", k2: [x, y z]}\nb: [\n  read, grep\n  ]\nc: x, y # c\n";
        let n = parse_all(t).unwrap();
        let a = n.get("a").unwrap();
        let (k1, v1) = a.entry("k1").unwrap();
        assert_eq!(&t[k1.span.clone()], "k1");
        assert_eq!(&t[v1.span.clone()], "\"q, r\"");
        assert_eq!(&t[a.get("k0").unwrap().span.clone()], "v0");
        let k2 = a.get("k2").unwrap().as_sequence().unwrap();
        assert_eq!(&t[k2[0].span.clone()], "x");
        assert_eq!(&t[k2[1].span.clone()], "y z");
        // A flow sequence over several lines: `read` ends at its comma (a
        // line-local check took the second line for block context: `read, grep`).
        let b = n.get("b").unwrap().as_sequence().unwrap();
        assert_eq!(&t[b[0].span.clone()], "read");
        assert_eq!(&t[b[1].span.clone()], "grep");
        // Outside a flow collection a comma is text; ` #` starts a comment.
        assert_eq!(&t[n.get("c").unwrap().span.clone()], "x, y");
    }

    #[test]
    fn a_long_flow_line_is_scanned_once() {
        // Each scalar's end is found by reading the scalar, not the rest of its
        // line: the bytes the span code reads grow with the line, not its square.
        for n in [1_000usize, 8_000] {
            let items: Vec<String> = (0..n).map(|i| format!("k{i}: v")).collect();
            let t = format!("x-f: {{{}}}\n", items.join(", "));
            let tree = parse_all(&t).unwrap();
            let f = tree.get("x-f").unwrap();
            assert_eq!(f.as_mapping().unwrap().len(), n);
            let (k, v) = f.entry(&format!("k{}", n - 1)).unwrap();
            assert_eq!(
                (&t[k.span.clone()], &t[v.span.clone()]),
                (&*format!("k{}", n - 1), "v")
            );
        }
    }

    #[test]
    fn non_ascii_before_value() {
        let t = "description: héllo wörld\nmodel: x y\n";
        let n = parse_all(t).unwrap();
        let v = n.get("model").unwrap();
        assert_eq!(&t[v.span.clone()], "x y");
    }

    #[test]
    fn core_schema_typing() {
        let t = "a: 20\nb: \"20\"\nc: true\nd: 'true'\ne:\nf: 1.5\ng: 0x1F\nh: yes\n";
        let j = parse_all(t).unwrap().to_json();
        assert_eq!(
            j,
            serde_json::json!({"a":20,"b":"20","c":true,"d":"true","e":null,"f":1.5,"g":31,"h":"yes"})
        );
    }

    /// Around the point where the fast path's duplicate check turns from a scan of
    /// the keys so far into a hash set: every earlier key repeated after any number
    /// of keys is found, and distinct keys are never taken for a repeat.
    #[test]
    fn a_repeated_key_is_found_wherever_it_falls_around_the_switch_to_hashing() {
        let keys: Vec<String> = (0..2 * Mapping::INDEX_FROM + 2)
            .map(|i| format!("k{i}: v\n"))
            .collect();
        for n in 1..keys.len() {
            let t = keys[..n].concat();
            let tree = parse_simple(&t, &(0..t.len())).expect("distinct keys");
            assert_eq!(tree.as_mapping().map(|m| m.len()), Some(n));
            for j in 0..n {
                let t = format!("{t}k{j}: w\n");
                assert!(parse_simple(&t, &(0..t.len())).is_none(), "k{j} after {n}");
            }
        }
    }

    #[test]
    fn many_one_line_keys_keep_every_key_and_still_find_a_late_duplicate() {
        // Past a few keys the fast path's duplicate check is by hash (a scan of the
        // earlier keys made 80,000 keys quadratic); the tree and the error stay the
        // same.
        let mut t = String::new();
        for i in 0..20_000 {
            t.push_str(&format!("x-k{i}: v\n"));
        }
        let n = parse_simple(&t, &(0..t.len())).expect("the fast path takes it");
        assert_eq!(n.as_mapping().unwrap().len(), 20_000);
        assert_eq!(n.get("x-k19999").and_then(Node::as_scalar), Some("v"));
        let second = t.len();
        t.push_str("x-k7: w\n");
        assert!(parse_simple(&t, &(0..t.len())).is_none());
        match parse_all(&t) {
            Err(YamlError::DuplicateKey {
                key,
                first,
                second: s,
            }) => {
                assert_eq!(key, "x-k7");
                assert_eq!(&t[first.clone()], "x-k7");
                assert_eq!(first.start, "x-k0: v\n".len() * 7);
                assert_eq!(s, second..second + 4);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn duplicate_key_has_both_positions() {
        let t = "name: a\nname: b\n";
        match parse_all(t) {
            Err(YamlError::DuplicateKey { first, second, .. }) => {
                assert_eq!(first, 0..4);
                assert_eq!(second, 8..12);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn anchors_are_refused() {
        assert!(matches!(
            parse_all("a: &x 1\nb: *x\n"),
            Err(YamlError::Anchor { .. })
        ));
        assert!(matches!(
            parse_all("b: *x\n"),
            Err(YamlError::Anchor { .. })
        ));
    }

    #[test]
    fn comments_and_empty() {
        let n = parse_all("# model: x\n").unwrap();
        assert_eq!(n.as_mapping().unwrap().len(), 0);
        let n = parse_all("name: a\n# model: x\nthinking: low\n").unwrap();
        assert_eq!(n.as_mapping().unwrap().len(), 2);
    }

    /// Lines the simple reader must take or refuse exactly as the YAML parser would.
    const LINES: &[&str] = &[
        "name: r",
        "name: my-role",
        "name:  spaced  ",
        "description: Reviews code, reports file:line. Read-only.",
        "description: it's a \"role\" — é",
        "tools: read, grep, find, ls",
        "max_turns: 20",
        "max_turns: \"20\"",
        "thinking: 'low'",
        "thinking: 'it''s'",
        "x: \"a\\\"b\"",
        "x: \"a\" # c",
        "x: 'a' ",
        "x: \"\"",
        "x: ''",
        "x: a: b",
        "x: a:b",
        "x: a:",
        "x: a #c",
        "x: a#b",
        "x: [a, b]",
        "x: {a: b}",
        "x: a]",
        "x:",
        "x: ",
        "x:a",
        "x: a\tb",
        "x:\ta",
        "x: \u{feff}a",
        "x: a\u{85}b",
        "x: a\u{9f}b \u{a0}c",
        "x: a\u{7f}",
        "x: a\u{feff}",
        "x: a\u{fefe}\u{ffef}",
        "x: a #",
        "x: a:  ",
        "x: #a",
        "x: a\u{0}",
        "x: a\r",
        "x: ~",
        "x: .inf",
        "x: (a)",
        "x: /a",
        "x: _a",
        "x: -a",
        "x: - a",
        "x: &a b",
        "x: *a",
        "x: !t a",
        "x: |",
        "x: >",
        "x: a, b",
        "x: %a",
        "x: @a",
        "k-1.b_c: v",
        "_k: v",
        "-k: v",
        "?k: v",
        "k k: v",
        "k",
        "  k: v",
        "  continued",
        "- a",
        "# comment",
        "# comment — é",
        "#",
        "  # indented comment",
        "# a\u{85}b",
        "",
        "...",
        "---",
        "name: again",
        "true: x",
        "1: x",
    ];

    #[test]
    fn simple_reader_agrees_with_the_yaml_parser() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, RngSeed, TestRunner};
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            rng_seed: RngSeed::Fixed(0x5171_3e11),
            ..Config::default()
        });
        let taken = std::cell::Cell::new(0u32);
        let lines = proptest::collection::vec(
            prop_oneof![
                6 => proptest::sample::select(&LINES[..10]),
                1 => proptest::sample::select(LINES),
            ],
            0..6,
        );
        runner
            .run(
                &(lines, proptest::bool::weighted(0.9)),
                |(lines, newline)| {
                    let yaml = lines.join("\n") + if newline { "\n" } else { "" };
                    let file = format!("---\n{yaml}---\nBody\n");
                    let span = 4..4 + yaml.len();
                    if let Some(fast) = parse_simple(&file, &span) {
                        taken.set(taken.get() + 1);
                        prop_assert_eq!(Ok(fast), parse_full(&file, span), "{:?}", yaml);
                    }
                    Ok(())
                },
            )
            .unwrap();
        assert!(
            taken.get() * 10 >= cases,
            "the simple reader took only {}",
            taken.get()
        );
    }

    /// `role::yaml::tests::flow_fuzz` (`scripts/fuzz.sh yaml`): the reader on flow
    /// collections. (1) A generated value (strings with flow indicators, quotes,
    /// `#`, `: `, non-ASCII; whole numbers; nested sequences and mappings) written
    /// as flow YAML — plain, single- or double-quoted scalars, random spacing, on
    /// one line or across lines — reads back as that value, and every node's span
    /// is its own text (a scalar's span is its token, a collection's its brackets).
    /// (2) Arbitrary soups of flow tokens never panic, and every span of what parses
    /// lies inside the frontmatter on character boundaries.
    mod flow_fuzz {
        use super::*;
        use proptest::prelude::*;
        use serde_json::Value as J;

        fn value() -> impl Strategy<Value = J> {
            let word = prop::collection::vec(
                prop_oneof![
                    6 => prop::sample::select(vec!["a", "read", "x_y", "grep", "é", "漢"]),
                    2 => prop::sample::select(vec![" ", ", ", ": ", " #", "[", "]", "{", "}", "'", "\"", "\\", "-", "?", "*", "&", "!", "%", "@", "`", "|", ">"]),
                ],
                1..6,
            )
            .prop_map(|v| J::String(v.concat()));
            let leaf = prop_oneof![4 => word, 1 => (0u32..100_000).prop_map(J::from)];
            leaf.prop_recursive(6, 64, 6, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..6).prop_map(J::Array),
                    prop::collection::vec(("[a-z]{1,6}", inner), 0..6)
                        .prop_map(|kv| { J::Object(kv.into_iter().collect()) }),
                ]
            })
        }

        /// A string safe to write plain in a flow collection: a letter first, only
        /// letters, `_`, non-ASCII and single inner spaces.
        fn plain_ok(s: &str) -> bool {
            s.starts_with(|c: char| c.is_alphabetic())
                && s.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == ' ')
                && !s.ends_with(' ')
                && !s.contains("  ")
                && !matches!(
                    s,
                    "y" | "n" | "true" | "false" | "null" | "yes" | "no" | "on" | "off"
                )
        }

        /// `v` as flow YAML; `style` picks quoting and spacing, `nl` line breaks.
        fn emit(v: &J, style: &mut impl Iterator<Item = u8>, nl: bool, out: &mut String) {
            fn pick(style: &mut impl Iterator<Item = u8>) -> u8 {
                style.next().unwrap_or(0)
            }
            let sep = |p: u8| match p % 4 {
                0 => ", ",
                1 => ",",
                2 if nl => ",\n  ",
                _ => " ,  ",
            };
            match v {
                J::String(s) => match pick(style) % 3 {
                    0 if plain_ok(s) => out.push_str(s),
                    1 if !s.contains(['\n']) => {
                        out.push('\'');
                        out.push_str(&s.replace('\'', "''"));
                        out.push('\'');
                    }
                    _ => out.push_str(&serde_json::to_string(s).unwrap()),
                },
                J::Number(n) => out.push_str(&n.to_string()),
                J::Array(a) => {
                    out.push('[');
                    if pick(style).is_multiple_of(2) {
                        out.push(' ');
                    }
                    for (i, x) in a.iter().enumerate() {
                        if i > 0 {
                            out.push_str(sep(pick(style)));
                        }
                        emit(x, style, nl, out);
                    }
                    out.push(']');
                }
                J::Object(m) => {
                    out.push('{');
                    for (i, (k, x)) in m.iter().enumerate() {
                        if i > 0 {
                            out.push_str(sep(pick(style)));
                        }
                        out.push_str(k);
                        out.push_str(": ");
                        emit(x, style, nl, out);
                    }
                    out.push('}');
                }
                _ => unreachable!(),
            }
        }

        /// Every span of `n` (and its keys') inside `within`, on character
        /// boundaries; with `exact`, each is its own token.
        fn check_spans(
            file: &str,
            n: &Node,
            within: &Span,
            exact: bool,
        ) -> Result<(), TestCaseError> {
            let ok = |s: &Span| {
                s.start <= s.end
                    && within.start <= s.start
                    && s.end <= within.end
                    && file.is_char_boundary(s.start)
                    && file.is_char_boundary(s.end)
            };
            prop_assert!(ok(&n.span), "span {:?} outside {:?}", n.span, within);
            let t = &file[n.span.clone()];
            match &n.value {
                Value::Scalar { text, plain } => {
                    if exact && *plain {
                        prop_assert_eq!(t, text.as_str());
                    } else if exact {
                        prop_assert!(
                            (t.starts_with('"') && t.ends_with('"'))
                                || (t.starts_with('\'') && t.ends_with('\'')),
                            "quoted scalar's span is {:?}",
                            t
                        );
                    }
                }
                Value::Sequence(items) => {
                    if exact {
                        prop_assert!(
                            t.starts_with('[') && t.ends_with(']'),
                            "sequence's span is {:?}",
                            t
                        );
                    }
                    for i in items {
                        check_spans(file, i, within, exact)?;
                    }
                }
                Value::Mapping(m) => {
                    if exact && t.starts_with('{') {
                        prop_assert!(t.ends_with('}'), "mapping's span is {:?}", t);
                    }
                    for (k, v) in m.iter() {
                        prop_assert!(ok(&k.span), "key span {:?}", k.span);
                        if exact {
                            prop_assert_eq!(&file[k.span.clone()], k.text.as_str());
                        }
                        check_spans(file, v, within, exact)?;
                    }
                }
            }
            Ok(())
        }

        const TOKENS: &[&str] = &[
            "[", "]", "{", "}", ",", ", ", ":", ": ", " ", "a", "read", "\"x, y\"", "'z'", "#",
            " #", "\n", "\n  ", "? ", "&a ", "*a", "!t ", "- ", "é", "\"", "'", "\\", "1", "|",
            ">", "\t", "%", "@", "~", "null", "-1", "\u{2028}", "\u{feff}", "\u{85}",
        ];

        proptest! {
            #![proptest_config(crate::testing::fuzz_config())]
            #[test]
            fn generated_flow_values_read_back(
                v in value(),
                style in prop::collection::vec(any::<u8>(), 0..256),
                nl in any::<bool>(),
            ) {
                let mut yaml = String::from("k: ");
                emit(&v, &mut style.into_iter().cycle(), nl, &mut yaml);
                yaml.push('\n');
                let file = format!("---\n{yaml}---\nBody\n");
                let within = 4..4 + yaml.len();
                let n = parse(&file, within.clone());
                let n = match n {
                    Ok(n) => n,
                    Err(e) => return Err(TestCaseError::fail(format!("{e:?} for {yaml:?}"))),
                };
                prop_assert_eq!(n.get("k").map(Node::to_json), Some(v), "{:?}", yaml);
                check_spans(&file, &n, &within, true)?;
            }

            #[test]
            fn flow_token_soup_never_panics(
                toks in prop::collection::vec(prop::sample::select(TOKENS), 0..200),
                open in prop::sample::select(vec!["[", "{", "", "[[", "{a: ["]),
            ) {
                let yaml = format!("k: {open}{}\n", toks.concat());
                let file = format!("---\n{yaml}---\nBody\n");
                let within = 4..4 + yaml.len();
                if let Ok(n) = parse(&file, within.clone()) {
                    check_spans(&file, &n, &within, false)?;
                }
            }
        }
    }

    #[test]
    fn top_level_must_be_mapping() {
        assert!(matches!(
            parse_all("- a\n"),
            Err(YamlError::NotMapping { .. })
        ));
        assert!(matches!(
            parse_all("just text\n"),
            Err(YamlError::NotMapping { .. })
        ));
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_refused_before_the_loader_recurses() {
        // 40,000 block sequences in 80 KB: overflowed the stack before the limit.
        let block = format!("x:\n  {}x\n", "- ".repeat(40_000));
        assert_eq!(
            parse_all(&block),
            Err(YamlError::TooDeep {
                at: 5 + 2 * MAX_DEPTH - 2
            })
        );
        let flow = format!("x: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(parse_all(&flow), Err(YamlError::TooDeep { .. })));
        let mixed = format!("x:\n  {}{}\n", "- ".repeat(40), "[".repeat(40));
        assert!(matches!(parse_all(&mixed), Err(YamlError::TooDeep { .. })));
        let indented: String = (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert!(matches!(
            parse_all(&indented),
            Err(YamlError::TooDeep { .. })
        ));
        // At the limit: fine.
        let ok = format!("x:\n  {}x\n", "- ".repeat(MAX_DEPTH - 1));
        assert!(parse_all(&ok).is_ok());
    }

    #[test]
    fn a_tab_after_a_key_separates_it_from_its_value_as_in_pi() {
        let t = "name:\tfoo\ntools:\t\tread, grep\nmax_turns:\t5\nd: \"a:\tb\"\nx:\t-1\n";
        let n = parse_all(t).unwrap();
        assert_eq!(
            n.to_json(),
            serde_json::json!({"name": "foo", "tools": "read, grep", "max_turns": 5, "d": "a:\tb", "x": -1})
        );
        let (k, v) = n.entry("tools").unwrap();
        assert_eq!(&t[k.span.clone()], "tools");
        assert_eq!(&t[v.span.clone()], "read, grep");
        // A tab inside a value stays a tab.
        let n = parse_all("description: |\n  key:\tvalue\n").unwrap();
        assert_eq!(
            n.get("description").unwrap().as_str(),
            Some("key:\tvalue\n")
        );
        // Tab indentation is still an error.
        assert!(parse_all("tools:\n\t- read\n").is_err());
    }

    #[test]
    fn control_characters_are_refused_before_parsing() {
        // NUL ended the input for the parser: `tools` vanished and the rest parsed.
        assert_eq!(
            parse_all("name: x\n\u{0}tools: bash\n"),
            Err(YamlError::ControlCharacter { at: 8, ch: '\0' })
        );
        assert!(matches!(
            parse_all("name: a\u{1b}[31m\n"),
            Err(YamlError::ControlCharacter { ch: '\u{1b}', .. })
        ));
        assert!(parse_all("name: a\tb\r\n").is_ok());
    }

    #[test]
    fn large_mappings_are_indexed() {
        let t: String = (0..1000).map(|i| format!("k{i}: {i}\n")).collect();
        let n = parse_all(&t).unwrap();
        assert_eq!(n.get("k999").unwrap().as_scalar(), Some("999"));
        assert_eq!(n.entry("k0").unwrap().0.span, 0..2);
        assert!(n.get("k1000").is_none());
        assert_eq!(n.pointer("/k5").unwrap().1.as_scalar(), Some("5"));
    }
}
