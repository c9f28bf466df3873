//! `--format concise`: one `path:line:col: severity[rule] message` line per
//! finding (`[*]` after the rule when `--fix` repairs it), then the summary of
//! human output. What editors' error formats and `grep` read.

use super::RenderOptions;
use crate::lint::LintReport;
use crate::text::escape_line;

#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
pub fn render(report: &LintReport, opts: &RenderOptions<'_>) -> String {
    let mut out = String::new();
    for d in report.diagnostics() {
        out.push_str(&format!(
            "{}:{}:{}: {}[{}]{} {}\n",
            escape_line(&(opts.show_path)(&d.path)),
            d.start.line,
            d.start.column,
            d.severity,
            d.rule,
            super::fix_marker(d),
            escape_line(&d.message)
        ));
    }
    if opts.summary {
        out.push_str(&super::human::summary(report));
    }
    out
}
