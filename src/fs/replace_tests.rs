//! No lost edit, as a class: a save that lands at any point of a replace — one,
//! two or three in a row, each a rename-style save (write a temp, rename it over
//! the file), an in-place save that keeps the size and mtime, or a delete — is
//! never destroyed, with `RENAME_EXCHANGE` and with the fallback without it (a
//! delete that hits pwk's file standing in for a save may find that save back). The
//! variants are generated from the hook calls a replace makes, so a new step of
//! the writer is covered by the same cases.

use std::path::Path;

use super::write::Step;
use super::*;

/// The file pwk read, and what it writes instead.
const READ: &[u8] = b"---\nname: r\nmax_turns: \"20\"\n---\nBody.\n";
const NEW: &[u8] = b"---\nname: r\nmax_turns: 20\n---\nBody.\n";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Save {
    /// Write `.r.md.swp`, rename it over `r.md` (vim, many editors).
    Rename,
    /// Rewrite `r.md` in place with content of the same size, and set its mtime
    /// back: only the content tells it from the file pwk read.
    InPlace,
    /// Remove `r.md`.
    Delete,
}

/// What a save leaves at the name, when it took effect.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Absent,
    Holds(Vec<u8>),
}

/// Content of the `n`-th save: as long as [`READ`], distinct from it and from [`NEW`].
fn saved(n: usize) -> Vec<u8> {
    let mut c = READ.to_vec();
    let tag = format!("{n:02}");
    let at = READ.len() - 4;
    c[at..at + 2].copy_from_slice(tag.as_bytes());
    c
}

/// Do `save` on `dir/r.md`; `None` when it had nothing to act on (a delete of a
/// missing file is no save).
fn apply(dir: &Path, save: Save, n: usize) -> std::io::Result<Option<State>> {
    let target = dir.join("r.md");
    match save {
        Save::Rename => {
            let swp = dir.join(".r.md.swp");
            std::fs::write(&swp, saved(n))?;
            std::fs::rename(&swp, &target)?;
            Ok(Some(State::Holds(saved(n))))
        }
        Save::InPlace => {
            let before = std::fs::metadata(&target).and_then(|m| m.modified()).ok();
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&target)?;
            std::io::Write::write_all(&mut f, &saved(n))?;
            if let Some(t) = before {
                f.set_times(std::fs::FileTimes::new().set_modified(t))?;
            }
            Ok(Some(State::Holds(saved(n))))
        }
        Save::Delete => match std::fs::remove_file(&target) {
            Ok(()) => Ok(Some(State::Absent)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        },
    }
}

/// One replace of `r.md` (read first, without saves), with `saves` done at the
/// hook calls from `start` on, one per call. Returns the failures.
fn case(exchange: bool, start: usize, saves: &[Save]) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("r.md"), READ).unwrap();
    let d = SafeDir::open_root(root).unwrap();
    let existing = d
        .read_for_replace("r.md", Kind::Role, &mut NoHooks)
        .unwrap();
    let mut call = 0;
    let mut last: Option<State> = None;
    // The newest save's content, for a delete that comes after it.
    let mut newest: Option<Vec<u8>> = None;
    let mut steps = Vec::new();
    let mut hooks = |step: Step<'_>| {
        if let Step::Replacing { use_exchange, .. } = step {
            *use_exchange = exchange;
            steps.push("Replacing".to_string());
        } else {
            steps.push(format!("{step:?}").split([' ', '{']).next().unwrap().into());
        }
        if call >= start
            && let Some(&save) = saves.get(call - start)
            && let Some(state) = apply(root, save, call - start)?
        {
            if let State::Holds(c) = &state {
                newest = Some(c.clone());
            }
            last = Some(state);
        }
        call += 1;
        Ok(())
    };
    let result = d.replace("r.md", &existing, NEW, Kind::Role, &mut hooks);
    let what = format!(
        "[{} save(s) {saves:?} from hook call {start}, {}; steps {steps:?}]",
        saves.len(),
        if exchange { "exchange" } else { "fallback" }
    );
    let mut failed = Vec::new();
    let now = match std::fs::read(root.join("r.md")) {
        Ok(c) => State::Holds(c),
        Err(_) => State::Absent,
    };
    match &last {
        // No save took effect: pwk's replace went through.
        None => {
            if result.is_err() || now != State::Holds(NEW.to_vec()) {
                failed.push(format!("{what} no save, yet {result:?}, file {now:?}"));
            }
        }
        Some(state) => {
            // A delete that removed pwk's file standing in for a save may find that
            // save put back: the save is kept rather than lost.
            let resurrected = *state == State::Absent
                && newest
                    .as_ref()
                    .is_some_and(|c| now == State::Holds(c.clone()));
            if now != *state && !resurrected {
                failed.push(format!(
                    "{what} LOST EDIT: the last save left {state:?}, the file is {now:?} ({result:?})"
                ));
            }
            match &result {
                Err(SafeWriteError::Changed { .. }) | Err(SafeWriteError::Verify { .. }) => {}
                other => failed.push(format!("{what} the replace says {other:?}")),
            }
        }
    }
    let mut left: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "r.md")
        .collect();
    left.sort();
    if !left.is_empty() {
        failed.push(format!("{what} left behind {left:?}"));
    }
    failed
}

#[test]
fn no_save_landing_during_a_replace_is_ever_lost() {
    const KINDS: [Save; 3] = [Save::Rename, Save::InPlace, Save::Delete];
    // Every sequence of one to three saves.
    let mut sequences: Vec<Vec<Save>> = KINDS.iter().map(|&k| vec![k]).collect();
    for _ in 0..2 {
        let longer: Vec<Vec<Save>> = sequences
            .iter()
            .filter(|s| s.len() == sequences.last().unwrap().len())
            .flat_map(|s| {
                KINDS.iter().map(move |&k| {
                    let mut t = s.clone();
                    t.push(k);
                    t
                })
            })
            .collect();
        sequences.extend(longer);
    }
    assert_eq!(sequences.len(), 3 + 9 + 27);
    let mut cases = 0;
    let mut failures = Vec::new();
    for exchange in [true, false] {
        // A clean replace makes 5 hook calls (temp name, temp written, replacing,
        // exchanged or moved aside, renamed); put-backs add more. One start past
        // them is the no-save case.
        for start in 0..6 {
            for saves in &sequences {
                cases += 1;
                failures.extend(case(exchange, start, saves));
            }
        }
    }
    assert_eq!(cases, 468);
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The in-place save that keeps the inode, size and mtime is told apart by its
/// content alone: pwk puts it back rather than replacing it.
#[test]
fn an_edit_in_place_within_one_timestamp_is_seen_by_its_content() {
    assert!(case(true, 1, &[Save::InPlace]).is_empty());
    assert!(case(false, 1, &[Save::InPlace]).is_empty());
}

/// Saves that never stop landing: after a bounded number of put-backs pwk stops,
/// leaves the save it holds at its temp name and names it; the newest save holds
/// the name. Nothing is removed.
#[test]
fn endless_saves_end_with_the_held_one_named_not_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("r.md"), READ).unwrap();
    let d = SafeDir::open_root(root).unwrap();
    let existing = d
        .read_for_replace("r.md", Kind::Role, &mut NoHooks)
        .unwrap();
    let mut n = 0;
    let mut hooks = |step: Step<'_>| {
        if matches!(
            step,
            Step::TempWritten { .. } | Step::Exchanged { .. } | Step::PutBack { .. }
        ) {
            apply(root, Save::Rename, n)?;
            n += 1;
        }
        Ok(())
    };
    let err = d
        .replace("r.md", &existing, NEW, Kind::Role, &mut hooks)
        .unwrap_err();
    let SafeWriteError::KeptAside { aside, .. } = &err else {
        panic!("{err:?}");
    };
    assert!(err.to_string().contains("kept changing"), "{err}");
    let held = std::fs::read(aside).unwrap();
    assert!((0..n).any(|i| held == saved(i)), "{held:?}");
    assert_eq!(std::fs::read(root.join("r.md")).unwrap(), saved(n - 1));
}
