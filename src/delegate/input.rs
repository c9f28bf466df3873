//! Opening the files a request names (`--request FILE`, a continuation's
//! `sessionFile`): never blocking, never a special file. The open is non-blocking
//! (a FIFO without a writer cannot hang pwk), optionally refuses symlinks, and the
//! descriptor is checked with `fstat` before anything is read.

use std::fs::File;
use std::path::{Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags};

/// Why an input file was not opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{} does not exist", .0.display())]
    NotFound(PathBuf),
    #[error("{} is a symlink; pass the file it points to", .0.display())]
    Symlink(PathBuf),
    #[error("{} is not a regular file (it is a {kind})", .path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("cannot open {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Whether a symlink as the last path component is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symlinks {
    Follow,
    Refuse,
}

/// Open `path` for reading: `O_NONBLOCK` (and `O_NOFOLLOW` with [`Symlinks::Refuse`]),
/// then `fstat`: only a regular file is returned.
pub fn open_regular(path: &Path, symlinks: Symlinks) -> Result<File, OpenError> {
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    if symlinks == Symlinks::Refuse {
        flags |= OFlags::NOFOLLOW;
    }
    let io = |e: rustix::io::Errno| OpenError::Io {
        path: path.to_path_buf(),
        source: e.into(),
    };
    let fd = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Err(OpenError::NotFound(path.to_path_buf())),
        Err(rustix::io::Errno::LOOP) if symlinks == Symlinks::Refuse => {
            return Err(OpenError::Symlink(path.to_path_buf()));
        }
        Err(rustix::io::Errno::NXIO) => {
            return Err(OpenError::NotRegular {
                path: path.to_path_buf(),
                kind: "socket or FIFO",
            });
        }
        Err(e) => return Err(io(e)),
    };
    let st = rustix::fs::fstat(&fd).map_err(io)?;
    let ft = FileType::from_raw_mode(st.st_mode);
    if ft != FileType::RegularFile {
        return Err(OpenError::NotRegular {
            path: path.to_path_buf(),
            kind: crate::fs::read::file_type_name(ft),
        });
    }
    Ok(File::from(fd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_and_symlinks_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(matches!(
            open_regular(&fifo, Symlinks::Follow),
            Err(OpenError::NotRegular { .. })
        ));
        let file = dir.path().join("r");
        std::fs::write(&file, "x").unwrap();
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(matches!(
            open_regular(&link, Symlinks::Refuse),
            Err(OpenError::Symlink(_))
        ));
        assert!(open_regular(&link, Symlinks::Follow).is_ok());
        assert!(matches!(
            open_regular(dir.path(), Symlinks::Follow),
            Err(OpenError::NotRegular { .. })
        ));
    }
}
