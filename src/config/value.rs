//! The values a configuration holds and where each came from: [`Origin`],
//! [`Val`], the errors ([`ConfigError`]), and the compiled globs of `paths`,
//! `exclude` and `[[overrides]]` (ruff_workspace's `settings` line).

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use super::GlobIndex;

use crate::host::HostChoice;
use crate::lint::RuleLevel;

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Default,
    /// A command-line flag (`--host`).
    Flag(&'static str),
    /// A place in a configuration file.
    File {
        path: PathBuf,
        line: usize,
        column: usize,
    },
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::Flag(flag) => write!(f, "flag {flag}"),
            Origin::File { path, line, column } => {
                write!(f, "{}:{line}:{column}", path.display())
            }
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Val<T> {
    pub value: T,
    pub origin: Origin,
}

impl<T> Val<T> {
    /// The value made into another, from the same place.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Val<U> {
        Val {
            value: f(self.value),
            origin: self.origin,
        }
    }
}

/// Why a configuration could not be used (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}:{line}:{column}: {message}{}", path.display(), help.as_ref().map(|h| format!("\n  help: {h}")).unwrap_or_default())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        help: Option<String>,
    },
    #[error("cannot read `{}`: {why}", path.display())]
    Read { path: PathBuf, why: String },
    #[error("both `{}` and `{}` exist; keep one", .0.display(), .1.display())]
    Both(PathBuf, PathBuf),
}

impl ConfigError {
    /// The same error with its paths shown relative to `cwd` when under it.
    pub fn relative_to(self, cwd: &Path) -> ConfigError {
        let rel = |p: PathBuf| crate::display::display_path(cwd, &p).into();
        match self {
            ConfigError::Invalid {
                path,
                line,
                column,
                message,
                help,
            } => ConfigError::Invalid {
                path: rel(path),
                line,
                column,
                message,
                help,
            },
            ConfigError::Read { path, why } => ConfigError::Read {
                path: rel(path),
                why,
            },
            ConfigError::Both(a, b) => ConfigError::Both(rel(a), rel(b)),
        }
    }
}

/// A gitignore-style glob, relative to the directory of the file that holds it.
#[derive(Debug, Clone)]
pub struct Glob {
    pub pattern: String,
    base: PathBuf,
    /// The path itself, and the same pattern as a directory: `p/**`.
    compiled: [globset::Glob; 2],
    /// Their matchers, compiled the first time this glob is matched on its own.
    matchers: std::sync::OnceLock<[GlobMatcher; 2]>,
}

impl Glob {
    /// Compile `pattern` the gitignore way: a pattern without a `/` (a trailing
    /// one aside) matches at any depth, a leading `/` anchors it to `base`, a
    /// trailing `/` means a directory, and a pattern that names a directory
    /// matches everything under it. `*` never crosses a `/`; `**` does.
    pub fn new(pattern: &str, base: &Path) -> Result<Glob, globset::Error> {
        Ok(Glob {
            pattern: pattern.to_string(),
            base: base.to_path_buf(),
            compiled: Glob::compiled(pattern)?,
            matchers: std::sync::OnceLock::new(),
        })
    }

    /// The two globs `pattern` stands for: the path itself, and everything under
    /// it as a directory (`p/**`).
    fn compiled(pattern: &str) -> Result<[globset::Glob; 2], globset::Error> {
        let mut p = pattern.trim().to_string();
        if let Some(rest) = p.strip_suffix('/') {
            p = rest.to_string();
        }
        p = match p.strip_prefix('/') {
            Some(anchored) => anchored.to_string(),
            None if !p.contains('/') => format!("**/{p}"),
            None => p,
        };
        let build = |p: &str| GlobBuilder::new(p).literal_separator(true).build();
        Ok([build(&p)?, build(&format!("{p}/**"))?])
    }

    /// Whether `path` (absolute) matches. One glob on its own; a list is matched
    /// through its [`GlobIndex`] ([`Globs::matches`]).
    pub fn matches(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.base) else {
            return false;
        };
        let [file, under] = self
            .matchers
            .get_or_init(|| self.compiled.clone().map(|g| g.compile_matcher()));
        file.is_match(rel) || under.is_match(rel)
    }
}

/// A list of globs (`paths`, `exclude`) with its index: a path is matched against
/// the few globs that could match it, not each of them ([`GlobIndex`]).
#[derive(Debug, Clone, Default)]
pub struct Globs {
    list: Vec<Glob>,
    index: GlobIndex,
}

impl Globs {
    pub fn new(list: Vec<Glob>) -> Globs {
        let mut index = GlobIndex::default();
        for (i, g) in list.iter().enumerate() {
            for c in &g.compiled {
                index.push(&g.base, c.clone(), i);
            }
        }
        index.finish();
        Globs { list, index }
    }

    /// Whether any glob matches `path` (absolute).
    pub fn matches(&self, path: &Path) -> bool {
        self.index.is_match(path)
    }
}

impl std::ops::Deref for Globs {
    type Target = [Glob];
    fn deref(&self) -> &[Glob] {
        &self.list
    }
}

/// One `[[overrides]]` entry.
#[derive(Debug, Clone)]
pub struct Override {
    pub files: Vec<Glob>,
    pub host: Option<Val<HostChoice>>,
    pub rules: Vec<(String, Val<RuleLevel>)>,
    pub origin: Origin,
}

/// The `files` globs of a layer's `[[overrides]]` in one [`GlobIndex`] (one group
/// for every base directory), so a file is matched against the few globs that
/// could match it: 2,000 overrides cost a few lookups per file, not 2,000 glob
/// matches.
#[derive(Debug, Clone, Default)]
pub struct OverrideMatcher {
    index: GlobIndex,
}

impl OverrideMatcher {
    pub fn new(overrides: &[Override]) -> OverrideMatcher {
        let mut index = GlobIndex::default();
        for (i, o) in overrides.iter().enumerate() {
            for g in &o.files {
                for c in &g.compiled {
                    index.push(&g.base, c.clone(), i);
                }
            }
        }
        index.finish();
        OverrideMatcher { index }
    }

    /// The indices of the overrides whose `files` match `path` (absolute), in
    /// order, each once.
    pub fn matching(&self, path: &Path) -> Vec<usize> {
        self.index.matching(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_are_gitignore_style() {
        let base = Path::new("/p");
        let g = |pat: &str, path: &str| Glob::new(pat, base).unwrap().matches(Path::new(path));
        assert!(g("draft-*.md", "/p/a/b/draft-x.md"));
        assert!(!g("/draft-*.md", "/p/a/draft-x.md"));
        assert!(g("/draft-*.md", "/p/draft-x.md"));
        assert!(g("legacy/", "/p/legacy/x/y.md"));
        assert!(g("roles/*.md", "/p/roles/a.md"));
        assert!(!g("roles/*.md", "/p/roles/sub/a.md"));
        assert!(g("roles/**/*.md", "/p/roles/sub/a.md"));
        assert!(!g("*.md", "/elsewhere/a.md"));
    }
}
