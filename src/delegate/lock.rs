//! Write serialisation: tasks that may write in the same cwd run one at a time.
//!
//! The lock is an advisory `flock` on `<state dir>/locks/<sha256(canonical cwd)>.lock`.
//! The state dir ([`state_dir`]) is `<pi agent dir>/pwk`; without an agent dir (no
//! `HOME`, no `PI_CODING_AGENT_DIR`) a per-user private directory:
//! `$XDG_RUNTIME_DIR/pwk`, else `<temp dir>/pwk-<uid>`, created 0700 and used only
//! when it is a real directory (not a symlink) owned by this user and closed to
//! others. The lock file is opened without following symlinks. It is
//! conservative: every writing task in a cwd takes the same exclusive lock, so two
//! tasks with overlapping scopes never run at once (disjoint ones are serialised too).
//! Read-only and verification tasks take no lock. The kernel releases the lock when
//! the process ends, so a crash never leaves a stale lock behind.

use std::fs::File;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::env::Env;

/// Where write locks live: `<agent dir>/pwk`, else a private per-user directory
/// (`$XDG_RUNTIME_DIR/pwk`, else `<temp dir>/pwk-<uid>`), created and checked.
pub(crate) fn state_dir(env: &Env) -> Result<PathBuf, LockError> {
    if let Some(dir) = env.agent_dir() {
        return Ok(dir.join("pwk"));
    }
    let uid = crate::fs::trust::euid();
    let dir = match &env.xdg_runtime_dir {
        Some(x) if x.is_absolute() => x.join("pwk"),
        _ => std::env::temp_dir().join(format!("pwk-{uid}")),
    };
    private_dir(&dir, uid)?;
    Ok(dir)
}

/// Create `path` 0700 if missing, then insist: a directory, not a symlink, owned by
/// `uid`, no access for group or others.
fn private_dir(path: &Path, uid: u32) -> Result<(), LockError> {
    let unsafe_dir = |why: String| LockError::Unsafe {
        path: path.to_path_buf(),
        why,
    };
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(source) => {
            return Err(LockError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    }
    let md = std::fs::symlink_metadata(path).map_err(|source| LockError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if md.file_type().is_symlink() {
        return Err(unsafe_dir("is a symlink".into()));
    }
    if !md.is_dir() {
        return Err(unsafe_dir("is not a directory".into()));
    }
    if md.uid() != uid {
        return Err(unsafe_dir(format!(
            "is owned by uid {}, not by this user ({uid})",
            md.uid()
        )));
    }
    if md.mode() & 0o077 != 0 {
        return Err(unsafe_dir(format!(
            "is open to other users (mode {:03o})",
            md.mode() & 0o777
        )));
    }
    Ok(())
}

/// A held lock; released on drop.
#[derive(Debug)]
pub(crate) struct WriteLock {
    _file: File,
}

/// The lock file for a cwd.
pub(crate) fn lock_path(state_dir: &Path, cwd: &Path) -> PathBuf {
    let canon = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let digest = Sha256::digest(canon.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    state_dir.join("locks").join(format!("{hex}.lock"))
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LockError {
    #[error("cannot open the write lock {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("another write task in this cwd held the lock for longer than the task's time limit")]
    TimedOut,
    #[error("interrupted while waiting for the write lock")]
    Interrupted,
    #[error("the write-lock directory {} cannot be used safely: it {why}", .path.display())]
    Unsafe { path: PathBuf, why: String },
}

/// Take the cwd's write lock, waiting (polling every 100 ms) until `deadline`.
/// `on_wait` is called once if the lock is busy; `stop` aborts the wait.
pub(crate) fn acquire(
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
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(&path)
        .map_err(|source| LockError::Io {
            path: path.clone(),
            source,
        })?;
    let mut waited = false;
    loop {
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(WriteLock { _file: file }),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_private_state_dir_is_checked() {
        let base = tempfile::tempdir().unwrap();
        let uid = rustix::process::geteuid().as_raw();
        let fresh = base.path().join("fresh");
        private_dir(&fresh, uid).unwrap();
        assert_eq!(std::fs::metadata(&fresh).unwrap().mode() & 0o777, 0o700);
        // A symlink planted at the name is refused, never followed.
        let target = base.path().join("elsewhere");
        std::fs::create_dir(&target).unwrap();
        let link = base.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(
            private_dir(&link, uid),
            Err(LockError::Unsafe { .. })
        ));
        // Open to others: refused.
        let open = base.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o777))
            .unwrap();
        assert!(matches!(
            private_dir(&open, uid),
            Err(LockError::Unsafe { .. })
        ));
        // Someone else's: refused.
        assert!(matches!(
            private_dir(&fresh, uid + 1),
            Err(LockError::Unsafe { .. })
        ));
    }

    #[test]
    fn without_an_agent_dir_locks_go_to_a_private_dir() {
        let x = tempfile::tempdir().unwrap();
        let env = Env {
            xdg_runtime_dir: Some(x.path().to_path_buf()),
            ..Env::default()
        };
        assert_eq!(state_dir(&env).unwrap(), x.path().join("pwk"));
        let env = Env {
            pi_agent_dir: Some("/agent".into()),
            ..Env::default()
        };
        assert_eq!(state_dir(&env).unwrap(), PathBuf::from("/agent/pwk"));
    }
}
