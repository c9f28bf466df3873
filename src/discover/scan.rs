//! Listing the `*.md` files of an agents directory, in sorted order.
//!
//! Only names are collected here; every file is later opened through
//! `fs::read::read_role_file`, which refuses symlinks and non-regular files
//! without blocking. Recursion never follows a symlinked directory, is bounded in
//! depth, and skips the sub-directories the host's profile says its scan leaves out
//! (`skip_dirs`: nicobailon's `skills/` at the top of a `.agents/` tree).

use std::path::{Path, PathBuf};

/// How deep a recursive scan goes below its directory.
const MAX_DEPTH: usize = 12;
/// At most this many `*.md` names per directory tree.
const MAX_FILES: usize = 10_000;

/// What one directory holds.
#[derive(Debug, Default)]
pub(super) struct Listing {
    pub exists: bool,
    /// Why (part of) it could not be listed.
    pub error: Option<String>,
    /// `*.md` entries (any file type), sorted by path.
    pub files: Vec<PathBuf>,
}

pub(super) fn list_md_files(dir: &Path, recursive: bool, skip_dirs: &[String]) -> Listing {
    let mut listing = Listing::default();
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return listing,
        Err(e) => {
            listing.exists = true;
            listing.error = Some(format!("cannot be read: {e}"));
            return listing;
        }
        Ok(m) if !m.is_dir() => {
            listing.exists = true;
            listing.error = Some("is not a directory".to_string());
            return listing;
        }
        Ok(_) => listing.exists = true,
    }
    walk(dir, dir, recursive, skip_dirs, 0, &mut listing);
    listing.files.sort();
    listing
}

fn walk(
    top: &Path,
    dir: &Path,
    recursive: bool,
    skip_dirs: &[String],
    depth: usize,
    out: &mut Listing,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            out.error
                .get_or_insert_with(|| format!("{} cannot be read: {e}", dir.display()));
            return;
        }
    };
    let mut names: Vec<(std::ffi::OsString, Option<std::fs::FileType>)> = Vec::new();
    for entry in entries {
        match entry {
            Ok(e) => names.push((e.file_name(), e.file_type().ok())),
            Err(e) => {
                out.error
                    .get_or_insert_with(|| format!("{} cannot be read: {e}", dir.display()));
            }
        }
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, file_type) in names {
        if out.files.len() >= MAX_FILES {
            out.error.get_or_insert_with(|| {
                format!("more than {MAX_FILES} role files; the rest were not read")
            });
            return;
        }
        let path = dir.join(&name);
        // `file_type` comes from the directory entry and does not follow symlinks.
        let is_dir = file_type.is_some_and(|t| t.is_dir());
        if is_dir && recursive {
            if dir == top && skip_dirs.iter().any(|s| name.to_str() == Some(s.as_str())) {
                continue;
            }
            if depth + 1 > MAX_DEPTH {
                out.error.get_or_insert_with(|| {
                    format!(
                        "{} is nested more than {MAX_DEPTH} levels deep; not searched",
                        path.display()
                    )
                });
                continue;
            }
            walk(top, &path, recursive, skip_dirs, depth + 1, out);
            continue;
        }
        if Path::new(&name).extension().is_some_and(|e| e == "md") {
            out.files.push(path);
        }
    }
}
