//! Work counters for the growth tests: how much pwk's own per-item loops did, as
//! deterministic numbers a test can compare at input sizes n and 8n (a timed test
//! would measure the machine; these measure the algorithm).
//!
//! Each counter is charged where a loop's cost could grow with something other than
//! the item it works on — the places a quadratic cost hid before: the bytes the
//! YAML span code and the frontmatter scanners read (and every search of
//! [`crate::text::scan`], whoever asks it: N6 and N7 came back through a rule that
//! sought each flow item's comment to the line's end), the glob tests of `exclude`,
//! `paths` and `[[overrides]]`, the suppression tests, the source bytes a rendered
//! finding shows. Third-party parsers (yaml-rust2, marked-yaml, serde_json) are
//! measured by `scripts/bench-hostile.sh`, not here.
//!
//! Only debug builds count (the test binary); in a release build every function
//! here is empty. With `PWK_METER=FILE` in the environment, a debug build writes
//! the counts and its peak resident memory to FILE as JSON when the command ends.

#[cfg(debug_assertions)]
use std::sync::atomic::{AtomicU64, Ordering};

/// What a counter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Work {
    /// Bytes of role text read by pwk's own scanners (scalar ends, line and
    /// comment scans).
    Scan,
    /// One glob pattern tried against one path (an index lookup counts one).
    Glob,
    /// One suppression directive tried against one finding (a sweep step counts one).
    Suppress,
    /// Source bytes of the snippets the human format shows.
    Snippet,
    /// One deny rule of a host's settings matched against the role's tools: a lookup
    /// and each tool it reaches, or one MCP tool pattern tried on one tool.
    DenyMatch,
    /// Two fix edits compared for overlap (`--fix`, the editor's fix-all).
    Overlap,
}

const NAMES: [&str; 6] = [
    "scan",
    "glob",
    "suppress",
    "snippet",
    "deny-match",
    "overlap",
];

#[cfg(debug_assertions)]
static COUNTS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];

/// Count `n` units of `work`.
#[inline]
pub(crate) fn add(work: Work, n: usize) {
    #[cfg(debug_assertions)]
    COUNTS[work as usize].fetch_add(n as u64, Ordering::Relaxed);
    #[cfg(not(debug_assertions))]
    let _ = (work, n);
}

/// The counts so far, by name.
pub(crate) fn counts() -> Vec<(&'static str, u64)> {
    #[cfg(debug_assertions)]
    return NAMES
        .iter()
        .zip(&COUNTS)
        .map(|(n, c)| (*n, c.load(Ordering::Relaxed)))
        .collect();
    #[cfg(not(debug_assertions))]
    NAMES.iter().map(|n| (*n, 0)).collect()
}

/// Write the counts and the peak resident memory (`VmHWM`, KiB) to `path`, when
/// given (debug builds only).
pub(crate) fn report(path: Option<&std::path::Path>) {
    if !cfg!(debug_assertions) {
        return;
    }
    let Some(path) = path else {
        return;
    };
    let mut out = serde_json::Map::new();
    for (name, n) in counts() {
        out.insert(name.into(), n.into());
    }
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .unwrap_or(0);
    out.insert("hwm_kb".into(), hwm.into());
    let _ = std::fs::write(path, serde_json::Value::Object(out).to_string());
}
