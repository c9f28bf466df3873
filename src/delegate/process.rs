//! What the supervisor needs beyond pi's process plumbing (`crate::pi::process`,
//! re-exported here): pwk's own signal flag, the stall watchdog's bookkeeping, the
//! event reader, and the 0600 system-prompt temp file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub(crate) use crate::pi::process::{
    BoundedCapture, GroupStopper, KILL_GRACE, human_duration, kill_reap_group_and_wait,
    read_chunks, read_chunks_sized,
};

pub(crate) use crate::pi::children::received;

/// The signal pwk received (its number, 0 for none), shared by every run; the caller
/// turns a signal into "stop pi's group, report" (see `crate::pi::children`).
pub(crate) fn interrupted() -> &'static Arc<AtomicUsize> {
    crate::pi::children::watch_signals()
}

/// Install pwk's signal flag (once) and return the signal received, if any. While a
/// run is active the signal stops pi's process group (and waits until it is gone);
/// callers that wait (e.g. for the write lock) poll this.
pub fn pending_signal() -> Option<i32> {
    match interrupted().load(Ordering::Relaxed) {
        0 => None,
        s => Some(s as i32),
    }
}

/// What the stall watchdog looks at: when pi last printed, and how many tools run.
#[derive(Debug, Default)]
pub(crate) struct Activity {
    last_output_ms: AtomicU64,
    tools_in_flight: AtomicU32,
    /// Usage summed so far (for the budget): tokens, and the cost's f64 bits.
    tokens: AtomicU64,
    cost_bits: AtomicU64,
    /// Whether some assistant message left the tokens (bit 0) or the cost (bit 1)
    /// unknown.
    unknown: AtomicU32,
}

impl Activity {
    /// pi printed something (`start`: when the run began).
    pub(crate) fn output(&self, start: Instant) {
        self.last_output_ms.store(
            (start.elapsed().as_millis() as u64).max(1),
            Ordering::Relaxed,
        );
    }

    pub(crate) fn set_tools_in_flight(&self, n: u32) {
        self.tools_in_flight.store(n, Ordering::Relaxed);
    }

    /// The usage pi reported so far (summed over its assistant messages).
    pub(crate) fn set_usage(&self, tokens: u64, cost: f64) {
        self.tokens.store(tokens, Ordering::Relaxed);
        self.cost_bits.store(cost.to_bits(), Ordering::Relaxed);
    }

    /// Whether pi left the token count / the cost of some message unknown.
    pub(crate) fn set_unknown(&self, tokens: bool, cost: bool) {
        self.unknown.store(
            u32::from(tokens) | (u32::from(cost) << 1),
            Ordering::Relaxed,
        );
    }

    /// `(tokens unknown, cost unknown)`.
    pub(crate) fn unknown(&self) -> (bool, bool) {
        let u = self.unknown.load(Ordering::Relaxed);
        (u & 1 != 0, u & 2 != 0)
    }

    pub(crate) fn tokens(&self) -> u64 {
        self.tokens.load(Ordering::Relaxed)
    }

    pub(crate) fn cost(&self) -> f64 {
        f64::from_bits(self.cost_bits.load(Ordering::Relaxed))
    }

    /// No output for `stall` while no tool runs. Counted from pi's first output: Node
    /// start-up is not a stall (the overall timeout covers a pi that never prints).
    pub(crate) fn stalled(&self, start: Instant, stall: Duration) -> bool {
        let last = self.last_output_ms.load(Ordering::Relaxed);
        self.tools_in_flight.load(Ordering::Relaxed) == 0
            && last > 0
            && (start.elapsed().as_millis() as u64).saturating_sub(last) >= stall.as_millis() as u64
    }
}

/// The stall message both transports report.
pub(crate) fn stall_message(stall: Duration) -> String {
    format!(
        "no event from pi for {} while no tool was running (stalled stream); its process group was terminated",
        human_duration(stall)
    )
}

/// A 0600 temp file (e.g. the role body for `--system-prompt`), removed on drop.
#[derive(Debug)]
pub(crate) struct TempFile(PathBuf);

impl TempFile {
    /// Create `$TMPDIR/<prefix>-<pid>-<n>-<nanos>.md` holding `body`.
    pub(crate) fn create(prefix: &str, body: &str) -> std::io::Result<TempFile> {
        use std::os::unix::fs::OpenOptionsExt;
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir();
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let name = format!(
                "{prefix}-{}-{}-{nanos:x}.md",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            );
            let path = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(mut f) => {
                    f.write_all(body.as_bytes())?;
                    return Ok(TempFile(path));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("could not create a unique temp file"))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activity_counts_a_stall_only_after_output_and_without_tools() {
        let start = Instant::now() - Duration::from_secs(10);
        let a = Activity::default();
        assert!(!a.stalled(start, Duration::from_millis(1)), "no output yet");
        a.last_output_ms.store(1, Ordering::Relaxed);
        assert!(a.stalled(start, Duration::from_secs(5)));
        a.set_tools_in_flight(1);
        assert!(!a.stalled(start, Duration::from_secs(5)), "a tool runs");
    }
}
