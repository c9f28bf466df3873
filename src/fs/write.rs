//! The one writer: every file pwk writes goes through a directory descriptor that
//! was opened without following symbolic links, and a file read in order to be
//! replaced is read through that same descriptor ([`SafeDir::inspect`]).
//!
//! The trust anchor is a directory the user named (the project root, or pi's agent
//! directory; see [`super::Anchors`]): it is opened once, following symlinks above
//! and at it. Everything
//! below it is opened one component at a time with `O_NOFOLLOW|O_DIRECTORY`
//! (`openat2` with `RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH` where the kernel has it),
//! so a symlink anywhere in `.agents/agents/` is refused, and a directory swapped
//! for a symlink after it was opened cannot redirect a write: the descriptor keeps
//! pointing at the directory that was checked.
//!
//! Files are never written in place. New content goes into a temporary file made
//! in the same directory with `O_CREAT|O_EXCL|O_NOFOLLOW` and is fsynced. A new
//! file is renamed into place with `RENAME_NOREPLACE`. An existing one is
//! *exchanged* with it (`RENAME_EXCHANGE`), and what comes out is compared with
//! the file pwk read (inode, size, mtime, content digest): a save that landed
//! meanwhile is put back, never lost ([`SafeDir::replace`]; without
//! `RENAME_EXCHANGE`, the target is moved aside and the new file linked in with
//! `RENAME_NOREPLACE`). Then the directory is fsynced and the target is re-opened
//! without following links, checked to be the very inode that was written, and
//! read back byte for byte.
//!
//! What no renaming writer can see: an editor that holds the old file open and
//! writes into it *after* pwk's exchange writes into a file no longer named (the
//! same holds for any tool that saves by rename). A save by rename, an edit in
//! place before the exchange (even one that keeps the size and mtime), and a
//! delete are all seen.

use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, RenameFlags};
use rustix::io::Errno;

use super::read::{Kind, file_type_name};

/// Mode of files pwk creates, whatever the umask: role files are read by other
/// programs (pi and its subagent hosts) and hold nothing secret.
pub(crate) const FILE_MODE: u32 = 0o644;

/// Mode of directories pwk creates, whatever the umask.
pub(crate) const DIR_MODE: u32 = 0o755;

/// The marker in the names of pwk's temporary files: `.<name>.pwk-tmp-<16 hex>`.
const TEMP_MARKER: &str = ".pwk-tmp-";

/// The marker in the names a replace moves a target aside to, where the
/// filesystem has no `RENAME_EXCHANGE`: `.<name>.pwk-old-<16 hex>`. Never removed
/// as a stray (it may hold a user's file after a crash).
const ASIDE_MARKER: &str = ".pwk-old-";

/// How many times a replace puts back saves that keep landing on its target
/// before it leaves the last one at its temp name and says so.
const MAX_PUT_BACK: usize = 64;

/// How long to wait for another pwk run that holds the directory lock.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Why a safe filesystem operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum SafeWriteError {
    #[error("`{}` is outside the project `{}` {why}; nothing was written", path.display(), root.display())]
    Outside {
        path: PathBuf,
        root: PathBuf,
        why: String,
    },
    #[error("`{}` is a symbolic link; pwk never reads or writes through symbolic links", path.display())]
    Symlink { path: PathBuf },
    #[error("`{}` is not a directory (it is a {kind})", path.display())]
    NotDirectory { path: PathBuf, kind: &'static str },
    #[error("`{}` already exists; pwk does not overwrite it", path.display())]
    AlreadyExists { path: PathBuf },
    #[error("`{name}` is not a safe file name: {why}")]
    BadName { name: String, why: &'static str },
    #[error("`{}` changed while pwk was replacing it; the version saved meanwhile is kept, and pwk changed nothing", path.display())]
    Changed { path: PathBuf },
    #[error("`{}` is a {}; pwk does not replace it", path.display(), reason.what())]
    Refused { path: PathBuf, reason: Refusal },
    #[error("`{}` would be {size} bytes, over the {}-byte limit for a {} (pwk could not read it back); nothing was written", path.display(), kind.cap(), kind.noun())]
    TooLarge {
        path: PathBuf,
        size: u64,
        kind: Kind,
    },
    #[error("another pwk run holds the lock on `{}`; try again when it has finished", path.display())]
    Locked { path: PathBuf },
    #[error("cannot {action} `{}`: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{}` kept changing while pwk was replacing it ({why}); the last version saved is kept as `{}`, move it back", path.display(), aside.display())]
    KeptAside {
        path: PathBuf,
        aside: PathBuf,
        why: String,
    },
    #[error("verification of `{}` after writing failed: {why}", path.display())]
    Verify { path: PathBuf, why: String },
}

impl SafeWriteError {
    fn io(action: &'static str, path: &Path, errno: Errno) -> SafeWriteError {
        SafeWriteError::Io {
            action,
            path: path.to_path_buf(),
            source: errno.into(),
        }
    }
}

/// Check that `name` is one plain directory entry name: not empty, not `.` or
/// `..`, no `/`, no NUL. Everything pwk opens by name goes through this.
pub(crate) fn check_name(name: &str) -> Result<(), SafeWriteError> {
    let bad = |why| {
        Err(SafeWriteError::BadName {
            name: name.to_string(),
            why,
        })
    };
    if name.is_empty() {
        return bad("it is empty");
    }
    if name == "." || name == ".." {
        return bad("it names a directory link");
    }
    if name.contains('/') {
        return bad("it contains `/`");
    }
    if name.contains('\0') {
        return bad("it contains a NUL byte");
    }
    if name.len() > 255 {
        return bad("it is longer than 255 bytes");
    }
    Ok(())
}

/// The identity and state of a file at one moment: if any of these differ later,
/// the file was replaced or modified in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ident {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime: (i64, i64),
    pub ctime: (i64, i64),
}

impl Ident {
    #[allow(clippy::unnecessary_cast)] // the field types differ between architectures
    fn of(st: &rustix::fs::Stat) -> Ident {
        Ident {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size.max(0) as u64,
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        }
    }
}

/// Why an existing target is left alone without being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Symlink,
    NotRegular(&'static str),
    HardLink(u64),
    TooLarge(u64, Kind),
}

impl Refusal {
    /// The short reason shown to the user.
    pub fn reason(&self) -> String {
        match self {
            Refusal::Symlink => {
                "symlink: pwk never writes through a symbolic link (remove the link and re-run)"
                    .into()
            }
            Refusal::NotRegular(kind) => {
                format!("not a regular file: it is a {kind} (move it away and re-run)")
            }
            Refusal::HardLink(n) => format!(
                "hard link: the file has {n} names (hard links); pwk writes a new file and \
                 renames it over this name, which would leave the other {} holding the old \
                 content (copy the file to a name of its own and re-run)",
                if *n == 2 {
                    "name".to_string()
                } else {
                    format!("{} names", n - 1)
                }
            ),
            Refusal::TooLarge(n, kind) => format!(
                "too large: {n} bytes or more, over the {}-byte limit for a {} \
                 (move it away and re-run)",
                kind.cap(),
                kind.noun()
            ),
        }
    }

    /// What the file is, for "`x` is a …; pwk does not replace it".
    pub fn what(&self) -> String {
        match self {
            Refusal::Symlink => "symbolic link".into(),
            Refusal::NotRegular(kind) => format!("{kind}, not a regular file"),
            Refusal::HardLink(n) => format!(
                "file with {n} hard links (replacing this name would leave the other {} \
                 holding the old content; copy it to a file of its own and re-run)",
                if *n == 2 {
                    "name".to_string()
                } else {
                    format!("{} names", n - 1)
                }
            ),
            Refusal::TooLarge(n, kind) => format!(
                "file of {n} bytes or more, over the {}-byte limit for a {}",
                kind.cap(),
                kind.noun()
            ),
        }
    }
}

/// An existing regular file, read through its own descriptor.
#[derive(Debug, Clone)]
pub struct Existing {
    pub content: Vec<u8>,
    pub ident: Ident,
    /// Permission bits (`st_mode & 0o7777`).
    pub mode: u32,
}

impl Existing {
    /// What a replace of this file expects to take out of its name.
    pub fn expected(&self) -> Expected {
        Expected::of(self.ident, &self.content)
    }
}

/// The file a replace expects to find at its target: its identity and the digest
/// of the content pwk read. What the replace takes out of the name is compared
/// with it (an edit in place within one timestamp tick keeps the inode, size and
/// mtime, not the content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    pub ident: Ident,
    pub sha256: [u8; 32],
}

impl Expected {
    pub fn of(ident: Ident, content: &[u8]) -> Expected {
        Expected {
            ident,
            sha256: sha256(content),
        }
    }

    /// Whether the file at `fd` (just taken out of the target's name) is this one:
    /// the same inode, size and mtime (a rename changes the ctime, not these), and
    /// the same content.
    fn matches(&self, fd: OwnedFd) -> bool {
        let Ok(st) = rustix::fs::fstat(&fd) else {
            return false;
        };
        let now = Ident::of(&st);
        if (now.dev, now.ino, now.size, now.mtime)
            != (
                self.ident.dev,
                self.ident.ino,
                self.ident.size,
                self.ident.mtime,
            )
        {
            return false;
        }
        matches!(read_capped(fd, self.ident.size), Ok(Some(c)) if sha256(&c) == self.sha256)
    }
}

/// What is at a target name.
#[derive(Debug, Clone)]
pub enum Inspect {
    Absent,
    File(Existing),
    Refused(Refusal),
}

/// How a write may treat what is already at the target name.
#[derive(Debug, Clone, Copy)]
pub enum Replace {
    /// The name must not exist (`RENAME_NOREPLACE`).
    Fresh,
    /// The name must still hold exactly this file (the one pwk read), which is
    /// then replaced; a save that lands meanwhile is never overwritten.
    Existing(Expected),
}

/// Options of one write.
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    pub mode: u32,
    /// Set the new file's modification time (used for backups).
    pub mtime: Option<(i64, i64)>,
    /// fsync the directory after the rename. A caller writing several files may
    /// pass `false` and call [`SafeDir::sync`] once at the end instead.
    pub sync_dir: bool,
    /// What the file is: content over this kind's read cap is never written.
    pub kind: Kind,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            mode: FILE_MODE,
            mtime: None,
            sync_dir: true,
            kind: Kind::Role,
        }
    }
}

/// Points in the safe layer where tests can act: swap a directory for a symlink,
/// grow a file, pre-create a temp name, inject a fault. The shipped binary always
/// passes [`NoHooks`]; nothing outside the code can reach these.
#[derive(Debug)]
pub enum Step<'a> {
    /// About to open a child directory; set `*use_openat2 = false` to force the
    /// portable per-component fallback.
    OpenChild {
        name: &'a str,
        use_openat2: &'a mut bool,
    },
    /// A directory was opened and checked.
    DirOpened { path: &'a Path },
    /// An existing target was opened and passed its `fstat` checks; not yet read.
    TargetChecked { name: &'a str },
    /// A temporary name was picked (tests may change it or pre-create it).
    TempName {
        target: &'a str,
        temp: &'a mut String,
    },
    /// The temp file holds the content and was fsynced; not yet renamed.
    TempWritten { target: &'a str, temp: &'a str },
    /// About to replace an existing target; set `*use_exchange = false` to force
    /// the fallback for filesystems without `RENAME_EXCHANGE`.
    Replacing {
        target: &'a str,
        use_exchange: &'a mut bool,
    },
    /// The temp file and the target were exchanged (`RENAME_EXCHANGE`): the temp
    /// name holds what was at the target; not yet checked.
    Exchanged { target: &'a str, temp: &'a str },
    /// A save that landed during a replace was put back at the target (one more
    /// exchange); the temp name holds what was there.
    PutBack { target: &'a str, temp: &'a str },
    /// Without `RENAME_EXCHANGE`: the target was moved aside to `aside`.
    MovedAside { target: &'a str, aside: &'a str },
    /// The temp file was renamed over the target; not yet verified.
    Renamed { target: &'a str },
}

/// A callback at each [`Step`]. Returning an error aborts the operation there, as
/// a real I/O error would.
pub trait Hooks {
    fn at(&mut self, step: Step<'_>) -> std::io::Result<()>;
}

/// The hooks of the shipped binary: none.
pub(crate) struct NoHooks;

impl Hooks for NoHooks {
    fn at(&mut self, _step: Step<'_>) -> std::io::Result<()> {
        Ok(())
    }
}

impl<F: FnMut(Step<'_>) -> std::io::Result<()>> Hooks for F {
    fn at(&mut self, step: Step<'_>) -> std::io::Result<()> {
        self(step)
    }
}

fn hook(hooks: &mut dyn Hooks, step: Step<'_>, path: &Path) -> Result<(), SafeWriteError> {
    hooks.at(step).map_err(|source| SafeWriteError::Io {
        action: "write",
        path: path.to_path_buf(),
        source,
    })
}

/// An open directory and the path it was reached by (for messages only: the path
/// is never resolved again).
#[derive(Debug)]
pub struct SafeDir {
    fd: OwnedFd,
    path: PathBuf,
}

impl SafeDir {
    /// Open the trust anchor: a directory the user named. Symlinks at and above
    /// it are followed (they are the user's own layout). Two callers open one: the
    /// confinement check ([`super::Anchors`]), from which every directory pwk writes
    /// in a project is reached, and pwk's own cache directory outside any project
    /// (`crate::pi::cache`).
    pub(crate) fn open_root(path: &Path) -> Result<SafeDir, SafeWriteError> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = match rustix::fs::open(path, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOTDIR) => {
                let kind = std::fs::metadata(path)
                    .map(|m| kind_of_std(&m.file_type()))
                    .unwrap_or("non-directory");
                return Err(SafeWriteError::NotDirectory {
                    path: path.to_path_buf(),
                    kind,
                });
            }
            Err(e) => return Err(SafeWriteError::io("open directory", path, e)),
        };
        Ok(SafeDir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// [`SafeDir::open_root`] for tests that drive the writer on a directory.
    #[cfg(test)]
    pub(crate) fn open_for_tests(path: &Path) -> Result<SafeDir, SafeWriteError> {
        SafeDir::open_root(path)
    }

    /// Name this directory by `path` in messages from now on (e.g. a path
    /// relative to the current directory). Nothing is ever opened by it.
    pub fn with_display_path(mut self, path: PathBuf) -> SafeDir {
        self.path = path;
        self
    }

    /// fsync the directory, making renames in it durable.
    pub fn sync(&self) -> Result<(), SafeWriteError> {
        rustix::fs::fsync(self.fd.as_fd()).map_err(|e| SafeWriteError::io("sync", &self.path, e))
    }

    /// The path this directory was reached by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Open the child directory `name` without following a symlink; create it
    /// (mode [`DIR_MODE`]) when absent and `create` is set. `Ok(None)`: absent and
    /// not created.
    pub fn open_child(
        &self,
        name: &str,
        create: bool,
        hooks: &mut dyn Hooks,
    ) -> Result<Option<SafeDir>, SafeWriteError> {
        check_name(name)?;
        let path = self.path.join(name);
        let mut use_openat2 = true;
        hook(
            hooks,
            Step::OpenChild {
                name,
                use_openat2: &mut use_openat2,
            },
            &path,
        )?;
        let mut created = false;
        // Two rounds at most: open, or create then open. A racing creator is fine
        // (EEXIST); whatever is there is checked by the open either way.
        for _ in 0..2 {
            match open_dir_nofollow(self.fd.as_fd(), name, use_openat2) {
                Ok(fd) => {
                    let st = rustix::fs::fstat(&fd)
                        .map_err(|e| SafeWriteError::io("inspect", &path, e))?;
                    let ft = FileType::from_raw_mode(st.st_mode);
                    if ft != FileType::Directory {
                        return Err(SafeWriteError::NotDirectory {
                            path,
                            kind: file_type_name(ft),
                        });
                    }
                    if created {
                        // The umask may have narrowed the mode: apply the policy.
                        rustix::fs::fchmod(&fd, Mode::from_raw_mode(DIR_MODE))
                            .map_err(|e| SafeWriteError::io("set the mode of", &path, e))?;
                        rustix::fs::fsync(self.fd.as_fd())
                            .map_err(|e| SafeWriteError::io("sync", &self.path, e))?;
                    }
                    let dir = SafeDir { fd, path };
                    hook(hooks, Step::DirOpened { path: &dir.path }, &dir.path)?;
                    return Ok(Some(dir));
                }
                Err(Errno::NOENT) if create && !created => {
                    match rustix::fs::mkdirat(self.fd.as_fd(), name, Mode::from_raw_mode(DIR_MODE))
                    {
                        Ok(()) => created = true,
                        Err(Errno::EXIST) => {}
                        Err(e) => return Err(SafeWriteError::io("create directory", &path, e)),
                    }
                }
                Err(Errno::NOENT) => return Ok(None),
                Err(Errno::LOOP) => return Err(SafeWriteError::Symlink { path }),
                Err(Errno::NOTDIR) | Err(Errno::XDEV) => {
                    // Say what is there instead, without following it.
                    let kind = match rustix::fs::statat(
                        self.fd.as_fd(),
                        name,
                        AtFlags::SYMLINK_NOFOLLOW,
                    ) {
                        Ok(st) => FileType::from_raw_mode(st.st_mode),
                        Err(_) => FileType::Unknown,
                    };
                    if kind == FileType::Symlink {
                        return Err(SafeWriteError::Symlink { path });
                    }
                    return Err(SafeWriteError::NotDirectory {
                        path,
                        kind: file_type_name(kind),
                    });
                }
                Err(e) => return Err(SafeWriteError::io("open directory", &path, e)),
            }
        }
        Err(SafeWriteError::io("open directory", &path, Errno::NOENT))
    }

    /// Take the directory lock (`flock` on this descriptor): exclusive for runs that
    /// write, shared for runs that only look. Waits a bounded time for another run.
    pub fn lock(&self, exclusive: bool) -> Result<(), SafeWriteError> {
        self.lock_within(exclusive, LOCK_WAIT)
    }

    /// [`SafeDir::lock`], waiting at most `wait`.
    pub fn lock_within(&self, exclusive: bool, wait: Duration) -> Result<(), SafeWriteError> {
        let op = if exclusive {
            FlockOperation::NonBlockingLockExclusive
        } else {
            FlockOperation::NonBlockingLockShared
        };
        let deadline = Instant::now() + wait;
        loop {
            match rustix::fs::flock(self.fd.as_fd(), op) {
                Ok(()) => return Ok(()),
                Err(Errno::WOULDBLOCK) | Err(Errno::INTR) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(Errno::WOULDBLOCK) => {
                    return Err(SafeWriteError::Locked {
                        path: self.path.clone(),
                    });
                }
                // Filesystems without flock support: carry on unlocked.
                Err(Errno::NOLCK) | Err(Errno::OPNOTSUPP) => return Ok(()),
                Err(e) => return Err(SafeWriteError::io("lock", &self.path, e)),
            }
        }
    }

    /// Look at `name` without following a link or blocking, and read it when it
    /// is a regular file with one link and at most `kind.cap()` bytes.
    pub fn inspect(
        &self,
        name: &str,
        kind: Kind,
        hooks: &mut dyn Hooks,
    ) -> Result<Inspect, SafeWriteError> {
        check_name(name)?;
        let cap = kind.cap();
        let path = self.path.join(name);
        let fd = match open_file_nofollow(self.fd.as_fd(), name) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(Inspect::Absent),
            Err(Errno::LOOP) => return Ok(Inspect::Refused(Refusal::Symlink)),
            Err(Errno::NXIO) => return Ok(Inspect::Refused(Refusal::NotRegular("socket or FIFO"))),
            Err(e) => return Err(SafeWriteError::io("open", &path, e)),
        };
        let st = rustix::fs::fstat(&fd).map_err(|e| SafeWriteError::io("inspect", &path, e))?;
        let ft = FileType::from_raw_mode(st.st_mode);
        if ft != FileType::RegularFile {
            return Ok(Inspect::Refused(Refusal::NotRegular(file_type_name(ft))));
        }
        #[allow(clippy::unnecessary_cast)]
        let nlink = st.st_nlink as u64;
        if nlink != 1 {
            return Ok(Inspect::Refused(Refusal::HardLink(nlink)));
        }
        let ident = Ident::of(&st);
        if ident.size > cap {
            return Ok(Inspect::Refused(Refusal::TooLarge(ident.size, kind)));
        }
        hook(hooks, Step::TargetChecked { name }, &path)?;
        let content = match read_capped(fd, cap) {
            Ok(Some(c)) => c,
            Ok(None) => return Ok(Inspect::Refused(Refusal::TooLarge(cap + 1, kind))),
            Err(e) => {
                return Err(SafeWriteError::Io {
                    action: "read",
                    path,
                    source: e,
                });
            }
        };
        Ok(Inspect::File(Existing {
            content,
            ident,
            mode: st.st_mode & 0o7777,
        }))
    }

    /// Read `name` in order to replace it: it must be a regular file with one
    /// name, at most `kind.cap()` bytes, reached without a link (the read of
    /// `pwk lint --fix` and `--write-baseline`). Anything else is an error that
    /// says what is there.
    pub fn read_for_replace(
        &self,
        name: &str,
        kind: Kind,
        hooks: &mut dyn Hooks,
    ) -> Result<Existing, SafeWriteError> {
        let path = self.path.join(name);
        match self.inspect(name, kind, hooks)? {
            Inspect::File(existing) => Ok(existing),
            Inspect::Refused(Refusal::Symlink) => Err(SafeWriteError::Symlink { path }),
            Inspect::Refused(reason) => Err(SafeWriteError::Refused { path, reason }),
            Inspect::Absent => Err(SafeWriteError::io("read", &path, Errno::NOENT)),
        }
    }

    /// Replace `name`, which was read as `existing`, with `content`, only if it
    /// still is that very file (same inode, size, mtime and content: an edit, a
    /// save by rename or a symlink swapped in meanwhile is put back and reported as
    /// [`SafeWriteError::Changed`]). The permission bits are kept.
    pub fn replace(
        &self,
        name: &str,
        existing: &Existing,
        content: &[u8],
        kind: Kind,
        hooks: &mut dyn Hooks,
    ) -> Result<Ident, SafeWriteError> {
        self.write_file(
            name,
            content,
            Replace::Existing(existing.expected()),
            WriteOptions {
                mode: existing.mode,
                kind,
                ..WriteOptions::default()
            },
            hooks,
        )
    }

    /// Write `content` to `name` atomically: temp file, fsync, rename, fsync the
    /// directory, verify. Returns the identity of the file written.
    pub fn write_file(
        &self,
        name: &str,
        content: &[u8],
        replace: Replace,
        opts: WriteOptions,
        hooks: &mut dyn Hooks,
    ) -> Result<Ident, SafeWriteError> {
        check_name(name)?;
        let path = self.path.join(name);
        if content.len() as u64 > opts.kind.cap() {
            return Err(SafeWriteError::TooLarge {
                path,
                size: content.len() as u64,
                kind: opts.kind,
            });
        }
        let (temp_name, temp_fd) = self.create_temp(name, hooks)?;
        let mut guard = TempGuard {
            dir: self.fd.as_fd(),
            name: Some(temp_name.clone()),
        };

        let mut file = std::fs::File::from(temp_fd);
        file.write_all(content)
            .map_err(|source| SafeWriteError::Io {
                action: "write",
                path: path.clone(),
                source,
            })?;
        rustix::fs::fchmod(&file, Mode::from_raw_mode(opts.mode))
            .map_err(|e| SafeWriteError::io("set the mode of", &path, e))?;
        if let Some((sec, nsec)) = opts.mtime {
            let ts = |tv_sec, tv_nsec| rustix::fs::Timespec { tv_sec, tv_nsec };
            let times = rustix::fs::Timestamps {
                last_access: ts(0, rustix::fs::UTIME_OMIT),
                last_modification: ts(sec, nsec),
            };
            rustix::fs::futimens(&file, &times)
                .map_err(|e| SafeWriteError::io("set the time of", &path, e))?;
        }
        rustix::fs::fsync(&file).map_err(|e| SafeWriteError::io("sync", &path, e))?;
        let written = Ident::of(
            &rustix::fs::fstat(&file).map_err(|e| SafeWriteError::io("inspect", &path, e))?,
        );
        hook(
            hooks,
            Step::TempWritten {
                target: name,
                temp: &temp_name,
            },
            &path,
        )?;

        match replace {
            Replace::Fresh => self.rename_noreplace(&temp_name, name, &path)?,
            Replace::Existing(expected) => {
                // From here the temp name may hold someone's file: never unlink it blindly.
                guard.name = None;
                self.replace_existing(
                    &temp_name,
                    name,
                    &path,
                    &expected,
                    (&written, content),
                    hooks,
                )?;
            }
        }
        guard.name = None; // the temp name is gone: it is the target now
        if opts.sync_dir {
            self.sync()?;
        }
        hook(hooks, Step::Renamed { target: name }, &path)?;
        self.verify(name, &path, content, &written)?;
        Ok(written)
    }

    /// Put the temp file `temp` (written, `written`) at `name`, which must still
    /// hold `expected`, so that no save made meanwhile is ever lost.
    ///
    /// `renameat2(RENAME_EXCHANGE)` swaps the two names atomically: `name` never
    /// disappears, and `temp` then holds exactly what was at `name`. When that is
    /// the file pwk read (inode, size, mtime, content), it is removed: done. When
    /// it is not, someone saved in between (an editor's write-and-rename) and the
    /// save is put back with another exchange. A save that lands on `name` after
    /// an exchange comes back into `temp` on the next one, so pwk swaps again
    /// until `temp` gets back what pwk itself last put at `name` — pwk's own file,
    /// or a save that a later save replaced (as the later save alone would have).
    /// A user's file is therefore removed only once a newer one holds `name`.
    ///
    /// Without `RENAME_EXCHANGE` (old kernels, some network and FUSE filesystems,
    /// non-Linux): [`SafeDir::replace_by_moving_aside`].
    ///
    /// The one window left: pwk killed (SIGKILL, power loss) within the few system
    /// calls between an exchange and the put-back leaves the save under the temp
    /// name (`.<name>.pwk-tmp-<hex>`), which a later `pwk setup` removes as a stray.
    fn replace_existing(
        &self,
        temp: &str,
        name: &str,
        path: &Path,
        expected: &Expected,
        (written, content): (&Ident, &[u8]),
        hooks: &mut dyn Hooks,
    ) -> Result<(), SafeWriteError> {
        let dir = self.fd.as_fd();
        let changed = || SafeWriteError::Changed {
            path: path.to_path_buf(),
        };
        let mut use_exchange = true;
        if let Err(e) = hook(
            hooks,
            Step::Replacing {
                target: name,
                use_exchange: &mut use_exchange,
            },
            path,
        ) {
            let _ = rustix::fs::unlinkat(dir, temp, AtFlags::empty());
            return Err(e);
        }
        let exchanged = if use_exchange {
            rustix::fs::renameat_with(dir, temp, dir, name, RenameFlags::EXCHANGE)
        } else {
            Err(Errno::INVAL)
        };
        match exchanged {
            Ok(()) => {}
            Err(Errno::INVAL) | Err(Errno::NOSYS) | Err(Errno::OPNOTSUPP) => {
                return self.replace_by_moving_aside(temp, name, path, expected, hooks);
            }
            Err(e) => {
                // Nothing moved: the temp is still pwk's own.
                let _ = rustix::fs::unlinkat(dir, temp, AtFlags::empty());
                return Err(match e {
                    // The file was removed (or is mid-save): nothing to replace.
                    Errno::NOENT => changed(),
                    e => SafeWriteError::io("replace", path, e),
                });
            }
        }
        // (A hook's error here is a test's fault injection: what `temp` holds stays.)
        hook(hooks, Step::Exchanged { target: name, temp }, path)
            .map_err(|e| self.kept_aside(temp, path, e))?;
        let took_out = open_file_nofollow(dir, temp);
        if took_out.is_ok_and(|fd| expected.matches(fd)) {
            let _ = rustix::fs::unlinkat(dir, temp, AtFlags::empty());
            return Ok(());
        }
        // A save landed between the read and the exchange: it is at `temp`.
        let mut placed = Some(Fingerprint {
            ident: (written.dev, written.ino, written.size, written.mtime),
            sha256: Some(sha256(content)),
        });
        for _ in 0..MAX_PUT_BACK {
            let holding = Fingerprint::at(dir, temp);
            match rustix::fs::renameat_with(dir, temp, dir, name, RenameFlags::EXCHANGE) {
                Ok(()) => {}
                // `name` was removed after the exchange (it held pwk's file, or a save
                // put back): the save goes back under it, never over a newer one.
                Err(Errno::NOENT) => {
                    return match self.rename_noreplace(temp, name, path) {
                        Ok(()) => Err(changed()),
                        Err(SafeWriteError::AlreadyExists { .. }) => {
                            let _ = rustix::fs::unlinkat(dir, temp, AtFlags::empty());
                            Err(changed())
                        }
                        Err(e) => Err(self.kept_aside(temp, path, e)),
                    };
                }
                Err(e) => {
                    return Err(self.kept_aside(
                        temp,
                        path,
                        SafeWriteError::io("restore", path, e),
                    ));
                }
            }
            hook(hooks, Step::PutBack { target: name, temp }, path)
                .map_err(|e| self.kept_aside(temp, path, e))?;
            if placed.is_some() && Fingerprint::at(dir, temp) == placed {
                // What pwk last put at `name` came back untouched: pwk's own file, or
                // a save that the newer one now at `name` superseded.
                let _ = rustix::fs::unlinkat(dir, temp, AtFlags::empty());
                return Err(changed());
            }
            // Another save landed on `name` (or into the file there) meanwhile: it is
            // in `temp` now, newer than the one just put back.
            placed = holding;
        }
        Err(self.kept_aside(
            temp,
            path,
            SafeWriteError::Changed {
                path: path.to_path_buf(),
            },
        ))
    }

    /// A replace that gave up with a user's file at the temp name `temp`: the error
    /// says where it is (the file is left there, never removed).
    fn kept_aside(&self, temp: &str, path: &Path, why: SafeWriteError) -> SafeWriteError {
        SafeWriteError::KeptAside {
            path: path.to_path_buf(),
            aside: self.path.join(temp),
            why: why.to_string(),
        }
    }

    /// [`SafeDir::replace_existing`] for a filesystem without `RENAME_EXCHANGE`:
    /// move the target aside to a fresh name (`.<name>.pwk-old-<hex>`, which no
    /// cleanup removes), check that it is the file pwk read, then put the new file
    /// in place with `RENAME_NOREPLACE` (or `link(2)`), which never replaces a save
    /// that landed meanwhile; a save that was moved aside is put back the same way.
    /// The cost: `name` is absent for the few system calls in between (a reader may
    /// find no file; nothing is lost, and a crash leaves the file at the aside name).
    fn replace_by_moving_aside(
        &self,
        temp: &str,
        name: &str,
        path: &Path,
        expected: &Expected,
        hooks: &mut dyn Hooks,
    ) -> Result<(), SafeWriteError> {
        let dir = self.fd.as_fd();
        let drop_temp = || {
            let _ = rustix::fs::unlinkat(dir, temp, AtFlags::empty());
        };
        let changed = || SafeWriteError::Changed {
            path: path.to_path_buf(),
        };
        let aside = format!(".{name}{ASIDE_MARKER}{:016x}", random_u64());
        if let Err(e) = check_name(&aside) {
            drop_temp();
            return Err(e);
        }
        if let Err(e) = self.rename_noreplace_or_plain(name, &aside) {
            drop_temp();
            return Err(match e {
                Errno::NOENT => changed(),
                e => SafeWriteError::io("replace", path, e),
            });
        }
        if let Err(e) = hook(
            hooks,
            Step::MovedAside {
                target: name,
                aside: &aside,
            },
            path,
        ) {
            drop_temp();
            return Err(self.kept_aside(&aside, path, e));
        }
        let ours = open_file_nofollow(dir, &aside).is_ok_and(|fd| expected.matches(fd));
        // Put back what was moved aside when it is a save pwk did not read; else
        // put the new file in. Either way, never over a save that landed meanwhile.
        let (from, result) = if ours {
            (temp, Ok(()))
        } else {
            (aside.as_str(), Err(changed()))
        };
        match self.rename_noreplace(from, name, path) {
            Ok(()) => {}
            // A newer save holds `name`: it wins, and what pwk holds is superseded.
            Err(SafeWriteError::AlreadyExists { .. }) => {
                drop_temp();
                let _ = rustix::fs::unlinkat(dir, aside.as_str(), AtFlags::empty());
                return Err(changed());
            }
            Err(e) => {
                drop_temp();
                return Err(self.kept_aside(&aside, path, e));
            }
        }
        drop_temp();
        let _ = rustix::fs::unlinkat(dir, aside.as_str(), AtFlags::empty());
        result
    }

    /// Rename `from` to the fresh name `to` in this directory, without replacing
    /// anything where the filesystem can say so (`to` is a random name).
    fn rename_noreplace_or_plain(&self, from: &str, to: &str) -> Result<(), Errno> {
        let dir = self.fd.as_fd();
        match rustix::fs::renameat_with(dir, from, dir, to, RenameFlags::NOREPLACE) {
            Err(Errno::INVAL) | Err(Errno::NOSYS) | Err(Errno::OPNOTSUPP) => {
                rustix::fs::renameat(dir, from, dir, to)
            }
            other => other,
        }
    }

    /// Keep the user's copy of `file_name` next to it, as `<file>.bak`,
    /// `<file>.bak.1`, … — never replacing an existing backup. Same content,
    /// permissions and mtime. (`pwk setup --force` and `pwk convert --force` keep
    /// their backups this way.)
    pub fn write_backup(
        &self,
        file_name: &str,
        ex: &Existing,
        hooks: &mut dyn Hooks,
    ) -> Result<PathBuf, SafeWriteError> {
        let opts = WriteOptions {
            mode: ex.mode & 0o777,
            mtime: Some(ex.ident.mtime),
            sync_dir: true,
            kind: Kind::Role,
        };
        for n in 0..100 {
            let name = if n == 0 {
                format!("{file_name}.bak")
            } else {
                format!("{file_name}.bak.{n}")
            };
            match self.write_file(&name, &ex.content, Replace::Fresh, opts, hooks) {
                Ok(_) => return Ok(self.path().join(name)),
                Err(SafeWriteError::AlreadyExists { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(SafeWriteError::AlreadyExists {
            path: self.path().join(format!("{file_name}.bak.99")),
        })
    }

    fn create_temp(
        &self,
        name: &str,
        hooks: &mut dyn Hooks,
    ) -> Result<(String, OwnedFd), SafeWriteError> {
        let path = self.path.join(name);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        // A name that exists (whatever it is, a symlink included) is never reused:
        // O_EXCL fails and the next, fresh random name is tried.
        for _ in 0..32 {
            let mut temp = format!(".{name}{TEMP_MARKER}{:016x}", random_u64());
            hook(
                hooks,
                Step::TempName {
                    target: name,
                    temp: &mut temp,
                },
                &path,
            )?;
            check_name(&temp)?;
            match rustix::fs::openat(
                self.fd.as_fd(),
                temp.as_str(),
                flags,
                Mode::from_raw_mode(FILE_MODE),
            ) {
                Ok(fd) => return Ok((temp, fd)),
                Err(Errno::EXIST) | Err(Errno::LOOP) => continue,
                Err(e) => {
                    return Err(SafeWriteError::io(
                        "create a temporary file in",
                        &self.path,
                        e,
                    ));
                }
            }
        }
        Err(SafeWriteError::io(
            "create a temporary file in",
            &self.path,
            Errno::EXIST,
        ))
    }

    fn rename_noreplace(&self, temp: &str, name: &str, path: &Path) -> Result<(), SafeWriteError> {
        let dir = self.fd.as_fd();
        match rustix::fs::renameat_with(dir, temp, dir, name, RenameFlags::NOREPLACE) {
            Ok(()) => Ok(()),
            Err(Errno::EXIST) => Err(SafeWriteError::AlreadyExists {
                path: path.to_path_buf(),
            }),
            // A filesystem without RENAME_NOREPLACE: link(2) never replaces either.
            Err(Errno::INVAL) | Err(Errno::NOSYS) | Err(Errno::OPNOTSUPP) => {
                match rustix::fs::linkat(dir, temp, dir, name, AtFlags::empty()) {
                    Ok(()) => {
                        let _ = rustix::fs::unlinkat(dir, temp, AtFlags::empty());
                        Ok(())
                    }
                    Err(Errno::EXIST) => Err(SafeWriteError::AlreadyExists {
                        path: path.to_path_buf(),
                    }),
                    Err(e) => Err(SafeWriteError::io("create", path, e)),
                }
            }
            Err(e) => Err(SafeWriteError::io("create", path, e)),
        }
    }

    fn verify(
        &self,
        name: &str,
        path: &Path,
        content: &[u8],
        written: &Ident,
    ) -> Result<(), SafeWriteError> {
        let fail = |why: String| {
            Err(SafeWriteError::Verify {
                path: path.to_path_buf(),
                why,
            })
        };
        let fd = match open_file_nofollow(self.fd.as_fd(), name) {
            Ok(fd) => fd,
            Err(Errno::LOOP) => return fail("the name now holds a symbolic link".into()),
            Err(e) => return fail(format!("cannot re-open it: {}", std::io::Error::from(e))),
        };
        let st = match rustix::fs::fstat(&fd) {
            Ok(st) => st,
            Err(e) => return fail(format!("cannot inspect it: {}", std::io::Error::from(e))),
        };
        let ft = FileType::from_raw_mode(st.st_mode);
        if ft != FileType::RegularFile {
            return fail(format!("the name now holds a {}", file_type_name(ft)));
        }
        let now = Ident::of(&st);
        if (now.dev, now.ino) != (written.dev, written.ino) {
            // A save landed after the replace: it holds the name, and pwk's change
            // is not there.
            return Err(SafeWriteError::Changed {
                path: path.to_path_buf(),
            });
        }
        #[allow(clippy::unnecessary_cast)]
        let nlink = st.st_nlink as u64;
        if nlink != 1 {
            return fail(format!("the file written now has {nlink} names"));
        }
        match read_capped(fd, content.len() as u64) {
            Ok(Some(back)) if back == content => Ok(()),
            Ok(_) => fail("its content differs from what was written".into()),
            Err(e) => fail(format!("cannot read it back: {e}")),
        }
    }

    /// Remove temporary files a crashed or killed run left behind for one of
    /// `targets`. Call only while holding the exclusive lock, so no running pwk
    /// owns them. Returns how many were removed.
    pub fn remove_stray_temps(&self, targets: &[&str]) -> usize {
        let Ok(dir) = rustix::fs::Dir::read_from(self.fd.as_fd()) else {
            return 0;
        };
        let mut strays = Vec::new();
        for entry in dir.flatten() {
            let Ok(file_name) = entry.file_name().to_str() else {
                continue;
            };
            if targets.iter().any(|t| is_temp_name_for(file_name, t)) {
                strays.push(file_name.to_string());
            }
        }
        let mut removed = 0;
        for stray in strays {
            // unlinkat never follows a link; a directory of that name is left alone.
            if rustix::fs::unlinkat(self.fd.as_fd(), stray.as_str(), AtFlags::empty()).is_ok() {
                removed += 1;
            }
        }
        if removed > 0 {
            let _ = rustix::fs::fsync(self.fd.as_fd());
        }
        removed
    }
}

/// Whether `file_name` is one of pwk's temporary names for `target`.
fn is_temp_name_for(file_name: &str, target: &str) -> bool {
    file_name
        .strip_prefix('.')
        .and_then(|rest| rest.strip_prefix(target))
        .and_then(|rest| rest.strip_prefix(TEMP_MARKER))
        .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Unlinks the temporary file on every path that does not rename it into place.
struct TempGuard<'a> {
    dir: BorrowedFd<'a>,
    name: Option<String>,
}

impl Drop for TempGuard<'_> {
    fn drop(&mut self) {
        if let Some(name) = self.name.take() {
            let _ = rustix::fs::unlinkat(self.dir, name.as_str(), AtFlags::empty());
        }
    }
}

fn sha256(content: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(content).into()
}

/// What is at a name at one moment, to tell later whether it is still that, untouched:
/// the inode, size and mtime (without following a link), and a regular file's
/// content digest (an edit in place may keep the size and the mtime).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    ident: (u64, u64, u64, (i64, i64)),
    sha256: Option<[u8; 32]>,
}

impl Fingerprint {
    fn at(dir: BorrowedFd<'_>, name: &str) -> Option<Fingerprint> {
        let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        let i = Ident::of(&st);
        let sha256 = if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile {
            let fd = open_file_nofollow(dir, name).ok()?;
            let Ok(Some(content)) = read_capped(fd, i.size) else {
                return None;
            };
            Some(sha256(&content))
        } else {
            None
        };
        Some(Fingerprint {
            ident: (i.dev, i.ino, i.size, i.mtime),
            sha256,
        })
    }
}

fn open_file_nofollow(dir: BorrowedFd<'_>, name: &str) -> Result<OwnedFd, Errno> {
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    rustix::fs::openat(dir, name, flags, Mode::empty())
}

fn open_dir_nofollow(dir: BorrowedFd<'_>, name: &str, use_openat2: bool) -> Result<OwnedFd, Errno> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if use_openat2 {
        use rustix::fs::ResolveFlags;
        let resolve =
            ResolveFlags::NO_SYMLINKS | ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(dir, name, flags, Mode::empty(), resolve) {
            // No openat2 (old kernel) or a seccomp filter that denies it: fall back.
            Err(Errno::NOSYS) | Err(Errno::PERM) => {}
            other => return other,
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = use_openat2;
    rustix::fs::openat(dir, name, flags, Mode::empty())
}

/// Read at most `cap` bytes; `None` when there is more (the file grew or lied).
fn read_capped(fd: OwnedFd, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let file = std::fs::File::from(fd);
    let mut buf = Vec::new();
    file.take(cap + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > cap {
        Ok(None)
    } else {
        Ok(Some(buf))
    }
}

fn kind_of_std(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_file() {
        "regular file"
    } else if ft.is_fifo() {
        "FIFO"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_char_device() || ft.is_block_device() {
        "device"
    } else {
        "non-directory"
    }
}

/// 64 random bits for temp names, from the standard library's OS-seeded hasher
/// keys (no extra dependency). Unpredictability is a bonus, not the defence: the
/// defence is `O_CREAT|O_EXCL|O_NOFOLLOW` and a fresh name on every collision.
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    h.finish()
}
