//! The one trust rule: what pwk uses of a directory another user controls. A
//! directory on the root walk must be the user's ([`trust_dir`], as git's
//! `safe.directory`); what a trusted directory holds (a project marker, a
//! `pwk.toml`, an agents directory) is not used when another user owns it and
//! others can write where it sits ([`trust_entry`]). `PWK_SAFE_DIRECTORIES`
//! trusts a directory anyway. The root walk ([`super::root::find_root`]), the
//! configuration lookup, discovery and lint's walk apply it, and every command
//! says what it left unused ([`Untrusted::warning`]).

use std::path::{Path, PathBuf};

/// Something of the project that another user controls, so pwk does not use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untrusted {
    pub path: PathBuf,
    /// Its owner's uid.
    pub owner: u32,
    /// The directory holding it, when other users can write there (an entry of
    /// theirs in a directory only its owner can write was put there by its owner).
    pub writable_dir: Option<PathBuf>,
}

impl Untrusted {
    /// What it is and what pwk does not do with it (`consequence`), with how to
    /// trust it; paths shown from `cwd`.
    pub fn warning(&self, cwd: &Path, consequence: &str) -> String {
        let shown = |p: &Path| crate::display::display_path(cwd, p);
        let safe = match &self.writable_dir {
            Some(d) => d.clone(),
            None if self.path.is_dir() => self.path.clone(),
            None => self
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        };
        let whose = match &self.writable_dir {
            Some(d) => format!(
                "belongs to another user (uid {}) and sits in `{}`, which other users can write",
                self.owner,
                shown(d)
            ),
            None => format!("belongs to another user (uid {})", self.owner),
        };
        format!(
            "`{}` {whose}: {consequence} (list `{}` in PWK_SAFE_DIRECTORIES to trust it)",
            shown(&self.path),
            safe.display()
        )
    }

    /// [`Untrusted::warning`] for what the root walk left unused.
    pub fn root_warning(&self, cwd: &Path) -> String {
        self.warning(
            cwd,
            "pwk does not use the project there (its roles, its pwk.toml)",
        )
    }

    /// [`Untrusted::warning`] for a directory of roles not read.
    pub fn dir_warning(&self, cwd: &Path) -> String {
        self.warning(cwd, "pwk does not read the roles in it")
    }
}

/// Whether pwk may take `dir` as a project root or read its `pwk.toml`: it is
/// owned by the user pwk runs as (the effective uid), or `PWK_SAFE_DIRECTORIES`
/// lists it (`*`: every directory). A directory that cannot be looked at is not
/// refused here (nothing is read from it either).
pub(crate) fn trusted_dir(dir: &Path) -> bool {
    trust_dir(dir).is_ok()
}

/// The user pwk runs as (the effective uid), asked once: the trust rule compares
/// every directory of a walk with it, and it does not change while pwk runs.
pub(crate) fn euid() -> u32 {
    static EUID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *EUID.get_or_init(|| rustix::process::geteuid().as_raw())
}

/// [`trusted_dir`], saying why not.
pub(crate) fn trust_dir(dir: &Path) -> Result<(), Untrusted> {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(meta) = std::fs::metadata(dir) else {
        return Ok(());
    };
    if meta.uid() == euid() || crate::env::safe_directories().allows(dir) {
        return Ok(());
    }
    Err(Untrusted {
        path: dir.to_path_buf(),
        owner: meta.uid(),
        writable_dir: None,
    })
}

/// The second half of the one trust rule, for what a trusted directory holds (a
/// project marker such as `.agents`, a `pwk.toml`, an agents directory): it is
/// used unless another user owns it *and* other users can write the directory
/// holding it (a world-writable `/tmp`-like directory, sticky or not, or one
/// writable by a group not the user's own) — then it may be theirs, planted. An
/// entry of another user in a directory only its owner can write was put there by
/// that owner. `PWK_SAFE_DIRECTORIES` listing the directory trusts it.
pub(crate) fn trust_entry(path: &Path) -> Result<(), Untrusted> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => trust_entry_seen(path, &meta),
        Err(_) => Ok(()),
    }
}

/// [`trust_entry`] for an entry whose `symlink_metadata` the caller has in hand.
pub(crate) fn trust_entry_seen(path: &Path, meta: &std::fs::Metadata) -> Result<(), Untrusted> {
    use std::os::unix::fs::MetadataExt as _;
    if meta.uid() == euid() {
        return Ok(());
    }
    let Some(dir) = path.parent() else {
        return Ok(());
    };
    let safe = crate::env::safe_directories();
    if safe.allows(dir) || safe.allows(path) {
        return Ok(());
    }
    let Ok(d) = std::fs::metadata(dir) else {
        return Ok(());
    };
    let others_write = d.mode() & 0o002 != 0
        || (d.mode() & 0o020 != 0 && d.gid() != rustix::process::getegid().as_raw());
    if !others_write {
        return Ok(());
    }
    Err(Untrusted {
        path: path.to_path_buf(),
        owner: meta.uid(),
        writable_dir: Some(dir.to_path_buf()),
    })
}

/// What another user controls on the way from the project `root` to `dir` (`root`
/// by [`trust_dir`], each directory below it by [`trust_entry`]): a directory of
/// the project pwk reads roles from is not read when this says so, as one reached
/// through a symbolic link is not ([`super::linked_dir`]). `None` for a `dir` outside
/// `root`.
pub(crate) fn untrusted_on_the_way(root: &Path, dir: &Path) -> Option<Untrusted> {
    let below = dir.strip_prefix(root).ok()?;
    if let Err(u) = trust_dir(root) {
        return Some(u);
    }
    let mut at = root.to_path_buf();
    for c in below.components() {
        at.push(c);
        if let Err(u) = trust_entry(&at) {
            return Some(u);
        }
    }
    None
}
