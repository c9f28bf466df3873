//! `pwk verify`'s output: one JSON document, or a table per host for people. Every
//! text that comes from a role file or a host is escaped here.

use super::compare::{Outcome, Row, Verdict};
use super::{Found, HostReport, Plan, Skipped};
use crate::text::escape_line;

/// Where a profile that is wrong for a host is reported.
pub const REPORT_HOW: &str = "report it with the output of `pwk verify --format json` at the pwk issue tracker (the `pwk --version` line, the host and its version, and the role file, or the smallest file that shows it)";

/// The JSON document of a run (`reports` empty under `--dry-run`).
pub fn doc(plan: &Plan, reports: Option<&[HostReport]>) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "version": 1,
        "node": plan.node,
        "not_run": plan.not_run,
    });
    if !plan.node_skipped.is_empty() {
        doc["node_skipped"] = serde_json::to_value(&plan.node_skipped).expect("plain data");
    }
    match reports {
        None => {
            doc["dry_run"] = serde_json::Value::Bool(true);
            doc["would_run"] = serde_json::to_value(&plan.probes).expect("plain data");
        }
        Some(reports) => {
            let hosts: Vec<serde_json::Value> = reports
                .iter()
                .map(|r| {
                    let mut v = serde_json::to_value(r).expect("plain data");
                    if r.disagrees() {
                        v["wrong_profile"] = serde_json::Value::String(wrong_profile(r));
                    }
                    v
                })
                .collect();
            doc["hosts"] = serde_json::Value::Array(hosts);
            let (agree, disagree, unchecked) = counts(reports);
            doc["summary"] = serde_json::json!({
                "agree": agree, "disagree": disagree, "not_checked": unchecked,
                "failed_hosts": reports.iter().filter(|r| r.error.is_some()).count(),
            });
        }
    }
    doc
}

fn counts(reports: &[HostReport]) -> (usize, usize, usize) {
    let rows = reports.iter().flat_map(|r| &r.rows);
    let (mut a, mut d, mut u) = (0, 0, 0);
    for r in rows {
        match r.agree {
            Some(true) => a += 1,
            Some(false) => d += 1,
            None => u += 1,
        }
    }
    (a, d, u)
}

fn host_title(r: &HostReport) -> String {
    format!(
        "{} {}",
        r.host,
        r.version.as_deref().unwrap_or("(version unknown)")
    )
}

/// "pwk's profile for HOST VERSION is wrong here".
fn wrong_profile(r: &HostReport) -> String {
    format!(
        "pwk's profile for {} is wrong here (pwk compared its {}); {REPORT_HOW}",
        host_title(r),
        r.profile,
    )
}

/// Where the copy asked came from, for the note that says a project's copy was not.
fn found_as(found: Found) -> &'static str {
    match found {
        Found::HostBin => "the copy named with --host-bin",
        Found::Path => "the one on PATH",
        Found::PiSettings => "the one the agent dir's pi settings list",
        Found::Vendored => "the copy in the agent dir",
        Found::PiPackage => "the one the pi package ships",
    }
}

/// The lines under a host that say whose code runs: a project's copy passed over
/// (and which copy is asked instead), or the project's code run with consent.
fn project_code_lines(project_code: bool, found: Found, skipped: &[Skipped]) -> String {
    let mut out = String::new();
    for s in skipped {
        out.push_str(&format!(
            "  {}; {} is asked instead ({})\n",
            escape_line(&s.sentence()),
            found_as(found),
            super::installed::OPT_IN
        ));
    }
    if project_code {
        let how = match found {
            Found::HostBin => "--host-bin names it",
            _ => "--run-project-code",
        };
        out.push_str(&format!(
            "  this is code in the project, run as pi would ({how})\n"
        ));
    }
    out
}

/// What `--dry-run` prints.
pub fn dry_run_human(plan: &Plan) -> String {
    let mut out = String::new();
    if plan.probes.is_empty() {
        out.push_str("pwk verify would run no host.\n");
    }
    for p in &plan.probes {
        out.push_str(&format!(
            "would run {} {} ({}), offline, on a copy of {} file{}, against pwk's {}:\n  {}\n",
            p.installed.host,
            p.installed
                .version
                .as_deref()
                .unwrap_or("(version unknown)"),
            escape_line(&p.installed.program.display().to_string()),
            p.files.len(),
            if p.files.len() == 1 { "" } else { "s" },
            p.profile,
            escape_line(&p.command.join(" "))
        ));
        out.push_str(&project_code_lines(
            p.installed.project_code,
            p.installed.found,
            &p.installed.project_code_skipped,
        ));
        for f in &p.files {
            out.push_str(&format!("    {}", escape_line(&f.file)));
            if let Some(why) = &f.not_staged {
                out.push_str(&format!("  ({})", escape_line(why)));
            }
            out.push('\n');
        }
    }
    not_run(plan, &mut out);
    out
}

fn not_run(plan: &Plan, out: &mut String) {
    for s in &plan.node_skipped {
        out.push_str(&format!(
            "node: {} ({})\n",
            escape_line(&s.sentence()),
            super::installed::OPT_IN
        ));
    }
    for n in &plan.not_run {
        out.push_str(&format!(
            "not run: {}: {}\n",
            n.host,
            escape_line(&n.reason)
        ));
    }
}

fn short(v: &Verdict) -> String {
    let what = match v.outcome {
        Outcome::Loads => "loads",
        Outcome::LoadsWithErrors => "loads (errors)",
        Outcome::Drops => "drops",
        Outcome::RefusesStart => "refuses to start",
        Outcome::FailsCalls => "fails every call",
        Outcome::NotChecked => "-",
    };
    match (&v.name, v.outcome) {
        (Some(n), Outcome::Loads | Outcome::LoadsWithErrors) => {
            format!("{what} as {}", escape_line(n))
        }
        _ => what.to_string(),
    }
}

fn tools(v: &Verdict) -> String {
    match &v.tools {
        Some(t) if t.is_empty() => "none".into(),
        Some(t) => escape_line(&t.join(",")).into_owned(),
        None => "?".into(),
    }
}

/// The table of a run, for people.
pub fn human(plan: &Plan, reports: &[HostReport]) -> String {
    let mut out = String::new();
    for r in reports {
        out.push_str(&format!(
            "{} ({}) against pwk's {} — {:.1} s\n",
            host_title(r),
            escape_line(&r.program.display().to_string()),
            r.profile,
            r.seconds
        ));
        out.push_str(&project_code_lines(
            r.project_code,
            r.found,
            &r.project_code_skipped,
        ));
        if let Some(e) = &r.error {
            out.push_str(&format!("  could not ask it: {}\n\n", escape_line(e)));
            continue;
        }
        let width = r
            .rows
            .iter()
            .map(|row| row.file.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, 48);
        out.push_str(&format!(
            "  {:<width$}  {:<30}  {:<30}  {}\n",
            "file", "pwk", "host", "verdict"
        ));
        for row in &r.rows {
            out.push_str(&row_line(row, width));
        }
        if r.disagrees() {
            out.push_str(&format!("  {}\n", wrong_profile(r)));
        }
        out.push('\n');
    }
    not_run(plan, &mut out);
    let (agree, disagree, unchecked) = counts(reports);
    let failed = reports.iter().filter(|r| r.error.is_some()).count();
    out.push_str(&format!(
        "{agree} agree, {disagree} disagree, {unchecked} not checked; {} host{} asked{}\n",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        if failed > 0 {
            format!(", {failed} could not be asked")
        } else {
            String::new()
        }
    ));
    out
}

fn row_line(row: &Row, width: usize) -> String {
    let verdict = match row.agree {
        Some(true) => "agree".to_string(),
        Some(false) => "DISAGREE".to_string(),
        None => "not checked".to_string(),
    };
    let mut line = format!(
        "  {:<width$}  {:<30}  {:<30}  {verdict}\n",
        escape_line(&row.file),
        short(&row.pwk),
        short(&row.host),
    );
    if row.agree == Some(true)
        && matches!(row.host.outcome, Outcome::Loads)
        && row.host.tools.is_some()
    {
        line.push_str(&format!("  {:<width$}  tools {}\n", "", tools(&row.host)));
    }
    // Why the host did not load it, in its own words.
    if row.agree == Some(true)
        && matches!(
            row.host.outcome,
            Outcome::Drops | Outcome::RefusesStart | Outcome::FailsCalls
        )
        && let Some(m) = row.host.messages.first()
    {
        let m = crate::text::snippet(m, 160);
        line.push_str(&format!("  {:<width$}  host: {}\n", "", escape_line(&m)));
    }
    if let Some(why) = &row.why {
        line.push_str(&format!("  {:<width$}  {}\n", "", escape_line(why)));
    }
    if row.agree == Some(false) {
        for m in row.host.messages.iter().take(2) {
            let m = crate::text::snippet(m, 200);
            line.push_str(&format!("  {:<width$}  host: {}\n", "", escape_line(&m)));
        }
        for m in row.pwk.messages.iter().take(2) {
            line.push_str(&format!("  {:<width$}  pwk: {}\n", "", escape_line(m)));
        }
    }
    line
}
