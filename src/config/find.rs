//! Which configuration governs a path: the walk up to the project root, and
//! the per-run cache of configurations (ruff_workspace's `resolver` line).

use std::path::{Path, PathBuf};

use super::{Config, ConfigError, FILE_NAMES, ResolvedConfig};

/// The configuration file for `path` (a file or directory): the first
/// `pwk.toml` or `.pwk.toml` from its directory up to the project root
/// (`root_of` the directory: [`Configs::root_of`]).
pub(super) fn find(
    path: &Path,
    root_of: impl FnOnce(&Path) -> PathBuf,
) -> Result<Option<PathBuf>, ConfigError> {
    let abs = crate::fs::absolute(path);
    let start = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent().map(Path::to_path_buf).unwrap_or(abs.clone())
    };
    let root = root_of(&start);
    for dir in start.ancestors() {
        // Never a configuration from a directory another user owns (as git's
        // `safe.directory`): the walk ends there.
        if !crate::fs::trusted_dir(dir) {
            break;
        }
        let found: Vec<PathBuf> = FILE_NAMES
            .iter()
            .map(|n| dir.join(n))
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect();
        match found.as_slice() {
            [] => {}
            // Another user's file in a directory others can write is not used, and
            // the walk ends (the one trust rule, `crate::fs::trust`).
            [one] if crate::fs::trust::trust_entry(one).is_err() => break,
            [one] => return Ok(Some(one.clone())),
            [a, b, ..] => return Err(ConfigError::Both(a.clone(), b.clone())),
        }
        if dir == root {
            break;
        }
    }
    Ok(None)
}

/// The configurations of one run, each file read once: the lint command asks
/// for the configuration of every file it lints.
#[derive(Debug, Default)]
pub(crate) struct Configs {
    home: Option<PathBuf>,
    by_dir: std::collections::HashMap<PathBuf, Option<PathBuf>>,
    /// The last file's directory as it was given, and its answer: the files of one
    /// directory cost one lookup, not an absolute path and a stat each.
    last_dir: Option<(PathBuf, Option<PathBuf>)>,
    loaded: std::collections::HashMap<PathBuf, Config>,
    /// `--config FILE`: the one configuration of every path.
    fixed: Option<PathBuf>,
    /// The project root above each directory asked ([`Configs::root_of`]).
    roots: std::collections::HashMap<PathBuf, crate::fs::root::RootFound>,
}

impl Configs {
    pub(crate) fn new(home: Option<&Path>) -> Configs {
        Configs {
            home: home.map(Path::to_path_buf),
            ..Configs::default()
        }
    }

    /// Every path governed by the configuration file `file` (`--config`).
    pub(crate) fn with_file(mut self, file: PathBuf) -> Configs {
        self.fixed = Some(file);
        self
    }

    /// The configuration that governs `path` (a file or a directory), if any.
    pub(crate) fn for_path(&mut self, path: &Path) -> Result<Option<&Config>, ConfigError> {
        let abs = crate::fs::absolute(path);
        let dir = if abs.is_dir() {
            abs.clone()
        } else {
            abs.parent().map(Path::to_path_buf).unwrap_or(abs.clone())
        };
        let file = self.lookup_dir(dir)?;
        self.load(file)
    }

    /// The configuration file governing the absolute directory `dir`, found once.
    fn lookup_dir(&mut self, dir: PathBuf) -> Result<Option<PathBuf>, ConfigError> {
        if let Some(f) = &self.fixed {
            return Ok(Some(f.clone()));
        }
        if let Some(f) = self.by_dir.get(&dir) {
            return Ok(f.clone());
        }
        let f = find(&dir, |start| self.root_of(start).root)?;
        self.by_dir.insert(dir, f.clone());
        Ok(f)
    }

    /// The project root above the absolute directory `dir` by the one root rule
    /// ([`crate::fs::root::find_root`]), each directory walked once a run: the
    /// configuration lookup and `--host auto`'s detection both ask it for the
    /// directory of the files they are given (a walk up to `/` is a dozen `stat`s).
    pub(crate) fn root_of(&mut self, dir: &Path) -> crate::fs::root::RootFound {
        if let Some(found) = self.roots.get(dir) {
            return found.clone();
        }
        let roots = &self.roots;
        let found =
            crate::fs::root::find_root(dir, self.home.as_deref(), |d| roots.get(d).cloned());
        self.roots.insert(dir.to_path_buf(), found.clone());
        found
    }

    /// [`Configs::for_path`] for a path known to be a file (one a walk found).
    pub(crate) fn for_file(&mut self, file: &Path) -> Result<Option<&Config>, ConfigError> {
        let dir = crate::fs::dir_of(file);
        // A walk yields a directory's files together: the last answer is the usual one
        // (compared as bytes: hashing a path walks its components).
        if let Some((last, found)) = &self.last_dir
            && last.as_os_str() == dir.as_os_str()
        {
            let found = found.clone();
            return self.load(found);
        }
        let found = self.lookup_dir(crate::fs::absolute(dir))?;
        self.last_dir = Some((dir.to_path_buf(), found.clone()));
        self.load(found)
    }

    fn load(&mut self, file: Option<PathBuf>) -> Result<Option<&Config>, ConfigError> {
        let Some(file) = file else { return Ok(None) };
        if !self.loaded.contains_key(&file) {
            let c = Config::load(&file)?;
            self.loaded.insert(file.clone(), c);
        }
        Ok(self.loaded.get(&file))
    }

    /// The configuration resolved for the file at `path`.
    pub(crate) fn resolve(&mut self, path: &Path) -> Result<ResolvedConfig, ConfigError> {
        let abs = crate::fs::absolute(path);
        Ok(match self.for_path(path)? {
            Some(c) => c.resolve(&abs),
            None => ResolvedConfig::default_for(),
        })
    }

    /// [`Configs::resolve`] for a path known to be a file.
    pub(crate) fn resolve_file(&mut self, file: &Path) -> Result<ResolvedConfig, ConfigError> {
        Ok(match self.for_file(file)? {
            Some(c) => c.resolve(&crate::fs::absolute(file)),
            None => ResolvedConfig::default_for(),
        })
    }
}

impl Config {
    /// The `*.md` files that `paths` selects, under the directory of the file
    /// that sets it (its globs are relative to that file; symlinked directories,
    /// `.git` and `node_modules` are not entered). `None` when the configuration
    /// sets no `paths`.
    pub fn path_files(&self) -> Option<Vec<PathBuf>> {
        let layer = self.layers.iter().rev().find(|l| l.paths.is_some())?;
        let globs = &layer.paths.as_ref()?.value;
        let dir = layer.dir.clone();
        let mut out = Vec::new();
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let Ok(ft) = e.file_type() else { continue };
                let name = e.file_name();
                if ft.is_dir() {
                    if name != ".git" && name != "node_modules" {
                        stack.push(p);
                    }
                } else if p.extension().is_some_and(|x| x == "md") && globs.matches(&p) {
                    out.push(p);
                }
            }
        }
        out.sort();
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walk that stops at a directory another walk started from gives what a
    /// walk of its own gives, whichever walk came first: for every placement of
    /// markers on a five-level path, with one level (or none) another user's, every
    /// home on it (or none), and every pair of starting directories. The tests run
    /// as root (`chown`); "another user" is uid 54321.
    #[test]
    fn a_walk_cut_short_by_an_earlier_one_ends_where_its_own_would() {
        let levels = ["a", "b", "c", "d", "e"];
        let cases = (0u32..(1 << levels.len()))
            .flat_map(|m| (0..=levels.len()).map(move |other| (m, other)));
        for (markers, other) in cases {
            let t = tempfile::tempdir().unwrap();
            let base = t.path().canonicalize().unwrap();
            let dirs: Vec<PathBuf> = (1..=levels.len())
                .map(|n| base.join(levels[..n].join("/")))
                .collect();
            std::fs::create_dir_all(dirs.last().unwrap()).unwrap();
            for (i, d) in dirs.iter().enumerate() {
                if markers & (1 << i) != 0 {
                    let m = [".git", ".agents", ".pi"][i % 3];
                    std::fs::create_dir(d.join(m)).unwrap();
                }
            }
            if let Some(d) = dirs.get(other) {
                rustix::fs::chown(d, Some(rustix::process::Uid::from_raw(54321)), None)
                    .expect("the tests run as root (chown)");
            }
            let homes = std::iter::once(None).chain(dirs.iter().map(Some));
            for home in homes {
                let fresh =
                    |d: &Path| crate::fs::root::find_root(d, home.map(PathBuf::as_path), |_| None);
                for first in &dirs {
                    for second in &dirs {
                        let mut c = Configs::new(home.map(PathBuf::as_path));
                        assert_eq!(c.root_of(first), fresh(first));
                        assert_eq!(
                            c.root_of(second),
                            fresh(second),
                            "markers {markers:05b}, home {home:?}, {first:?} then {second:?}"
                        );
                    }
                }
            }
        }
    }
}
