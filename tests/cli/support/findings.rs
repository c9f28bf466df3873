//! The findings of a `pwk lint --format json` document (and of the MCP `lint`
//! tool, which returns the same document) as typed data, so a test says which
//! fields it checks instead of picking them out of `diagnostics` by hand.

use serde_json::Value;

/// One entry of a lint JSON document's `diagnostics` (or `suppressed`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    pub path: String,
    pub rule: String,
    pub severity: String,
    pub line: u64,
    pub column: u64,
    pub end_line: u64,
    pub end_column: u64,
    pub message: String,
    pub help: Option<String>,
    pub fixable: bool,
}

impl Finding {
    /// A diagnostic's fields; a failure naming the entry when one is missing or of
    /// the wrong type (the JSON format's fields are a contract).
    pub fn of(d: &Value) -> Finding {
        let text = |k: &str| {
            d[k].as_str()
                .unwrap_or_else(|| panic!("diagnostic without a string `{k}`: {d}"))
                .to_string()
        };
        let number = |k: &str| {
            d[k].as_u64()
                .unwrap_or_else(|| panic!("diagnostic without a number `{k}`: {d}"))
        };
        Finding {
            path: text("path"),
            rule: text("rule"),
            severity: text("severity"),
            line: number("line"),
            column: number("column"),
            end_line: number("end_line"),
            end_column: number("end_column"),
            message: text("message"),
            help: d["help"].as_str().map(str::to_string),
            fixable: d["fixable"]
                .as_bool()
                .unwrap_or_else(|| panic!("diagnostic without a boolean `fixable`: {d}")),
        }
    }

    /// `(path, rule)`.
    pub fn at_rule(&self) -> (String, String) {
        (self.path.clone(), self.rule.clone())
    }

    /// `(line, column)` of the start.
    pub fn start(&self) -> (u64, u64) {
        (self.line, self.column)
    }
}

/// A lint document's `diagnostics`, raw; a failure showing the document when it has
/// none.
pub fn diagnostics(doc: &Value) -> &Vec<Value> {
    doc["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("no `diagnostics` in {doc}"))
}

/// A lint document's findings, in its order.
pub fn findings(doc: &Value) -> Vec<Finding> {
    diagnostics(doc).iter().map(Finding::of).collect()
}

/// The raw diagnostics of rule `rule`, in the document's order.
pub fn of_rule<'a>(doc: &'a Value, rule: &str) -> Vec<&'a Value> {
    diagnostics(doc)
        .iter()
        .filter(|d| d["rule"] == rule)
        .collect()
}

/// The first diagnostic of rule `rule`; a failure showing the document when there
/// is none.
pub fn first_of_rule<'a>(doc: &'a Value, rule: &str) -> &'a Value {
    of_rule(doc, rule)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no `{rule}` finding in {doc}"))
}
