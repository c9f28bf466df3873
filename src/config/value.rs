//! The values a configuration holds and where each came from: [`Origin`],
//! [`Val`], the errors ([`ConfigError`]), and the compiled globs of `paths`,
//! `exclude` and `[[overrides]]` (ruff_workspace's `settings` line).

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

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
    matcher: GlobMatcher,
    /// The same pattern as a directory: `p/**`.
    under: GlobMatcher,
}

impl Glob {
    /// Compile `pattern` the gitignore way: a pattern without a `/` (a trailing
    /// one aside) matches at any depth, a leading `/` anchors it to `base`, a
    /// trailing `/` means a directory, and a pattern that names a directory
    /// matches everything under it. `*` never crosses a `/`; `**` does.
    pub fn new(pattern: &str, base: &Path) -> Result<Glob, globset::Error> {
        let [file, under] = Glob::compiled(pattern)?;
        Ok(Glob {
            pattern: pattern.to_string(),
            base: base.to_path_buf(),
            matcher: file.compile_matcher(),
            under: under.compile_matcher(),
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

    /// Whether `path` (absolute) matches.
    pub fn matches(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.base) else {
            return false;
        };
        self.matcher.is_match(rel) || self.under.is_match(rel)
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

/// The `files` globs of a layer's `[[overrides]]`, compiled once into one
/// matcher per base directory (one for every layer pwk reads), so a file is
/// matched against all the overrides at once: 2,000 overrides cost one
/// `GlobSet` match per file, not 2,000 glob matches.
#[derive(Debug, Clone, Default)]
pub struct OverrideMatcher {
    /// (base directory, every glob of the overrides with that base, the index of
    /// the override each glob belongs to).
    sets: Vec<(PathBuf, GlobSet, Vec<usize>)>,
}

impl OverrideMatcher {
    pub fn new(overrides: &[Override]) -> Result<OverrideMatcher, globset::Error> {
        let mut groups: Vec<(PathBuf, GlobSetBuilder, Vec<usize>)> = Vec::new();
        for (i, o) in overrides.iter().enumerate() {
            for g in &o.files {
                let group = match groups.iter().position(|(b, _, _)| *b == g.base) {
                    Some(at) => &mut groups[at],
                    None => {
                        groups.push((g.base.clone(), GlobSetBuilder::new(), Vec::new()));
                        groups.last_mut().expect("just pushed")
                    }
                };
                for glob in Glob::compiled(&g.pattern)? {
                    group.1.add(glob);
                    group.2.push(i);
                }
            }
        }
        let sets = groups
            .into_iter()
            .map(|(base, builder, owner)| Ok((base, builder.build()?, owner)))
            .collect::<Result<_, globset::Error>>()?;
        Ok(OverrideMatcher { sets })
    }

    /// The indices of the overrides whose `files` match `path` (absolute), in
    /// order, each once.
    pub fn matching(&self, path: &Path) -> Vec<usize> {
        let mut out = Vec::new();
        for (base, set, owner) in &self.sets {
            let Ok(rel) = path.strip_prefix(base) else {
                continue;
            };
            out.extend(set.matches(rel).into_iter().map(|g| owner[g]));
        }
        out.sort_unstable();
        out.dedup();
        out
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
