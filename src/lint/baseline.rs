//! `pwk lint --baseline FILE`: adopt pwk on a repository that already has
//! findings. The baseline lists the known findings by path, rule and the text of
//! the flagged key or value (not by line, so an edit above a finding does not
//! bring it back); a run reports only findings not in it. `--write-baseline`
//! creates or refreshes it, sorted, so a change to it reads well in a diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::suppress::{Suppressed, SuppressionKind};
use super::{Diagnostic, LintReport};

/// The file's format version.
pub(crate) const VERSION: u32 = 1;

/// One known finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    /// Relative to the baseline file's directory, `/`-separated.
    pub path: String,
    pub rule: String,
    /// The flagged text (the key, value or character the finding points at).
    pub text: String,
}

/// A baseline file's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Baseline {
    pub version: u32,
    /// Sorted; a finding that occurs twice is listed twice.
    pub findings: Vec<Entry>,
}

/// Why a baseline could not be used (exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum BaselineError {
    #[error("cannot read the baseline `{}`: {why}", path.display())]
    Read { path: PathBuf, why: String },
    #[error("`{}` is not a pwk baseline: {why}; recreate it with `pwk lint --write-baseline --baseline {}`", path.display(), path.display())]
    Invalid { path: PathBuf, why: String },
}

impl Baseline {
    /// Read a baseline file (at most [`crate::fs::Kind::Baseline`]'s cap, the
    /// cap `--write-baseline` writes under).
    pub(crate) fn read(path: &Path) -> Result<Baseline, BaselineError> {
        let bytes = crate::fs::read::read(path, crate::fs::Kind::Baseline).map_err(|e| {
            BaselineError::Read {
                path: path.to_path_buf(),
                why: format!("it {e}"),
            }
        })?;
        Baseline::parse(&bytes, path)
    }

    /// A baseline file's bytes, read from `path`.
    pub(crate) fn parse(bytes: &[u8], path: &Path) -> Result<Baseline, BaselineError> {
        // The one strict JSON reader: a key twice is refused with both positions.
        let b: Baseline =
            crate::json::from_slice_strict(bytes).map_err(|e| BaselineError::Invalid {
                path: path.to_path_buf(),
                why: match &e {
                    crate::json::JsonError::Shape { .. } => e.to_string(),
                    _ => format!("{}: {e}", e.pos()),
                },
            })?;
        if b.version != VERSION {
            return Err(BaselineError::Invalid {
                path: path.to_path_buf(),
                why: format!("version {} (this pwk writes version {VERSION})", b.version),
            });
        }
        Ok(b)
    }

    /// The baseline of every finding in `report` (paths relative to `dir`, the
    /// baseline file's directory, as [`crate::fs::canonical_dir_path`] gives it).
    pub(crate) fn of(report: &LintReport, dir: &Path) -> Baseline {
        let mut rels = Relative::new(dir);
        let mut findings: Vec<Entry> = report
            .files
            .iter()
            .flat_map(|f| {
                let rel = rels.of(&f.path);
                let baselined = f
                    .suppressed
                    .iter()
                    .filter(|s| s.kind == SuppressionKind::Baseline)
                    .map(|s| &s.diagnostic);
                f.diagnostics
                    .iter()
                    .chain(baselined)
                    .map(move |d| entry(d, f.text.as_deref(), &rel))
            })
            .collect();
        findings.sort();
        Baseline {
            version: VERSION,
            findings,
        }
    }

    /// The file's text: pretty JSON, sorted, with a final newline.
    pub(crate) fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plain data serializes");
        s.push('\n');
        s
    }

    /// Move the findings of `report` that the baseline lists into each file's
    /// `suppressed` (kind [`SuppressionKind::Baseline`]). Each entry covers one
    /// finding. Returns how many entries matched nothing (fixed since).
    pub(crate) fn apply(&self, report: &mut LintReport, dir: &Path, shown: &str) -> usize {
        let mut left: BTreeMap<&Entry, usize> = BTreeMap::new();
        for e in &self.findings {
            *left.entry(e).or_default() += 1;
        }
        let mut rels = Relative::new(dir);
        for file in &mut report.files {
            let rel = rels.of(&file.path);
            let text = file.text.clone();
            let mut kept = Vec::with_capacity(file.diagnostics.len());
            for d in std::mem::take(&mut file.diagnostics) {
                let key = entry(&d, text.as_deref(), &rel);
                match left.get_mut(&key) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        file.suppressed.push(Suppressed {
                            diagnostic: d,
                            kind: SuppressionKind::Baseline,
                            reason: format!("in the baseline `{shown}`"),
                        });
                    }
                    _ => kept.push(d),
                }
            }
            file.diagnostics = kept;
        }
        left.values().sum()
    }
}

/// Files' paths relative to the baseline's directory, each file's directory
/// resolved once (`./a.md`, `sub/../a.md` and `a.md` are one entry).
struct Relative<'a> {
    dir: &'a Path,
    cwd: PathBuf,
    dirs: BTreeMap<PathBuf, PathBuf>,
}

impl<'a> Relative<'a> {
    fn new(dir: &'a Path) -> Relative<'a> {
        Relative {
            dir,
            cwd: std::env::current_dir().unwrap_or_default(),
            dirs: BTreeMap::new(),
        }
    }

    fn of(&mut self, path: &Path) -> String {
        let (parent, name) = match (path.parent(), path.file_name()) {
            (Some(p), Some(n)) => (p, n),
            _ => return relative(self.dir, path),
        };
        let cwd = &self.cwd;
        let resolved = self.dirs.entry(parent.to_path_buf()).or_insert_with(|| {
            crate::fs::canonical_dir_path(cwd, &parent.join("x"))
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default()
        });
        relative(self.dir, &resolved.join(name))
    }
}

/// The text a finding flags (the key, value or character it points at), trimmed:
/// what identifies it across edits elsewhere in the file (the baseline, SARIF's
/// fingerprints). Empty without the file's text.
pub(crate) fn flagged_text(d: &Diagnostic, text: Option<&str>) -> String {
    text.and_then(|t| t.get(d.span.clone()))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// A finding's baseline entry; `path` is its file's path relative to the baseline.
fn entry(d: &Diagnostic, text: Option<&str>, path: &str) -> Entry {
    Entry {
        path: path.to_string(),
        rule: d.rule.to_string(),
        text: flagged_text(d, text),
    }
}

/// `to` relative to the directory `from` (both absolute), `/`-separated, with
/// `..` where `to` is not below `from`.
fn relative(from: &Path, to: &Path) -> String {
    let a: Vec<_> = from.components().collect();
    let b: Vec<_> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        let r = |a: &str, b: &str| relative(Path::new(a), Path::new(b));
        assert_eq!(r("/p", "/p/.agents/agents/r.md"), ".agents/agents/r.md");
        assert_eq!(r("/p/ci", "/p/.agents/r.md"), "../.agents/r.md");
        assert_eq!(r("/p/a/b", "/q/r.md"), "../../../q/r.md");
    }
}
