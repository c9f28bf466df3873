//! Reading a role file without ever hanging or following a symlink.
//!
//! The file is opened `O_NOFOLLOW|O_NONBLOCK`, checked with `fstat` to be a regular
//! file, and read through that one descriptor with a hard size cap, so a FIFO,
//! a device, a socket, a symlink or an endless file can't stall or exhaust pwk.

use std::io::Read;
use std::path::Path;

use rustix::fs::{FileType, Mode, OFlags};

/// Role files larger than this are refused (hosts would choke on them too).
pub const MAX_ROLE_FILE_BYTES: u64 = 1024 * 1024;

/// Why a path could not be read as a role file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("is a symbolic link; pwk reads role files only directly")]
    Symlink,
    #[error("is not a regular file ({0})")]
    NotRegular(&'static str),
    #[error("is {0} bytes, over the {MAX_ROLE_FILE_BYTES}-byte limit for a role file")]
    TooLarge(u64),
    #[error("does not exist")]
    NotFound,
    #[error("cannot be read: {0}")]
    Io(#[source] std::io::Error),
}

/// A human name for a file type, for messages.
pub fn file_type_name(ft: FileType) -> &'static str {
    match ft {
        FileType::RegularFile => "regular file",
        FileType::Directory => "directory",
        FileType::Symlink => "symbolic link",
        FileType::Fifo => "FIFO",
        FileType::Socket => "socket",
        FileType::CharacterDevice => "character device",
        FileType::BlockDevice => "block device",
        FileType::Unknown => "unknown file type",
    }
}

/// Read `path` as a role file: regular files only, at most [`MAX_ROLE_FILE_BYTES`].
pub fn read_role_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::LOOP) => return Err(ReadError::Symlink),
        Err(rustix::io::Errno::NOENT) => return Err(ReadError::NotFound),
        Err(rustix::io::Errno::NXIO) => return Err(ReadError::NotRegular("socket or FIFO")),
        Err(e) => return Err(ReadError::Io(e.into())),
    };
    let st = rustix::fs::fstat(&fd).map_err(|e| ReadError::Io(e.into()))?;
    let ft = FileType::from_raw_mode(st.st_mode);
    if ft != FileType::RegularFile {
        return Err(ReadError::NotRegular(file_type_name(ft)));
    }
    let size = st.st_size.max(0) as u64;
    if size > MAX_ROLE_FILE_BYTES {
        return Err(ReadError::TooLarge(size));
    }
    let mut file = std::fs::File::from(fd);
    let mut buf = Vec::with_capacity(size as usize);
    // Read one byte past the cap so a file that grows while we read is still caught.
    (&mut file)
        .take(MAX_ROLE_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    if buf.len() as u64 > MAX_ROLE_FILE_BYTES {
        return Err(ReadError::TooLarge(buf.len() as u64));
    }
    Ok(buf)
}
