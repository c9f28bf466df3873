//! Write serialisation: tasks that may write in the same cwd run one at a time.
//!
//! The lock is an advisory `flock` on `<state dir>/locks/<sha256(canonical cwd)>.lock`
//! (the state dir is `<pi agent dir>/pwk`, else the system temp dir). It is
//! conservative: every writing task in a cwd takes the same exclusive lock, so two
//! tasks with overlapping scopes never run at once (disjoint ones are serialised too).
//! Read-only and verification tasks take no lock. The kernel releases the lock when
//! the process ends, so a crash never leaves a stale lock behind.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// A held lock; released on drop.
#[derive(Debug)]
pub struct WriteLock {
    _file: File,
    pub path: PathBuf,
}

/// The lock file for a cwd.
pub fn lock_path(state_dir: &Path, cwd: &Path) -> PathBuf {
    let canon = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let digest = Sha256::digest(canon.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    state_dir.join("locks").join(format!("{hex}.lock"))
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot open the write lock {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("another write task in this cwd held the lock for longer than the task's time limit")]
    TimedOut,
    #[error("interrupted while waiting for the write lock")]
    Interrupted,
}

/// Take the cwd's write lock, waiting (polling every 100 ms) until `deadline`.
/// `on_wait` is called once if the lock is busy; `stop` aborts the wait.
pub fn acquire(
    state_dir: &Path,
    cwd: &Path,
    deadline: Option<Instant>,
    on_wait: &mut dyn FnMut(&Path),
    stop: &dyn Fn() -> bool,
) -> Result<WriteLock, LockError> {
    let path = lock_path(state_dir, cwd);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| LockError::Io {
            path: path.clone(),
            source,
        })?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| LockError::Io {
            path: path.clone(),
            source,
        })?;
    let mut waited = false;
    loop {
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(WriteLock { _file: file, path }),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK || e == rustix::io::Errno::INTR => {}
            Err(e) => {
                return Err(LockError::Io {
                    path,
                    source: e.into(),
                });
            }
        }
        if !waited {
            on_wait(&path);
            waited = true;
        }
        if stop() {
            return Err(LockError::Interrupted);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(LockError::TimedOut);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
