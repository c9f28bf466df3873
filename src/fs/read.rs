//! The one bounded reader: every file pwk reads as input (role files, `pwk.toml`
//! and its `extend`s, baselines, pi's settings, packets, requests) goes through
//! [`read`] with its [`Kind`], which carries the size cap.
//!
//! The file is opened `O_NOFOLLOW|O_NONBLOCK` (a user-named request file may be
//! a symlink: [`Kind::follows_final_link`]), checked with `fstat` to be a regular
//! file, and read through that one descriptor with a hard size cap, so a FIFO,
//! a device, a socket, a symlink or an endless file can't stall or exhaust pwk.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{FileType, Mode, OFlags};

/// What a file is read as. Each kind has one size cap, and the writer refuses
/// content over the cap of the kind it writes ([`super::WriteOptions::kind`]),
/// so pwk never writes a file it would refuse to read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A role file (`*.md`), and the files `pwk setup` keeps beside them.
    Role,
    /// `pwk.toml` and the files it `extend`s.
    Config,
    /// A `--baseline` file.
    Baseline,
    /// pi's and herdr's settings (`settings.json`).
    Settings,
    /// A review packet (`pwk review --packet`).
    Packet,
    /// A delegation request (`--request FILE`).
    Request,
    /// A pi session file a continuation names (`sessionFile`): streamed line by
    /// line through [`open`], never held whole.
    Session,
    /// An entry of pwk's own cache (what `pi --help` listed, per pi binary).
    Cache,
}

/// Role files larger than this are refused (hosts would choke on them too).
pub(crate) const MAX_ROLE_FILE_BYTES: u64 = 1024 * 1024;

impl Kind {
    /// The most bytes a file of this kind may hold.
    pub const fn cap(self) -> u64 {
        match self {
            Kind::Role | Kind::Settings => MAX_ROLE_FILE_BYTES,
            Kind::Config => 256 * 1024,
            // About 150,000 findings: room for a large repository's adoption.
            Kind::Baseline => 32 * 1024 * 1024,
            Kind::Packet => 2 * 1024 * 1024,
            Kind::Request => 16 * 1024 * 1024,
            // Streamed (one line in memory at a time): the cap bounds the time spent.
            Kind::Session => 512 * 1024 * 1024,
            Kind::Cache => 64 * 1024,
        }
    }

    /// The name used in messages.
    pub const fn noun(self) -> &'static str {
        match self {
            Kind::Role => "role file",
            Kind::Config => "configuration file",
            Kind::Baseline => "baseline",
            Kind::Settings => "settings file",
            Kind::Packet => "packet",
            Kind::Request => "request file",
            Kind::Session => "session file",
            Kind::Cache => "cache entry",
        }
    }

    /// Whether a symlink as the last component is followed: only for a request
    /// file, which the user names on the command line and pwk never writes.
    pub const fn follows_final_link(self) -> bool {
        matches!(self, Kind::Request)
    }
}

/// Why a path could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    #[error("is a symbolic link; pwk reads {} only directly", .0.noun_plural())]
    Symlink(Kind),
    #[error("is not a regular file ({0})")]
    NotRegular(&'static str),
    #[error("is {size} bytes, over the {}-byte limit for a {}", .kind.cap(), .kind.noun())]
    TooLarge { size: u64, kind: Kind },
    #[error("does not exist")]
    NotFound,
    #[error("cannot be read: {0}")]
    Io(#[source] std::io::Error),
}

impl Kind {
    const fn noun_plural(self) -> &'static str {
        match self {
            Kind::Role => "role files",
            Kind::Config => "configuration files",
            Kind::Baseline => "baselines",
            Kind::Settings => "settings files",
            Kind::Packet => "packets",
            Kind::Request => "request files",
            Kind::Session => "session files",
            Kind::Cache => "cache entries",
        }
    }
}

/// A human name for a file type, for messages.
pub(crate) fn file_type_name(ft: FileType) -> &'static str {
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

fn flags(kind: Kind) -> OFlags {
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    if !kind.follows_final_link() {
        flags |= OFlags::NOFOLLOW;
    }
    flags
}

fn opened(r: Result<OwnedFd, rustix::io::Errno>, kind: Kind) -> Result<OwnedFd, ReadError> {
    match r {
        Ok(fd) => Ok(fd),
        Err(rustix::io::Errno::LOOP) => Err(ReadError::Symlink(kind)),
        Err(rustix::io::Errno::NOENT) => Err(ReadError::NotFound),
        Err(rustix::io::Errno::NXIO) => Err(ReadError::NotRegular("socket or FIFO")),
        Err(e) => Err(ReadError::Io(e.into())),
    }
}

/// Read `path` as a `kind` file: a regular file, at most `kind.cap()` bytes.
pub(crate) fn read(path: &Path, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let fd = opened(rustix::fs::open(path, flags(kind), Mode::empty()), kind)?;
    read_fd(fd, kind)
}

/// Open `path` as a `kind` file for streaming: the same open and `fstat` checks as
/// [`read`], and a reader that fails with [`ReadError::TooLarge`] once more than
/// `kind.cap()` bytes came (a file that grows while it is read is still caught).
pub(crate) fn open(path: &Path, kind: Kind) -> Result<Bounded, ReadError> {
    let fd = opened(rustix::fs::open(path, flags(kind), Mode::empty()), kind)?;
    check_fd(&fd, kind)?;
    Ok(Bounded {
        file: std::fs::File::from(fd).take(kind.cap() + 1),
        kind,
    })
}

/// A file opened by [`open`]: reads past its kind's cap are an error.
#[derive(Debug)]
pub(crate) struct Bounded {
    file: std::io::Take<std::fs::File>,
    kind: Kind,
}

impl Bounded {
    /// Read into `buf` (0 at the end of the file).
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> Result<usize, ReadError> {
        let n = self.file.read(buf).map_err(ReadError::Io)?;
        if self.file.limit() == 0 {
            return Err(ReadError::TooLarge {
                size: self.kind.cap() + 1,
                kind: self.kind,
            });
        }
        Ok(n)
    }
}

/// Read the entry `name` of the directory `dir` (one plain name, never followed
/// when it is a link) as a `kind` file.
pub(crate) fn read_at(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &str,
    kind: Kind,
) -> Result<Vec<u8>, ReadError> {
    let flags = flags(kind) | OFlags::NOFOLLOW;
    read_fd(
        opened(rustix::fs::openat(dir, name, flags, Mode::empty()), kind)?,
        kind,
    )
}

/// Read a role file ([`Kind::Role`]).
pub(crate) fn read_role_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    read(path, Kind::Role)
}

/// `fstat` the descriptor: a regular file within the cap; its size.
fn check_fd(fd: &OwnedFd, kind: Kind) -> Result<u64, ReadError> {
    let st = rustix::fs::fstat(fd).map_err(|e| ReadError::Io(e.into()))?;
    let ft = FileType::from_raw_mode(st.st_mode);
    if ft != FileType::RegularFile {
        return Err(ReadError::NotRegular(file_type_name(ft)));
    }
    let size = st.st_size.max(0) as u64;
    if size > kind.cap() {
        return Err(ReadError::TooLarge { size, kind });
    }
    Ok(size)
}

fn read_fd(fd: OwnedFd, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let size = check_fd(&fd, kind)?;
    let file = std::fs::File::from(fd);
    match size {
        // procfs and its kind say 0 of files that hold something: read to the end.
        0 => capped(file, kind),
        size => sized(file, size as usize),
    }
}

/// The `size` bytes `fstat` gave (within the cap): the file as it was when it was
/// opened, fewer bytes if it shrank since. Reading to the end would take one more
/// `read` a file, the one that returns nothing: a fifth of a lint run's system
/// calls. (`Take` at the size answers the end itself; the buffer is not zeroed.)
fn sized(file: std::fs::File, size: usize) -> Result<Vec<u8>, ReadError> {
    let mut buf = Vec::with_capacity(size);
    file.take(size as u64)
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    Ok(buf)
}

/// Read a stream pwk was handed instead of a file (`pwk lint -`: a role on stdin)
/// as a `kind` input, with the same size cap as a file of that kind.
pub(crate) fn read_stream(stream: impl Read, kind: Kind) -> Result<Vec<u8>, ReadError> {
    capped(stream, kind)
}

/// Everything `r` holds, at most `kind.cap()` bytes.
fn capped(r: impl Read, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let cap = kind.cap();
    let mut buf = Vec::new();
    // Read one byte past the cap so what runs past it (a stream, a file whose size
    // said 0) is caught, not cut.
    r.take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    if buf.len() as u64 > cap {
        return Err(ReadError::TooLarge {
            size: buf.len() as u64,
            kind,
        });
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streaming open makes the same checks as `read`, and a stream is cut at the cap.
    #[test]
    fn open_streams_within_the_cap_and_refuses_what_read_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.toml");
        let cap = Kind::Config.cap() as usize;
        std::fs::write(&p, vec![b'x'; cap]).unwrap();
        let mut f = open(&p, Kind::Config).unwrap();
        let (mut total, mut buf) = (0, vec![0u8; 4096]);
        loop {
            match f.read(&mut buf).unwrap() {
                0 => break,
                n => total += n,
            }
        }
        assert_eq!(total, cap);
        std::fs::write(&p, vec![b'x'; cap + 1]).unwrap();
        assert!(matches!(
            open(&p, Kind::Config),
            Err(ReadError::TooLarge { .. })
        ));
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert!(matches!(
            open(&link, Kind::Config),
            Err(ReadError::Symlink(_))
        ));
        assert!(matches!(
            open(dir.path(), Kind::Config),
            Err(ReadError::NotRegular(_))
        ));
    }

    /// `read` gives back every byte of a file of any size up to the cap, read to
    /// its `fstat` size (no read past it), and refuses one byte more; a file whose
    /// size reads 0 while it holds something (procfs) is read to its end.
    #[test]
    fn read_gives_every_byte_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.toml");
        let cap = Kind::Config.cap() as usize;
        let sizes = [0, 1, 2, 31, 32, 33, 4095, 4096, 4097, 65536, cap - 1, cap];
        for size in sizes {
            let text: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            std::fs::write(&p, &text).unwrap();
            assert_eq!(read(&p, Kind::Config).unwrap(), text, "{size} bytes");
        }
        std::fs::write(&p, vec![b'x'; cap + 1]).unwrap();
        assert!(matches!(
            read(&p, Kind::Config),
            Err(ReadError::TooLarge { .. })
        ));
        let status = read(Path::new("/proc/self/status"), Kind::Config).unwrap();
        assert!(status.starts_with(b"Name:"), "{status:?}");
    }
}
