//! `--statistics`: how many findings each rule raised, instead of the findings
//! (ruff's `--statistics`), as a table or a JSON document.

use serde::Serialize;

use super::RenderOptions;
use crate::lint::fix::Safety;
use crate::lint::{LintReport, Severity};

/// One rule's count at one severity (a rule that raises both has two rows).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    pub rule: &'static str,
    pub severity: &'static str,
    pub count: usize,
    /// How many of them `pwk lint --fix` repairs.
    pub fixable: usize,
    /// The rule's one-line summary.
    pub summary: &'static str,
    /// The rule's documentation page.
    pub url: String,
}

/// The rows, most frequent first, then by rule id and severity (errors first).
pub fn counts(report: &LintReport) -> Vec<RuleCount> {
    let mut by: std::collections::BTreeMap<(&'static str, bool), (usize, usize)> =
        Default::default();
    for d in report.diagnostics() {
        let e = by
            .entry((d.rule, d.severity == Severity::Warning))
            .or_default();
        e.0 += 1;
        if super::fixability(d) == Some(Safety::Safe) {
            e.1 += 1;
        }
    }
    let mut rows: Vec<RuleCount> = by
        .into_iter()
        .map(|((rule, warning), (count, fixable))| RuleCount {
            rule,
            severity: if warning { "warning" } else { "error" },
            count,
            fixable,
            summary: crate::lint::rules::find(rule).map_or("", |r| r.summary),
            url: crate::lint::rule::url(rule),
        })
        .collect();
    // Stable: equal counts keep the (rule, error before warning) order.
    rows.sort_by_key(|r| std::cmp::Reverse(r.count));
    rows
}

/// `  3  error    unknown-key    [*] unknown key …` per rule, then the summary of
/// human output (none with `summary: false`).
#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
pub fn render_human(report: &LintReport, opts: &RenderOptions<'_>) -> String {
    let rows = counts(report);
    let count_w = rows
        .iter()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(1);
    let rule_w = rows.iter().map(|r| r.rule.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in &rows {
        let marker = if r.fixable > 0 { "[*]" } else { "   " };
        out.push_str(&format!(
            "{:>count_w$}  {:<7}  {:<rule_w$}  {marker} {}\n",
            r.count, r.severity, r.rule, r.summary
        ));
    }
    if opts.summary {
        out.push_str(&super::human::summary(report));
    }
    out
}

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    host: Host<'a>,
    files: usize,
    statistics: Vec<RuleCount>,
    summary: Summary,
}

#[derive(Serialize)]
struct Host<'a> {
    profile: &'a str,
    detected: Option<&'a str>,
}

#[derive(Serialize)]
struct Summary {
    errors: usize,
    warnings: usize,
    fixable: usize,
    unsafe_fixable: usize,
}

/// `{"version": 1, "host": …, "files": N, "statistics": [{rule, severity, count,
/// fixable, summary, url}], "summary": …}`.
#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
pub fn render_json(report: &LintReport) -> String {
    let (errors, warnings) = report.counts();
    let (fixable, unsafe_fixable) = super::fix_counts(report);
    let doc = Document {
        version: 1,
        host: Host {
            profile: &report.host,
            detected: report.host_reason.as_deref(),
        },
        files: report.files.len(),
        statistics: counts(report),
        summary: Summary {
            errors,
            warnings,
            fixable,
            unsafe_fixable,
        },
    };
    let mut out = crate::text::json_escape_controls(
        serde_json::to_string_pretty(&doc).expect("plain data serializes"),
    );
    out.push('\n');
    out
}
