//! Race and fault-injection tests of the installer. Each one acts at a [`Step`]
//! of the safe layer (a test-only callback, never reachable from the binary):
//! swapping a directory or the target for a symlink, pre-creating temp names,
//! growing a file, failing a write. No timing, no loops.
//!
//! Every test keeps a "victim" file outside the project and checks at the end
//! that its bytes and mtime are unchanged and that nothing new appeared outside.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::PathBuf;

use super::manifest::Manifest;
use super::plan::{self, Options, Outcome, RoleResult};
use crate::fs::write::{self as safe, Hooks, NoHooks, SafeDir, SafeWriteError, Step};
use crate::roles::{BUNDLED_ROLES, BundledRole};

struct Fixture {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    victim: PathBuf,
    victim_bytes: Vec<u8>,
    victim_mtime: (i64, i64),
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::Builder::new()
            .prefix("pwk-unit-")
            .tempdir()
            .unwrap();
        let project = tmp.path().join("project");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let victim = outside.join("victim.md");
        let victim_bytes = b"victim: do not touch\n".to_vec();
        std::fs::write(&victim, &victim_bytes).unwrap();
        let m = std::fs::metadata(&victim).unwrap();
        Fixture {
            _tmp: tmp,
            project,
            outside,
            victim,
            victim_bytes,
            victim_mtime: (m.mtime(), m.mtime_nsec()),
        }
    }

    fn agents(&self) -> PathBuf {
        self.project.join(".agents/agents")
    }

    fn assert_victim_untouched(&self) {
        assert_eq!(
            std::fs::read(&self.victim).unwrap(),
            self.victim_bytes,
            "victim content changed"
        );
        let m = std::fs::metadata(&self.victim).unwrap();
        assert_eq!(
            (m.mtime(), m.mtime_nsec()),
            self.victim_mtime,
            "victim mtime changed"
        );
        let names: Vec<_> = std::fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            ["victim.md"],
            "something appeared outside the project"
        );
    }

    /// The whole setup flow (open chain, plan, apply) with `hooks`.
    fn install(&self, hooks: &mut dyn Hooks) -> Result<Vec<RoleResult>, SafeWriteError> {
        self.install_roles(BUNDLED_ROLES, &Options::default(), hooks)
    }

    fn install_roles(
        &self,
        roles: &[BundledRole],
        opts: &Options,
        hooks: &mut dyn Hooks,
    ) -> Result<Vec<RoleResult>, SafeWriteError> {
        let root = SafeDir::open_for_tests(&self.project)?;
        let dot = root.open_child(".agents", true, hooks)?.unwrap();
        let dir = dot.open_child("agents", true, hooks)?.unwrap();
        dir.lock(true)?;
        let planned = plan::plan(roles, Some(&dir), dir.path(), &Manifest::new(), opts, hooks)?;
        Ok(plan::apply(planned, &dir, hooks))
    }

    fn role_path(&self, name: &str) -> PathBuf {
        self.agents().join(format!("{name}.md"))
    }

    fn entries(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.agents())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

fn outcome_of<'a>(results: &'a [RoleResult], name: &str) -> &'a RoleResult {
    results.iter().find(|r| r.name == name).unwrap()
}

fn canonical(name: &str) -> &'static str {
    crate::roles::bundled_role(name).unwrap().content
}

fn no_temp_files(f: &Fixture) {
    let temps: Vec<_> = f
        .entries()
        .into_iter()
        .filter(|n| n.contains(".pwk-tmp-"))
        .collect();
    assert!(temps.is_empty(), "temporary files left behind: {temps:?}");
}

/// A6: `.agents/agents` is swapped for a symlink to an outside directory right
/// after it was opened. The writes land in the directory that was opened.
#[test]
fn a06_agents_dir_swapped_for_symlink_after_open() {
    let f = Fixture::new();
    let agents = f.agents();
    let moved = f.project.join(".agents/agents.real");
    let outside = f.outside.clone();
    let mut hooks = |step: Step<'_>| {
        if let Step::DirOpened { path } = step
            && path.ends_with(".agents/agents")
        {
            std::fs::rename(&agents, &moved)?;
            symlink(&outside, &agents)?;
        }
        Ok(())
    };
    let results = f.install(&mut hooks).unwrap();
    assert!(
        results.iter().all(|r| r.outcome == Outcome::Created),
        "{results:?}"
    );
    for role in BUNDLED_ROLES {
        let real = f.project.join(".agents/agents.real").join(role.file_name());
        assert_eq!(std::fs::read_to_string(real).unwrap(), role.content);
    }
    f.assert_victim_untouched();
}

/// A7: the target is swapped for a symlink between the comparison and the
/// rename. pwk notices the file is no longer the one it compared and replaces
/// nothing.
#[test]
fn a07_target_swapped_for_symlink_before_rename() {
    let f = Fixture::new();
    f.install(&mut NoHooks).unwrap();
    let target = f.role_path("pwk-spec-reviewer");
    // An old, unedited placeholder: pwk would update it.
    let old = "---\nname: pwk-spec-reviewer\ndescription: PWK spec-reviewer (placeholder text; the full role is written in the setup work).\ntools: read, grep, find, ls\nsystemPromptMode: replace\nmax_turns: 40\n---\n# PWK spec-reviewer\n\nPlaceholder body.\n";
    std::fs::remove_file(&target).unwrap();
    std::fs::write(&target, old).unwrap();
    let victim = f.victim.clone();
    let t = target.clone();
    let mut hooks = |step: Step<'_>| {
        if let Step::TempWritten {
            target: "pwk-spec-reviewer.md",
            ..
        } = step
        {
            std::fs::remove_file(&t)?;
            symlink(&victim, &t)?;
        }
        Ok(())
    };
    let results = f.install(&mut hooks).unwrap();
    let r = outcome_of(&results, "pwk-spec-reviewer");
    assert_eq!(r.outcome, Outcome::Conflict, "{r:?}");
    assert!(
        r.reason
            .as_deref()
            .unwrap()
            .contains("changed while pwk was replacing it")
    );
    assert!(
        std::fs::symlink_metadata(&target)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    no_temp_files(&f);
    f.assert_victim_untouched();
}

/// A7 for a fresh install: a symlink appears at the name just before the rename.
/// `RENAME_NOREPLACE` refuses to replace it; nothing is written through it.
#[test]
fn a07_symlink_planted_at_fresh_name_before_rename() {
    let f = Fixture::new();
    let victim = f.victim.clone();
    let target = f.role_path("pwk-recon-scout");
    let t = target.clone();
    let mut hooks = |step: Step<'_>| {
        if let Step::TempWritten {
            target: "pwk-recon-scout.md",
            ..
        } = step
        {
            symlink(&victim, &t)?;
        }
        Ok(())
    };
    let results = f.install(&mut hooks).unwrap();
    assert_eq!(
        outcome_of(&results, "pwk-recon-scout").outcome,
        Outcome::Conflict
    );
    assert_eq!(
        outcome_of(&results, "pwk-spec-reviewer").outcome,
        Outcome::Created
    );
    assert!(
        std::fs::symlink_metadata(&target)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    no_temp_files(&f);
    f.assert_victim_untouched();
}

/// A8: the target is swapped for a symlink between the rename and the
/// verification. Verification (no-follow open, inode check) fails.
#[test]
fn a08_target_swapped_between_rename_and_verify() {
    let f = Fixture::new();
    let victim = f.victim.clone();
    let target = f.role_path("pwk-smell-reviewer");
    let t = target.clone();
    let mut hooks = |step: Step<'_>| {
        if let Step::Renamed {
            target: "pwk-smell-reviewer.md",
        } = step
        {
            std::fs::remove_file(&t)?;
            symlink(&victim, &t)?;
        }
        Ok(())
    };
    let results = f.install(&mut hooks).unwrap();
    let r = outcome_of(&results, "pwk-smell-reviewer");
    assert_eq!(r.outcome, Outcome::Failed, "{r:?}");
    assert!(
        r.reason.as_deref().unwrap().contains("verification"),
        "{r:?}"
    );
    f.assert_victim_untouched();
}

/// A8 variant: the file is replaced by another regular file with other content
/// (a save landing just after pwk's write): the save is kept, and the role is a
/// conflict, not "created".
#[test]
fn a08_target_replaced_by_other_file_before_verify() {
    let f = Fixture::new();
    let target = f.role_path("pwk-hazard-reviewer");
    let t = target.clone();
    let mut hooks = |step: Step<'_>| {
        if let Step::Renamed {
            target: "pwk-hazard-reviewer.md",
        } = step
        {
            std::fs::remove_file(&t)?;
            std::fs::write(&t, "impostor\n")?;
        }
        Ok(())
    };
    let results = f.install(&mut hooks).unwrap();
    let r = outcome_of(&results, "pwk-hazard-reviewer");
    assert_eq!(r.outcome, Outcome::Conflict, "{r:?}");
    assert!(
        r.reason
            .as_deref()
            .unwrap()
            .contains("changed while pwk was replacing it"),
        "{r:?}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "impostor\n");
    f.assert_victim_untouched();
}

/// A9: the attacker pre-creates the temp name as a symlink (to the victim, and
/// a dangling one to a new outside file). O_EXCL|O_NOFOLLOW fails; a fresh name
/// is used.
#[test]
fn a09_precreated_temp_name_is_never_used() {
    let f = Fixture::new();
    let victim = f.victim.clone();
    let dangling = f.outside.join("created-by-attack.md");
    let agents = f.agents();
    let mut planted = 0;
    let mut hooks = |step: Step<'_>| {
        if let Step::TempName { temp, .. } = step
            && planted < 2
        {
            let dest = if planted == 0 { &victim } else { &dangling };
            symlink(dest, agents.join(temp.as_str()))?;
            planted += 1;
        }
        Ok(())
    };
    let results = f.install(&mut hooks).unwrap();
    assert!(
        results.iter().all(|r| r.outcome == Outcome::Created),
        "{results:?}"
    );
    assert!(
        !dangling.exists(),
        "the dangling symlink's target was created"
    );
    f.assert_victim_untouched();
    // The planted links are still there (pwk never writes through or reuses them);
    // the next run's stray-temp sweep removes them.
    assert_eq!(
        f.entries()
            .iter()
            .filter(|n| n.contains(".pwk-tmp-"))
            .count(),
        2
    );
    let dir = SafeDir::open_for_tests(&f.agents()).unwrap();
    let names: Vec<String> = BUNDLED_ROLES.iter().map(|r| r.file_name()).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(dir.remove_stray_temps(&refs), 2);
    no_temp_files(&f);
    f.assert_victim_untouched();
}

/// A16: the file grows between the fstat size check and the read. The read
/// stops at the cap plus one byte and the file is refused.
#[test]
fn a16_file_growing_while_read_is_bounded() {
    let f = Fixture::new();
    f.install(&mut NoHooks).unwrap();
    let target = f.role_path("pwk-tracing-reviewer");
    let t = target.clone();
    let mut hooks = |step: Step<'_>| {
        if let Step::TargetChecked {
            name: "pwk-tracing-reviewer.md",
        } = step
        {
            let mut file = std::fs::OpenOptions::new().append(true).open(&t)?;
            file.write_all(&vec![b'x'; (crate::fs::Kind::Role.cap() + 4096) as usize])?;
        }
        Ok(())
    };
    let results = f.install(&mut hooks).unwrap();
    let r = outcome_of(&results, "pwk-tracing-reviewer");
    assert_eq!(r.outcome, Outcome::Refused, "{r:?}");
    assert!(
        r.reason.as_deref().unwrap().starts_with("too large"),
        "{r:?}"
    );
    f.assert_victim_untouched();
}

/// A19: a fault (ENOSPC) after the temp file is written, before the rename. The
/// original file is intact and the temp file is removed at once.
#[test]
fn a19_fault_before_rename_keeps_original_and_cleans_temp() {
    let f = Fixture::new();
    f.install(&mut NoHooks).unwrap();
    let target = f.role_path("pwk-smell-reviewer");
    // A copy that differs only in its model line, so pwk updates it.
    let with_model = super::hint::with_model_line(canonical("pwk-smell-reviewer"), "model: a/b");
    std::fs::remove_file(&target).unwrap();
    std::fs::write(&target, &with_model).unwrap();
    let opts = Options {
        fast_model: Some(super::hint::ModelHint::parse("c/d").unwrap()),
        ..Options::default()
    };
    let mut hooks = |step: Step<'_>| match step {
        Step::TempWritten {
            target: "pwk-smell-reviewer.md",
            ..
        } => Err(std::io::Error::from_raw_os_error(28)),
        _ => Ok(()),
    };
    let results = f.install_roles(BUNDLED_ROLES, &opts, &mut hooks).unwrap();
    let r = outcome_of(&results, "pwk-smell-reviewer");
    assert_eq!(r.outcome, Outcome::Failed, "{r:?}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        with_model,
        "original intact"
    );
    no_temp_files(&f);
    f.assert_victim_untouched();
}

/// A19, crash variant: a temp file left by a killed run is removed by the next
/// run's sweep; files that merely look similar are left alone.
#[test]
fn a19_stray_temp_from_a_crash_is_swept() {
    let f = Fixture::new();
    f.install(&mut NoHooks).unwrap();
    let stray = f
        .agents()
        .join(".pwk-spec-reviewer.md.pwk-tmp-0123456789abcdef");
    let lookalike = f.agents().join(".notes.md.pwk-tmp-0123456789abcdef");
    let short = f.agents().join(".pwk-spec-reviewer.md.pwk-tmp-0123");
    for p in [&stray, &lookalike, &short] {
        std::fs::write(p, "half a file").unwrap();
    }
    let dir = SafeDir::open_for_tests(&f.agents()).unwrap();
    dir.lock(true).unwrap();
    assert_eq!(dir.remove_stray_temps(&["pwk-spec-reviewer.md"]), 1);
    assert!(!stray.exists());
    assert!(lookalike.exists() && short.exists());
}

/// The portable fallback (per-component `openat` with `O_NOFOLLOW`, as on kernels
/// without openat2) refuses a symlinked `.agents` too, and works normally.
#[test]
fn openat_fallback_refuses_symlinks_too() {
    let f = Fixture::new();
    symlink(&f.outside, f.project.join(".agents")).unwrap();
    let mut force_fallback = |step: Step<'_>| {
        if let Step::OpenChild { use_openat2, .. } = step {
            *use_openat2 = false;
        }
        Ok(())
    };
    let err = f.install(&mut force_fallback).unwrap_err();
    assert!(matches!(err, SafeWriteError::Symlink { .. }), "{err:?}");
    std::fs::remove_file(f.project.join(".agents")).unwrap();
    let results = f.install(&mut force_fallback).unwrap();
    assert!(results.iter().all(|r| r.outcome == Outcome::Created));
    f.assert_victim_untouched();
}

/// A20: bundle names that could escape the directory are refused at run time
/// too (the shipped bundle is also checked at build time).
#[test]
fn a20_bad_bundle_names_are_refused() {
    let f = Fixture::new();
    let bad = [
        BundledRole {
            name: "../escape",
            content: "x",
        },
        BundledRole {
            name: "..",
            content: "x",
        },
        BundledRole {
            name: "a/b",
            content: "x",
        },
        BundledRole {
            name: "/abs",
            content: "x",
        },
        BundledRole {
            name: "nul\0byte",
            content: "x",
        },
        BundledRole {
            name: "",
            content: "x",
        },
    ];
    let results = f
        .install_roles(&bad, &Options::default(), &mut NoHooks)
        .unwrap();
    assert!(
        results.iter().all(|r| r.outcome == Outcome::Refused),
        "{results:?}"
    );
    assert!(f.entries().is_empty(), "{:?}", f.entries());
    assert!(!f.project.join(".agents/escape.md").exists());
    f.assert_victim_untouched();
    for name in ["..", ".", "a/b", "x\0y", ""] {
        assert!(safe::check_name(name).is_err(), "{name:?}");
    }
}

/// A23 (lock part): while one run holds the directory lock, another cannot take it.
#[test]
fn a23_second_run_waits_for_the_lock() {
    let f = Fixture::new();
    f.install(&mut NoHooks).unwrap();
    let first = SafeDir::open_for_tests(&f.agents()).unwrap();
    first.lock(true).unwrap();
    let second = SafeDir::open_for_tests(&f.agents()).unwrap();
    let err = second
        .lock_within(true, std::time::Duration::ZERO)
        .unwrap_err();
    assert!(matches!(err, SafeWriteError::Locked { .. }), "{err:?}");
    drop(first);
    second.lock_within(true, std::time::Duration::ZERO).unwrap();
}

/// A forced replacement never overwrites an existing backup.
#[test]
fn force_picks_the_next_free_backup_name() {
    let f = Fixture::new();
    f.install(&mut NoHooks).unwrap();
    let target = f.role_path("pwk-spec-reviewer");
    std::fs::remove_file(&target).unwrap();
    std::fs::write(&target, "my own spec reviewer\n").unwrap();
    std::fs::write(
        f.agents().join("pwk-spec-reviewer.md.bak"),
        "older backup\n",
    )
    .unwrap();
    let opts = Options {
        force: true,
        ..Options::default()
    };
    let results = f.install_roles(BUNDLED_ROLES, &opts, &mut NoHooks).unwrap();
    let r = outcome_of(&results, "pwk-spec-reviewer");
    assert_eq!(r.outcome, Outcome::Updated);
    assert_eq!(
        r.backup.as_deref(),
        Some(f.agents().join("pwk-spec-reviewer.md.bak.1").as_path())
    );
    assert_eq!(
        std::fs::read_to_string(f.agents().join("pwk-spec-reviewer.md.bak")).unwrap(),
        "older backup\n"
    );
    assert_eq!(
        std::fs::read_to_string(f.agents().join("pwk-spec-reviewer.md.bak.1")).unwrap(),
        "my own spec reviewer\n"
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        canonical("pwk-spec-reviewer")
    );
}

/// Creating a file through the one confinement check (`Anchors::open_parent`):
/// missing parents are created (0755, file 0644); an existing file, a symlink at
/// the name, a symlinked directory anywhere below the project root (even one that
/// points at a real directory), `..` after a name and a path outside the project
/// are refused; nothing is left behind and nothing outside is touched.
#[test]
fn creating_through_the_anchors_contract() {
    use crate::fs::{Anchors, NamedBy, Replace, WriteOptions};
    use std::path::Path;
    fn create(project: &Path, path: &Path, content: &[u8]) -> Result<(), SafeWriteError> {
        let anchors = Anchors::new(project, project, &[]);
        let (dir, name) = anchors
            .open_parent(path, &NamedBy::Pwk, true, &mut NoHooks)?
            .expect("created on the way");
        dir.write_file(
            &name,
            content,
            Replace::Fresh,
            WriteOptions::default(),
            &mut NoHooks,
        )
        .map(|_| ())
    }
    let f = Fixture::new();
    let dir = f.project.join("a/b/.agents/agents");
    let path = dir.join("new-role.md");
    create(&f.project, &path, b"hello\n").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"hello\n");
    assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o644);
    assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o755);

    let err = create(&f.project, &path, b"again\n").unwrap_err();
    assert!(
        matches!(err, SafeWriteError::AlreadyExists { .. }),
        "{err:?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"hello\n");

    symlink(&f.victim, dir.join("link.md")).unwrap();
    let err = create(&f.project, &dir.join("link.md"), b"x\n").unwrap_err();
    assert!(
        matches!(err, SafeWriteError::AlreadyExists { .. }),
        "{err:?}"
    );

    let linked = f.project.join("linked");
    symlink(&f.outside, &linked).unwrap();
    for p in ["linked/x.md", "linked/sub/x.md"] {
        let err = create(&f.project, &f.project.join(p), b"x\n").unwrap_err();
        assert!(
            matches!(err, SafeWriteError::Symlink { .. }),
            "{p}: {err:?}"
        );
    }
    // An existing symlinked `.agents` that points at a real directory, with
    // `agents` still to be created below it: refused, nothing written outside.
    let g = Fixture::new();
    symlink(&g.outside, g.project.join(".agents")).unwrap();
    let err = create(&g.project, &g.project.join(".agents/agents/r.md"), b"x\n").unwrap_err();
    assert!(matches!(err, SafeWriteError::Symlink { .. }), "{err:?}");
    g.assert_victim_untouched();

    for p in ["a/../b/x.md", "a/b/.agents/agents/../x.md"] {
        let err = create(&f.project, Path::new(p), b"x\n").unwrap_err();
        assert!(
            matches!(err, SafeWriteError::BadName { .. }),
            "{p}: {err:?}"
        );
    }
    // Outside the project, and not named by the user: refused whatever it is.
    let err = create(&f.project, &f.outside.join("new.md"), b"x\n").unwrap_err();
    assert!(matches!(err, SafeWriteError::Outside { .. }), "{err:?}");
    assert!(!f.outside.join("new.md").exists());

    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".pwk-tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    f.assert_victim_untouched();
}
