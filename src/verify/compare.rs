//! pwk's verdict on the staged copy (lint + list + show under the host's newest
//! profile) beside the host's, per file. The judgement is the one pwk's CI makes
//! against the pinned hosts (tests/cli/host_facts.rs, `real_cli_hosts_agree_with_lint`):
//!
//! * the host loads a file: pwk must not say it does not (no error claiming the host
//!   skips it), must know it by the host's name, and must give the same description,
//!   tools (when the host shows them) and, for Claude Code, model;
//! * the host drops it (or refuses to start over it): pwk must report an error on it.

use std::collections::BTreeSet;
use std::path::Path;

use super::StagedFile;
use super::ask::{HostAgent, HostDoc};
use crate::discover::Discovery;
use crate::host::HostChoice;
use crate::lint::{LintReport, Severity};

/// What pwk says about the staged project under the host's newest profile.
#[derive(Debug)]
pub struct PwkView {
    root: std::path::PathBuf,
    discovery: Discovery,
    report: LintReport,
}

/// Lint and discover the staged copy at `root` under the profile `spec`
/// (`opencode@1`).
pub fn pwk_view(root: &Path, spec: &str) -> Result<PwkView, String> {
    let spec: crate::host::HostSpec = spec
        .parse()
        .map_err(|e: crate::host::HostError| e.to_string())?;
    let project = crate::project::Project::open(crate::project::ProjectOptions {
        cwd: root.to_path_buf(),
        dir: Some(root.to_path_buf()),
        host: Some(HostChoice::Spec(spec)),
        config: None,
        home: None,
        agent_dir: None,
    })
    .map_err(|e| e.to_string())?;
    let discovery = project
        .discover_hosts()
        .map_err(|e| e.to_string())?
        .into_iter()
        .next()
        .ok_or("pwk found no host view")?;
    let set = project
        .file_set(&crate::project::FileRequest {
            paths: Vec::new(),
            recursive: true,
            allow_empty: true,
        })
        .map_err(|e| e.to_string())?;
    let report = project
        .plan(set, &crate::lint::FileSettings::default())
        .map_err(|e| e.to_string())?
        .lint(false);
    Ok(PwkView {
        root: root.to_path_buf(),
        discovery,
        report,
    })
}

/// What a file comes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Loaded (pwk: listed, no error).
    Loads,
    /// pwk: listed, with errors that do not say the host drops it.
    LoadsWithErrors,
    /// Not loaded.
    Drops,
    /// The host refuses to start at all because of this file.
    RefusesStart,
    /// The host starts, but every call of its tool that reads the roles fails
    /// because of this file (pi's example extension: discovery throws).
    FailsCalls,
    /// Not judged (not staged; shadowed; the host refused to start over another file).
    NotChecked,
}

/// One side's verdict on one file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Verdict {
    pub outcome: Outcome,
    pub name: Option<String>,
    /// pwk: the `name` the file declares (a host may know it by that).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_name: Option<String>,
    pub description: Option<String>,
    pub tools: Option<Vec<String>>,
    pub model: Option<String>,
    /// pwk: its error findings (`rule: message`); the host: what it said about the file.
    pub messages: Vec<String>,
}

impl Verdict {
    fn of(outcome: Outcome) -> Verdict {
        Verdict {
            outcome,
            name: None,
            declared_name: None,
            description: None,
            tools: None,
            model: None,
            messages: Vec::new(),
        }
    }
}

/// One file: both verdicts and whether they agree (`None`: not judged).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub file: String,
    pub pwk: Verdict,
    pub host: Verdict,
    pub agree: Option<bool>,
    /// What differs, when they disagree; why not judged, when not.
    pub why: Option<String>,
}

/// Whether an error finding claims the host does not load the file at all.
fn claims_not_loaded(message: &str) -> bool {
    [
        "skip",
        "refuse",
        "fails to load",
        "not see",
        "will not find",
        "drop",
    ]
    .iter()
    .any(|w| message.contains(w))
}

/// A Claude Code model as the API sees it, from what pwk says the role asks for: an
/// alias resolves (case-insensitively) to that family; none or `inherit` is the main
/// thread's model; `best` is opus (2.1.332, measured).
fn claude_model_agrees(pwk: Option<&str>, host: &str, main: &str) -> bool {
    let lower = pwk.map(str::to_ascii_lowercase);
    let family = lower.as_deref().map(|m| m.trim_end_matches("[1m]"));
    match family {
        None | Some("inherit") => host == main,
        Some("best") => host.contains("-opus-"),
        Some(alias @ ("sonnet" | "opus" | "haiku" | "fable")) => {
            host.contains(&format!("-{alias}-"))
        }
        Some(_) => host.eq_ignore_ascii_case(lower.as_deref().unwrap_or_default()),
    }
}

impl PwkView {
    fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// pwk's verdict on `file`.
    fn verdict(&self, file: &str) -> Verdict {
        let errors: Vec<String> = self
            .report
            .files
            .iter()
            .filter(|f| self.rel(&f.path) == file)
            .flat_map(|f| &f.diagnostics)
            .filter(|d| d.severity == Severity::Error)
            .map(|d| format!("{}: {}", d.rule, d.message))
            .chain(
                self.report
                    .failures
                    .iter()
                    .filter(|f| self.rel(&f.path) == file)
                    .map(|f| f.message.clone()),
            )
            .collect();
        let skipped = self
            .report
            .skipped
            .iter()
            .find(|s| self.rel(&s.path) == file)
            .map(|s| s.reason.clone());
        let d = &self.discovery;
        let rf = d
            .files
            .iter()
            .find(|f| f.path.as_file().is_some_and(|p| self.rel(p) == file));
        let role = d
            .roles
            .iter()
            .find(|r| r.path.as_file().is_some_and(|p| self.rel(p) == file));
        let mut v = Verdict::of(Outcome::Drops);
        v.messages = errors.clone();
        if let Some(why) = skipped {
            v.messages.push(why);
            return v;
        }
        let Some(rf) = rf else {
            v.messages
                .push(format!("{} does not read this directory", d.host.label()));
            return v;
        };
        v.name = Some(rf.identity.clone());
        v.declared_name = rf.role.as_ref().and_then(|r| r.name.clone());
        if !rf.loadable {
            if let Some(p) = &rf.problem {
                v.messages.push(p.clone());
            }
            return v;
        }
        let Some(role) = role else {
            v.outcome = Outcome::NotChecked;
            v.messages
                .push(format!("shadowed by another `{}`", rf.identity));
            return v;
        };
        if errors.iter().any(|e| claims_not_loaded(e)) {
            return v;
        }
        v.outcome = if errors.is_empty() {
            Outcome::Loads
        } else {
            Outcome::LoadsWithErrors
        };
        v.description = role.role.description.clone();
        let rt = crate::discover::runtime::resolve_runtime(
            role,
            &crate::discover::runtime::RuntimeInputs {
                host: d.host,
                explicit_model: None,
                agent_dir: None,
                cwd: &self.root,
                root: Some(&self.root),
                // The host runs with a fresh HOME and none of its variables set.
                home: None,
                host_vars: Some(&std::collections::BTreeMap::new()),
            },
        );
        // An agent CLI reports "every tool" as `*`; a pi extension lists them.
        let every =
            !d.host.host.is_pi() && (rt.tools.host_default || rt.tools.note.starts_with("every"));
        v.tools = Some(if every {
            vec!["*".to_string()]
        } else {
            rt.tools.effective.clone()
        });
        v.model = rt.model.effective.clone();
        v
    }
}

/// The host's agent for a file: by the name pwk knows it by, else the name it
/// declares, else its stem.
fn agent_for<'a>(doc: &'a HostDoc, names: &[Option<&str>]) -> Option<&'a HostAgent> {
    names
        .iter()
        .flatten()
        .find_map(|n| doc.agents.iter().find(|a| a.answers_to(n)))
}

fn stem(file: &str) -> &str {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.strip_suffix(".md").unwrap_or(name)
}

/// The host's verdict on `file` (pwk's name for it: `name`).
fn host_verdict(doc: &HostDoc, file: &str, mine: &Verdict) -> Verdict {
    let base = file.rsplit('/').next().unwrap_or(file);
    let about: Vec<String> = doc
        .messages
        .iter()
        .filter(|m| m.contains(base))
        .cloned()
        .collect();
    if let Some(fatal) = &doc.fatal {
        let mut v = Verdict::of(if fatal.contains(file) || fatal.contains(base) {
            if doc.calls_fail {
                Outcome::FailsCalls
            } else {
                Outcome::RefusesStart
            }
        } else {
            Outcome::NotChecked
        });
        v.messages.push(fatal.clone());
        return v;
    }
    let names = [
        mine.name.as_deref(),
        mine.declared_name.as_deref(),
        Some(stem(file)),
    ];
    let Some(a) = agent_for(doc, &names) else {
        let mut v = Verdict::of(Outcome::Drops);
        v.messages = about;
        return v;
    };
    if let Some(e) = &a.error {
        let mut v = Verdict::of(Outcome::Drops);
        v.name = Some(a.name.clone());
        v.messages
            .push(format!("listed, but refuses to spawn it: {e}"));
        return v;
    }
    let mut tools = a.tools.clone();
    if let Some(t) = &mut tools
        && t.iter().all(|x| x != "*")
    {
        t.extend(a.tools_deferred.iter().flatten().cloned());
    }
    Verdict {
        outcome: Outcome::Loads,
        name: Some(a.name.clone()),
        declared_name: None,
        description: a.description.clone(),
        tools,
        model: a.model_text(),
        messages: about,
    }
}

/// Compare pwk and the host on every staged file.
pub fn compare(files: &[StagedFile], pwk: &PwkView, doc: &HostDoc) -> Vec<Row> {
    files
        .iter()
        .map(|f| {
            if let Some(why) = &f.not_staged {
                return Row {
                    file: f.file.clone(),
                    pwk: Verdict::of(Outcome::NotChecked),
                    host: Verdict::of(Outcome::NotChecked),
                    agree: None,
                    why: Some(why.clone()),
                };
            }
            let mine = pwk.verdict(&f.file);
            let theirs = host_verdict(doc, &f.file, &mine);
            let (agree, why) = judge(doc, &mine, &theirs);
            Row {
                file: f.file.clone(),
                pwk: mine,
                host: theirs,
                agree,
                why,
            }
        })
        .collect()
}

fn set(v: &[String]) -> BTreeSet<&str> {
    v.iter().map(String::as_str).collect()
}

/// Whether the two verdicts agree, and what differs.
fn judge(doc: &HostDoc, mine: &Verdict, theirs: &Verdict) -> (Option<bool>, Option<String>) {
    use Outcome::*;
    let host = &doc.host;
    let no = |why: String| (Some(false), Some(why));
    match (theirs.outcome, mine.outcome) {
        (NotChecked, _) => (
            None,
            Some(if doc.calls_fail {
                format!("{host}'s calls fail over another file")
            } else {
                format!("{host} refused to start over another file")
            }),
        ),
        (_, NotChecked) => (None, mine.messages.first().cloned()),
        (RefusesStart | FailsCalls | Drops, Loads) => no(format!(
            "{host} {} it, pwk reports no error",
            match theirs.outcome {
                RefusesStart => "refuses to start over",
                FailsCalls => "fails every call that reads the roles over",
                _ => "does not load",
            }
        )),
        (RefusesStart | FailsCalls | Drops, _) => (Some(true), None),
        (Loads | LoadsWithErrors, Drops) => no(format!(
            "{host} loads it as `{}`, pwk says it does not{}",
            theirs.name.as_deref().unwrap_or_default(),
            mine.messages
                .first()
                .map(|m| format!(" ({m})"))
                .unwrap_or_default()
        )),
        (Loads | LoadsWithErrors, _) => {
            let mut diffs = Vec::new();
            let (ours, name) = (
                mine.name.as_deref().unwrap_or_default(),
                theirs.name.as_deref().unwrap_or_default(),
            );
            let known = doc
                .agents
                .iter()
                .any(|a| a.name == name && a.answers_to(ours));
            if ours != name && !known {
                diffs.push(format!("{host} calls it `{name}`, pwk `{ours}`"));
            }
            if let (Some(t), Some(o)) = (&theirs.description, &mine.description)
                && t.trim() != o.trim()
            {
                diffs.push(format!("description: {host} {t:?}, pwk {o:?}"));
            }
            if let (Some(t), Some(o)) = (&theirs.tools, &mine.tools)
                && set(t) != set(o)
            {
                diffs.push(format!("tools: {host} {:?}, pwk {:?}", set(t), set(o)));
            }
            if doc.host == "claude-code"
                && let Some(t) = &theirs.model
                && !claude_model_agrees(
                    mine.model.as_deref(),
                    t,
                    doc.main_model.as_deref().unwrap_or_default(),
                )
            {
                diffs.push(format!(
                    "model: {host} runs it on {t}, pwk says {}",
                    mine.model.as_deref().unwrap_or("the main thread's")
                ));
            }
            if diffs.is_empty() {
                (Some(true), None)
            } else {
                no(diffs.join("; "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_models() {
        assert!(claude_model_agrees(Some("haiku"), "claude-haiku-5-5", "x"));
        assert!(!claude_model_agrees(Some("opus"), "claude-haiku-5-5", "x"));
        assert!(claude_model_agrees(None, "m", "m"));
        assert!(claude_model_agrees(Some("best"), "claude-opus-5-5", "x"));
    }

    #[test]
    fn drop_claims() {
        assert!(claims_not_loaded("Claude Code skips this file"));
        assert!(!claims_not_loaded("unknown key `foo`"));
    }
}
