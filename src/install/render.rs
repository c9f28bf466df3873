//! The setup report, for people (`human`) and for tools (`json`).

use super::plan::{Outcome, RoleResult};

/// `{"version":1,"target","dry_run","roles":[…],"reload_needed","partial","warnings"}`.
#[derive(Debug, serde::Serialize)]
pub(crate) struct JsonReport<'a> {
    pub version: u32,
    pub target: &'a str,
    pub dry_run: bool,
    pub roles: Vec<JsonRole<'a>>,
    pub reload_needed: bool,
    pub partial: bool,
    pub warnings: &'a [String],
    /// With no host named: every reader of the shared directory pwk knows of, and
    /// what it does with the roles (absent otherwise).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub readers: &'a [super::readers::Reader],
}

/// One role in the JSON report.
#[derive(Debug, serde::Serialize)]
pub(crate) struct JsonRole<'a> {
    pub name: &'a str,
    pub path: &'a str,
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<&'a str>,
}

/// Everything the report says.
#[derive(Debug)]
pub(crate) struct Report {
    /// The agents directory, as shown to the user.
    pub target: String,
    pub results: Vec<RoleResult>,
    /// Display form of each result's path.
    pub paths: Vec<String>,
    pub dry_run: bool,
    pub check: bool,
    pub warnings: Vec<String>,
    pub stray_temps_removed: usize,
    /// With no host named, the roles go to the shared `.agents/agents/`: who reads
    /// it, and what each does with them.
    pub readers: Vec<super::readers::Reader>,
    /// The pi hosts that do not read that directory (said beside the readers).
    pub not_readers: Vec<String>,
}

impl Report {
    /// Role files were written, so running hosts must re-read them.
    pub(crate) fn reload_needed(&self) -> bool {
        !self.dry_run && self.results.iter().any(|r| r.outcome.changes())
    }

    fn count(&self, o: Outcome) -> usize {
        self.results.iter().filter(|r| r.outcome == o).count()
    }

    /// Some roles are not (or would not be) installed as shipped.
    pub(crate) fn partial(&self) -> bool {
        self.left_alone() > 0 && self.left_alone() < self.results.len()
    }

    fn left_alone(&self) -> usize {
        self.count(Outcome::Conflict) + self.count(Outcome::Refused) + self.count(Outcome::Failed)
    }

    pub(crate) fn would_change(&self) -> bool {
        self.results.iter().any(|r| r.outcome != Outcome::Unchanged)
    }

    /// The JSON document (`--format json`), fields in contract order.
    pub(crate) fn to_json(&self) -> JsonReport<'_> {
        JsonReport {
            version: 1,
            target: &self.target,
            dry_run: self.dry_run || self.check,
            roles: self
                .results
                .iter()
                .zip(&self.paths)
                .map(|(r, path)| JsonRole {
                    name: &r.name,
                    path,
                    outcome: r.outcome.as_str(),
                    reason: r.reason.as_deref(),
                    backup: r.backup.as_ref().map(|b| b.display().to_string()),
                    diff: r.diff.as_deref(),
                })
                .collect(),
            reload_needed: self.reload_needed(),
            partial: self.partial(),
            warnings: &self.warnings,
            readers: &self.readers,
        }
    }

    pub(crate) fn to_human(&self, color: bool) -> String {
        let mut out = String::new();
        let looking = self.dry_run || self.check;
        if looking {
            out.push_str(&format!(
                "Dry run for {} (nothing is changed):\n",
                self.target
            ));
        } else {
            out.push_str(&format!("Installing the PWK roles into {}\n", self.target));
        }
        for r in &self.results {
            let file = r
                .path
                .file_name()
                .map_or_else(|| r.name.clone(), |f| f.to_string_lossy().into_owned());
            let word = paint(r.outcome, color);
            let pad = " ".repeat(10usize.saturating_sub(r.outcome.as_str().len()));
            match &r.reason {
                Some(reason) => out.push_str(&format!("  {word}{pad} {file} — {reason}\n")),
                None => out.push_str(&format!("  {word}{pad} {file}\n")),
            }
            if let Some(diff) = &r.diff {
                for line in diff.lines() {
                    out.push_str(&format!("      {line}\n"));
                }
            }
        }
        let mut counts = Vec::new();
        for o in [
            Outcome::Created,
            Outcome::Updated,
            Outcome::Unchanged,
            Outcome::Conflict,
            Outcome::Refused,
            Outcome::Failed,
        ] {
            let n = self.count(o);
            if n > 0 {
                counts.push(format!("{n} {}", o.as_str()));
            }
        }
        if looking {
            out.push_str(&format!(
                "Summary (what a real run would do): {}.\n",
                counts.join(", ")
            ));
        } else {
            out.push_str(&format!("Summary: {}.\n", counts.join(", ")));
        }
        if self.stray_temps_removed > 0 {
            out.push_str(&format!(
                "Removed {} leftover temporary file(s) from an interrupted run.\n",
                self.stray_temps_removed
            ));
        }
        let alone = self.left_alone();
        if alone > 0 {
            let installed = self.results.len() - alone;
            let what = if self.partial() {
                format!(
                    "The install {} partial: {installed} of {} roles {} installed as shipped, {alone} {} not.",
                    if looking { "would be" } else { "is" },
                    self.results.len(),
                    if looking { "would be" } else { "are" },
                    if alone == 1 { "is" } else { "are" },
                )
            } else {
                format!(
                    "No role {} installed as shipped.",
                    if looking { "would be" } else { "is" }
                )
            };
            out.push_str(&what);
            out.push('\n');
        }
        if !self.readers.is_empty() {
            out.push_str(&format!(
                "No host is named, so the roles follow the PWK contract (the portable profile). Readers of {} pwk knows of:\n",
                self.target
            ));
            for r in &self.readers {
                out.push_str(&format!("  {}: {}\n", r.profile, r.summary()));
            }
            for line in &self.not_readers {
                out.push_str(&format!("  {line}\n"));
            }
        }
        if self.check && self.would_change() {
            out.push_str("--check: the installed roles are not up to date (exit 1).\n");
        }
        if self.reload_needed() {
            out.push_str(
                "Running Pi sessions need /reload (or a new session) to see the changed roles.\n",
            );
        }
        out
    }
}

fn paint(o: Outcome, color: bool) -> String {
    let code = match o {
        Outcome::Created | Outcome::Updated => "32",
        Outcome::Unchanged => "2",
        Outcome::Conflict => "33",
        Outcome::Refused | Outcome::Failed => "31",
    };
    if color {
        format!("\x1b[{code}m{}\x1b[0m", o.as_str())
    } else {
        o.as_str().to_string()
    }
}
