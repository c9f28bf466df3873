//! Interim version (discover branch); the installer branch replaces this file.
//!
//! Creating a new file without ever replacing or following anything: the file is
//! created with `O_CREAT|O_EXCL|O_NOFOLLOW` (so an existing file, or a symlink at
//! its path, is refused), written, and synced; a partly written file is removed.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Why a file could not be created.
#[derive(Debug, thiserror::Error)]
pub enum SafeWriteError {
    #[error("{} already exists; pwk never overwrites it", .0.display())]
    Exists(PathBuf),
    #[error("`{0}` is not a plain file name")]
    BadFileName(String),
    #[error("cannot create directory {}: {source}", .path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Create `dir/file_name` (creating `dir` first) with `content`, refusing to
/// replace anything that exists at that path.
pub fn create_file_exclusive(
    dir: &Path,
    file_name: &str,
    content: &[u8],
) -> Result<PathBuf, SafeWriteError> {
    if file_name.is_empty()
        || file_name == "."
        || file_name == ".."
        || file_name.contains('/')
        || file_name.contains('\0')
    {
        return Err(SafeWriteError::BadFileName(file_name.to_string()));
    }
    std::fs::create_dir_all(dir).map_err(|source| SafeWriteError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let path = dir.join(file_name);
    let nofollow = rustix::fs::OFlags::NOFOLLOW.bits() as i32;
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(nofollow)
        .mode(0o644)
        .open(&path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(SafeWriteError::Exists(path));
        }
        Err(source) => return Err(SafeWriteError::Write { path, source }),
    };
    if let Err(source) = file.write_all(content).and_then(|()| file.sync_all()) {
        drop(file);
        let _ = std::fs::remove_file(&path);
        return Err(SafeWriteError::Write { path, source });
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_once_and_never_replaces() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b");
        let p = create_file_exclusive(&dir, "x.md", b"one").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        assert!(matches!(
            create_file_exclusive(&dir, "x.md", b"two"),
            Err(SafeWriteError::Exists(_))
        ));
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
    }

    #[test]
    fn refuses_a_symlink_at_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target");
        std::os::unix::fs::symlink(&target, tmp.path().join("x.md")).unwrap();
        assert!(create_file_exclusive(tmp.path(), "x.md", b"x").is_err());
        assert!(!target.exists(), "the symlink was followed");
    }
}
