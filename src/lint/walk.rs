//! Which files a `pwk lint` run covers.

use std::path::{Path, PathBuf};

/// Why the set of files could not be determined (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("`{0}` does not exist")]
    NotFound(PathBuf),
    #[error("cannot read `{path}`: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// pi's project agents directories, below the project root.
pub const DEFAULT_DIRS: [&str; 2] = [".agents/agents", ".pi/agents"];

/// `.agents/agents/` and `.pi/agents/` under the project root, whichever exist.
pub fn default_dirs(root: &Path) -> Vec<PathBuf> {
    DEFAULT_DIRS
        .into_iter()
        .map(|rel| root.join(rel))
        .filter(|dir| dir.is_dir())
        .collect()
}

/// What [`collect_files`] found: the files, and the paths it could not look at
/// (each one a failure in the lint result, not the end of the run).
#[derive(Debug, Default)]
pub struct Collected {
    pub files: Vec<PathBuf>,
    pub errors: Vec<WalkError>,
    /// Files in a searched directory whose extension is `md` in another case
    /// (`x.MD`): no host reads them as roles, so they are reported, not linted.
    pub other_case: Vec<PathBuf>,
}

impl WalkError {
    pub fn path(&self) -> &Path {
        match self {
            WalkError::NotFound(p) => p,
            WalkError::Io { path, .. } => path,
        }
    }

    /// The reason, without the path (the failure carries the path).
    pub fn reason(&self) -> String {
        match self {
            WalkError::NotFound(_) => "does not exist".into(),
            WalkError::Io { source, .. } => source.to_string(),
        }
    }
}

/// The role files named by `paths`: files as given (whatever their type, so the
/// linter can report a FIFO or a symlink), directories as the `*.md` entries
/// directly inside (every level with `recursive`; symlinked directories are
/// never entered). Sorted, without duplicates: a file named twice (by
/// device and inode) is listed once.
pub fn collect_files(paths: &[PathBuf], recursive: bool) -> Collected {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut other_case = Vec::new();
    for path in paths {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                errors.push(WalkError::NotFound(path.clone()));
                continue;
            }
            Err(source) => {
                errors.push(WalkError::Io {
                    path: path.clone(),
                    source,
                });
                continue;
            }
        };
        // A directory named on the command line is entered even through a symlink:
        // the user chose it. Below it, links are never followed.
        let is_dir = meta.is_dir() || (meta.file_type().is_symlink() && path.is_dir());
        if is_dir {
            walk(path, recursive, &mut out, &mut other_case, &mut errors);
        } else {
            out.push(path.clone());
        }
    }
    out.sort();
    out.dedup();
    if paths.len() > 1 {
        // One directory entry named two ways (`a.md` and `./a.md`, a directory and a
        // file in it, `sub/../a.md`) is one file: the first name in order is kept.
        // Two entries of one inode (hard links) are two roles to every host: kept
        // (N24). (One walk never finds an entry twice: a single path needs no check.)
        let mut seen = std::collections::HashSet::new();
        out.retain(|p| entry_identity(p).is_none_or(|id| seen.insert(id)));
    }
    other_case.sort();
    Collected {
        files: out,
        errors,
        other_case,
    }
}

/// The directory entry `path` names: its directory's identity (device, inode; the
/// directory as the kernel resolves it) and its file name. `None` when it cannot be
/// looked at.
fn entry_identity(path: &Path) -> Option<((u64, u64), std::ffi::OsString)> {
    use std::os::unix::fs::MetadataExt;
    let name = path.file_name()?.to_os_string();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let m = std::fs::metadata(dir).ok()?;
    Some(((m.dev(), m.ino()), name))
}

/// Whether a file name has the extension `md` as `Path::extension` reads it: `.md`
/// after a non-empty stem (`.md` alone is a stem with no extension).
fn is_md_name(name: &[u8]) -> bool {
    name.len() > 3 && name.ends_with(b".md")
}

/// A name ending in `.md` in another case (`x.MD`, `x.Md`), after a non-empty stem.
fn is_other_case_md(name: &[u8]) -> bool {
    name.len() > 3 && !name.ends_with(b".md") && name[name.len() - 3..].eq_ignore_ascii_case(b".md")
}

fn walk(
    dir: &Path,
    recursive: bool,
    out: &mut Vec<PathBuf>,
    other_case: &mut Vec<PathBuf>,
    errors: &mut Vec<WalkError>,
) {
    let io = |source| WalkError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let listed = std::fs::read_dir(dir).and_then(|it| it.collect::<Result<Vec<_>, _>>());
    let entries = match listed {
        Ok(e) => e,
        Err(e) => {
            errors.push(io(e));
            return;
        }
    };
    // One name per entry, not one per comparison; the name also decides `*.md`
    // (what `Path::extension` says, without parsing the path back into components).
    let mut entries: Vec<(std::ffi::OsString, std::fs::DirEntry)> =
        entries.into_iter().map(|e| (e.file_name(), e)).collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, entry) in entries {
        let path = entry.path();
        let ft = match entry.file_type() {
            Ok(ft) => ft,
            Err(source) => {
                errors.push(WalkError::Io { path, source });
                continue;
            }
        };
        if ft.is_dir() {
            if recursive {
                walk(&path, recursive, out, other_case, errors);
            }
        } else if is_md_name(name.as_encoded_bytes()) {
            out.push(path);
        } else if is_other_case_md(name.as_encoded_bytes()) && ft.is_file() {
            other_case.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md_names_are_what_path_extension_says() {
        for name in [
            "a.md", ".md", "..md", ".x.md", "a.MD", "md", "a.md.txt", "a.mdx", "x.", "a..md",
        ] {
            assert_eq!(
                is_md_name(name.as_bytes()),
                Path::new(name).extension().is_some_and(|e| e == "md"),
                "{name}"
            );
        }
    }
}
