//! One renderer per output format, all from the same [`LintReport`].

pub mod concise;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;
pub mod statistics;

use std::path::Path;

use super::LintReport;

/// What every renderer needs besides the findings.
pub struct RenderOptions<'a> {
    /// How a path is shown (relative to the current directory when under it).
    pub show_path: &'a dyn Fn(&Path) -> String,
    /// Colour for human output.
    pub color: bool,
    /// Fixed width for human output (deterministic, independent of the terminal).
    pub width: usize,
    /// Human and concise output end with the summary (`false`: `--quiet`, the
    /// findings and nothing else).
    pub summary: bool,
}

/// The output formats of a lint result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Concise,
    Json,
    Sarif,
    Github,
}

/// Render `report` in `format`.
pub fn render(format: Format, report: &LintReport, opts: &RenderOptions<'_>) -> String {
    use Format as F;
    match format {
        F::Human => human::render(report, opts),
        F::Concise => concise::render(report, opts),
        F::Json => json::render(report, opts),
        F::Sarif => sarif::render(report, opts),
        F::Github => github::render(report, opts),
    }
}

/// How a finding can be repaired: `Some(Safe)` when `pwk lint --fix` repairs it,
/// `Some(Unsafe)` when only `--unsafe-fixes` does, `None` when nothing does.
pub fn fixability(d: &super::Diagnostic) -> Option<super::fix::Safety> {
    d.fixes.iter().map(|f| f.safety).min()
}

/// The `[*]` marker of a finding `--fix` repairs (empty otherwise), as ruff marks it.
pub fn fix_marker(d: &super::Diagnostic) -> &'static str {
    if fixability(d) == Some(super::fix::Safety::Safe) {
        " [*]"
    } else {
        ""
    }
}

/// How many reported findings `--fix` repairs, and how many more `--unsafe-fixes`
/// would.
pub fn fix_counts(report: &LintReport) -> (usize, usize) {
    use super::fix::Safety;
    report
        .diagnostics()
        .fold((0, 0), |(safe, unsafe_), d| match fixability(d) {
            Some(Safety::Safe) => (safe + 1, unsafe_),
            Some(Safety::Unsafe) => (safe, unsafe_ + 1),
            None => (safe, unsafe_),
        })
}

/// `[*] 2 fixable with `pwk lint --fix` (1 more with `--unsafe-fixes`).` (empty
/// when nothing is fixable).
pub fn fix_summary(report: &LintReport) -> String {
    let (safe, unsafe_) = fix_counts(report);
    match (safe, unsafe_) {
        (0, 0) => String::new(),
        (0, u) => format!("{u} fixable with `pwk lint --fix --unsafe-fixes`.\n"),
        (s, 0) => format!("[*] {s} fixable with `pwk lint --fix`.\n"),
        (s, u) => {
            format!("[*] {s} fixable with `pwk lint --fix` ({u} more with `--unsafe-fixes`).\n")
        }
    }
}
