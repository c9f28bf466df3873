//! What pwk learnt about a pi binary, kept on disk so it is learnt once per binary
//! rather than once per process: the options `pi --help` lists (whether this pi has
//! `--no-mcp`). Asking costs a full pi start (Node, ~0.3–1 s); a warm entry costs a
//! few system calls.
//!
//! * One entry per pi program, `pi-help-<hash of its resolved path>.json` in pwk's
//!   cache directory ([`crate::env::Env::cache_dir`]: `$PWK_CACHE_DIR`, else
//!   `$XDG_CACHE_HOME/pwk`, else `~/.cache/pwk`).
//! * The entry names the binary it describes by its [`Identity`] (resolved path,
//!   device, inode, size, modification time to the nanosecond); a binary replaced or
//!   upgraded in place has another identity, so its entry is a miss and is rewritten.
//! * Read and written through the fs layer only: the entry is read without following
//!   a link, as a regular file of at most [`Kind::Cache`]'s cap, and written by an
//!   atomic replace (temp file, fsync, rename) in a directory opened without following
//!   links. A corrupt, truncated, oversized, symlinked or foreign entry is a miss and is
//!   rewritten; nothing outside the cache directory is ever written.
//! * Failing to read or write the cache is never an error: pwk then asks pi, once per
//!   process (the in-memory map in [`super::help`]).
//! * Concurrent first runs each write a complete entry by rename; the last rename
//!   wins and every entry any of them leaves is whole and valid.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::env::CacheDir;
use crate::fs::{Inspect, Kind, NoHooks, Replace, SafeDir, WriteOptions};

/// The format tag of an entry; another tag is a miss.
const FORMAT: &str = "pwk-pi-help/1";
/// The most options an entry may list, and the longest option kept.
const MAX_OPTIONS: usize = 512;
const MAX_OPTION_LEN: usize = 64;

/// A pi binary as the filesystem sees it: any change to the file gives another
/// identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Identity {
    /// The program's path with every symbolic link resolved (npm installs `pi` as a
    /// link to its `cli.js`).
    pub path: String,
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime: i64,
    pub mtime_nsec: i64,
}

impl Identity {
    /// The identity of `program`; `None` when it cannot be resolved or its path is
    /// not UTF-8 (it is then asked every process).
    pub(crate) fn of(program: &Path) -> Option<Identity> {
        use std::os::unix::fs::MetadataExt;
        let path = std::fs::canonicalize(program).ok()?;
        let m = std::fs::metadata(&path).ok()?;
        Some(Identity {
            path: path.into_os_string().into_string().ok()?,
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: m.mtime(),
            mtime_nsec: m.mtime_nsec(),
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Entry {
    format: String,
    binary: Identity,
    /// The long options `pi --help` listed, in order.
    options: Vec<String>,
}

/// The entry's file name for a resolved pi path (FNV-1a: stable across pwk builds).
pub(crate) fn entry_name(resolved: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in resolved.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("pi-help-{h:016x}.json")
}

fn valid_option(o: &str) -> bool {
    o.len() > 2
        && o.len() <= MAX_OPTION_LEN
        && o.starts_with("--")
        && o[2..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Open the cache directory without creating anything (`None`: absent or unusable).
fn open_existing(dir: &CacheDir) -> Option<SafeDir> {
    let base = SafeDir::open_root(&dir.base).ok()?;
    match dir.sub {
        Some(sub) => base.open_child(sub, false, &mut NoHooks).ok().flatten(),
        None => Some(base),
    }
}

/// Open the cache directory, creating it (and its base) when missing.
fn open_or_create(dir: &CacheDir) -> Option<SafeDir> {
    if std::fs::symlink_metadata(&dir.base).is_err() {
        // The base is the user's own layout (e.g. `~/.cache`): created as a plain
        // directory tree when it does not exist yet.
        std::fs::create_dir_all(&dir.base).ok()?;
    }
    let base = SafeDir::open_root(&dir.base).ok()?;
    match dir.sub {
        Some(sub) => base.open_child(sub, true, &mut NoHooks).ok().flatten(),
        None => Some(base),
    }
}

/// The options cached for `id`, when the cache holds a valid entry for exactly
/// this binary.
pub(crate) fn load(dir: &CacheDir, id: &Identity) -> Option<Vec<String>> {
    let d = open_existing(dir)?;
    let bytes = crate::fs::read::read_at(d.fd(), &entry_name(&id.path), Kind::Cache).ok()?;
    parse(&bytes, id)
}

/// The options of an entry's bytes, when it is a valid entry for `id`.
fn parse(bytes: &[u8], id: &Identity) -> Option<Vec<String>> {
    let e: Entry = serde_json::from_slice(bytes).ok()?;
    (e.format == FORMAT
        && e.binary == *id
        && e.options.len() <= MAX_OPTIONS
        && e.options.iter().all(|o| valid_option(o)))
    .then_some(e.options)
}

/// Why an entry was not written (tests look; pwk itself carries on either way).
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    #[error("the cache directory cannot be opened or created")]
    NoDir,
    #[error(transparent)]
    Write(#[from] crate::fs::SafeWriteError),
}

/// Write the entry for `id`: an atomic replace of whatever the entry's name holds
/// (an entry of the binary that was there before, or anything that is not a valid
/// entry: a symbolic link or another non-file is removed first, never followed).
pub(crate) fn store(dir: &CacheDir, id: &Identity, options: &[String]) -> Result<(), StoreError> {
    let options: Vec<String> = options
        .iter()
        .filter(|o| valid_option(o))
        .take(MAX_OPTIONS)
        .cloned()
        .collect();
    let entry = Entry {
        format: FORMAT.to_string(),
        binary: id.clone(),
        options,
    };
    let mut content = serde_json::to_vec(&entry).unwrap_or_default();
    content.push(b'\n');
    let d = open_or_create(dir).ok_or(StoreError::NoDir)?;
    let name = entry_name(&id.path);
    let replace = match d.inspect(&name, Kind::Cache, &mut NoHooks)? {
        Inspect::Absent => Replace::Fresh,
        Inspect::File(existing) if existing.content == content => return Ok(()),
        Inspect::File(existing) => Replace::Existing(existing.expected()),
        Inspect::Refused(_) => {
            // A link, a FIFO, a hard-linked or oversized file: the name is dropped
            // (unlinkat never follows a link; a directory stays and the write fails).
            let _ = rustix::fs::unlinkat(d.fd(), name.as_str(), rustix::fs::AtFlags::empty());
            Replace::Fresh
        }
    };
    let opts = WriteOptions {
        kind: Kind::Cache,
        ..WriteOptions::default()
    };
    match d.write_file(&name, &content, replace, opts, &mut NoHooks) {
        Ok(_) => Ok(()),
        // Another pwk wrote its (equally complete) entry first: theirs stands.
        Err(crate::fs::SafeWriteError::AlreadyExists { .. })
        | Err(crate::fs::SafeWriteError::Changed { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Drop the entry of the binary at `resolved` (pi rejected an option its entry
/// listed: what was learnt is out of date).
pub(crate) fn remove(dir: &CacheDir, resolved: &str) {
    if let Some(d) = open_existing(dir) {
        let name = entry_name(resolved);
        let _ = rustix::fs::unlinkat(d.fd(), name.as_str(), rustix::fs::AtFlags::empty());
    }
}

/// The entry's path (for the tests).
#[cfg(test)]
fn entry_path(dir: &CacheDir, id: &Identity) -> std::path::PathBuf {
    dir.path().join(entry_name(&id.path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> Identity {
        Identity {
            path: "/opt/pi/cli.js".into(),
            dev: 1,
            ino: 2,
            size: 3,
            mtime: 4,
            mtime_nsec: 5,
        }
    }

    #[test]
    fn entries_round_trip_and_foreign_or_bad_entries_are_misses() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = CacheDir {
            base: tmp.path().join("base"),
            sub: Some("pwk"),
        };
        assert_eq!(load(&dir, &id()), None);
        let opts = vec!["--no-mcp".to_string(), "--tools".to_string()];
        store(&dir, &id(), &opts).unwrap();
        assert_eq!(load(&dir, &id()).as_deref(), Some(&opts[..]));
        // Another binary at the same path (replaced in place): a miss.
        let other = Identity {
            mtime_nsec: 6,
            ..id()
        };
        assert_eq!(load(&dir, &other), None);
        let good = std::fs::read(entry_path(&dir, &id())).unwrap();
        // Every strict prefix of a valid entry (a truncated write) is a miss.
        for cut in 0..good.len() - 1 {
            assert_eq!(parse(&good[..cut], &id()), None, "cut at {cut}");
        }
        for bad in [
            r#"{"format":"pwk-pi-help/2","binary":{"path":"/opt/pi/cli.js","dev":1,"ino":2,"size":3,"mtime":4,"mtimeNsec":5},"options":[]}"#,
            r#"{"format":"pwk-pi-help/1","binary":{"path":"/opt/pi/cli.js","dev":1,"ino":2,"size":3,"mtime":4,"mtimeNsec":5},"options":["--x;rm"]}"#,
            r#"{"format":"pwk-pi-help/1","binary":{"path":"/opt/pi/cli.js","dev":1,"ino":2,"size":3,"mtime":4,"mtimeNsec":5},"options":[],"extra":1}"#,
            "null",
        ] {
            assert_eq!(parse(bad.as_bytes(), &id()), None, "{bad}");
        }
    }
}
