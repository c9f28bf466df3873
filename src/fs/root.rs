//! The one project-root rule, for every front end and for the configuration
//! lookup: the nearest directory with a marker (`.git`, `.agents`, `.pi`), not
//! above `HOME`, not through a directory another user owns.

use std::path::{Path, PathBuf};

/// The marker that makes `dir` a project root, if any.
pub(crate) fn root_marker_of(dir: &Path) -> Option<&'static str> {
    marker_in(dir).map(|(m, _)| m)
}

/// The marker in `dir` and what `symlink_metadata` says of it (the trust rule
/// reads its owner).
fn marker_in(dir: &Path) -> Option<(&'static str, std::fs::Metadata)> {
    PROJECT_MARKERS
        .into_iter()
        .find_map(|m| Some((m, std::fs::symlink_metadata(dir.join(m)).ok()?)))
}

/// What makes a directory a project root.
const PROJECT_MARKERS: [&str; 3] = [".git", ".agents", ".pi"];

/// The names a configuration file may have, in the order they are looked for
/// (`crate::config::FILE_NAMES`): the root walk says when it leaves one unused.
pub(crate) const CONFIG_FILE_NAMES: [&str; 2] = ["pwk.toml", ".pwk.toml"];

/// Where the root walk ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RootFound {
    pub root: PathBuf,
    /// The marker that made it the root (`.git`, `.agents`, `.pi`).
    pub marker: Option<&'static str>,
    /// The directory owned by another user where the walk stopped.
    pub stopped_at: Option<PathBuf>,
    /// What the walk left unused because another user controls it (a marker, a
    /// configuration, the directory holding them): reported by every command.
    pub ignored: Option<super::trust::Untrusted>,
}

/// The one project-root rule: the nearest directory, from `cwd` upwards, that
/// contains `.git`, `.agents` or `.pi`. The walk stops below `home` (whose `.pi/`
/// is pi's own configuration, not a project) unless `cwd` is `home` itself, and
/// at what another user controls ([`super::trust::trust_dir`], [`super::trust::trust_entry`]; as git's
/// `safe.directory`) unless `PWK_SAFE_DIRECTORIES` lists it. Without a marker the
/// root is `cwd`.
///
/// `known` is what a walk from a directory above `cwd` found, if one was made:
/// reaching it, this walk is done (`Configs::root_of` walks each directory once a
/// run, whichever walk reaches it first).
pub(crate) fn find_root(
    cwd: &Path,
    home: Option<&Path>,
    known: impl Fn(&Path) -> Option<RootFound>,
) -> RootFound {
    let stop = |dir: &Path, ignored: Option<super::trust::Untrusted>| RootFound {
        root: cwd.to_path_buf(),
        marker: None,
        stopped_at: Some(dir.to_path_buf()),
        ignored,
    };
    for dir in cwd.ancestors() {
        if home.is_some_and(|h| h == dir) && dir != cwd {
            break;
        }
        if dir != cwd
            && let Some(found) = known(dir)
        {
            // The same end; without a marker the root is this walk's start.
            return match found.marker {
                Some(_) => found,
                None => RootFound {
                    root: cwd.to_path_buf(),
                    ..found
                },
            };
        }
        if let Err(u) = super::trust::trust_dir(dir) {
            // Said only when it holds something pwk would have used.
            return stop(dir, holds_project_files(dir).then_some(u));
        }
        if let Some((marker, meta)) = marker_in(dir) {
            if let Err(u) = super::trust::trust_entry_seen(&dir.join(marker), &meta) {
                return stop(dir, Some(u));
            }
            return RootFound {
                root: dir.to_path_buf(),
                marker: Some(marker),
                stopped_at: None,
                ignored: None,
            };
        }
    }
    RootFound {
        root: cwd.to_path_buf(),
        marker: None,
        stopped_at: None,
        ignored: None,
    }
}

/// Whether `dir` holds a project marker or a configuration file.
fn holds_project_files(dir: &Path) -> bool {
    root_marker_of(dir).is_some()
        || CONFIG_FILE_NAMES
            .iter()
            .any(|n| std::fs::symlink_metadata(dir.join(n)).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_nearest_marker_but_never_home() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        std::fs::create_dir_all(t.join("home/.pi/agent")).unwrap();
        std::fs::create_dir_all(t.join("home/work/sub")).unwrap();
        let RootFound { root, marker, .. } =
            find_root(&t.join("home/work/sub"), Some(&t.join("home")), |_| None);
        assert_eq!(root, t.join("home/work/sub"));
        assert_eq!(marker, None);
        std::fs::create_dir_all(t.join("home/work/.git")).unwrap();
        let RootFound { root, marker, .. } =
            find_root(&t.join("home/work/sub"), Some(&t.join("home")), |_| None);
        assert_eq!(root, t.join("home/work"));
        assert_eq!(marker, Some(".git"));
        let root = find_root(&t.join("home"), Some(&t.join("home")), |_| None).root;
        assert_eq!(root, t.join("home"));
    }
}
