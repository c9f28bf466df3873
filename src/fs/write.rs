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
//! in the same directory with `O_CREAT|O_EXCL|O_NOFOLLOW`, is fsynced, and is
//! renamed over the target (`RENAME_NOREPLACE` for new files); then the directory
//! is fsynced and the target is re-opened without following links, checked to be
//! the very inode that was written, and read back byte for byte.

use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, RenameFlags};
use rustix::io::Errno;

use super::read::{Kind, file_type_name};

/// Mode of files pwk creates, whatever the umask: role files are read by other
/// programs (pi and its subagent hosts) and hold nothing secret.
pub const FILE_MODE: u32 = 0o644;

/// Mode of directories pwk creates, whatever the umask.
pub const DIR_MODE: u32 = 0o755;

/// The marker in the names of pwk's temporary files: `.<name>.pwk-tmp-<16 hex>`.
const TEMP_MARKER: &str = ".pwk-tmp-";

/// How long to wait for another pwk run that holds the directory lock.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Why a safe filesystem operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum SafeWriteError {
    #[error("`{}` is a symbolic link; pwk never reads or writes through symbolic links", path.display())]
    Symlink { path: PathBuf },
    #[error("`{}` is not a directory (it is a {kind})", path.display())]
    NotDirectory { path: PathBuf, kind: &'static str },
    #[error("`{}` already exists; pwk does not overwrite it", path.display())]
    AlreadyExists { path: PathBuf },
    #[error("`{name}` is not a safe file name: {why}")]
    BadName { name: String, why: &'static str },
    #[error("`{}` changed while pwk was replacing it; nothing was replaced", path.display())]
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
pub fn check_name(name: &str) -> Result<(), SafeWriteError> {
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
    /// The name must still hold exactly this file, which is then replaced.
    Existing(Ident),
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
    /// The temp file was renamed over the target; not yet verified.
    Renamed { target: &'a str },
}

/// A callback at each [`Step`]. Returning an error aborts the operation there, as
/// a real I/O error would.
pub trait Hooks {
    fn at(&mut self, step: Step<'_>) -> std::io::Result<()>;
}

/// The hooks of the shipped binary: none.
pub struct NoHooks;

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
    /// it are followed (they are the user's own layout).
    pub fn open_root(path: &Path) -> Result<SafeDir, SafeWriteError> {
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
    /// still is that very file (same inode, size and times: an edit or a symlink
    /// swapped in meanwhile is refused). The permission bits are kept.
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
            Replace::Existing(existing.ident),
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
                // Last look before the rename: the file must be the one that was read
                // and compared. An edit made meanwhile is never overwritten silently.
                let now = match open_file_nofollow(self.fd.as_fd(), name) {
                    Ok(fd) => rustix::fs::fstat(&fd).ok().map(|st| Ident::of(&st)),
                    Err(_) => None,
                };
                if now != Some(expected) {
                    return Err(SafeWriteError::Changed { path });
                }
                rustix::fs::renameat(self.fd.as_fd(), temp_name.as_str(), self.fd.as_fd(), name)
                    .map_err(|e| SafeWriteError::io("replace", &path, e))?;
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
            return fail("the name now holds a different file than the one written".into());
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

/// Create `dir/file_name` holding `content`, atomically, and fail if it exists.
///
/// Missing directories on the way to `dir` are created (mode 0755). The anchor
/// is the deepest existing ancestor of `dir` that is a real directory (not a
/// symlink); every component below it — those this call creates, a symlink on
/// the way, and `dir` itself — is opened without following symbolic links, so a
/// symlinked `dir` or a symlinked `.agents` above it is refused. (Symlinks
/// *above* the anchor, e.g. in the user's home path, are followed.) A relative
/// `dir` is resolved below the current directory with every component no-follow. The file is written to a temporary
/// name, fsynced, renamed into place with `RENAME_NOREPLACE` (so an existing file
/// is never replaced, even one created a moment earlier), the directory is
/// fsynced, and the file is read back through a fresh no-follow descriptor and
/// compared. The file's mode is 0644 whatever the umask.
///
/// Returns `dir/file_name`.
pub fn create_file_exclusive(
    dir: &Path,
    file_name: &str,
    content: &[u8],
) -> Result<PathBuf, SafeWriteError> {
    create_file_exclusive_with(dir, file_name, content, &mut NoHooks)
}

/// Like [`create_file_exclusive`], with the trust boundary explicit: `base` is
/// opened following symlinks (it is the caller's anchor, e.g. the project root),
/// and *every* component of `rel_dir` below it is created or opened without
/// following one, so a symlinked `.agents` is refused even when it points at an
/// existing directory. `rel_dir` must be relative and free of `..`.
///
/// Returns `base/rel_dir/file_name`.
pub fn create_file_beneath(
    base: &Path,
    rel_dir: &Path,
    file_name: &str,
    content: &[u8],
) -> Result<PathBuf, SafeWriteError> {
    check_name(file_name)?;
    let dir = open_beneath(base, rel_dir, &mut NoHooks)?;
    dir.write_file(
        file_name,
        content,
        Replace::Fresh,
        WriteOptions::default(),
        &mut NoHooks,
    )?;
    Ok(base.join(rel_dir).join(file_name))
}

pub(crate) fn create_file_exclusive_with(
    dir: &Path,
    file_name: &str,
    content: &[u8],
    hooks: &mut dyn Hooks,
) -> Result<PathBuf, SafeWriteError> {
    check_name(file_name)?;
    let handle = open_dir_creating(dir, hooks)?;
    handle.write_file(
        file_name,
        content,
        Replace::Fresh,
        WriteOptions::default(),
        hooks,
    )?;
    Ok(dir.join(file_name))
}

/// Open `dir`, creating missing directories, with `dir` itself and every created
/// component opened without following symlinks. A relative `dir` is resolved
/// below the current directory with *every* component no-follow; an absolute one
/// below its deepest existing ancestor that is not a symlink.
fn open_dir_creating(dir: &Path, hooks: &mut dyn Hooks) -> Result<SafeDir, SafeWriteError> {
    let mut opened = if dir.is_relative() {
        open_beneath(Path::new("."), dir, hooks)?
    } else {
        let mut anchor = dir.to_path_buf();
        // Walk up to the deepest existing proper ancestor; `dir` itself is always
        // opened below it, no-follow.
        while let Some(parent) = anchor.parent() {
            anchor = parent.to_path_buf();
            // A symlink is never the anchor: it is a component below it, and so
            // refused (a symlinked `.agents` pointing at a real directory included).
            if std::fs::symlink_metadata(&anchor).is_ok_and(|m| !m.file_type().is_symlink()) {
                break;
            }
        }
        let rest = dir.strip_prefix(&anchor).unwrap_or(dir);
        open_beneath(&anchor, rest, hooks)?
    };
    // Messages name the path the caller gave.
    opened.path = dir.to_path_buf();
    Ok(opened)
}

/// Open (creating as needed) `rel` below the directory `base`, one no-follow
/// component at a time. `..` is refused.
pub(crate) fn open_beneath(
    base: &Path,
    rel: &Path,
    hooks: &mut dyn Hooks,
) -> Result<SafeDir, SafeWriteError> {
    use std::path::Component;
    let mut current = SafeDir::open_root(base)?;
    for comp in rel.components() {
        let name = match comp {
            Component::CurDir => continue,
            Component::Normal(n) => n.to_str().ok_or_else(|| SafeWriteError::BadName {
                name: rel.display().to_string(),
                why: "it is not valid UTF-8",
            })?,
            Component::ParentDir => {
                return Err(SafeWriteError::BadName {
                    name: rel.display().to_string(),
                    why: "it goes up with `..`",
                });
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(SafeWriteError::BadName {
                    name: rel.display().to_string(),
                    why: "it is not relative",
                });
            }
        };
        let next = current.open_child(name, true, hooks)?;
        current = next.ok_or_else(|| SafeWriteError::Io {
            action: "create directory",
            path: current.path.join(name),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        })?;
    }
    Ok(current)
}
