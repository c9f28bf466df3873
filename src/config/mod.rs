//! `pwk.toml` (or `.pwk.toml`): the project's lint configuration.
//!
//! The file is found by walking up from the linted path to the project root
//! ([`crate::fs::root::find_root`], the root every command uses). Keys:
//! `host`, `paths`, `exclude`, `[rules]`, `[[overrides]]` (with `files` and their
//! own `host` / `rules`), `extend`, `baseline`. The TOML is read with `toml_edit`, which keeps
//! the span of every key and value, so an unknown key or a bad value is an error
//! at `file:line:col`, and every effective value knows where it came from
//! ([`Origin`]).
//!
//! Precedence, highest first: a command-line flag, an `[[overrides]]` entry that
//! matches the file (the extending file's before the extended one's), the file,
//! the file it `extend`s (and so on), the default.

mod find;
mod globs;
mod read;
pub(crate) mod schema;
mod value;

pub(crate) use find::Configs;
pub(crate) use globs::GlobIndex;
pub(crate) use value::{ConfigError, Glob, Globs, Origin, Override, OverrideMatcher, Val};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::host::HostChoice;
use crate::lint::{FileSettings, RuleLevel};

/// The names a configuration file may have, in the order they are looked for.
pub(crate) const FILE_NAMES: [&str; 2] = crate::fs::root::CONFIG_FILE_NAMES;

/// One configuration file, as read.
#[derive(Debug, Clone)]
pub struct Layer {
    pub path: PathBuf,
    /// The directory its globs, `baseline` and `extend` are relative to: the
    /// file's, named as the linted files are (a link on the way resolved).
    pub dir: PathBuf,
    pub host: Option<Val<HostChoice>>,
    pub paths: Option<Val<Globs>>,
    pub exclude: Option<Val<Globs>>,
    pub rules: Vec<(String, Val<RuleLevel>)>,
    pub overrides: Vec<Override>,
    /// `baseline = "path"`, relative to this file's directory (made absolute).
    pub baseline: Option<Val<PathBuf>>,
    /// `overrides`' globs, compiled into one matcher.
    pub matcher: OverrideMatcher,
    /// `[delegate] budget = { max_tokens, max_cost_usd, max_wall_seconds }`: the
    /// spend limits of every delegated run that sets none of its own.
    pub delegate_budget: Option<Val<crate::delegate::Budget>>,
}

/// A configuration file with the files it extends: `layers[0]` is the most
/// basic (extended) one, the last is the file that was found.
#[derive(Debug, Clone)]
pub struct Config {
    pub layers: Vec<Layer>,
}

/// The configuration that applies to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedConfig {
    /// The configuration file found, if any.
    pub file: Option<PathBuf>,
    /// The files it extends, most basic first.
    pub extends: Vec<PathBuf>,
    pub host: Val<HostChoice>,
    /// The rules the configuration sets (others keep their own severity).
    pub rules: BTreeMap<String, Val<RuleLevel>>,
}

impl ResolvedConfig {
    /// No configuration file: every value is the default.
    pub fn default_for() -> ResolvedConfig {
        ResolvedConfig {
            file: None,
            extends: Vec::new(),
            host: Val {
                value: HostChoice::Auto,
                origin: Origin::Default,
            },
            rules: BTreeMap::new(),
        }
    }

    /// A `--host` flag beats everything.
    pub fn with_host_flag(mut self, host: Option<&HostChoice>) -> ResolvedConfig {
        if let Some(h) = host {
            self.host = Val {
                value: h.clone(),
                origin: Origin::Flag("--host"),
            };
        }
        self
    }

    /// What the linter needs from it.
    pub fn settings(&self) -> FileSettings {
        FileSettings {
            levels: self
                .rules
                .iter()
                .map(|(k, v)| (k.clone(), v.value))
                .collect(),
            ..FileSettings::default()
        }
    }
}

impl Config {
    /// The configuration file that was found (the last layer).
    pub fn path(&self) -> &Path {
        &self.layers.last().expect("a config has a layer").path
    }

    /// `paths`, from the nearest layer that sets it.
    pub fn paths(&self) -> Option<&Val<Globs>> {
        self.layers.iter().rev().find_map(|l| l.paths.as_ref())
    }

    /// `exclude`, from the nearest layer that sets it.
    pub fn exclude(&self) -> Option<&Val<Globs>> {
        self.layers.iter().rev().find_map(|l| l.exclude.as_ref())
    }

    /// `baseline`, from the nearest layer that sets it: the path relative to the
    /// file that declares it, made absolute.
    pub fn baseline(&self) -> Option<&Val<PathBuf>> {
        self.layers.iter().rev().find_map(|l| l.baseline.as_ref())
    }

    /// `[delegate] budget`, from the nearest layer that sets it.
    pub fn delegate_budget(&self) -> Option<&Val<crate::delegate::Budget>> {
        self.layers
            .iter()
            .rev()
            .find_map(|l| l.delegate_budget.as_ref())
    }

    /// Whether `path` (absolute) is excluded.
    pub fn excludes(&self, path: &Path) -> bool {
        self.exclude().is_some_and(|e| e.value.matches(path))
    }

    /// The values that apply to `file` (absolute): layer values, basic first,
    /// then the overrides that match it, basic first; the later wins.
    pub fn resolve(&self, file: &Path) -> ResolvedConfig {
        let mut out = ResolvedConfig::default_for();
        out.file = Some(self.path().to_path_buf());
        out.extends = self.layers[..self.layers.len() - 1]
            .iter()
            .map(|l| l.path.clone())
            .collect();
        for layer in &self.layers {
            if let Some(h) = &layer.host {
                out.host = h.clone();
            }
            for (k, v) in &layer.rules {
                out.rules.insert(k.clone(), v.clone());
            }
        }
        for layer in &self.layers {
            for i in layer.matcher.matching(file) {
                let o = &layer.overrides[i];
                if let Some(h) = &o.host {
                    out.host = h.clone();
                }
                for (k, v) in &o.rules {
                    out.rules.insert(k.clone(), v.clone());
                }
            }
        }
        out
    }
}
