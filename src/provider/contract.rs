//! Role-contract checks on a worker's final report (pure functions).
//!
//! A report that breaks its role's contract is not a completed outcome: the
//! caller turns a [`ContractBreach`] into a `failed` result whose error names what
//! is missing. The checks follow the role bodies (ecosystem b.3):
//!
//! * scout: the five sections `Relevant files`, `Existing patterns`, `Call sites`,
//!   `Test layout`, `Gotchas` as headings, in that order, and the terminal line
//!   `Scout: complete`; `Scout: unavailable — <reason>` is the scout's own refusal.
//! * tracing / smell reviewers: at least one `file:line` citation, or `No findings`.
//! * spec reviewer: the coverage table `| R# | Verdict | Evidence |` with at least one
//!   row whose verdict is `covered`, `gap` or `scope-creep`.
//! * hazard reviewer: items 1–7 each answered `[SAFE]` or `[TRIGGERED]`.
//! * every role: a report that is empty or only whitespace is never completed.
//!
//! With `--result-schema six-field` the seed-003 schema replaces the role body
//! contract: exactly `conclusion`, `evidence`, `files_and_lines`, `tests_or_checks`,
//! `risks`, `recommended_parent_action`, in that order, no other top-level field.

use super::request::LogicalRole;

/// The five scout sections, in order.
pub(crate) const SCOUT_SECTIONS: [&str; 5] = [
    "Relevant files",
    "Existing patterns",
    "Call sites",
    "Test layout",
    "Gotchas",
];

/// The seed-003 result fields, in order.
pub(crate) const SIX_FIELDS: [&str; 6] = [
    "conclusion",
    "evidence",
    "files_and_lines",
    "tests_or_checks",
    "risks",
    "recommended_parent_action",
];

/// The recon fallback line of seed 000.
pub(crate) const SCOUT_FALLBACK: &str = "Scout: unavailable — inline recon used.";

/// Why a report is not a completed outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ContractBreach {
    /// Nothing but whitespace.
    Empty,
    /// The scout said it could not produce the map.
    ScoutUnavailable(String),
    /// The report misses parts of its contract.
    Missing {
        contract: String,
        missing: Vec<String>,
    },
}

impl std::fmt::Display for ContractBreach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContractBreach::Empty => f.write_str("the report is empty"),
            ContractBreach::ScoutUnavailable(reason) => {
                write!(f, "the scout reported itself unavailable: {reason}")
            }
            ContractBreach::Missing { contract, missing } => {
                write!(
                    f,
                    "the report breaks the {contract}: {}",
                    missing.join("; ")
                )
            }
        }
    }
}

/// Which contract a report is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReportContract {
    /// The role body's own contract.
    Role(LogicalRole),
    /// Seed 003's six-field result schema.
    SixField,
}

/// Check a final report against its contract.
pub(crate) fn check(contract: ReportContract, report: &str) -> Result<(), ContractBreach> {
    if report.trim().is_empty() {
        return Err(ContractBreach::Empty);
    }
    let (name, missing) = match contract {
        ReportContract::SixField => (
            "six-field result schema".to_string(),
            six_field_problems(report),
        ),
        ReportContract::Role(role) => {
            let missing = match role {
                LogicalRole::ReconScout => {
                    if let Some(reason) = scout_unavailable(report) {
                        return Err(ContractBreach::ScoutUnavailable(reason));
                    }
                    scout_problems(report)
                }
                LogicalRole::SpecReviewer => spec_problems(report),
                LogicalRole::HazardReviewer => hazard_problems(report),
                LogicalRole::TracingReviewer | LogicalRole::SmellReviewer => {
                    reviewer_problems(report)
                }
            };
            (format!("{role} contract"), missing)
        }
    };
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ContractBreach::Missing {
            contract: name,
            missing,
        })
    }
}

/// Lines outside fenced code blocks, with their text.
fn prose_lines(report: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in report.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            out.push(line);
        }
    }
    out
}

/// Strip Markdown emphasis and code marks around a short line.
fn plain(s: &str) -> String {
    s.trim()
        .trim_matches(|c| c == '*' || c == '_' || c == '`')
        .trim()
        .to_string()
}

/// The heading text of a Markdown heading line (`### 1. Relevant files` → `relevant files`).
fn heading_text(line: &str) -> Option<String> {
    let t = line.trim_start();
    let hashes = t.chars().take_while(|&c| c == '#').count();
    if hashes == 0 || hashes > 6 || !t[hashes..].starts_with(' ') {
        return None;
    }
    let mut text = plain(t[hashes..].trim().trim_end_matches('#'));
    // Drop a leading "1." / "1)" numbering.
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && text[digits..].starts_with(['.', ')']) {
        text = plain(&text[digits + 1..]);
    }
    Some(text.trim_end_matches(':').trim().to_ascii_lowercase())
}

fn last_line(report: &str) -> Option<String> {
    report.lines().rev().map(plain).find(|l| !l.is_empty())
}

/// `Some(reason)` when the scout's terminal line says it is unavailable.
pub(crate) fn scout_unavailable(report: &str) -> Option<String> {
    let last = last_line(report)?;
    let rest = last.strip_prefix("Scout: unavailable")?;
    let reason = rest.trim_start_matches([' ', '—', '-', '–', ':']).trim();
    Some(if reason.is_empty() {
        "no reason given".to_string()
    } else {
        reason.to_string()
    })
}

fn scout_problems(report: &str) -> Vec<String> {
    let headings: Vec<String> = prose_lines(report)
        .into_iter()
        .filter_map(heading_text)
        .collect();
    let mut problems = Vec::new();
    let mut cursor = 0usize;
    let mut absent = Vec::new();
    for section in SCOUT_SECTIONS {
        let want = section.to_ascii_lowercase();
        match headings.iter().position(|h| *h == want) {
            None => absent.push(section),
            Some(at) if at < cursor => {
                problems.push(format!("section \"{section}\" is out of order"))
            }
            Some(at) => cursor = at,
        }
    }
    if !absent.is_empty() {
        problems.insert(0, format!("missing section(s): {}", absent.join(", ")));
    }
    if last_line(report).as_deref() != Some("Scout: complete") {
        problems
            .push("the report does not end with the terminal line \"Scout: complete\"".to_string());
    }
    problems
}

/// Whether the text cites at least one `path:line` (e.g. `src/a.rs:12`, `(lib/x.py:3-9)`).
pub(crate) fn cites_file_line(text: &str) -> bool {
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b':' || !bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let start = text[..i]
            .rfind(|c: char| c.is_whitespace() || "([{<\"'`|,".contains(c))
            .map_or(0, |p| p + 1);
        let token = &text[start..i];
        let looks_like_path = !token.is_empty()
            && !token.contains("://")
            && token
                .chars()
                .all(|c| c.is_alphanumeric() || "._/-+@".contains(c))
            && (token.contains('/')
                || token.rsplit_once('.').is_some_and(|(stem, ext)| {
                    !stem.is_empty()
                        && !ext.is_empty()
                        && ext.chars().all(|c| c.is_ascii_alphanumeric())
                }));
        if looks_like_path {
            return true;
        }
    }
    false
}

fn says_no_findings(text: &str) -> bool {
    text.to_ascii_lowercase().contains("no findings")
}

fn reviewer_problems(report: &str) -> Vec<String> {
    if cites_file_line(report) || says_no_findings(report) {
        Vec::new()
    } else {
        vec!["no finding cites a file:line and the report does not say \"No findings\"".to_string()]
    }
}

fn table_cells(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('|') {
        return None;
    }
    Some(
        t.trim_matches('|')
            .split('|')
            .map(|c| plain(c).to_ascii_lowercase())
            .collect(),
    )
}

fn spec_problems(report: &str) -> Vec<String> {
    let lines = prose_lines(report);
    let header = lines.iter().position(|l| {
        table_cells(l).is_some_and(|c| {
            c.len() >= 3
                && c[0].starts_with('r')
                && c.iter().any(|x| x == "verdict")
                && c.iter().any(|x| x == "evidence")
        })
    });
    let Some(header) = header else {
        return vec!["no coverage table with the header | R# | Verdict | Evidence |".to_string()];
    };
    let verdict_col = table_cells(lines[header])
        .and_then(|c| c.iter().position(|x| x == "verdict"))
        .unwrap_or(1);
    let rows = lines[header + 1..]
        .iter()
        .map_while(|l| table_cells(l))
        .filter(|c| {
            c.get(verdict_col)
                .is_some_and(|v| ["covered", "gap", "scope-creep"].contains(&v.as_str()))
        })
        .count();
    if rows == 0 {
        vec![
            "the coverage table has no row with a verdict of covered, gap or scope-creep"
                .to_string(),
        ]
    } else {
        Vec::new()
    }
}

fn hazard_problems(report: &str) -> Vec<String> {
    let mut answered = [false; 7];
    for line in prose_lines(report) {
        if !(line.contains("[SAFE]") || line.contains("[TRIGGERED]")) {
            continue;
        }
        let t = line
            .trim_start()
            .trim_start_matches(['-', '*', '+', ' ', '#'])
            .trim_start_matches(['*', '_']);
        let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse::<usize>()
            && (1..=7).contains(&n)
            && t[digits.len()..].starts_with(['.', ')', ':', ' ', '*'])
        {
            answered[n - 1] = true;
        }
    }
    let unanswered: Vec<String> = (1..=7)
        .filter(|n| !answered[n - 1])
        .map(|n| n.to_string())
        .collect();
    if unanswered.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "hazard item(s) {} not answered with [SAFE] or [TRIGGERED] (all seven items must be)",
            unanswered.join(", ")
        )]
    }
}

/// Problems with a seed-003 six-field report: names, order, extras.
pub(crate) fn six_field_problems(report: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for line in prose_lines(report) {
        // A top-level field starts at column 0: `name:` then a space or the line end.
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        if name.is_empty()
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || !name.starts_with(|c: char| c.is_ascii_alphabetic())
            || !(rest.is_empty() || rest.starts_with(' '))
        {
            continue;
        }
        found.push(name.to_string());
    }
    let mut problems = Vec::new();
    let extras: Vec<&str> = found
        .iter()
        .map(String::as_str)
        .filter(|f| !SIX_FIELDS.contains(f))
        .collect();
    let missing: Vec<&str> = SIX_FIELDS
        .iter()
        .copied()
        .filter(|f| !found.iter().any(|x| x == f))
        .collect();
    if !missing.is_empty() {
        problems.push(format!("missing field(s): {}", missing.join(", ")));
    }
    for e in &extras {
        let lower = e.to_ascii_lowercase();
        if SIX_FIELDS.contains(&lower.as_str()) {
            problems.push(format!(
                "field \"{e}\" must be spelled in lower case: \"{lower}\""
            ));
        } else {
            problems.push(format!(
                "extra top-level field \"{e}\" (only the six fields are allowed)"
            ));
        }
    }
    let known: Vec<&str> = found
        .iter()
        .map(String::as_str)
        .filter(|f| SIX_FIELDS.contains(f))
        .collect();
    let mut dedup = known.clone();
    dedup.dedup();
    if dedup.len() != known.len()
        || known
            .iter()
            .enumerate()
            .any(|(i, f)| known[..i].contains(f))
    {
        problems.push("a field appears more than once".to_string());
    } else if missing.is_empty() && known != SIX_FIELDS {
        problems.push(format!(
            "fields are out of order (expected {})",
            SIX_FIELDS.join(", ")
        ));
    }
    problems
}

/// The return-format instruction added to a prompt under `--result-schema six-field`.
pub(crate) fn six_field_instruction() -> String {
    let mut s = String::from(
        "Expected return format: exactly these six top-level fields, in this order, with these exact \
lower-case names and no other top-level field:\n\n",
    );
    for f in SIX_FIELDS {
        s.push_str(f);
        s.push_str(":\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCOUT_OK: &str = "# Recon: sessions\n\n### Relevant files\n- src/a.rs:1 — entry\n\n### Existing patterns\n- x\n\n### Call sites\n- read-side: src/b.rs:4\n\n### Test layout\n- tests/cli\n\n### Gotchas\n- none\n\nScout: complete\n";

    fn role(r: LogicalRole, s: &str) -> Result<(), ContractBreach> {
        check(ReportContract::Role(r), s)
    }

    #[test]
    fn scout_report_with_five_sections_in_order_and_terminal_line_passes() {
        assert_eq!(role(LogicalRole::ReconScout, SCOUT_OK), Ok(()));
        let numbered = SCOUT_OK.replace("### Relevant files", "## 1. **Relevant files**");
        assert_eq!(role(LogicalRole::ReconScout, &numbered), Ok(()));
    }

    #[test]
    fn scout_breaches_name_what_is_missing() {
        let no_gotchas = SCOUT_OK.replace("### Gotchas", "### Other");
        let e = role(LogicalRole::ReconScout, &no_gotchas)
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing section(s): Gotchas"), "{e}");

        let swapped = SCOUT_OK
            .replace("### Call sites", "### TMP")
            .replace("### Existing patterns", "### Call sites")
            .replace("### TMP", "### Existing patterns");
        let e = role(LogicalRole::ReconScout, &swapped)
            .unwrap_err()
            .to_string();
        assert!(e.contains("out of order"), "{e}");

        let unterminated = SCOUT_OK.replace("Scout: complete\n", "");
        let e = role(LogicalRole::ReconScout, &unterminated)
            .unwrap_err()
            .to_string();
        assert!(e.contains("Scout: complete"), "{e}");

        // A heading inside a code fence does not count.
        let fenced = SCOUT_OK.replace("### Gotchas\n", "```\n### Gotchas\n```\n");
        assert!(role(LogicalRole::ReconScout, &fenced).is_err());
    }

    #[test]
    fn scout_unavailable_is_not_completed() {
        let r = "I could not read the repository.\n\nScout: unavailable — the cwd is empty\n";
        assert_eq!(
            role(LogicalRole::ReconScout, r),
            Err(ContractBreach::ScoutUnavailable("the cwd is empty".into()))
        );
    }

    #[test]
    fn empty_reports_are_never_completed() {
        for r in LogicalRole::ALL {
            assert_eq!(role(r, " \n\t"), Err(ContractBreach::Empty));
        }
        assert_eq!(
            check(ReportContract::SixField, ""),
            Err(ContractBreach::Empty)
        );
    }

    #[test]
    fn reviewers_cite_file_line_or_say_no_findings() {
        for r in [LogicalRole::TracingReviewer, LogicalRole::SmellReviewer] {
            assert_eq!(
                role(r, "1. src/provider/mod.rs:42 — duplicated match arm"),
                Ok(())
            );
            assert_eq!(role(r, "No findings."), Ok(()));
            assert_eq!(role(r, "- (tests/cli/main.rs:7-9) dead helper"), Ok(()));
            let e = role(r, "Looks fine overall, some naming could improve.")
                .unwrap_err()
                .to_string();
            assert!(e.contains("file:line"), "{e}");
            // A URL or a time is not a file:line citation.
            assert!(role(r, "see https://example.test:8080 at 10:30").is_err());
        }
    }

    #[test]
    fn spec_reviewer_needs_its_coverage_table() {
        let ok = "| R# | Verdict | Evidence |\n|---|---|---|\n| R1 | covered | src/a.rs:3, tests/a.rs:9 |\n| R2 | gap | none |\n";
        assert_eq!(role(LogicalRole::SpecReviewer, ok), Ok(()));
        let e = role(LogicalRole::SpecReviewer, "src/a.rs:3 covers R1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("coverage table"), "{e}");
        let no_rows = "| R# | Verdict | Evidence |\n|---|---|---|\n";
        assert!(
            role(LogicalRole::SpecReviewer, no_rows)
                .unwrap_err()
                .to_string()
                .contains("no row")
        );
    }

    #[test]
    fn hazard_reviewer_answers_all_seven_items() {
        let mut ok = String::from("### src/a.rs\n");
        for n in 1..=7 {
            ok.push_str(&format!("{n}. item — [SAFE] bounded by the cap\n"));
        }
        assert_eq!(role(LogicalRole::HazardReviewer, &ok), Ok(()));
        let triggered = ok.replace("3. item — [SAFE]", "**3.** item — [TRIGGERED] add a limit");
        assert_eq!(role(LogicalRole::HazardReviewer, &triggered), Ok(()));
        let six = ok.replace(
            "5. item — [SAFE] bounded by the cap\n",
            "5. item — looked fine\n",
        );
        let e = role(LogicalRole::HazardReviewer, &six)
            .unwrap_err()
            .to_string();
        assert!(e.contains("item(s) 5 not answered"), "{e}");
    }

    fn six(fields: &[&str]) -> String {
        fields
            .iter()
            .map(|f| format!("{f}: value\n  more detail\n"))
            .collect()
    }

    #[test]
    fn six_field_schema_exact_names_order_no_extras() {
        assert_eq!(check(ReportContract::SixField, &six(&SIX_FIELDS)), Ok(()));
        let mut swapped = SIX_FIELDS;
        swapped.swap(0, 1);
        assert!(
            six_field_problems(&six(&swapped))
                .iter()
                .any(|p| p.contains("out of order"))
        );
        let mut extra = SIX_FIELDS.to_vec();
        extra.push("model");
        assert!(
            six_field_problems(&six(&extra))
                .iter()
                .any(|p| p.contains("extra top-level field \"model\""))
        );
        let upper = six(&SIX_FIELDS).replace("conclusion:", "Conclusion:");
        let p = six_field_problems(&upper);
        assert!(p.iter().any(|p| p.contains("lower case")), "{p:?}");
        assert!(
            p.iter().any(|p| p.contains("missing field(s): conclusion")),
            "{p:?}"
        );
        let dup = six(&SIX_FIELDS) + "risks: again\n";
        assert!(
            six_field_problems(&dup)
                .iter()
                .any(|p| p.contains("more than once"))
        );
        // Indented lines and fenced blocks are not top-level fields.
        let nested = six(&SIX_FIELDS) + "  note: nested\n```\nfoo: bar\n```\n";
        assert_eq!(six_field_problems(&nested), Vec::<String>::new());
    }
}
