//! Writing a converted file: where it goes, and the one symlink-proof writer.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Conversion;

/// Where converted files go.
#[derive(Debug, Clone)]
pub(crate) enum Destination {
    /// Into this directory (created when absent).
    Dir(PathBuf),
    /// Over the source file (same directory, same name).
    InPlace,
}

/// What writing one file did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Written {
    Created,
    Replaced,
    Unchanged,
    /// A different file is there and `--force` was not given.
    Kept,
    /// Not written (`--dry-run`).
    DryRun,
}

/// One file's write, with its backup when `--force` replaced a file.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WriteResult {
    pub path: PathBuf,
    pub written: Written,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<PathBuf>,
}

/// Why a converted file could not be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WriteError {
    #[error("cannot create `{}`: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Safe(#[from] crate::fs::write::SafeWriteError),
    #[error("`{}`: {reason}; pwk does not replace it", path.display())]
    Refused { path: PathBuf, reason: String },
}

/// Where `c` goes for `dest`.
pub(crate) fn target_path(c: &Conversion, dest: &Destination) -> PathBuf {
    match dest {
        Destination::Dir(d) => d.join(&c.file_name),
        Destination::InPlace => c.source.clone(),
    }
}

/// Write `c` through the one writer ([`crate::fs`]): the target's directory is
/// opened from its trust anchor with no link followed below it (a symlinked
/// `.pi` or `--out` directory is refused; a missing `--out` is created), never
/// through a link, never over a different file unless `force` (then the old file
/// is kept as `<name>.bak`, as `pwk setup --force` does).
pub(crate) fn write(
    c: &Conversion,
    dest: &Destination,
    anchors: &crate::fs::Anchors,
    force: bool,
    dry_run: bool,
) -> Result<WriteResult, WriteError> {
    use crate::fs::{Inspect, Kind, Replace, WriteOptions};
    let path = target_path(c, dest);
    if dry_run {
        return Ok(WriteResult {
            path,
            written: Written::DryRun,
            backup: None,
        });
    }
    let hooks = &mut crate::fs::NoHooks;
    let create = matches!(dest, Destination::Dir(_));
    let by = crate::fs::NamedBy::User(match dest {
        Destination::Dir(_) => "--out".into(),
        Destination::InPlace => "the paths to convert".into(),
    });
    let Some((dir, name)) = anchors.open_parent(&path, &by, create, hooks)? else {
        return Err(WriteError::CreateDir {
            path: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            source: std::io::ErrorKind::NotFound.into(),
        });
    };
    let (replace, backup) = match dir.inspect(&name, Kind::Role, hooks)? {
        Inspect::Absent => (Replace::Fresh, None),
        Inspect::Refused(r) => {
            return Err(WriteError::Refused {
                path,
                reason: r.reason(),
            });
        }
        Inspect::File(ex) if ex.content == c.text.as_bytes() => {
            return Ok(WriteResult {
                path,
                written: Written::Unchanged,
                backup: None,
            });
        }
        Inspect::File(_) if !force && !matches!(dest, Destination::InPlace) => {
            return Ok(WriteResult {
                path,
                written: Written::Kept,
                backup: None,
            });
        }
        // `--force`, or `--in-place` (the user asked to replace the source): the
        // old file is kept next to it first.
        Inspect::File(ex) => {
            let backup = dir.write_backup(&name, &ex, hooks)?;
            (Replace::Existing(ex.expected()), Some(backup))
        }
    };
    let written = match replace {
        Replace::Fresh => Written::Created,
        Replace::Existing(_) => Written::Replaced,
    };
    dir.write_file(
        &name,
        c.text.as_bytes(),
        replace,
        WriteOptions::default(),
        hooks,
    )?;
    Ok(WriteResult {
        path,
        written,
        backup,
    })
}
