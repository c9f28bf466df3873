//! What a rule is and what it sees: [`Rule`] (its id, severity and docs, one
//! `RULE` per file in `rules/`) and [`Checker`] (the document, the host profile,
//! and where findings go). `check.rs` runs the rules; the rules use this file only,
//! so the two do not import each other.

use std::ops::Range;

use super::{Diagnostic, Related, Severity};
use crate::host::HostProfile;
use crate::role::{Node, RoleDoc, SplitError, Value};

/// A lint rule's identity and documentation.
#[derive(Debug)]
pub(crate) struct Rule {
    /// kebab-case, names the problem (`unknown-key`).
    pub id: &'static str,
    pub severity: Severity,
    /// The other severity the rule raises, and when (`None`: always `severity`,
    /// unless a configuration changes it). `pwk rules`, its JSON and the rule pages
    /// state both.
    pub also: Option<(Severity, &'static str)>,
    /// One line for `pwk rules`.
    pub summary: &'static str,
    /// Why it matters and what to do, for `pwk rules ID`.
    pub explanation: &'static str,
    /// A role file (or fragment) that triggers the rule.
    pub bad: &'static str,
    /// The same file, fixed.
    pub good: &'static str,
}

/// Where pwk's documentation lives: its repository (`repository` in Cargo.toml),
/// SARIF's `driver.informationUri`.
pub(crate) const HOME: &str = env!("CARGO_PKG_REPOSITORY");

/// The page of the rule `id`: `docs/src/rules/<id>.md` in the repository at this
/// release's tag, so the page a finding links to is the one of the pwk that
/// reported it (`url` in JSON, SARIF `helpUri`, LSP `codeDescription`).
pub(crate) fn url(id: &str) -> String {
    format!(
        "{HOME}/blob/v{}/docs/src/rules/{id}.md",
        env!("CARGO_PKG_VERSION")
    )
}

impl Rule {
    /// The rule's documentation page ([`url`]).
    pub(crate) fn url(&self) -> String {
        url(self.id)
    }

    /// The severities it raises, the default first (`warning`, `warning/error`).
    pub(crate) fn severities(&self) -> String {
        match self.also {
            None => self.severity.as_str().to_string(),
            Some((other, _)) => format!("{}/{}", self.severity.as_str(), other.as_str()),
        }
    }
}

/// What a rule sees: the document, the host profile, and where findings go.
pub(crate) struct Checker<'a> {
    pub doc: &'a RoleDoc,
    pub profile: &'static HostProfile,
    pub out: Vec<Diagnostic>,
    /// Under the portable profile: keys read by only some hosts (said once in the
    /// run's summary, not per file).
    pub host_specific: crate::host::KeySet,
}

impl<'a> Checker<'a> {
    pub(crate) fn new(doc: &'a RoleDoc, profile: &'static HostProfile) -> Checker<'a> {
        Checker {
            doc,
            profile,
            out: Vec::new(),
            host_specific: Default::default(),
        }
    }

    /// Record a finding of `rule` at `span` (bytes in the file). Cold: a path that
    /// reports is off a clean file's path, and laid out after the one it takes
    /// (docs/src/perf.md, step 35).
    #[cold]
    #[inline(never)]
    pub(crate) fn emit(
        &mut self,
        rule: &'static Rule,
        span: Range<usize>,
        label: impl Into<String>,
        message: impl Into<String>,
        help: Option<String>,
    ) -> &mut Diagnostic {
        let span = self.clamp(span);
        let d = Diagnostic {
            rule: rule.id,
            severity: self.profile.severity_of(rule.id, rule.severity),
            message: message.into(),
            help,
            path: self.doc.path.clone(),
            start: self.doc.position(span.start),
            end: self.doc.position(span.end),
            span,
            label: label.into(),
            related: Vec::new(),
            fixes: Vec::new(),
        };
        self.out.push(d);
        self.out.last_mut().expect("just pushed")
    }

    /// A secondary label in the same file.
    pub(crate) fn related(&self, span: Range<usize>, label: impl Into<String>) -> Related {
        let span = self.clamp(span);
        Related {
            start: self.doc.position(span.start),
            end: self.doc.position(span.end),
            span,
            label: label.into(),
        }
    }

    fn clamp(&self, span: Range<usize>) -> Range<usize> {
        let text = &self.doc.text;
        let fix = |mut o: usize| {
            o = o.min(text.len());
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            o
        };
        let start = fix(span.start);
        start..fix(span.end).max(start)
    }

    /// The span of a top-level key, when the frontmatter parsed.
    pub(crate) fn mapping_key_span(&self, key: &str) -> Option<Range<usize>> {
        self.doc.mapping()?.entry(key).map(|(k, _)| k.span.clone())
    }

    /// The opening `---` line, where file-level frontmatter findings point.
    pub(crate) fn open_fence(&self) -> Range<usize> {
        match &self.doc.fences {
            Ok(f) => f.open.clone(),
            Err(SplitError::Unterminated { open }) => open.clone(),
            Err(SplitError::MissingOpeningFence { first_line }) => first_line.clone(),
        }
    }
}

/// How a YAML value reads to a person: `the quoted string "20"`, `a list`, …
pub(crate) fn describe(node: &Node) -> String {
    match &node.value {
        Value::Sequence(_) => "a list".into(),
        Value::Mapping(_) => "a mapping".into(),
        Value::Scalar { text, plain } => {
            if !plain {
                return format!(
                    "the quoted string {}",
                    serde_json::Value::from(text.as_str())
                );
            }
            match node.to_json() {
                serde_json::Value::Null => "no value".into(),
                serde_json::Value::Bool(b) => format!("the boolean {b}"),
                serde_json::Value::Number(n) => format!("the number {n}"),
                _ => format!("the string `{text}`"),
            }
        }
    }
}

/// The schema's words for what a key takes (`a string`, `true or false`, …).
pub(crate) fn expected(cx: &Checker<'_>, top: &str) -> String {
    let prop = &crate::host::schema::host_schema(cx.profile)["properties"][top];
    if prop.get("oneOf").is_some() {
        return "a comma-separated string or a list of strings".into();
    }
    describe_schema(prop)
}

/// What a schema fragment takes, in words (`one of low, medium or a number`).
fn describe_schema(prop: &serde_json::Value) -> String {
    if let Some(branches) = prop.get("anyOf").and_then(|b| b.as_array()) {
        let mut parts: Vec<String> = Vec::new();
        for b in branches {
            // A branch may say in words what it takes (`a whole number written as text`).
            let part = match b.get("description").and_then(|d| d.as_str()) {
                Some(words) => words.to_string(),
                None => describe_schema(b),
            };
            if !parts.contains(&part) {
                parts.push(part);
            }
        }
        return parts.join(" or ");
    }
    if let Some(options) = prop.get("enum").and_then(|e| e.as_array()) {
        let words: Vec<String> = options
            .iter()
            .map(|o| {
                o.as_str()
                    .map_or_else(|| o.to_string(), |s| format!("`{s}`"))
            })
            .collect();
        return format!("one of {}", words.join(", "));
    }
    if prop.get("pattern").is_some() && prop["type"] == "string" {
        return "a string of the form the host reads".into();
    }
    let one = |t: &str| match t {
        "string" => "a string",
        "boolean" => "true or false",
        "integer" => "a whole number",
        "number" => "a number",
        "array" => "a list",
        "object" => "a mapping",
        _ => "a value of another type",
    };
    match &prop["type"] {
        serde_json::Value::String(t) => one(t).into(),
        serde_json::Value::Array(ts) => ts
            .iter()
            .filter_map(|t| t.as_str())
            .map(one)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "another type".into(),
    }
}
