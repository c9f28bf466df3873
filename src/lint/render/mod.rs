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

/// One `--host auto` decision as data (JSON `host.decisions`, SARIF
/// `runs[0].properties.hostDecisions`).
#[derive(serde::Serialize)]
pub(crate) struct DecisionDoc<'a> {
    /// The profile the files were linted for.
    profile: &'a str,
    /// `settings`, `directory`, `keys`, `several` or `nothing`.
    basis: crate::host::Basis,
    /// The project, directory or file the decision holds for.
    scope: String,
    files: usize,
    /// Why, in one sentence.
    reason: String,
    /// What named a host, and where.
    evidence: Vec<EvidenceDoc<'a>>,
}

#[derive(serde::Serialize)]
struct EvidenceDoc<'a> {
    host: crate::host::HostId,
    version: Option<&'a str>,
    path: String,
    #[serde(flatten)]
    evidence: &'a crate::host::Evidence,
}

/// The report's decisions as data, paths shown as `show_path` shows them.
pub(crate) fn decision_docs<'a>(
    report: &'a LintReport,
    opts: &RenderOptions<'_>,
) -> Vec<DecisionDoc<'a>> {
    let show = |p: &Path| shown_path(opts, p);
    report
        .decisions
        .iter()
        .map(|d| DecisionDoc {
            profile: &d.profile,
            basis: d.detection.basis,
            scope: show(&d.detection.scope),
            files: d.files,
            reason: d.detection.describe(&show),
            evidence: d
                .detection
                .found
                .iter()
                .map(|f| EvidenceDoc {
                    host: f.host,
                    version: f.version.as_deref(),
                    path: show(&f.settings),
                    evidence: &f.evidence,
                })
                .collect(),
        })
        .collect()
}

/// A path as `show_path` shows it, `.` for the directory it is shown relative to.
fn shown_path(opts: &RenderOptions<'_>, p: &Path) -> String {
    let s = (opts.show_path)(p);
    if s.is_empty() { ".".to_string() } else { s }
}

/// The run's account of its `--host auto` decisions, one line each, for people
/// (`pwk lint` prints them on stderr beside the human, concise and github
/// formats): where, how many files, for which profile, and why. Paths and the
/// reason are escaped (no raw control character reaches the terminal).
pub fn decision_lines(report: &LintReport, opts: &RenderOptions<'_>) -> Vec<String> {
    use crate::host::Basis;
    let show = |p: &Path| crate::text::escape_line(&shown_path(opts, p)).into_owned();
    report
        .decisions
        .iter()
        // A decision that linted no file (every path named was unreadable) says
        // nothing the error about those paths does not.
        .filter(|d| d.files > 0)
        .map(|d| {
            let det = &d.detection;
            let file_scope = det.basis == Basis::Keys && d.files == 1;
            let scope = show(&det.scope);
            let scope = if file_scope || scope.ends_with('/') || scope == "." {
                scope
            } else {
                format!("{scope}/")
            };
            let hint = match det.basis {
                Basis::Nothing | Basis::Several => {
                    "; name the host: `--host H`, or `host = \"H\"` in pwk.toml"
                }
                _ => "",
            };
            format!(
                "pwk: {scope} ({} file{}) linted for {}: {}{hint}",
                d.files,
                if d.files == 1 { "" } else { "s" },
                d.profile,
                det.describe(&show)
            )
        })
        .collect()
}
