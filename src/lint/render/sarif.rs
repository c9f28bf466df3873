//! `--format sarif`: SARIF 2.1.0 (OASIS, errata 01), one rule descriptor per rule id
//! used, each with its page (`helpUri`); each result with a fingerprint that
//! survives edits above it (`partialFingerprints`); the run's `invocations` say
//! whether pwk could read every file. A test validates real runs against the
//! official schema (`fixtures/sarif/`).

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

/// The official schema of what this renderer writes (OASIS SARIF 2.1.0, errata 01).
const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The key of pwk's fingerprint in `partialFingerprints` (versioned: a new way of
/// computing it gets a new key, so old alerts are not matched wrongly).
const FINGERPRINT_KEY: &str = "pwkFinding/v1";

/// Each result's fingerprint within one file: a hash of the rule, the file's path
/// and the flagged text (the key, value or character the finding points at, as the
/// baseline matches findings), and how many results before it in the file had the
/// same three. Not the line: a line inserted above a finding leaves it alone, so
/// code scanning keeps the alert (a test inserts one).
#[derive(Default)]
struct Fingerprints {
    seen: std::collections::HashMap<(String, String), usize>,
}

impl Fingerprints {
    /// `path`: the file as the result names it (relative, so the fingerprint does
    /// not depend on where the repository is checked out).
    fn of(&mut self, d: &crate::lint::Diagnostic, text: Option<&str>, path: &str) -> String {
        use sha2::Digest;
        let flagged = crate::lint::baseline::flagged_text(d, text);
        let n = self
            .seen
            .entry((d.rule.to_string(), flagged.clone()))
            .or_default();
        let occurrence = *n;
        *n += 1;
        let mut hash = sha2::Sha256::new();
        for part in [d.rule, path, &flagged, &occurrence.to_string()] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        hash.finalize()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
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

#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
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
                "help": { "text": format!("pwk explain {id}") },
                "helpUri": crate::lint::rule::url(id),
                "defaultConfiguration": { "level": rule.map_or("error", |r| level(r.severity)) },
            })
        })
        .collect();
    // Suppressed findings are results too, with `suppressions` (SARIF 2.1.0
    // §3.27.23): viewers show them as such; nothing is dropped silently.
    let results: Vec<_> = report
        .files
        .iter()
        .flat_map(|f| {
            let mut seen = Fingerprints::default();
            let shown = (opts.show_path)(&f.path);
            f.diagnostics
                .iter()
                .map(|d| (d, None))
                .chain(f.suppressed.iter().map(|s| (&s.diagnostic, Some(s))))
                .map(|(d, hidden)| (d, hidden, seen.of(d, f.text.as_deref(), &shown)))
                .collect::<Vec<_>>()
        })
        .map(|(d, hidden, fingerprint)| {
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
                "partialFingerprints": { FINGERPRINT_KEY: fingerprint },
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
    // Whether pwk did its job: every file read (`pwk lint` exits 2 otherwise), and
    // a notification per file it could not read.
    let notifications: Vec<_> = report
        .failures
        .iter()
        .map(|f| {
            json!({
                "level": "error",
                "message": { "text": format!("cannot read the file: {}", f.message) },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": path_uri(&(opts.show_path)(&f.path)) }
                    }
                }],
            })
        })
        .collect();
    let mut invocation = json!({ "executionSuccessful": report.failures.is_empty() });
    if !notifications.is_empty() {
        invocation["toolExecutionNotifications"] = json!(notifications);
    }
    let mut doc = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "pwk",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": crate::lint::rule::HOME,
                    "rules": descriptors,
                }
            },
            "invocations": [invocation],
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
