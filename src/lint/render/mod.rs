//! One renderer per output format, all from the same [`LintReport`].

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

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
}

/// Render `report` in `format`.
/// The output formats of a lint result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

pub fn render(format: Format, report: &LintReport, opts: &RenderOptions<'_>) -> String {
    use Format as F;
    match format {
        F::Human => human::render(report, opts),
        F::Json => json::render(report, opts),
        F::Sarif => sarif::render(report, opts),
        F::Github => github::render(report, opts),
    }
}
