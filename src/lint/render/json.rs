//! `--format json`: the stable, versioned JSON document.

use serde::Serialize;

use super::RenderOptions;
use crate::lint::LintReport;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    /// The host profile the files were linted for, and why it was chosen.
    host: Host<'a>,
    files: usize,
    diagnostics: Vec<Entry<'a>>,
    /// Findings a suppression comment or the baseline hides (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressed: Vec<Hidden<'a>>,
    /// Files left out because the host never reads them as roles.
    skipped: Vec<Skip>,
    /// Under the portable profile: keys only some hosts read, with how many files
    /// set each (absent when none).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    host_specific_keys: &'a std::collections::BTreeMap<&'static str, usize>,
    summary: Summary,
}

#[derive(Serialize)]
struct Entry<'a> {
    path: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    severity: &'static str,
    rule: &'static str,
    /// The rule's documentation page.
    url: String,
    message: &'a str,
    help: Option<&'a str>,
    /// Whether `pwk lint --fix` repairs it (a safe fix in `fixes`).
    fixable: bool,
    /// Mechanical repairs: titled byte-range edits with a safety level (absent
    /// when there is none).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    fixes: &'a [crate::lint::fix::Fix],
}

#[derive(Serialize)]
struct Hidden<'a> {
    #[serde(flatten)]
    entry: Entry<'a>,
    suppression: Suppression<'a>,
}

#[derive(Serialize)]
struct Suppression<'a> {
    kind: crate::lint::suppress::SuppressionKind,
    reason: &'a str,
}

#[derive(Serialize)]
struct Host<'a> {
    profile: &'a str,
    /// Set when `--host auto` chose it: why, in one sentence.
    detected: Option<&'a str>,
    /// Each `--host auto` decision: which files, which profile, on what basis, why
    /// (absent when the host was named).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    decisions: Vec<super::DecisionDoc<'a>>,
}

#[derive(Serialize)]
struct Skip {
    path: String,
    reason: String,
}

#[derive(Serialize)]
struct Summary {
    errors: usize,
    warnings: usize,
    /// Findings `pwk lint --fix` repairs.
    fixable: usize,
    /// Findings only `--unsafe-fixes` repairs.
    unsafe_fixable: usize,
    #[serde(skip_serializing_if = "is_zero")]
    suppressed: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn entry<'a>(d: &'a crate::lint::Diagnostic, opts: &RenderOptions<'_>) -> Entry<'a> {
    Entry {
        path: (opts.show_path)(&d.path),
        line: d.start.line,
        column: d.start.column,
        end_line: d.end.line,
        end_column: d.end.column,
        severity: d.severity.as_str(),
        rule: d.rule,
        url: crate::lint::rule::url(d.rule),
        message: &d.message,
        help: d.help.as_deref(),
        fixable: super::fixability(d) == Some(crate::lint::fix::Safety::Safe),
        fixes: &d.fixes,
    }
}

#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
pub fn render(report: &LintReport, opts: &RenderOptions<'_>) -> String {
    let (errors, warnings) = report.counts();
    let (fixable, unsafe_fixable) = super::fix_counts(report);
    let decisions = super::decision_docs(report, opts);
    // The decisions' reasons as one sentence (paths as shown), where auto decided.
    let detected = (!decisions.is_empty()).then(|| {
        decisions
            .iter()
            .map(|d| d.reason.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    });
    let doc = Document {
        version: 1,
        host: Host {
            profile: &report.host,
            detected: detected.as_deref().or(report.host_reason.as_deref()),
            decisions,
        },
        files: report.files.len(),
        diagnostics: report.diagnostics().map(|d| entry(d, opts)).collect(),
        suppressed: report
            .suppressed()
            .map(|s| Hidden {
                entry: entry(&s.diagnostic, opts),
                suppression: Suppression {
                    kind: s.kind,
                    reason: &s.reason,
                },
            })
            .collect(),
        skipped: report
            .skipped
            .iter()
            .map(|s| Skip {
                path: (opts.show_path)(&s.path),
                reason: s.reason.clone(),
            })
            .collect(),
        host_specific_keys: &report.host_specific,
        summary: Summary {
            errors,
            warnings,
            fixable,
            unsafe_fixable,
            suppressed: report.suppressed().count(),
        },
    };
    let mut out = crate::text::json_escape_controls(
        serde_json::to_string_pretty(&doc).expect("plain data serializes"),
    );
    out.push('\n');
    out
}
