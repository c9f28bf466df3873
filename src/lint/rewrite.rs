//! `pwk lint --fix` / `--diff` on disk: read a role file through the one writer's
//! directory descriptor ([`crate::fs::Anchors::open_parent`], no link followed
//! below the trust anchor), fix its text ([`super::fix::fix_text`]), and either
//! show the diff or replace it through that same descriptor, only if it still is
//! the file that was read. A file reached through a symlinked directory, a
//! symlinked file, a FIFO or a file with several hard links is reported, never
//! fixed.

use std::path::Path;

use super::fix::{Applicability, fix_text};
use super::{FileSettings, ProfileFor, lint_text};
use crate::fs::{Anchors, Hooks, Kind, NamedBy, NoHooks, SafeWriteError};

/// Write the fixed files, or only show what would change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Write,
    Diff,
}

/// What happened to one file.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// No fix applied (none offered, or none allowed).
    Unchanged,
    /// Rewritten (`Write`) or would be (`Diff`, with the unified diff).
    Fixed {
        applied: Vec<String>,
        diff: Option<String>,
    },
    /// Not UTF-8 text: nothing to fix.
    NotText,
    /// Not read, so not fixed: reached through a symbolic link, not a regular
    /// file, several hard links, too large, or unreadable.
    NotRead(SafeWriteError),
    /// Not written: the file changed since it was read, was replaced by a
    /// symlink, or the write failed.
    NotWritten(SafeWriteError),
}

/// One file's result.
#[derive(Debug)]
pub(crate) struct FileFix {
    pub outcome: Outcome,
}

/// Fix one file for `profile` with `settings`, opened from its trust anchor
/// (`by` named it: the path argument, the configuration's `paths`, pwk's walk).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fix_file(
    path: &Path,
    anchors: &Anchors,
    by: &NamedBy,
    profile: ProfileFor,
    settings: &FileSettings,
    applicability: Applicability,
    mode: Mode,
    shown: &str,
) -> FileFix {
    fix_file_with(
        path,
        anchors,
        by,
        profile,
        settings,
        applicability,
        mode,
        shown,
        &mut NoHooks,
    )
}

/// [`fix_file`] with hooks into the writer (tests race it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fix_file_with(
    path: &Path,
    anchors: &Anchors,
    by: &NamedBy,
    profile: ProfileFor,
    settings: &FileSettings,
    applicability: Applicability,
    mode: Mode,
    shown: &str,
    hooks: &mut dyn Hooks,
) -> FileFix {
    let done = |outcome| FileFix { outcome };
    let opened = match anchors.open_parent(path, by, false, hooks) {
        Ok(Some(x)) => x,
        Ok(None) => {
            return done(Outcome::NotRead(SafeWriteError::Io {
                action: "read",
                path: path.to_path_buf(),
                source: std::io::ErrorKind::NotFound.into(),
            }));
        }
        Err(e) => return done(Outcome::NotRead(e)),
    };
    let (dir, name) = opened;
    let existing = match dir.read_for_replace(&name, Kind::Role, hooks) {
        Ok(x) => x,
        Err(e) => return done(Outcome::NotRead(e)),
    };
    let Ok(original) = std::str::from_utf8(&existing.content) else {
        return done(Outcome::NotText);
    };
    // The host the file is for is decided once, on the text as read: fixing never
    // changes which host's rules apply.
    let profile = match profile.infer {
        false => profile.profile,
        true => {
            profile
                .resolve(&crate::role::RoleDoc::parse(path, original.as_bytes()))
                .0
        }
    };
    let fixed = fix_text(original, applicability, |text| {
        lint_text(path, text, profile, settings)
    });
    if fixed.text == original {
        return done(Outcome::Unchanged);
    }
    match mode {
        Mode::Diff => done(Outcome::Fixed {
            diff: Some(unified_diff(original, &fixed.text, shown)),
            applied: fixed.applied,
        }),
        Mode::Write => {
            match dir.replace(&name, &existing, fixed.text.as_bytes(), Kind::Role, hooks) {
                Ok(_) => done(Outcome::Fixed {
                    applied: fixed.applied,
                    diff: None,
                }),
                Err(e) => done(Outcome::NotWritten(e)),
            }
        }
    }
}

/// `--- a/path` / `+++ b/path` unified diff, three lines of context.
pub(crate) fn unified_diff(old: &str, new: &str, shown: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::write::Step;
    use crate::host::HostId;

    const QUOTED: &str =
        "---\nname: r\ndescription: d\ntools: read\nmax_turns: \"20\"\n---\nBody\n";

    fn fix(path: &Path, hooks: &mut dyn Hooks) -> FileFix {
        let dir = path.parent().unwrap();
        fix_file_with(
            path,
            &Anchors::new(dir, dir, &[]),
            &NamedBy::Pwk,
            ProfileFor::fixed(HostId::Pwk.newest()),
            &FileSettings::default(),
            Applicability::Safe,
            Mode::Write,
            "r.md",
            hooks,
        )
    }

    #[test]
    fn writes_the_fixed_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.md");
        std::fs::write(&path, QUOTED).unwrap();
        let out = fix(&path, &mut NoHooks);
        assert!(matches!(out.outcome, Outcome::Fixed { .. }), "{out:?}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            QUOTED.replace("\"20\"", "20")
        );
    }

    /// An edit made after pwk read the file and before the rename is never
    /// overwritten: the identity check before the rename refuses it.
    #[test]
    fn an_edit_between_read_and_write_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.md");
        std::fs::write(&path, QUOTED).unwrap();
        let edited = format!("{QUOTED}more\n");
        let p = path.clone();
        let e = edited.clone();
        let mut hooks = move |step: Step<'_>| {
            if let Step::TempWritten { .. } = step {
                std::fs::write(&p, &e)?;
            }
            Ok(())
        };
        let out = fix(&path, &mut hooks);
        assert!(
            matches!(
                out.outcome,
                Outcome::NotWritten(SafeWriteError::Changed { .. })
            ),
            "{out:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    }

    /// An edit before pwk compares (between its lint read and the write) is
    /// seen in the content comparison.
    #[test]
    fn an_edit_before_the_comparison_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.md");
        std::fs::write(&path, QUOTED).unwrap();
        let edited = QUOTED.replace("Body", "Edited body");
        let p = path.clone();
        let e = edited.clone();
        let mut hooks = move |step: Step<'_>| {
            if let Step::TargetChecked { .. } = step {
                // Same size, other bytes: only the comparison can tell.
                std::fs::write(&p, &e)?;
            }
            Ok(())
        };
        let out = fix(&path, &mut hooks);
        assert!(matches!(out.outcome, Outcome::NotWritten(_)), "{out:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    }

    /// The file replaced by a symlink after the temp file was written: the link
    /// stays, its target is untouched.
    #[test]
    fn a_symlink_swapped_in_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.md");
        let outside = dir.path().join("outside.md");
        std::fs::write(&path, QUOTED).unwrap();
        std::fs::write(&outside, QUOTED).unwrap();
        let (p, o) = (path.clone(), outside.clone());
        let mut hooks = move |step: Step<'_>| {
            if let Step::TempWritten { .. } = step {
                std::fs::remove_file(&p)?;
                std::os::unix::fs::symlink(&o, &p)?;
            }
            Ok(())
        };
        let out = fix(&path, &mut hooks);
        assert!(matches!(out.outcome, Outcome::NotWritten(_)), "{out:?}");
        assert!(path.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), QUOTED);
        // No temporary file is left behind.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }

    #[test]
    fn a_symlink_is_never_fixed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.md");
        let link = dir.path().join("r.md");
        std::fs::write(&target, QUOTED).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let out = fix(&link, &mut NoHooks);
        assert!(
            matches!(
                out.outcome,
                Outcome::NotRead(SafeWriteError::Symlink { .. })
            ),
            "{out:?}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), QUOTED);
    }
}
