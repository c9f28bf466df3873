//! The one filesystem layer (Unix only): one bounded reader ([`mod@read`]) and one
//! descriptor-based writer ([`mod@write`]) for every file pwk reads as input or
//! writes — `pwk setup`, `pwk new`, `lint --fix`, `--write-baseline`, `convert`.
//!
//! ## Trust anchors
//! A path is opened from a *trust anchor*, a directory opened following symbolic
//! links (it is the user's own layout), and every component below the anchor is
//! opened with `O_NOFOLLOW|O_DIRECTORY` (`openat2` with
//! `RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH` where the kernel has it) — see
//! [`Anchors`]:
//!
//! - a path inside the project root is anchored at the project root, so a
//!   symlinked `.agents`, `.agents/agents`, `.pi`, `.pi/agents` or `--out`
//!   directory is refused, whoever named it;
//! - a path outside the project is written only when the user chose it
//!   ([`NamedBy::User`]: a path argument, `--baseline`, `--out`, `--agents-dir`),
//!   anchored at the directory the user named (`pwk lint --fix ../other`,
//!   `convert --out /tmp/x`) or at the directory of the file the user named; below
//!   it, no link is followed;
//! - a path a configuration key (`baseline`, the files `paths` selects) or a
//!   request field names must lie beneath the project root: anything else is
//!   refused, naming the key and where it is set ([`SafeWriteError::Outside`]);
//! - `a/../b` in a path the user gave is refused (its meaning depends on whether
//!   `a` is a link); leading `..` are resolved against the current directory.
//!
//! This is the one confinement check: [`Anchors::open_parent`] (and
//! [`Anchors::open_dir`]) are the only way to a [`SafeDir`], so every write —
//! `setup`, `new`, `lint --fix`, `--write-baseline`, `convert` — passes it.
//!
//! A file read in order to be rewritten is read through the same directory
//! descriptor the write uses ([`SafeDir::inspect`]), so a file reached through a
//! symlinked directory, a symlinked file, a FIFO or a file with several hard
//! links is reported and never fixed.
//!
//! ## Caps
//! Each [`Kind`] of file has one size cap; [`read::read`] refuses a larger file
//! and [`SafeDir::write_file`] refuses to write one ([`WriteOptions::kind`]).

#[cfg(not(unix))]
compile_error!(
    "pwk's filesystem layer is Unix-only: it relies on openat/O_NOFOLLOW/renameat/flock to write files safely"
);

pub(crate) mod read;
#[cfg(test)]
mod replace_tests;
pub(crate) mod root;
pub(crate) mod trust;
pub(crate) mod write;

use std::path::{Component, Path, PathBuf};

pub(crate) use trust::trusted_dir;

/// The directory holding `file`, as a path the file system takes: `.` for a bare
/// file name. `Path::parent` gives the empty path there, which `stat` refuses and
/// an upward walk ends at at once, so `pwk lint role.md` would be decided from no
/// directory at all while `./role.md` is decided from the current one.
pub(crate) fn dir_of(file: &Path) -> &Path {
    match file.parent() {
        Some(d) if d.as_os_str().is_empty() => Path::new("."),
        Some(d) => d,
        None => file,
    }
}

/// `path` made absolute against the current directory, `..` kept (as
/// [`std::path::absolute`]); the empty path is the current directory itself.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

pub(crate) use read::{Kind, ReadError, read_stream};
pub(crate) use write::{
    Expected, Hooks, Inspect, NoHooks, Replace, SafeDir, SafeWriteError, WriteOptions,
};

/// Who named a path pwk is about to write, for the confinement rule and for a
/// refusal's message ([`Anchors::open_parent`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum NamedBy {
    /// pwk chose it below the project root (an agents directory, the default
    /// `pwk-baseline.json`).
    #[default]
    Pwk,
    /// The user, on the command line or in the environment (`--baseline`, `--out`,
    /// a path argument, `--agents-dir`, `PI_CODING_AGENT_DIR`): it may lie outside
    /// the project, anchored at the path the user named ([`Anchors::new`]'s `named`).
    User(String),
    /// A key of a configuration file (`baseline`, the files `paths` selects): only
    /// beneath the project root.
    Config {
        /// The key (`baseline`, `paths`).
        key: &'static str,
        /// Where it is set, `file:line:col` as shown to the user.
        at: String,
        /// What to do instead.
        help: Option<String>,
    },
    /// A field of a request (MCP, LSP, `delegate --request`): only beneath the
    /// project root.
    Request(String),
}

impl NamedBy {
    /// Whether the user chose the path (it may be anchored at what they named).
    fn is_user(&self) -> bool {
        matches!(self, NamedBy::User(_))
    }

    /// Why a path outside the project is refused, after "`path` is outside the
    /// project `root`".
    fn refusal(&self) -> String {
        match self {
            NamedBy::Pwk => "and was not named on the command line".into(),
            NamedBy::User(what) => {
                format!("and no path named on the command line holds it (it came from {what})")
            }
            NamedBy::Config { key, at, help } => format!(
                "and was named by `{key}` at {at}: a configuration only names files in its project{}",
                help.as_ref().map(|h| format!(" ({h})")).unwrap_or_default()
            ),
            NamedBy::Request(field) => format!(
                "and was named by the request's `{field}`: a request only names files in the project"
            ),
        }
    }
}

/// The trust anchors of one command: the project root, and the paths the user
/// named (files or directories, used for paths outside the project).
#[derive(Debug, Clone, Default)]
pub struct Anchors {
    cwd: PathBuf,
    root: PathBuf,
    named: Vec<PathBuf>,
}

/// A path split at its trust anchor: the anchor, the directory names below it,
/// and the final name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub anchor: PathBuf,
    pub dirs: Vec<String>,
    pub name: String,
}

impl Anchors {
    /// `root` is the project root; `named` the paths the user gave (relative to
    /// `cwd` or absolute): the files and directories a [`NamedBy::User`] path
    /// outside the project may be written beneath.
    pub fn new(cwd: &Path, root: &Path, named: &[PathBuf]) -> Anchors {
        let norm = |p: &Path| normalize(cwd, p).unwrap_or_else(|_| cwd.join(p));
        Anchors {
            cwd: cwd.to_path_buf(),
            root: norm(root),
            named: named.iter().map(|p| norm(p)).collect(),
        }
    }

    /// The project root (normalized).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The anchor of the absolute path `abs` whose directory is `parent`: the
    /// project root when it lies beneath it; else, for a path the user chose, the
    /// deepest named directory holding it (or the directory of the named file it
    /// is); else none.
    fn anchor_of(&self, abs: &Path, parent: &Path, user: bool) -> Option<PathBuf> {
        if parent.starts_with(&self.root) {
            return Some(self.root.clone());
        }
        if !user {
            return None;
        }
        self.named
            .iter()
            .filter_map(|n| {
                if parent.starts_with(n) {
                    Some(n.clone())
                } else if abs == n {
                    Some(parent.to_path_buf())
                } else {
                    None
                }
            })
            .max_by_key(|n| n.components().count())
    }

    /// Where `path` is anchored (see the module documentation). The one
    /// confinement check of every write: a path beneath the project root, or one
    /// the user chose beneath a path they named; anything else is refused with
    /// what named it ([`SafeWriteError::Outside`]).
    pub fn split(&self, path: &Path, by: &NamedBy) -> Result<Split, SafeWriteError> {
        let abs = normalize(&self.cwd, path)?;
        let name = abs
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| SafeWriteError::BadName {
                name: path.display().to_string(),
                why: "it has no UTF-8 file name",
            })?
            .to_string();
        let parent = abs.parent().unwrap_or(Path::new("/"));
        let Some(anchor) = self.anchor_of(&abs, parent, by.is_user()) else {
            return Err(SafeWriteError::Outside {
                path: abs.clone(),
                root: self.root.clone(),
                why: by.refusal(),
            });
        };
        let dirs = parent
            .strip_prefix(&anchor)
            .unwrap_or(Path::new(""))
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Ok(Split { anchor, dirs, name })
    }

    /// Open the directory holding `path` from its anchor, every component below
    /// the anchor without following a link (created, mode 0755, when `create`).
    /// Returns the directory (named in messages as `path`'s parent) and the
    /// file name. `Ok(None)`: a directory on the way does not exist.
    pub fn open_parent(
        &self,
        path: &Path,
        by: &NamedBy,
        create: bool,
        hooks: &mut dyn Hooks,
    ) -> Result<Option<(SafeDir, String)>, SafeWriteError> {
        let split = self.split(path, by)?;
        let shown = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let (anchor, dirs) = if create {
            // An anchor that does not exist yet (`--out /tmp/new`): start at its
            // deepest existing ancestor that is a real directory, and create the rest.
            let mut anchor = split.anchor.clone();
            let mut missing = Vec::new();
            while std::fs::symlink_metadata(&anchor)
                .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
            {
                let (Some(parent), Some(n)) = (anchor.parent(), anchor.file_name()) else {
                    break;
                };
                missing.push(n.to_string_lossy().into_owned());
                anchor = parent.to_path_buf();
            }
            missing.reverse();
            missing.extend(split.dirs);
            (anchor, missing)
        } else {
            (split.anchor, split.dirs)
        };
        let mut dir = SafeDir::open_root(&anchor)?;
        for d in &dirs {
            match dir.open_child(d, create, hooks)? {
                Some(next) => dir = next,
                None => return Ok(None),
            }
        }
        Ok(Some((dir.with_display_path(shown), split.name)))
    }

    /// Open the directory `dir` itself as [`Anchors::open_parent`] opens a file's
    /// (the same check; `dir` named by `by`).
    pub fn open_dir(
        &self,
        dir: &Path,
        by: &NamedBy,
        create: bool,
        hooks: &mut dyn Hooks,
    ) -> Result<Option<SafeDir>, SafeWriteError> {
        let Some((parent, name)) = self.open_parent(dir, by, create, hooks)? else {
            return Ok(None);
        };
        Ok(parent
            .open_child(&name, create, hooks)?
            .map(|d| d.with_display_path(dir.to_path_buf())))
    }
}

impl Anchors {
    /// The first symbolic link on the way from `dir`'s anchor to `dir` itself
    /// (`dir` included), as a path: a directory a walk must not enter. `None`
    /// for a directory outside the project and every named path.
    pub fn symlink_on_the_way(&self, dir: &Path) -> Option<PathBuf> {
        let abs = normalize(&self.cwd, &dir.join("x")).ok()?;
        let parent = abs.parent()?;
        let anchor = self.anchor_of(&abs, parent, true)?;
        let mut at = anchor.clone();
        for d in parent.strip_prefix(&anchor).ok()?.components() {
            at.push(d);
            if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
                return Some(at);
            }
        }
        None
    }
}

/// `path` split at its last `/` into the directory's bytes and the file name's, when
/// the name is a plain one (not empty, `.` or `..`). Byte work for the per-file hot
/// paths: `Path::parent` parses components, ~10x the cost. The directory's bytes are
/// `path.parent()`'s only when written plainly (no `//`, `/./`, trailing `/`, and not
/// empty for a rooted path): callers compare them only where that holds.
pub(crate) fn plain_parent(path: &Path) -> Option<(&[u8], &[u8])> {
    let all = path.as_os_str().as_encoded_bytes();
    let i = all.iter().rposition(|&b| b == b'/')?;
    let name = &all[i + 1..];
    (!matches!(name, b"" | b"." | b"..")).then(|| (&all[..i], name))
}

/// `path` made absolute against `cwd`, `.` dropped, leading `..` resolved
/// lexically against `cwd` (the current directory is a real path); a `..` after a
/// component the user gave (`a/../b`) is refused.
pub(crate) fn normalize(cwd: &Path, path: &Path) -> Result<PathBuf, SafeWriteError> {
    // `cwd.join(p)` (how commands make paths absolute) is `p` again.
    let path = path.strip_prefix(cwd).unwrap_or(path);
    let mut out = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        lexical(cwd)
    };
    let mut given = false;
    for c in path.components() {
        match c {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir if given => {
                return Err(SafeWriteError::BadName {
                    name: path.display().to_string(),
                    why: "it goes up with `..` after a directory name (write the path without it)",
                });
            }
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => {
                given = true;
                out.push(n);
            }
        }
    }
    Ok(out)
}

/// `p` with `.` dropped and `..` applied lexically (for paths pwk made itself).
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// `path` (absolute or relative to `cwd`) as a comparable absolute path: the
/// directory holding it resolved (`..` and links in it, as the kernel resolves
/// them), the final name kept. Falls back to a lexical form when the directory
/// cannot be resolved.
pub(crate) fn canonical_dir_path(cwd: &Path, path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    match (abs.parent(), abs.file_name()) {
        (Some(parent), Some(name)) => match std::fs::canonicalize(parent) {
            Ok(p) => p.join(name),
            Err(_) => lexical(&abs),
        },
        _ => lexical(&abs),
    }
}

/// Whether `path` is the project's: it lies in the project `root` (the root itself
/// included) as written or where it leads. Each of these makes it the project's:
/// - `path` made absolute (against the current directory) with `..` applied
///   lexically lies beneath `root` (as given, or with its links resolved: a root
///   that is itself a link counts under both names);
/// - its canonical form (every link and `..` resolved, as the kernel opens it) does;
/// - a symbolic link strictly beneath the root is on its way (`.pi/x -> /elsewhere`,
///   or `root/.pi/link/../../..` that leaves through one): the project chose where
///   it leads.
///
/// For deciding whether code pwk would run is the project's (`pwk verify`): errs
/// towards "the project's".
pub(crate) fn in_project(root: &Path, path: &Path) -> bool {
    let mut roots = vec![lexical(&absolute(root))];
    if let Ok(real) = std::fs::canonicalize(root)
        && !roots.contains(&real)
    {
        roots.push(real);
    }
    let beneath = |p: &Path, strictly: bool| {
        roots
            .iter()
            .any(|r| p.starts_with(r) && (!strictly || p != r.as_path()))
    };
    let path = absolute(path);
    if beneath(&lexical(&path), false)
        || std::fs::canonicalize(&path).is_ok_and(|real| beneath(&real, false))
    {
        return true;
    }
    // Every prefix of the path as written: a link strictly beneath the root.
    let mut at = PathBuf::new();
    for c in path.components() {
        at.push(c);
        if !matches!(c, Component::Normal(_)) {
            continue;
        }
        let under = beneath(&lexical(&at), true)
            || at
                .parent()
                .and_then(|p| std::fs::canonicalize(p).ok())
                .is_some_and(|p| beneath(&p.join(c), true));
        if under && std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return true;
        }
    }
    false
}

/// The first symbolic link on the way from the project `root` to `dir` (`dir`
/// included; `None` for a directory outside the project). Every front end that
/// reads the project's roles — lint and its `--fix`/`--diff`/baseline, list, show,
/// the language server, the MCP server — skips such a directory and reports it
/// ([`linked_dir_message`]): a cloned repository's `.agents -> /elsewhere` must not
/// make pwk read (or write) another tree as the project's roles.
pub(crate) fn linked_dir(cwd: &Path, root: &Path, dir: &Path) -> Option<PathBuf> {
    crate::fs::Anchors::new(cwd, root, &[]).symlink_on_the_way(dir)
}

/// What a front end says about a directory reached through the symbolic link
/// `link` (shown relative to `cwd`).
pub(crate) fn linked_dir_message(cwd: &Path, link: &Path) -> String {
    format!(
        "`{}` is a symbolic link; pwk does not read or write the project's roles through one (make it a real directory, or name the target directory on the command line)",
        crate::display::display_path(cwd, link)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape of a file path has a directory `stat` takes: a bare name's is
    /// `.`, never the empty path; and the empty path made absolute is the current
    /// directory.
    #[test]
    fn a_files_directory_is_never_the_empty_path() {
        for (file, dir) in [
            ("r.md", "."),
            ("./r.md", "."),
            ("a/r.md", "a"),
            ("../r.md", ".."),
            ("/r.md", "/"),
            ("/a/b/r.md", "/a/b"),
        ] {
            assert_eq!(dir_of(Path::new(file)), Path::new(dir), "{file}");
        }
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(absolute(Path::new("")), cwd);
        assert_eq!(absolute(Path::new("r.md")), cwd.join("r.md"));
    }

    #[test]
    fn paths_inside_the_project_are_anchored_at_the_root() {
        let a = Anchors::new(
            Path::new("/p/sub"),
            Path::new("/p"),
            &[PathBuf::from("../../q"), PathBuf::from("/n/file.json")],
        );
        let user = NamedBy::User("--out".into());
        let config = NamedBy::Config {
            key: "baseline",
            at: "pwk.toml:1:12".into(),
            help: None,
        };
        // Inside the project: the root, whoever named it.
        for by in [
            &user,
            &config,
            &NamedBy::Pwk,
            &NamedBy::Request("paths".into()),
        ] {
            let s = a.split(Path::new("../.agents/agents/r.md"), by).unwrap();
            assert_eq!(s.anchor, Path::new("/p"));
            assert_eq!(s.dirs, [".agents", "agents"]);
            assert_eq!(s.name, "r.md");
        }
        // Outside, chosen by the user: the named directory, or the named file's own.
        let s = a.split(Path::new("/q/x/r.md"), &user).unwrap();
        assert_eq!(s.anchor, Path::new("/q"));
        assert_eq!(s.dirs, ["x"]);
        let s = a.split(Path::new("/n/file.json"), &user).unwrap();
        assert_eq!((s.anchor.as_path(), s.dirs.len()), (Path::new("/n"), 0));
        // Outside and named by no one, or by a configuration or a request: refused,
        // with what named it.
        assert!(matches!(
            a.split(Path::new("/z/r.md"), &user),
            Err(SafeWriteError::Outside { .. })
        ));
        for by in [&config, &NamedBy::Pwk, &NamedBy::Request("paths".into())] {
            let e = a.split(Path::new("/q/x/r.md"), by).unwrap_err();
            assert!(matches!(e, SafeWriteError::Outside { .. }), "{e}");
        }
        let e = a.split(Path::new("../../q/r.md"), &config).unwrap_err();
        assert!(
            e.to_string()
                .contains("named by `baseline` at pwk.toml:1:12"),
            "{e}"
        );
        assert!(a.split(Path::new("a/../b.md"), &user).is_err());
        assert!(a.split(Path::new("/p/sub/a/../b.md"), &user).is_err());
        // What a command made absolute with `cwd.join`: leading `..` still resolve.
        let s = a.split(Path::new("/p/sub/../../q/r.md"), &user).unwrap();
        assert_eq!(
            (s.anchor.as_path(), s.name.as_str()),
            (Path::new("/q"), "r.md")
        );
        assert_eq!(
            normalize(Path::new("/p/sub"), Path::new("./x/./y.md")).unwrap(),
            Path::new("/p/sub/x/y.md")
        );
    }

    /// The writer refuses what the reader of the same kind would refuse.
    #[test]
    fn content_over_the_read_cap_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let d = SafeDir::open_root(dir.path()).unwrap();
        for kind in [Kind::Role, Kind::Config, Kind::Baseline] {
            let content = vec![b'x'; kind.cap() as usize + 1];
            let opts = WriteOptions {
                kind,
                ..WriteOptions::default()
            };
            let err = d
                .write_file("f", &content, Replace::Fresh, opts, &mut NoHooks)
                .unwrap_err();
            assert!(matches!(err, SafeWriteError::TooLarge { .. }), "{err}");
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
            let fits = &content[1..];
            d.write_file("f", fits, Replace::Fresh, opts, &mut NoHooks)
                .unwrap();
            assert_eq!(
                read::read(&dir.path().join("f"), kind).unwrap().len(),
                fits.len()
            );
            std::fs::remove_file(dir.path().join("f")).unwrap();
        }
    }

    /// A file read for replacing, through a symlinked directory or as a hard
    /// link, is refused with what it is.
    #[test]
    fn files_read_for_replacing_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::fs::write(root.join("real/a.md"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        let anchors = Anchors::new(&root, &root, &[]);
        let err = anchors
            .open_parent(&root.join("link/a.md"), &NamedBy::Pwk, false, &mut NoHooks)
            .unwrap_err();
        assert!(matches!(err, SafeWriteError::Symlink { .. }), "{err}");
        std::fs::hard_link(root.join("real/a.md"), root.join("real/b.md")).unwrap();
        let (d, name) = anchors
            .open_parent(&root.join("real/a.md"), &NamedBy::Pwk, false, &mut NoHooks)
            .unwrap()
            .unwrap();
        let err = d
            .read_for_replace(&name, Kind::Role, &mut NoHooks)
            .unwrap_err();
        assert!(err.to_string().contains("2 hard links"), "{err}");
    }
}
