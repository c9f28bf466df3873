//! Setup as two steps: [`plan`] decides one outcome per role from what is on disk
//! (read only), [`apply`] carries the plan out. `--dry-run` and `--check` stop
//! after the plan, so they report exactly what a real run would do.
//!
//! Whose file is it (dpkg's conffile rule): a file identical to what setup would
//! write is `unchanged`; one that is pwk's own unedited copy — the digest recorded
//! in the manifest, an earlier canonical version, or the current one with only its
//! model hint line changed — is `updated`; anything else is the user's, and is a
//! `conflict` left untouched unless `--force`, which keeps it as `<name>.md.bak`.

use std::path::{Path, PathBuf};

use super::hint::{self, ModelHint};
use super::history::{is_earlier_version, sha256_hex};
use super::manifest::Manifest;
use crate::fs::write::{
    self as safe, Existing, Expected, Hooks, Inspect, Replace, SafeDir, SafeWriteError,
    WriteOptions,
};
use crate::roles::{BundledRole, FAST_REVIEWERS, REVIEWERS, valid_role_name};

/// The flags that shape a plan.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    pub force: bool,
    pub fast_model: Option<ModelHint>,
    pub all_roles: bool,
    pub want_diff: bool,
}

/// What happened (or, in a dry run, would happen) to one role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Outcome {
    Created,
    Updated,
    Unchanged,
    /// The file is the user's (edited); left untouched.
    Conflict,
    /// What is at the name is not something pwk will touch (symlink, FIFO, …).
    Refused,
    /// An I/O error or a failed verification; nothing was lost, but the role is not installed.
    Failed,
}

impl Outcome {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Created => "created",
            Outcome::Updated => "updated",
            Outcome::Unchanged => "unchanged",
            Outcome::Conflict => "conflict",
            Outcome::Refused => "refused",
            Outcome::Failed => "failed",
        }
    }

    /// Whether the role file was (or would be) written.
    pub(crate) fn changes(self) -> bool {
        matches!(self, Outcome::Created | Outcome::Updated)
    }
}

/// The result for one role.
#[derive(Debug, Clone)]
pub(crate) struct RoleResult {
    pub name: String,
    pub path: PathBuf,
    pub outcome: Outcome,
    pub reason: Option<String>,
    /// Where a forced replacement kept the user's copy.
    pub backup: Option<PathBuf>,
    /// Unified diff from the file on disk to what setup installs (with `--diff`).
    pub diff: Option<String>,
    /// SHA-256 of the role file now on disk, when it is pwk's (for the manifest).
    pub installed_sha256: Option<String>,
}

#[derive(Debug)]
enum Action {
    Nothing,
    Create {
        content: String,
    },
    Replace {
        content: String,
        expect: Expected,
        mode: u32,
        backup: Option<Existing>,
    },
}

/// One role's decision.
#[derive(Debug)]
pub(crate) struct PlannedRole {
    file_name: String,
    action: Action,
    pub result: RoleResult,
}

/// Decide the outcome of every role. Reads only; `dir` is `None` when the agents
/// directory does not exist yet (every role is then `created`).
pub(crate) fn plan(
    roles: &[BundledRole],
    dir: Option<&SafeDir>,
    dir_path: &Path,
    manifest: &Manifest,
    opts: &Options,
    hooks: &mut dyn Hooks,
) -> Result<Vec<PlannedRole>, SafeWriteError> {
    let mut out = Vec::with_capacity(roles.len());
    for role in roles {
        out.push(plan_one(role, dir, dir_path, manifest, opts, hooks)?);
    }
    Ok(out)
}

fn plan_one(
    role: &BundledRole,
    dir: Option<&SafeDir>,
    dir_path: &Path,
    manifest: &Manifest,
    opts: &Options,
    hooks: &mut dyn Hooks,
) -> Result<PlannedRole, SafeWriteError> {
    let file_name = role.file_name();
    let mut result = RoleResult {
        name: role.name.to_string(),
        path: dir_path.join(&file_name),
        outcome: Outcome::Unchanged,
        reason: None,
        backup: None,
        diff: None,
        installed_sha256: None,
    };
    // Checked at build time for the shipped bundle; checked again here so no name
    // can ever reach a system call unvetted.
    if !valid_role_name(role.name) || safe::check_name(&file_name).is_err() {
        result.path = dir_path.to_path_buf();
        result.outcome = Outcome::Refused;
        result.reason = Some(format!(
            "invalid role name {:?}: not a plain lowercase slug",
            role.name
        ));
        return Ok(PlannedRole {
            file_name,
            action: Action::Nothing,
            result,
        });
    }

    let targeted = opts.fast_model.as_ref().filter(|_| {
        let group = if opts.all_roles {
            REVIEWERS
        } else {
            FAST_REVIEWERS
        };
        group.contains(&role.name)
    });
    let canonical = role.content;

    let existing = match dir {
        Some(d) => match d.inspect(&file_name, crate::fs::Kind::Role, hooks) {
            Ok(found) => found,
            // One unreadable file does not stop the others.
            Err(e) => {
                result.outcome = Outcome::Failed;
                result.reason = Some(e.to_string());
                return Ok(PlannedRole {
                    file_name,
                    action: Action::Nothing,
                    result,
                });
            }
        },
        None => Inspect::Absent,
    };
    let ex = match existing {
        Inspect::Absent => {
            let content = match targeted {
                Some(m) => hint::with_model_line(canonical, &m.line()),
                None => canonical.to_string(),
            };
            result.outcome = Outcome::Created;
            result.installed_sha256 = Some(sha256_hex(content.as_bytes()));
            return Ok(PlannedRole {
                file_name,
                action: Action::Create { content },
                result,
            });
        }
        Inspect::Refused(r) => {
            result.outcome = Outcome::Refused;
            result.reason = Some(r.reason());
            return Ok(PlannedRole {
                file_name,
                action: Action::Nothing,
                result,
            });
        }
        Inspect::File(ex) => ex,
    };

    let text = std::str::from_utf8(&ex.content).ok();
    // The model hint to carry: the one asked for, else the user's own line.
    let model_line = match (targeted, text.and_then(hint::model_line)) {
        (Some(m), _) => Some(m.line()),
        (None, Some(line)) => Some(line.to_string()),
        (None, None) => None,
    };
    let desired = match &model_line {
        Some(line) => hint::with_model_line(canonical, line),
        None => canonical.to_string(),
    };
    if ex.content == desired.as_bytes() {
        result.outcome = Outcome::Unchanged;
        result.installed_sha256 = Some(sha256_hex(&ex.content));
        return Ok(PlannedRole {
            file_name,
            action: Action::Nothing,
            result,
        });
    }

    let ours = text.and_then(|t| {
        let normalized = hint::without_model_lines(t);
        if normalized == hint::without_model_lines(canonical) {
            Some(match (targeted, &model_line) {
                (Some(m), _) => format!("model hint set to {}", m.as_str()),
                (None, Some(line)) => format!("only the model hint differed; kept your `{line}`"),
                (None, None) => "only the model hint differed".to_string(),
            })
        } else if manifest.digest(role.name) == Some(sha256_hex(&ex.content).as_str()) {
            Some("it was the copy pwk installed last".to_string())
        } else if is_earlier_version(role.name, &normalized) {
            Some("it was an unedited earlier version".to_string())
        } else {
            None
        }
    });
    if opts.want_diff {
        result.diff = Some(unified_diff(&ex.content, &desired, &file_name));
    }
    let mode = ex.mode & 0o777;
    let expect = ex.expected();
    let (reason, backup) = match ours {
        Some(why) => (why, None),
        None if opts.force => (
            format!(
                "--force replaced your edited copy; it is kept as {file_name}.bak (or the next free .bak.N)"
            ),
            Some(ex),
        ),
        None => {
            result.outcome = Outcome::Conflict;
            result.reason = Some(format!(
                "locally modified; left untouched (--diff shows the difference, --force replaces it and keeps your copy as {file_name}.bak)"
            ));
            return Ok(PlannedRole {
                file_name,
                action: Action::Nothing,
                result,
            });
        }
    };
    result.outcome = Outcome::Updated;
    result.reason = Some(reason);
    result.installed_sha256 = Some(sha256_hex(desired.as_bytes()));
    Ok(PlannedRole {
        file_name,
        action: Action::Replace {
            content: desired,
            expect,
            mode,
            backup,
        },
        result,
    })
}

fn unified_diff(old: &[u8], new: &str, file_name: &str) -> String {
    let old = String::from_utf8_lossy(old);
    similar::TextDiff::from_lines(old.as_ref(), new)
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{file_name} (yours)"),
            &format!("{file_name} (pwk)"),
        )
        .to_string()
}

/// Carry out the plan. Every role gets its own outcome; one failure never stops
/// the others.
pub(crate) fn apply(
    planned: Vec<PlannedRole>,
    dir: &SafeDir,
    hooks: &mut dyn Hooks,
) -> Vec<RoleResult> {
    let mut results: Vec<RoleResult> = planned
        .into_iter()
        .map(|p| apply_one(p, dir, hooks))
        .collect();
    // One directory fsync for all the renames (each file was fsynced before its
    // rename, so no file can be seen half-written).
    if results.iter().any(|r| r.outcome.changes())
        && let Err(e) = dir.sync()
    {
        for r in results.iter_mut().filter(|r| r.outcome.changes()) {
            r.outcome = Outcome::Failed;
            r.reason = Some(format!("written but not made durable: {e}"));
            r.installed_sha256 = None;
        }
    }
    results
}

fn apply_one(p: PlannedRole, dir: &SafeDir, hooks: &mut dyn Hooks) -> RoleResult {
    let PlannedRole {
        file_name,
        action,
        mut result,
    } = p;
    let written = match action {
        Action::Nothing => return result,
        Action::Create { content } => dir.write_file(
            &file_name,
            content.as_bytes(),
            Replace::Fresh,
            WriteOptions {
                sync_dir: false,
                ..WriteOptions::default()
            },
            hooks,
        ),
        Action::Replace {
            content,
            expect,
            mode,
            backup,
        } => {
            if let Some(ex) = backup {
                match dir.write_backup(&file_name, &ex, hooks) {
                    Ok(path) => {
                        result.reason = Some(format!(
                            "--force replaced your edited copy; it is kept as {}",
                            path.display()
                        ));
                        result.backup = Some(path);
                    }
                    Err(e) => {
                        result.outcome = Outcome::Failed;
                        result.reason = Some(format!(
                            "could not keep a backup, so nothing was replaced: {e}"
                        ));
                        result.installed_sha256 = None;
                        return result;
                    }
                }
            }
            let opts = WriteOptions {
                mode,
                mtime: None,
                sync_dir: false,
                kind: crate::fs::Kind::Role,
            };
            dir.write_file(
                &file_name,
                content.as_bytes(),
                Replace::Existing(expect),
                opts,
                hooks,
            )
        }
    };
    if let Err(e) = written {
        let (outcome, reason) = match &e {
            SafeWriteError::AlreadyExists { .. } => {
                (Outcome::Conflict, "a file appeared at this name while pwk was installing; left untouched (re-run to compare)".to_string())
            }
            SafeWriteError::Changed { .. } => {
                (Outcome::Conflict, "the file changed while pwk was replacing it; left untouched (re-run to compare)".to_string())
            }
            SafeWriteError::Symlink { .. } | SafeWriteError::Refused { .. } => (Outcome::Refused, e.to_string()),
            SafeWriteError::NotDirectory { .. } | SafeWriteError::BadName { .. } => (Outcome::Refused, e.to_string()),
            _ => (Outcome::Failed, e.to_string()),
        };
        result.outcome = outcome;
        let kept = result
            .backup
            .as_ref()
            .map(|b| format!(" (your copy is also kept as {})", b.display()));
        result.reason = Some(format!("{reason}{}", kept.unwrap_or_default()));
        result.installed_sha256 = None;
    }
    result
}

/// The manifest after a run: every role that is now pwk's own (created, updated,
/// unchanged) is recorded with the digest of what is on disk; others keep their
/// old entry, so an edit stays the user's.
pub(crate) fn next_manifest(old: &Manifest, results: &[RoleResult]) -> Manifest {
    let mut m = old.clone();
    m.version = 1;
    for r in results {
        if let Some(d) = &r.installed_sha256 {
            m.record(&r.name, d.clone());
        }
    }
    m
}
