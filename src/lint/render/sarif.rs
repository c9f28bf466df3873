//! `--format sarif`: SARIF 2.1.0, one rule descriptor per rule id used.

use std::collections::BTreeMap;

use serde_json::json;

use super::RenderOptions;
use crate::lint::{LintReport, Severity, rules};

/// A relative path as a URI reference (RFC 3986: everything but unreserved
/// characters and `/` percent-encoded).
pub fn path_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// SARIF `fixes`: each edit as a byte-offset replacement (SARIF 2.1.0 §3.57).
fn fixes(fixes: &[crate::lint::fix::Fix], uri: &str) -> serde_json::Value {
    fixes
        .iter()
        .map(|f| {
            let replacements: Vec<_> = f
                .edits
                .iter()
                .map(|e| {
                    json!({
                        "deletedRegion": {
                            "byteOffset": e.range.start,
                            "byteLength": e.range.end - e.range.start,
                        },
                        "insertedContent": { "text": e.replacement },
                    })
                })
                .collect();
            json!({
                "description": { "text": f.title },
                "properties": { "safety": f.safety },
                "artifactChanges": [{
                    "artifactLocation": { "uri": uri },
                    "replacements": replacements,
                }],
            })
        })
        .collect()
}

pub fn render(report: &LintReport, opts: &RenderOptions<'_>) -> String {
    let used: BTreeMap<&str, usize> = {
        let mut ids: Vec<&str> = report
            .diagnostics()
            .chain(report.suppressed().map(|s| &s.diagnostic))
            .map(|d| d.rule)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().enumerate().map(|(i, id)| (id, i)).collect()
    };
    let descriptors: Vec<_> = used
        .keys()
        .map(|id| {
            let rule = rules::find(id);
            json!({
                "id": id,
                "name": id,
                "shortDescription": { "text": rule.map_or("", |r| r.summary) },
                "fullDescription": { "text": rule.map_or("", |r| r.explanation) },
                "help": { "text": format!("pwk rules {id}") },
                "defaultConfiguration": { "level": rule.map_or("error", |r| level(r.severity)) },
            })
        })
        .collect();
    // Suppressed findings are results too, with `suppressions` (SARIF 2.1.0
    // §3.27.23): viewers show them as such; nothing is dropped silently.
    let results: Vec<_> = report
        .diagnostics()
        .map(|d| (d, None))
        .chain(report.suppressed().map(|s| (&s.diagnostic, Some(s))))
        .map(|(d, hidden)| {
            let mut text = d.message.clone();
            if let Some(help) = &d.help {
                text.push_str(&format!("\nhelp: {help}"));
            }
            let uri = path_uri(&(opts.show_path)(&d.path));
            let mut result = json!({
                "ruleId": d.rule,
                "ruleIndex": used[d.rule],
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri },
                        "region": {
                            "startLine": d.start.line,
                            "startColumn": d.start.column,
                            "endLine": d.end.line,
                            "endColumn": d.end.column,
                        }
                    }
                }],
            });
            if !d.fixes.is_empty() {
                result["fixes"] = fixes(&d.fixes, &uri);
            }
            if let Some(s) = hidden {
                use crate::lint::suppress::SuppressionKind as K;
                result["suppressions"] = json!([{
                    "kind": if s.kind == K::Baseline { "external" } else { "inSource" },
                    "justification": s.reason,
                }]);
            }
            result
        })
        .collect();
    let mut doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "pwk",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": descriptors,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    // How `--host auto` decided (SARIF 2.1.0 §3.8 property bag: pwk's own data).
    let decisions = super::decision_docs(report, opts);
    if !decisions.is_empty() {
        doc["runs"][0]["properties"] = json!({ "hostDecisions": decisions });
    }
    let mut out = crate::text::json_escape_controls(
        serde_json::to_string_pretty(&doc).expect("plain data serializes"),
    );
    out.push('\n');
    out
}
