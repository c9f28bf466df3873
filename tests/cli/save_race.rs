//! No lost edit against the real binary: an editor's rename-style save (write
//! `.r.md.swp`, rename it over `r.md`) lands while `pwk setup` or `pwk lint --fix`
//! replaces the same file, timed at pwk's own temporary file appearing (the
//! moment pwk has read the file and is writing its replacement), then after a
//! delay that walks across the rest of the replace. Whatever pwk reports, the
//! save must be what the file holds at the end.
//!
//! `PWK_RACE_ROUNDS=N` sets the rounds per command (default 100: the default
//! suite stays modest). The test prints the rounds, how many saves landed while
//! pwk's temporary file existed, and the wall time; it asserts no lost edit and
//! nothing about time.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::TestEnv;

/// The placeholder spec reviewer of the first snapshot: an earlier canonical
/// version, so `pwk setup` replaces it ("updated").
const PLACEHOLDER_SPEC: &str = "---\nname: pwk-spec-reviewer\ndescription: PWK spec-reviewer (placeholder text; the full role is written in the setup work).\ntools: read, grep, find, ls\nsystemPromptMode: replace\nmax_turns: 40\n---\n# PWK spec-reviewer\n\nPlaceholder body.\n";

/// A role `lint --fix` rewrites (`max_turns: "20"` → `20`).
const FIXABLE: &str =
    "---\nname: r\ndescription: Reviews.\ntools: read\nmax_turns: \"20\"\n---\nBody.\n";

/// Delays after the temp file is seen, spinning (microseconds): the save lands
/// before the exchange, around it, and after it.
const DELAYS_US: [u64; 7] = [0, 20, 100, 300, 1000, 3000, 8000];

fn rounds() -> usize {
    std::env::var("PWK_RACE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
}

struct Tally {
    rounds: usize,
    /// Saves that landed while pwk's temporary file existed.
    in_window: usize,
    lost: Vec<String>,
}

/// Race `args` against saves to `dir/file`, resetting the file to `start` each round.
fn race(env: &TestEnv, args: &[&str], dir: &str, file: &str, start: &str) -> Tally {
    let dir = env.path(dir);
    let target = dir.join(file);
    let swp = dir.join(format!(".{file}.swp"));
    let temp_prefix = format!(".{file}.pwk-tmp-");
    let mut tally = Tally {
        rounds: rounds(),
        in_window: 0,
        lost: Vec::new(),
    };
    for round in 0..tally.rounds {
        std::fs::write(&target, start).unwrap();
        // The save, written before pwk starts: at the trigger only the rename is left.
        let saved =
            format!("---\nname: saved\ndescription: Save {round}.\ntools: read\n---\nMine.\n");
        std::fs::write(&swp, &saved).unwrap();
        let delay = Duration::from_micros(DELAYS_US[round % DELAYS_US.len()]);
        let mut child = env
            .pwk()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let seen = wait_for_temp(&dir, &temp_prefix, &mut child);
        if seen {
            let until = Instant::now() + delay;
            while Instant::now() < until {
                std::hint::spin_loop();
            }
        }
        std::fs::rename(&swp, &target).unwrap();
        let still_there = seen && temp_exists(&dir, &temp_prefix);
        let out = child.wait_with_output().unwrap();
        if seen {
            tally.in_window += 1;
        }
        let now = std::fs::read_to_string(&target).unwrap_or_default();
        if now != saved {
            tally.lost.push(format!(
                "round {round} (delay {delay:?}, temp seen {seen}, still there at the save {still_there}): the file is {now:?}; pwk said {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        // pwk never leaves its temp or aside files behind.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".pwk-tmp-") || n.contains(".pwk-old-"))
            .collect();
        assert!(left.is_empty(), "round {round}: left behind {left:?}");
    }
    tally
}

fn temp_exists(dir: &Path, prefix: &str) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(prefix))
    })
}

/// Poll `dir` until a name starting with `prefix` appears (true) or the child
/// exits (false).
fn wait_for_temp(dir: &Path, prefix: &str, child: &mut std::process::Child) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if temp_exists(dir, prefix) {
            return true;
        }
        if child.try_wait().unwrap().is_some() || Instant::now() > deadline {
            return false;
        }
    }
}

fn report(what: &str, t: &Tally, took: Duration) {
    eprintln!(
        "save race, {what}: {} rounds, {} saves landed while pwk's temp file existed, {} lost, {:.1} s",
        t.rounds,
        t.in_window,
        t.lost.len(),
        took.as_secs_f64()
    );
    assert!(
        t.lost.is_empty(),
        "{what}: {} of {} saves lost:\n{}",
        t.lost.len(),
        t.rounds,
        t.lost.join("\n")
    );
    // The race was run, not skipped: most saves landed inside pwk's replace.
    assert!(
        t.in_window * 2 > t.rounds,
        "{what}: only {} of {} saves landed while pwk's temp file existed",
        t.in_window,
        t.rounds
    );
}

#[test]
fn a_save_racing_lint_fix_is_never_lost() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    env.write(".agents/agents/r.md", FIXABLE);
    let start = Instant::now();
    let t = race(
        &env,
        &["lint", "--fix", ".agents/agents/r.md"],
        ".agents/agents",
        "r.md",
        FIXABLE,
    );
    report("lint --fix", &t, start.elapsed());
}

#[test]
fn a_save_racing_setup_is_never_lost() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    // Installed once: later rounds replace only the placeholder spec reviewer.
    let first = env.pwk().arg("setup").output().unwrap();
    assert!(first.status.success(), "{first:?}");
    let start = Instant::now();
    let t = race(
        &env,
        &["setup"],
        ".agents/agents",
        "pwk-spec-reviewer.md",
        PLACEHOLDER_SPEC,
    );
    report("setup", &t, start.elapsed());
}
