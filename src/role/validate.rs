//! A validator for the subset of JSON Schema 2020-12 that pwk's schemas use.
//!
//! `schemas/role.schema.json` and the host variants derived from it
//! (`host::schema::host_schema`) are compiled here at run time, so validation is
//! still driven by the shipped files, but without compiling the 2020-12
//! meta-schema the way a general validator does on every start.
//!
//! The subset: `type`, `enum`, `const`, `pattern`, `minLength`, `maxLength`,
//! `minimum`, `maximum`, `items` (one schema), `oneOf`, `anyOf`, `properties`,
//! `patternProperties`, `additionalProperties` (next to `properties`), `required`,
//! boolean schemas, and the annotations (`$schema` of 2020-12, `$id`, `$comment`, `title`, `description`,
//! `deprecated`, `default`, `examples`, `x-…`). Any other keyword is a
//! [`CompileError`]: a schema edit can never be silently ignored. Patterns are
//! ECMA-262 as JSON Schema says; the few escapes whose meaning differs from Rust's
//! `regex` are translated (`\s`, `\S`) or refused (`.`, `\d`, `\w`, `\b`, …).
//!
//! Errors carry what lint needs: the instance location (a JSON pointer) and a kind
//! named after `jsonschema`'s `ValidationErrorKind` variant it corresponds to. The
//! equivalence with `jsonschema` is a property test (`tests/cli/validate_equiv.rs`).
//!
//! The validator runs over any [`Instance`]: `serde_json::Value`, or the YAML tree
//! itself (`role::Node`), so linting a file does not build a JSON copy of it.

use std::fmt;

use serde_json::Value;

#[rustfmt::skip]
mod compiled;
#[cfg(test)]
mod emit;
#[cfg(test)]
pub(crate) use emit::emit;

/// build.rs's fingerprint of the schema files (`role.schema.json`, every host file).
#[allow(unreachable_pub)] // build.rs writes a `pub` const
mod inputs {
    include!(concat!(env!("OUT_DIR"), "/schema_inputs.rs"));
}

/// build.rs's fingerprint of the schema files this binary was built from.
pub fn schema_inputs() -> u64 {
    inputs::INPUTS_HASH
}

/// The validator compiled into the binary under `id` (`role`, or a profile's
/// `host@version`), if `compiled.rs` was generated from the schema inputs this binary
/// was built from ([`schema_inputs`]); else the caller compiles one.
pub(crate) fn compiled(id: &str) -> Option<&'static Validator> {
    if compiled::INPUTS != schema_inputs() {
        return None;
    }
    compiled::VALIDATORS
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, v)| v)
}

/// The `$schema` the validator implements.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Why a schema cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error("{location}: keyword `{keyword}` is outside the JSON Schema subset pwk implements")]
    Unsupported { keyword: String, location: String },
    #[error("{location}: `{keyword}` {reason}")]
    Invalid {
        keyword: String,
        location: String,
        reason: String,
    },
}

/// A JSON value's shape, as the validator sees it.
#[derive(Debug)]
pub enum Shape<'a, I> {
    Null,
    Bool(bool),
    Number(Number),
    String(&'a str),
    Array(&'a [I]),
    Object,
}

impl<I> Clone for Shape<'_, I> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I> Copy for Shape<'_, I> {}

/// A JSON number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i64),
    UInt(u64),
    Float(f64),
}

impl Number {
    fn from_json(n: &serde_json::Number) -> Number {
        if let Some(i) = n.as_i64() {
            Number::Int(i)
        } else if let Some(u) = n.as_u64() {
            Number::UInt(u)
        } else {
            Number::Float(n.as_f64().unwrap_or(f64::NAN))
        }
    }

    fn is_integer(self) -> bool {
        match self {
            Number::Int(_) | Number::UInt(_) => true,
            Number::Float(f) => f.fract() == 0.0,
        }
    }

    /// `self` compared with an integer limit (exact: limits are at most 2^53 in size).
    fn cmp_limit(self, limit: i64) -> std::cmp::Ordering {
        match self {
            Number::Int(i) => i.cmp(&limit),
            Number::UInt(u) => i128::from(u).cmp(&i128::from(limit)),
            Number::Float(f) => f
                .partial_cmp(&(limit as f64))
                .unwrap_or(std::cmp::Ordering::Less),
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::UInt(u) => u as f64,
            Number::Float(f) => f,
        }
    }
}

/// A JSON document the validator can walk without converting it.
pub trait Instance: Sized {
    fn shape(&self) -> Shape<'_, Self>;
    /// The members of an object (nothing for other shapes), in document order.
    fn members(&self) -> impl Iterator<Item = (&str, &Self)>;
    /// Whether an object has `key`.
    fn has_member(&self, key: &str) -> bool {
        self.members().any(|(k, _)| k == key)
    }
    /// The value as `serde_json` (only on error paths, for messages).
    fn to_value(&self) -> Value;
}

impl Instance for Value {
    fn shape(&self) -> Shape<'_, Value> {
        match self {
            Value::Null => Shape::Null,
            Value::Bool(b) => Shape::Bool(*b),
            Value::Number(n) => Shape::Number(Number::from_json(n)),
            Value::String(s) => Shape::String(s),
            Value::Array(a) => Shape::Array(a),
            Value::Object(_) => Shape::Object,
        }
    }

    fn members(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.as_object()
            .into_iter()
            .flat_map(|m| m.iter().map(|(k, v)| (k.as_str(), v)))
    }

    fn has_member(&self, key: &str) -> bool {
        self.as_object().is_some_and(|m| m.contains_key(key))
    }

    fn to_value(&self) -> Value {
        self.clone()
    }
}

/// Where in the instance an error is: a JSON pointer (`/tools/2`, `` for the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location(String);

impl Location {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The JSON types a `type` keyword allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Types(u8);

const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];

impl Types {
    fn parse(name: &str) -> Option<Types> {
        TYPE_NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Types(1 << i))
    }

    fn contains<I>(self, shape: &Shape<'_, I>) -> bool {
        // Bits in `TYPE_NAMES` order.
        let bit = match shape {
            Shape::Null => 1,
            Shape::Bool(_) => 1 << 1,
            Shape::Object => 1 << 2,
            Shape::Array(_) => 1 << 3,
            Shape::String(_) => 1 << 5,
            Shape::Number(n) if n.is_integer() => (1 << 4) | (1 << 6),
            Shape::Number(_) => 1 << 4,
        };
        self.0 & bit != 0
    }

    /// The type names, in the order JSON Schema lists them.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        TYPE_NAMES
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, n)| *n)
    }
}

/// What failed, named after the `jsonschema` `ValidationErrorKind` variant it matches.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidationErrorKind {
    /// `additionalProperties: false` and these keys matched no `properties` or
    /// `patternProperties` (in instance order).
    AdditionalProperties {
        unexpected: Vec<String>,
    },
    /// No `anyOf` branch is valid.
    AnyOf {},
    /// Not the `const` value.
    Constant {
        expected_value: Value,
    },
    /// None of the `enum` values (`options` is the array).
    Enum {
        options: Value,
    },
    /// The `false` schema.
    FalseSchema,
    Maximum {
        limit: Value,
    },
    MaxLength {
        limit: u64,
    },
    Minimum {
        limit: Value,
    },
    MinLength {
        limit: u64,
    },
    /// More than one `oneOf` branch is valid.
    OneOfMultipleValid {},
    /// No `oneOf` branch is valid.
    OneOfNotValid {},
    Pattern {
        pattern: String,
    },
    /// A `required` key is missing (`property` is its name as a JSON string).
    Required {
        property: Value,
    },
    Type {
        kind: Types,
    },
}

/// One validation failure.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError {
    instance_path: Location,
    kind: ValidationErrorKind,
    instance: Value,
}

impl ValidationError {
    pub fn instance_path(&self) -> &Location {
        &self.instance_path
    }

    pub fn kind(&self) -> &ValidationErrorKind {
        &self.kind
    }

    /// The value that failed.
    pub fn instance(&self) -> &Value {
        &self.instance
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ValidationErrorKind as K;
        let v = &self.instance;
        match &self.kind {
            K::AdditionalProperties { unexpected } => {
                let list: Vec<String> = unexpected.iter().map(|k| format!("'{k}'")).collect();
                write!(
                    f,
                    "Additional properties are not allowed ({} unexpected)",
                    list.join(", ")
                )
            }
            K::AnyOf {} => write!(
                f,
                "{v} is not valid under any of the schemas listed in the 'anyOf' keyword"
            ),
            K::Constant { expected_value } => write!(f, "{expected_value} was expected"),
            K::Enum { options } => write!(f, "{v} is not one of {options}"),
            K::FalseSchema => write!(f, "False schema does not allow {v}"),
            K::Maximum { limit } => write!(f, "{v} is greater than the maximum of {limit}"),
            K::MaxLength { limit } => write!(f, "{v} is longer than {limit} characters"),
            K::Minimum { limit } => write!(f, "{v} is less than the minimum of {limit}"),
            K::MinLength { limit } => write!(f, "{v} is shorter than {limit} characters"),
            K::OneOfMultipleValid {} => write!(
                f,
                "{v} is valid under more than one of the schemas listed in the 'oneOf' keyword"
            ),
            K::OneOfNotValid {} => write!(
                f,
                "{v} is not valid under any of the schemas listed in the 'oneOf' keyword"
            ),
            K::Pattern { pattern } => write!(f, "{v} does not match \"{pattern}\""),
            K::Required { property } => write!(f, "{property} is a required property"),
            K::Type { kind } => {
                let names: Vec<String> = kind.names().map(|n| format!("\"{n}\"")).collect();
                write!(f, "{v} is not of type {}", names.join(", "))
            }
        }?;
        if !self.instance_path.0.is_empty() {
            write!(f, " (at {})", self.instance_path)?;
        }
        Ok(())
    }
}

/// An ECMA-262 `pattern`. Four shapes the schemas use are decided without a regex
/// (`\S`, `^\S+$`, `^[^\n]*$`, the slug of `name`); any other pattern is translated for `regex`,
/// checked for syntax when the schema is compiled, and built on its first match
/// (so start-up builds only what a run needs), behind a literal prefilter.
#[derive(Debug)]
struct Pattern {
    source: Own<str>,
    matcher: Matcher,
}

#[derive(Debug)]
enum Matcher {
    /// `\S`: some character that is not ECMA-262 whitespace.
    SomeNonSpace,
    /// `^\S+$`: non-empty, no ECMA-262 whitespace.
    NoSpace,
    /// `^[^\n]*$`: no line feed.
    OneLine,
    /// `^[a-z0-9]+(-[a-z0-9]+)*$`: lowercase words joined by single hyphens.
    Slug,
    /// `^[^c]*$` for one ASCII character `c` other than `\n`: no `c` anywhere (an
    /// ECMA-262 negated class matches line terminators too, and `$` is the end).
    Without(u8),
    /// `^[0-9]+$`: one or more ASCII digits.
    Digits,
    Regex {
        translated: Own<str>,
        /// The literal text a match must start with (`^x-…` → `x-`).
        prefix: Own<str>,
        /// ASCII bytes every match contains (top-level literals such as `\.`).
        required: Own<[u8]>,
        regex: std::sync::OnceLock<regex::Regex>,
    },
}

impl Pattern {
    fn compile(source: &str, location: &str, keyword: &str) -> Result<Pattern, CompileError> {
        let invalid = |reason: String| CompileError::Invalid {
            keyword: keyword.into(),
            location: location.into(),
            reason,
        };
        let matcher = match source {
            r"\S" => Matcher::SomeNonSpace,
            r"^\S+$" => Matcher::NoSpace,
            r"^[^\n]*$" => Matcher::OneLine,
            "^[a-z0-9]+(-[a-z0-9]+)*$" => Matcher::Slug,
            "^[0-9]+$" => Matcher::Digits,
            _ => match without(source) {
                Some(c) => Matcher::Without(c),
                None => {
                    let translated = translate_pattern(source)
                        .map_err(|r| invalid(format!("{source:?}: {r}")))?;
                    regex_syntax::Parser::new()
                        .parse(&translated)
                        .map_err(|e| invalid(format!("{source:?} does not compile: {e}")))?;
                    let (prefix, required) = literals(source);
                    Matcher::Regex {
                        translated: translated.into(),
                        prefix: prefix.into(),
                        required: required.into(),
                        regex: std::sync::OnceLock::new(),
                    }
                }
            },
        };
        Ok(Pattern {
            source: source.into(),
            matcher,
        })
    }

    fn is_match(&self, s: &str) -> bool {
        match &self.matcher {
            Matcher::SomeNonSpace => s.chars().any(|c| !is_ecma_space(c)),
            Matcher::NoSpace => !s.is_empty() && !s.chars().any(is_ecma_space),
            Matcher::OneLine => !s.contains('\n'),
            Matcher::Slug => s.split('-').all(|w| {
                !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            }),
            Matcher::Without(c) => !s.as_bytes().contains(c),
            Matcher::Digits => !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()),
            Matcher::Regex {
                translated,
                prefix,
                required,
                regex,
            } => {
                if !s.starts_with(&**prefix) || !required.iter().all(|b| s.as_bytes().contains(b)) {
                    return false;
                }
                regex
                    .get_or_init(|| {
                        regex::Regex::new(translated).unwrap_or_else(|e| {
                            panic!("pattern {translated:?} (syntax checked): {e}")
                        })
                    })
                    .is_match(s)
            }
        }
    }
}

/// `c` when `p` is `^[^c]*$` for one printable ASCII `c` that needs no escape in a class.
fn without(p: &str) -> Option<u8> {
    match p.as_bytes() {
        [b'^', b'[', b'^', c, b']', b'*', b'$']
            if c.is_ascii_graphic() && !b"\\]^-[".contains(c) =>
        {
            Some(*c)
        }
        _ => None,
    }
}

/// ECMA-262 whitespace (`\s`), the set `ECMA_SPACE` spells out for `regex`.
fn is_ecma_space(c: char) -> bool {
    matches!(c, '\t'..='\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
        | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}')
}

/// A necessary condition for a match, read off the pattern: the literal prefix after a
/// leading `^`, and the ASCII literals outside any group, class or alternation that no
/// quantifier can skip. Nothing is claimed for a pattern with a top-level `|`.
fn literals(p: &str) -> (String, Vec<u8>) {
    let b = p.as_bytes();
    let mut depth = 0usize;
    let mut in_class = false;
    let mut i = 0;
    let mut atoms: Vec<(Option<u8>, usize)> = Vec::new(); // (literal, end index)
    while i < b.len() {
        let start = i;
        let lit = match b[i] {
            b'\\' => {
                i += 2;
                b.get(start + 1)
                    .copied()
                    .filter(|c| b".-/^$*+?()[]{}|\\".contains(c))
            }
            b'[' if !in_class => {
                in_class = true;
                i += 1;
                continue;
            }
            b']' if in_class => {
                in_class = false;
                i += 1;
                atoms.push((None, i));
                continue;
            }
            _ if in_class => {
                i += 1;
                continue;
            }
            b'(' => {
                depth += 1;
                i += 1;
                continue;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
                atoms.push((None, i));
                continue;
            }
            b'|' if depth == 0 => return (String::new(), Vec::new()),
            b'^' | b'$' if depth == 0 => {
                i += 1;
                continue;
            }
            // A counted quantifier (`{5,}`): its digits and comma are no literals.
            b'{' => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'}')
                    .map_or(b.len(), |e| i + e + 1);
                atoms.push((None, i));
                continue;
            }
            b'*' | b'+' | b'?' | b'}' | b'|' | b'^' | b'$' | b'.' => {
                i += 1;
                atoms.push((None, i));
                continue;
            }
            c => {
                i += 1;
                c.is_ascii().then_some(c)
            }
        };
        atoms.push((if depth == 0 { lit } else { None }, i));
    }
    // A literal counts only when the next character is not a quantifier.
    let quantified = |end: usize| matches!(b.get(end), Some(b'*' | b'?' | b'{' | b'+'));
    let optional = |end: usize| matches!(b.get(end), Some(b'*' | b'?' | b'{'));
    let mut required: Vec<u8> = atoms
        .iter()
        .filter(|(l, end)| l.is_some() && !optional(*end))
        .filter_map(|(l, _)| *l)
        .collect();
    required.sort_unstable();
    required.dedup();
    let mut prefix = String::new();
    if b.first() == Some(&b'^') {
        for (l, end) in &atoms {
            match l {
                Some(c) if !quantified(*end) => prefix.push(*c as char),
                _ => break,
            }
        }
    }
    (prefix, required)
}

/// ECMA-262 `\s`: WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, every Zs) and LineTerminator.
const ECMA_SPACE: &str =
    r"\t-\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}";

/// Translate an ECMA-262 pattern into `regex` syntax with the same meaning, or say
/// why it is outside what pwk supports. Deliberately small: what the schemas use.
fn translate_pattern(p: &str) -> Result<String, String> {
    let mut out = String::with_capacity(p.len() + 16);
    let mut in_class = false;
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    return Err("ends with a lone `\\`".into());
                };
                match e {
                    's' if in_class => out.push_str(ECMA_SPACE),
                    's' => {
                        out.push('[');
                        out.push_str(ECMA_SPACE);
                        out.push(']');
                    }
                    'S' if !in_class => {
                        out.push_str("[^");
                        out.push_str(ECMA_SPACE);
                        out.push(']');
                    }
                    'n' | 't' | 'r' | 'f' | 'v' => {
                        out.push('\\');
                        out.push(e);
                    }
                    '\\' | '.' | '-' | '/' | '^' | '$' | '*' | '+' | '?' | '(' | ')' | '['
                    | ']' | '{' | '}' | '|' => {
                        out.push('\\');
                        out.push(e);
                    }
                    other => {
                        return Err(format!(
                            "the escape `\\{other}` is not supported{}",
                            if in_class { " in a class" } else { "" }
                        ));
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
                if chars.peek() == Some(&']') {
                    return Err("an empty class `[]` (or `[^]`) is not supported".into());
                }
            }
            '[' => return Err("a `[` inside a class is not supported".into()),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '.' if !in_class => {
                return Err("`.` is not supported (ECMA-262 and Rust differ on line ends)".into());
            }
            '(' if !in_class && chars.peek() == Some(&'?') => {
                return Err("groups with `(?` (lookaround, flags, named) are not supported".into());
            }
            '&' | '~' if in_class => {
                // Literal in ECMA-262, set operators in `regex` when doubled.
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    if in_class {
        return Err("an unterminated class".into());
    }
    Ok(out)
}

/// A compiled (sub)schema.
#[derive(Debug)]
enum Schema {
    True,
    False,
    Keywords(Own<Keywords>),
}

#[derive(Debug)]
struct Keywords {
    types: Option<Types>,
    constant: Option<Json>,
    enumeration: Option<Json>,
    minimum: Option<i64>,
    maximum: Option<i64>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    required: Own<[Own<str>]>,
    pattern: Option<Pattern>,
    /// `properties`, sorted by key (binary search).
    properties: Own<[(Own<str>, Schema)]>,
    pattern_properties: Own<[(Pattern, Schema)]>,
    additional_properties: Option<Schema>,
    /// Whether any of the three object keywords is present.
    object: bool,
    items: Option<Schema>,
    one_of: Option<Own<[Schema]>>,
    any_of: Option<Own<[Schema]>>,
}

/// Data a compiled schema owns, or (in a validator compiled into the binary,
/// `validate/compiled.rs`) borrows from a `static`.
pub(crate) enum Own<T: ?Sized + 'static> {
    Static(&'static T),
    Boxed(Box<T>),
}

impl<T: ?Sized> std::ops::Deref for Own<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Own::Static(t) => t,
            Own::Boxed(t) => t,
        }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Own<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Own<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: ?Sized + Eq> Eq for Own<T> {}

impl<T: ?Sized + Ord> PartialOrd for Own<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: ?Sized + Ord> Ord for Own<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl From<&str> for Own<str> {
    fn from(s: &str) -> Self {
        Own::Boxed(s.into())
    }
}

impl From<String> for Own<str> {
    fn from(s: String) -> Self {
        Own::Boxed(s.into_boxed_str())
    }
}

impl<T> From<Vec<T>> for Own<[T]> {
    fn from(v: Vec<T>) -> Self {
        Own::Boxed(v.into_boxed_slice())
    }
}

/// A `const` or `enum` value: a `serde_json::Value`, or, compiled into the binary,
/// its JSON text, parsed the first time a run compares against it.
pub(crate) enum Json {
    Static(&'static str, std::sync::OnceLock<Value>),
    Owned(Value),
}

impl Json {
    fn get(&self) -> &Value {
        match self {
            Json::Static(text, value) => value.get_or_init(|| {
                serde_json::from_str(text).expect("compiled-in schema values are JSON (tested)")
            }),
            Json::Owned(v) => v,
        }
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

/// A compiled schema.
#[derive(Debug)]
pub struct Validator {
    root: Schema,
}

impl Validator {
    /// Compile `schema`, which must use only the subset in the module docs.
    pub fn compile(schema: &Value) -> Result<Validator, CompileError> {
        if let Some(s) = schema.get("$schema")
            && s.as_str() != Some(DRAFT_2020_12)
        {
            return Err(CompileError::Invalid {
                keyword: "$schema".into(),
                location: "#".into(),
                reason: format!("must be {DRAFT_2020_12:?}, found {s}"),
            });
        }
        Ok(Validator {
            root: compile(schema, "#", true)?,
        })
    }

    /// The names in the top-level `properties`, sorted.
    pub fn property_names(&self) -> impl Iterator<Item = &str> {
        let props: &[(Own<str>, Schema)] = match &self.root {
            Schema::Keywords(k) => &k.properties,
            _ => &[],
        };
        props.iter().map(|(n, _)| &**n)
    }

    /// Whether the top-level `properties` name `key`.
    pub fn has_property(&self, key: &str) -> bool {
        match &self.root {
            Schema::Keywords(k) => k
                .properties
                .binary_search_by(|(n, _)| (**n).cmp(key))
                .is_ok(),
            _ => false,
        }
    }

    /// Whether `instance` is valid (stops at the first failure).
    pub fn is_valid<I: Instance>(&self, instance: &I) -> bool {
        valid(&self.root, instance)
    }

    /// Every failure, in keyword order per location (the order `jsonschema` reports).
    pub fn iter_errors<I: Instance>(&self, instance: &I) -> std::vec::IntoIter<ValidationError> {
        let mut out = Vec::new();
        let mut path = String::new();
        walk_collect(&self.root, instance, &mut path, &mut out);
        out.into_iter()
    }
}

fn compile(schema: &Value, location: &str, root: bool) -> Result<Schema, CompileError> {
    let map = match schema {
        Value::Bool(true) => return Ok(Schema::True),
        Value::Bool(false) => return Ok(Schema::False),
        Value::Object(map) => map,
        other => {
            return Err(CompileError::Invalid {
                keyword: "schema".into(),
                location: location.into(),
                reason: format!("must be an object or a boolean, found {other}"),
            });
        }
    };
    let mut k = Keywords {
        types: None,
        constant: None,
        enumeration: None,
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        required: Own::Static(&[]),
        pattern: None,
        properties: Own::Static(&[]),
        pattern_properties: Own::Static(&[]),
        additional_properties: None,
        object: false,
        items: None,
        one_of: None,
        any_of: None,
    };
    for (keyword, value) in map {
        let here = format!("{location}/{keyword}");
        let invalid = |reason: &str| CompileError::Invalid {
            keyword: keyword.clone(),
            location: location.into(),
            reason: reason.into(),
        };
        match keyword.as_str() {
            "$schema" | "$id" if root => {}
            "$comment" | "title" | "description" | "deprecated" | "default" | "examples" => {}
            x if x.starts_with("x-") => {}
            "type" => {
                let names: Vec<&str> = match value {
                    Value::String(s) => vec![s.as_str()],
                    Value::Array(a) if !a.is_empty() => a
                        .iter()
                        .map(|v| v.as_str().ok_or_else(|| invalid("lists a non-string")))
                        .collect::<Result<_, _>>()?,
                    _ => return Err(invalid("must be a type name or a non-empty list of them")),
                };
                let mut types = Types(0);
                for n in names {
                    let t =
                        Types::parse(n).ok_or_else(|| invalid(&format!("has no type {n:?}")))?;
                    if types.0 & t.0 != 0 {
                        return Err(invalid(&format!("lists {n:?} twice")));
                    }
                    types.0 |= t.0;
                }
                k.types = Some(types);
            }
            "const" => k.constant = Some(Json::Owned(value.clone())),
            "enum" => match value {
                Value::Array(a) if !a.is_empty() => {
                    k.enumeration = Some(Json::Owned(value.clone()))
                }
                _ => return Err(invalid("must be a non-empty array")),
            },
            "minimum" | "maximum" => {
                const EXACT: i64 = 1 << 53;
                let limit = value
                    .as_i64()
                    .filter(|l| l.abs() <= EXACT)
                    .ok_or_else(|| invalid("must be an integer of at most 2^53 in size"))?;
                if keyword == "minimum" {
                    k.minimum = Some(limit);
                } else {
                    k.maximum = Some(limit);
                }
            }
            "minLength" | "maxLength" => {
                let limit = value
                    .as_u64()
                    .ok_or_else(|| invalid("must be a non-negative integer"))?;
                if keyword == "minLength" {
                    k.min_length = Some(limit);
                } else {
                    k.max_length = Some(limit);
                }
            }
            "pattern" => {
                let p = value.as_str().ok_or_else(|| invalid("must be a string"))?;
                k.pattern = Some(Pattern::compile(p, location, keyword)?);
            }
            "required" => {
                let a = value
                    .as_array()
                    .ok_or_else(|| invalid("must be an array of strings"))?;
                let mut required: Vec<Own<str>> = Vec::with_capacity(a.len());
                for v in a {
                    let s = v
                        .as_str()
                        .ok_or_else(|| invalid("must be an array of strings"))?;
                    if required.iter().any(|r| &**r == s) {
                        return Err(invalid(&format!("lists {s:?} twice")));
                    }
                    required.push(s.into());
                }
                k.required = required.into();
            }
            "properties" => {
                let m = value
                    .as_object()
                    .ok_or_else(|| invalid("must be an object"))?;
                let mut properties: Vec<(Own<str>, Schema)> = Vec::with_capacity(m.len());
                for (name, sub) in m {
                    let at = format!("{here}/{}", escape(name));
                    properties.push((name.as_str().into(), compile(sub, &at, false)?));
                }
                properties.sort_by(|a, b| a.0.cmp(&b.0));
                k.properties = properties.into();
                k.object = true;
            }
            "patternProperties" => {
                let m = value
                    .as_object()
                    .ok_or_else(|| invalid("must be an object"))?;
                let mut pattern_properties = Vec::with_capacity(m.len());
                for (p, sub) in m {
                    let at = format!("{here}/{}", escape(p));
                    let pattern = Pattern::compile(p, &here, keyword)?;
                    pattern_properties.push((pattern, compile(sub, &at, false)?));
                }
                k.pattern_properties = pattern_properties.into();
                k.object = true;
            }
            "additionalProperties" => {
                k.additional_properties = Some(compile(value, &here, false)?);
                k.object = true;
            }
            "items" => {
                if value.is_array() {
                    return Err(invalid("must be one schema in 2020-12 (use prefixItems)"));
                }
                k.items = Some(compile(value, &here, false)?);
            }
            "oneOf" | "anyOf" => {
                let a = value
                    .as_array()
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| invalid("must be a non-empty array of schemas"))?;
                let subs = a
                    .iter()
                    .enumerate()
                    .map(|(i, s)| compile(s, &format!("{here}/{i}"), false))
                    .collect::<Result<Vec<_>, _>>()?;
                if keyword == "oneOf" {
                    k.one_of = Some(subs.into());
                } else {
                    k.any_of = Some(subs.into());
                }
            }
            _ => {
                return Err(CompileError::Unsupported {
                    keyword: keyword.clone(),
                    location: location.into(),
                });
            }
        }
    }
    // jsonschema reports `additionalProperties` differently without `properties`
    // (a `false`-schema error); the schemas always pair them, so the subset does too.
    if k.additional_properties.is_some() && !map.contains_key("properties") {
        return Err(CompileError::Invalid {
            keyword: "additionalProperties".into(),
            location: location.into(),
            reason: "is supported only next to `properties`".into(),
        });
    }
    Ok(Schema::Keywords(Own::Boxed(Box::new(k))))
}

/// A JSON pointer segment (`~` → `~0`, `/` → `~1`).
fn escape(segment: &str) -> std::borrow::Cow<'_, str> {
    if segment.contains(['~', '/']) {
        segment.replace('~', "~0").replace('/', "~1").into()
    } else {
        segment.into()
    }
}

/// JSON equality with numbers compared by value (`1 == 1.0`), as JSON Schema says.
fn equal<I: Instance>(instance: &I, value: &Value) -> bool {
    equal_as(instance, instance.shape(), value)
}

/// [`equal`], given the instance's shape (a scalar's type is worked out once for
/// every option of an `enum`, not once per option).
fn equal_as<I: Instance>(instance: &I, shape: Shape<'_, I>, value: &Value) -> bool {
    match (shape, value) {
        (Shape::Null, Value::Null) => true,
        (Shape::Bool(a), Value::Bool(b)) => a == *b,
        (Shape::String(a), Value::String(b)) => a == b,
        (Shape::Number(a), Value::Number(b)) => {
            let b = Number::from_json(b);
            match (a, b) {
                (Number::Float(_), _) | (_, Number::Float(_)) => a.as_f64() == b.as_f64(),
                _ => i128_of(a) == i128_of(b),
            }
        }
        (Shape::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equal(x, y))
        }
        (Shape::Object, Value::Object(b)) => {
            instance.members().count() == b.len()
                && instance
                    .members()
                    .all(|(k, v)| b.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => false,
    }
}

fn i128_of(n: Number) -> i128 {
    match n {
        Number::Int(i) => i128::from(i),
        Number::UInt(u) => i128::from(u),
        Number::Float(f) => f as i128,
    }
}

fn chars_at_least(s: &str, n: u64) -> bool {
    // Each char is 1..=4 bytes: decide from the byte length when it can.
    let bytes = s.len() as u64;
    if bytes < n {
        return false;
    }
    if s.is_ascii() || bytes / 4 >= n {
        return bytes >= n;
    }
    s.chars().count() as u64 >= n
}

/// Whether `instance` is valid under `schema`: the keywords of `walk_collect`,
/// stopping at the first failure and building no path or message.
fn valid<I: Instance>(schema: &Schema, instance: &I) -> bool {
    let k = match schema {
        Schema::True => return true,
        Schema::False => return false,
        Schema::Keywords(k) => k,
    };
    let shape = instance.shape();
    if k.types.is_some_and(|t| !t.contains(&shape))
        || k.constant
            .as_ref()
            .is_some_and(|c| !equal_as(instance, shape, c.get()))
    {
        return false;
    }
    if let Some(Value::Array(options)) = k.enumeration.as_ref().map(Json::get)
        && !options.iter().any(|o| equal_as(instance, shape, o))
    {
        return false;
    }
    let own = match shape {
        Shape::Number(n) => {
            !(k.minimum.is_some_and(|l| n.cmp_limit(l).is_lt())
                || k.maximum.is_some_and(|l| n.cmp_limit(l).is_gt()))
        }
        Shape::String(s) => {
            !(k.min_length.is_some_and(|n| !chars_at_least(s, n))
                || k.max_length.is_some_and(|n| chars_at_least(s, n + 1))
                || k.pattern.as_ref().is_some_and(|p| !p.is_match(s)))
        }
        Shape::Object => {
            k.required.iter().all(|r| instance.has_member(r))
                && (!k.object
                    || instance
                        .members()
                        .all(|(key, value)| member_valid(k, key, value)))
        }
        Shape::Array(items) => k
            .items
            .as_ref()
            .is_none_or(|item| items.iter().all(|i| valid(item, i))),
        Shape::Null | Shape::Bool(_) => true,
    };
    own && k
        .any_of
        .as_ref()
        .is_none_or(|subs| subs.iter().any(|s| valid(s, instance)))
        && k.one_of
            .as_ref()
            .is_none_or(|subs| subs.iter().filter(|s| valid(s, instance)).take(2).count() == 1)
}

fn member_valid<I: Instance>(k: &Keywords, key: &str, value: &I) -> bool {
    let mut matched = false;
    if let Ok(i) = k.properties.binary_search_by(|(name, _)| (**name).cmp(key)) {
        matched = true;
        if !valid(&k.properties[i].1, value) {
            return false;
        }
    }
    for (pattern, sub) in k.pattern_properties.iter() {
        if pattern.is_match(key) {
            matched = true;
            if !valid(sub, value) {
                return false;
            }
        }
    }
    matched
        || k.additional_properties
            .as_ref()
            .is_none_or(|a| valid(a, value))
}

/// The collecting walk.
fn walk_collect<I: Instance>(
    schema: &Schema,
    instance: &I,
    path: &mut String,
    out: &mut Vec<ValidationError>,
) {
    use ValidationErrorKind as K;
    let mut fail = |kind: K, path: &str| {
        out.push(ValidationError {
            instance_path: Location(path.to_string()),
            kind,
            instance: instance.to_value(),
        });
    };
    let k = match schema {
        Schema::True => return,
        Schema::False => return fail(K::FalseSchema, path),
        Schema::Keywords(k) => k,
    };
    let shape = instance.shape();
    if let Some(t) = k.types
        && !t.contains(&shape)
    {
        fail(K::Type { kind: t }, path);
    }
    if let Some(c) = k.constant.as_ref().map(Json::get)
        && !equal_as(instance, shape, c)
    {
        fail(
            K::Constant {
                expected_value: c.clone(),
            },
            path,
        );
    }
    if let Some(options @ Value::Array(list)) = k.enumeration.as_ref().map(Json::get)
        && !list.iter().any(|o| equal_as(instance, shape, o))
    {
        fail(
            K::Enum {
                options: options.clone(),
            },
            path,
        );
    }
    if let Shape::Number(n) = shape {
        if let Some(l) = k.minimum
            && n.cmp_limit(l).is_lt()
        {
            fail(K::Minimum { limit: l.into() }, path);
        }
        if let Some(l) = k.maximum
            && n.cmp_limit(l).is_gt()
        {
            fail(K::Maximum { limit: l.into() }, path);
        }
    }
    if let Shape::String(s) = shape {
        if let Some(n) = k.min_length
            && !chars_at_least(s, n)
        {
            fail(K::MinLength { limit: n }, path);
        }
        if let Some(n) = k.max_length
            && chars_at_least(s, n + 1)
        {
            fail(K::MaxLength { limit: n }, path);
        }
    }
    if let Shape::Object = shape {
        for r in k.required.iter() {
            if !instance.has_member(r) {
                fail(
                    K::Required {
                        property: (**r).into(),
                    },
                    path,
                );
            }
        }
    }
    if let (Shape::String(s), Some(p)) = (shape, &k.pattern)
        && !p.is_match(s)
    {
        fail(
            K::Pattern {
                pattern: p.source.to_string(),
            },
            path,
        );
    }
    if let Shape::Object = shape
        && k.object
    {
        let mut unexpected = Vec::new();
        for (key, value) in instance.members() {
            let len = path.len();
            path.push('/');
            path.push_str(&escape(key));
            let mut matched = false;
            if let Ok(i) = k.properties.binary_search_by(|(name, _)| (**name).cmp(key)) {
                matched = true;
                walk_collect(&k.properties[i].1, value, path, out);
            }
            for (pattern, sub) in k.pattern_properties.iter() {
                if pattern.is_match(key) {
                    matched = true;
                    walk_collect(sub, value, path, out);
                }
            }
            if !matched {
                match &k.additional_properties {
                    Some(Schema::False) => unexpected.push(key.to_string()),
                    Some(sub) => walk_collect(sub, value, path, out),
                    None => {}
                }
            }
            path.truncate(len);
        }
        if !unexpected.is_empty() {
            out.push(ValidationError {
                instance_path: Location(path.clone()),
                kind: K::AdditionalProperties { unexpected },
                instance: instance.to_value(),
            });
        }
    }
    if let (Shape::Array(items), Some(item)) = (shape, &k.items) {
        for (i, value) in items.iter().enumerate() {
            let len = path.len();
            path.push('/');
            path.push_str(&i.to_string());
            walk_collect(item, value, path, out);
            path.truncate(len);
        }
    }
    let mut fail = |kind: K| {
        out.push(ValidationError {
            instance_path: Location(path.clone()),
            kind,
            instance: instance.to_value(),
        });
    };
    if let Some(subs) = &k.any_of
        && !subs.iter().any(|s| valid(s, instance))
    {
        fail(K::AnyOf {});
    }
    if let Some(subs) = &k.one_of {
        match subs.iter().filter(|s| valid(s, instance)).take(2).count() {
            0 => fail(K::OneOfNotValid {}),
            1 => {}
            _ => fail(K::OneOfMultipleValid {}),
        }
    }
}
