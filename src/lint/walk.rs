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

/// `.agents/agents/` and `.pi/agents/` under `cwd`, whichever exist.
pub fn default_dirs(cwd: &Path) -> Vec<PathBuf> {
    [".agents/agents", ".pi/agents"]
        .into_iter()
        .map(PathBuf::from)
        .filter(|rel| cwd.join(rel).is_dir())
        .collect()
}

/// With no paths: the pi directories ([`default_dirs`]); when `--host` names a host
/// with its own directories (claude-code: `.claude/agents/`), those; under `--host
/// auto` with no pi directory, the first other host's directories that exist.
pub fn default_dirs_for(cwd: &Path, host: &crate::host::HostChoice) -> Vec<PathBuf> {
    use crate::host::{ALL, HostChoice};
    let own = |h: crate::host::HostId| -> Vec<PathBuf> {
        h.project_dirs()
            .map(PathBuf::from)
            .filter(|rel| cwd.join(rel).is_dir())
            .collect()
    };
    match host {
        HostChoice::Spec(s) if !s.host.is_pi() => own(s.host),
        HostChoice::Spec(_) => default_dirs(cwd),
        HostChoice::Auto => {
            let pi = default_dirs(cwd);
            if !pi.is_empty() {
                return pi;
            }
            ALL.into_iter()
                .filter(|h| !h.is_pi())
                .map(own)
                .find(|d| !d.is_empty())
                .unwrap_or_default()
        }
    }
}

/// The role files named by `paths`: files as given (whatever their type, so the
/// linter can report a FIFO or a symlink), directories as the `*.md` entries
/// directly inside (every level with `recursive`; symlinked directories are
/// never entered). Sorted, without duplicates.
pub fn collect_files(paths: &[PathBuf], recursive: bool) -> Result<Vec<PathBuf>, WalkError> {
    let mut out = Vec::new();
    for path in paths {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(WalkError::NotFound(path.clone()));
            }
            Err(source) => {
                return Err(WalkError::Io {
                    path: path.clone(),
                    source,
                });
            }
        };
        // A directory named on the command line is entered even through a symlink:
        // the user chose it. Below it, links are never followed.
        let is_dir = meta.is_dir() || (meta.file_type().is_symlink() && path.is_dir());
        if is_dir {
            walk(path, recursive, &mut out)?;
        } else {
            out.push(path.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<(), WalkError> {
    let io = |source| WalkError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(io)?
        .collect::<Result<_, _>>()
        .map_err(io)?;
    // One name per entry, not one per comparison.
    entries.sort_by_cached_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let ft = entry.file_type().map_err(|source| WalkError::Io {
            path: path.clone(),
            source,
        })?;
        if ft.is_dir() {
            if recursive {
                walk(&path, recursive, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    Ok(())
}
