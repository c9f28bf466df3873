//! `pwk.toml` (or `.pwk.toml`): the project's lint configuration.
//!
//! The file is found by walking up from the linted path to the project root
//! ([`crate::discover::find_project_root`], the root every command uses). Keys:
//! `host`, `paths`, `exclude`, `[rules]`, `[[overrides]]` (with `files` and their
//! own `host` / `rules`), `extend`, `baseline`. The TOML is read with `toml_edit`, which keeps
//! the span of every key and value, so an unknown key or a bad value is an error
//! at `file:line:col`, and every effective value knows where it came from
//! ([`Origin`]).
//!
//! Precedence, highest first: a command-line flag, an `[[overrides]]` entry that
//! matches the file (the extending file's before the extended one's), the file,
//! the file it `extend`s (and so on), the default.

mod globs;
pub mod schema;

pub use globs::GlobIndex;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use toml_edit::{Item, TableLike, Value};

use crate::host::HostChoice;
use crate::lint::{FileSettings, RuleLevel, rules};
use crate::role::LineIndex;

/// The names a configuration file may have, in the order they are looked for.
pub const FILE_NAMES: [&str; 2] = ["pwk.toml", ".pwk.toml"];

/// How many files an `extend` chain may hold.
const MAX_EXTEND: usize = 8;

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
        let rel = |p: PathBuf| crate::context::display_path(cwd, &p).into();
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

/// One configuration file, as read.
#[derive(Debug, Clone)]
pub struct Layer {
    pub path: PathBuf,
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
    /// Read the configuration file at `path` and the files it extends.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let mut layers = Vec::new();
        let mut next = Some((path.to_path_buf(), None::<Origin>));
        while let Some((file, from)) = next.take() {
            // Without `..`: a layer's globs are relative to its own directory,
            // which must be a prefix of the absolute paths they are matched to.
            let file = lexical(&std::path::absolute(&file).unwrap_or(file));
            if layers.iter().any(|l: &Layer| l.path == file) {
                return Err(at_origin(
                    from,
                    format!(
                        "`extend` makes a cycle: `{}` is already read",
                        file.display()
                    ),
                ));
            }
            if layers.len() == MAX_EXTEND {
                return Err(at_origin(
                    from,
                    format!("`extend` chains more than {MAX_EXTEND} files"),
                ));
            }
            let text = read_config(&file).map_err(|why| match &from {
                Some(origin @ Origin::File { .. }) => at_origin(
                    Some(origin.clone()),
                    format!("cannot read the extended file `{}`: {why}", file.display()),
                ),
                _ => ConfigError::Read {
                    path: file.clone(),
                    why,
                },
            })?;
            let (layer, extend) = parse(&file, &text)?;
            next = extend;
            layers.push(layer);
        }
        layers.reverse();
        Ok(Config { layers })
    }

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

/// The configuration file for `path` (a file or directory): the first
/// `pwk.toml` or `.pwk.toml` from its directory up to the project root.
pub fn find(path: &Path, home: Option<&Path>) -> Result<Option<PathBuf>, ConfigError> {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let start = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent().map(Path::to_path_buf).unwrap_or(abs.clone())
    };
    let (root, _) = crate::discover::find_project_root(&start, home);
    for dir in start.ancestors() {
        // Never a configuration from a directory another user owns (as git's
        // `safe.directory`): the walk ends there.
        if !crate::project::trusted_dir(dir) {
            break;
        }
        let found: Vec<PathBuf> = FILE_NAMES
            .iter()
            .map(|n| dir.join(n))
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect();
        match found.as_slice() {
            [] => {}
            [one] => return Ok(Some(one.clone())),
            [a, b, ..] => return Err(ConfigError::Both(a.clone(), b.clone())),
        }
        if dir == root {
            break;
        }
    }
    Ok(None)
}

/// The configuration for the file at `path`: its `pwk.toml`, resolved for it
/// (defaults when there is none). For callers without a command line (the
/// language server); `HOME` bounds the project-root walk as in every command.
pub fn load_for(path: &Path) -> Result<ResolvedConfig, ConfigError> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match find(&abs, home.as_deref())? {
        None => Ok(ResolvedConfig::default_for()),
        Some(file) => Ok(Config::load(&file)?.resolve(&abs)),
    }
}

/// The configurations of one run, each file read once: the lint command asks
/// for the configuration of every file it lints.
#[derive(Debug, Default)]
pub struct Configs {
    home: Option<PathBuf>,
    by_dir: std::collections::HashMap<PathBuf, Option<PathBuf>>,
    /// The last file's directory as it was given, and its answer: the files of one
    /// directory cost one lookup, not an absolute path and a stat each.
    last_dir: Option<(PathBuf, Option<PathBuf>)>,
    loaded: std::collections::HashMap<PathBuf, Config>,
    /// `--config FILE`: the one configuration of every path.
    fixed: Option<PathBuf>,
}

impl Configs {
    pub fn new(home: Option<&Path>) -> Configs {
        Configs {
            home: home.map(Path::to_path_buf),
            ..Configs::default()
        }
    }

    /// Every path governed by the configuration file `file` (`--config`).
    pub fn with_file(mut self, file: PathBuf) -> Configs {
        self.fixed = Some(file);
        self
    }

    /// The configuration that governs `path` (a file or a directory), if any.
    pub fn for_path(&mut self, path: &Path) -> Result<Option<&Config>, ConfigError> {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
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
        let f = find(&dir, self.home.as_deref())?;
        self.by_dir.insert(dir, f.clone());
        Ok(f)
    }

    /// [`Configs::for_path`] for a path known to be a file (one a walk found).
    pub fn for_file(&mut self, file: &Path) -> Result<Option<&Config>, ConfigError> {
        let dir = match file.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // A walk yields a directory's files together: the last answer is the usual one
        // (compared as bytes: hashing a path walks its components).
        if let Some((last, found)) = &self.last_dir
            && last.as_os_str() == dir.as_os_str()
        {
            let found = found.clone();
            return self.load(found);
        }
        let found =
            self.lookup_dir(std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()))?;
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
    pub fn resolve(&mut self, path: &Path) -> Result<ResolvedConfig, ConfigError> {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(match self.for_path(path)? {
            Some(c) => c.resolve(&abs),
            None => ResolvedConfig::default_for(),
        })
    }

    /// [`Configs::resolve`] for a path known to be a file.
    pub fn resolve_file(&mut self, file: &Path) -> Result<ResolvedConfig, ConfigError> {
        Ok(match self.for_file(file)? {
            Some(c) => c.resolve(&std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf())),
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
        let dir = layer.path.parent()?.to_path_buf();
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

fn read_config(path: &Path) -> Result<String, String> {
    use crate::fs::{Kind, ReadError};
    match crate::fs::read::read(path, Kind::Config) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_string()),
        Err(ReadError::Symlink(_)) => {
            Err("it is a symbolic link; point `extend` at the file itself".into())
        }
        Err(e) => Err(format!("it {e}")),
    }
}

fn at_origin(origin: Option<Origin>, message: String) -> ConfigError {
    match origin {
        Some(Origin::File { path, line, column }) => ConfigError::Invalid {
            path,
            line,
            column,
            message,
            help: None,
        },
        _ => ConfigError::Read {
            path: PathBuf::new(),
            why: message,
        },
    }
}

/// Reading one file: spans to positions, errors at positions.
struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    lines: LineIndex,
    dir: PathBuf,
}

impl Reader<'_> {
    fn origin(&self, span: Option<std::ops::Range<usize>>) -> Origin {
        let at = span.map_or(0, |s| s.start);
        let p = self.lines.position(self.text, at);
        Origin::File {
            path: self.path.to_path_buf(),
            line: p.line,
            column: p.column,
        }
    }

    fn error(
        &self,
        span: Option<std::ops::Range<usize>>,
        message: impl Into<String>,
        help: Option<String>,
    ) -> ConfigError {
        let Origin::File { line, column, .. } = self.origin(span) else {
            unreachable!("a file origin")
        };
        ConfigError::Invalid {
            path: self.path.to_path_buf(),
            line,
            column,
            message: message.into(),
            help,
        }
    }

    fn unknown_key(
        &self,
        table: &dyn TableLike,
        key: &str,
        allowed: &[&str],
        context: &str,
    ) -> ConfigError {
        let span = table.key(key).and_then(|k| k.span());
        let help = rules::did_you_mean(key, allowed.iter().copied())
            .map(|s| format!("did you mean `{s}`?"))
            .unwrap_or_else(|| format!("the keys {context} are {}", allowed.join(", ")));
        self.error(span, format!("unknown key `{key}` {context}"), Some(help))
    }

    fn string<'i>(&self, item: &'i Item, key: &str) -> Result<&'i str, ConfigError> {
        item.as_str().ok_or_else(|| {
            self.error(
                item.span(),
                format!("`{key}` must be a string, found {}", item.type_name()),
                None,
            )
        })
    }

    fn host(&self, item: &Item) -> Result<Val<HostChoice>, ConfigError> {
        let s = self.string(item, "host")?;
        let value = s.parse::<HostChoice>().map_err(|e| {
            self.error(
                item.span(),
                format!("`host = \"{s}\"`: {e}"),
                Some(format!(
                    "use `auto`, a host ({}) or `host@version`",
                    crate::host::name_list()
                )),
            )
        })?;
        Ok(Val {
            value,
            origin: self.origin(item.span()),
        })
    }

    fn globs(&self, item: &Item, key: &str) -> Result<Val<Vec<Glob>>, ConfigError> {
        let not_list = || {
            self.error(
                item.span(),
                format!(
                    "`{key}` must be a list of glob strings, found {}",
                    item.type_name()
                ),
                Some(format!("write `{key} = [\"roles/**\"]`")),
            )
        };
        let array = item.as_array().ok_or_else(not_list)?;
        let mut out = Vec::new();
        for v in array.iter() {
            let Some(s) = v.as_str() else {
                return Err(self.error(
                    v.span(),
                    format!(
                        "each entry of `{key}` must be a string, found {}",
                        v.type_name()
                    ),
                    None,
                ));
            };
            let glob = Glob::new(s, &self.dir).map_err(|e| {
                self.error(
                    v.span(),
                    format!("`{s}` is not a valid glob: {}", e.kind()),
                    None,
                )
            })?;
            out.push(glob);
        }
        Ok(Val {
            value: out,
            origin: self.origin(item.span()),
        })
    }

    fn rules(&self, item: &Item) -> Result<Vec<(String, Val<RuleLevel>)>, ConfigError> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span(),
                format!("`rules` must be a table, found {}", item.type_name()),
                Some("write `[rules]` with lines such as `crlf = \"off\"`".into()),
            )
        })?;
        let mut out = Vec::new();
        for (id, value) in table.iter() {
            let key_span = table.key(id).and_then(|k| k.span());
            if rules::find(id).is_none() {
                let help = rules::did_you_mean(id, rules::RULES.iter().map(|r| r.id))
                    .map(|s| format!("did you mean `{s}`?"))
                    .unwrap_or_else(|| "`pwk rules` lists them".into());
                return Err(self.error(key_span, format!("no rule `{id}`"), Some(help)));
            }
            let level = match value.as_str() {
                Some("error") => RuleLevel::Error,
                Some("warn") => RuleLevel::Warn,
                Some("off") => RuleLevel::Off,
                other => {
                    let found = match other {
                        Some(s) => format!("`\"{s}\"`"),
                        None => value.type_name().to_string(),
                    };
                    let help = other
                        .and_then(|s| rules::did_you_mean(s, ["error", "warn", "off"]))
                        .map(|s| format!("did you mean `\"{s}\"`?"))
                        .unwrap_or_else(|| "use \"error\", \"warn\" or \"off\"".into());
                    return Err(self.error(
                        value.span().or(key_span),
                        format!("the level of `{id}` must be \"error\", \"warn\" or \"off\", found {found}"),
                        Some(help),
                    ));
                }
            };
            out.push((
                id.to_string(),
                Val {
                    value: level,
                    origin: self.origin(value.span().or(key_span)),
                },
            ));
        }
        Ok(out)
    }

    /// `[delegate]`: `budget = { max_tokens = N, max_cost_usd = X, max_wall_seconds = S }`,
    /// each limit checked as the request's `budget` is (the same parser).
    fn delegate(&self, item: &Item) -> Result<Option<Val<crate::delegate::Budget>>, ConfigError> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span(),
                format!("`delegate` must be a table, found {}", item.type_name()),
                Some("write `[delegate]` with `budget = { max_tokens = 200000 }`".into()),
            )
        })?;
        for (k, _) in table.iter() {
            if k != "budget" {
                return Err(self.unknown_key(table, k, &["budget"], "in `[delegate]`"));
            }
        }
        let Some(budget) = table.get("budget") else {
            return Ok(None);
        };
        let keys = BUDGET_KEYS.map(|(k, _)| k);
        let t = budget.as_table_like().ok_or_else(|| {
            self.error(
                budget.span(),
                format!("`budget` must be a table, found {}", budget.type_name()),
                Some("write `budget = { max_tokens = 200000, max_cost_usd = 2.5, max_wall_seconds = 900 }`".into()),
            )
        })?;
        let mut json = serde_json::Map::new();
        for (k, v) in t.iter() {
            let Some((_, wire)) = BUDGET_KEYS.iter().find(|(name, _)| *name == k) else {
                return Err(self.unknown_key(t, k, &keys, "in `[delegate] budget`"));
            };
            let n = match v.as_value() {
                Some(Value::Integer(i)) => serde_json::Value::from(*i.value()),
                Some(Value::Float(f)) => serde_json::Value::from(*f.value()),
                _ => {
                    return Err(self.error(
                        v.span(),
                        format!(
                            "`[delegate] budget`: `{k}` must be a number, found {}",
                            v.type_name()
                        ),
                        None,
                    ));
                }
            };
            json.insert(wire.to_string(), n);
            if let Err(problems) =
                crate::delegate::Budget::parse(&serde_json::Value::Object(json.clone()), "budget")
            {
                let why = problems[0].1.replace(&format!("budget.{wire}"), k);
                return Err(self.error(
                    v.span().or_else(|| t.key(k).and_then(|k| k.span())),
                    format!("`[delegate] budget`: {why}"),
                    None,
                ));
            }
        }
        let value = crate::delegate::Budget::parse(&serde_json::Value::Object(json), "budget")
            .unwrap_or_default();
        Ok(Some(Val {
            value,
            origin: self.origin(budget.span()),
        }))
    }

    fn overrides(&self, item: &Item) -> Result<Vec<Override>, ConfigError> {
        let mut tables: Vec<(&dyn TableLike, Option<std::ops::Range<usize>>)> = Vec::new();
        match item {
            Item::ArrayOfTables(a) => {
                for t in a.iter() {
                    tables.push((t, t.span()));
                }
            }
            Item::Value(Value::Array(a)) => {
                for v in a.iter() {
                    match v.as_inline_table() {
                        Some(t) => tables.push((t, v.span())),
                        None => {
                            return Err(self.error(
                                v.span(),
                                format!("each override must be a table, found {}", v.type_name()),
                                Some("write `[[overrides]]` sections".into()),
                            ));
                        }
                    }
                }
            }
            _ => {
                return Err(self.error(
                    item.span(),
                    format!(
                        "`overrides` must be an array of tables, found {}",
                        item.type_name()
                    ),
                    Some("write `[[overrides]]` sections with `files = [...]`".into()),
                ));
            }
        }
        let mut out = Vec::new();
        const KEYS: [&str; 3] = ["files", "host", "rules"];
        for (table, span) in tables {
            for (k, _) in table.iter() {
                if !KEYS.contains(&k) {
                    return Err(self.unknown_key(table, k, &KEYS, "in `[[overrides]]`"));
                }
            }
            let Some(files) = table.get("files") else {
                return Err(self.error(
                    span,
                    "an override needs `files`: the globs it applies to",
                    Some("add `files = [\"legacy/**\"]`".into()),
                ));
            };
            out.push(Override {
                files: self.globs(files, "files")?.value,
                host: table.get("host").map(|h| self.host(h)).transpose()?,
                rules: table
                    .get("rules")
                    .map(|r| self.rules(r))
                    .transpose()?
                    .unwrap_or_default(),
                origin: self.origin(span),
            });
        }
        Ok(out)
    }
}

/// `path` with `.` and `..` components resolved as text (`/p/sub/../base.toml`
/// is `/p/base.toml`), as `std::path::absolute` leaves them.
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The keys a configuration file may hold at its top level.
pub const TOP_KEYS: [&str; 8] = [
    "host",
    "paths",
    "exclude",
    "rules",
    "overrides",
    "extend",
    "baseline",
    "delegate",
];

/// The keys of `[delegate] budget`, and the request key each stands for.
pub const BUDGET_KEYS: [(&str, &str); 3] = [
    ("max_tokens", "maxTokens"),
    ("max_cost_usd", "maxCostUsd"),
    ("max_wall_seconds", "maxWallSeconds"),
];

/// The file a layer extends, and where it says so.
type Extend = Option<(PathBuf, Option<Origin>)>;

/// Parse one file; returns the layer and the file it extends.
fn parse(path: &Path, text: &str) -> Result<(Layer, Extend), ConfigError> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let r = Reader {
        path,
        text,
        lines: LineIndex::new(text),
        dir: dir.clone(),
    };
    let doc = toml_edit::Document::parse(text).map_err(|e| {
        let message = e.message().trim_end().to_string();
        r.error(e.span(), format!("invalid TOML: {message}"), None)
    })?;
    let table = doc.as_table();
    for (k, _) in table.iter() {
        if !TOP_KEYS.contains(&k) {
            return Err(r.unknown_key(table, k, &TOP_KEYS, "in a pwk configuration"));
        }
    }
    let extend = match table.get("extend") {
        None => None,
        Some(item) => {
            let rel = r.string(item, "extend")?;
            Some((dir.join(rel), Some(r.origin(item.span()))))
        }
    };
    let overrides: Vec<Override> = table
        .get("overrides")
        .map(|i| r.overrides(i))
        .transpose()?
        .unwrap_or_default();
    // Each glob compiled alone already (`Reader::globs`): a set of them compiles.
    let matcher = OverrideMatcher::new(&overrides);
    let layer = Layer {
        path: path.to_path_buf(),
        host: table.get("host").map(|h| r.host(h)).transpose()?,
        paths: table
            .get("paths")
            .map(|i| r.globs(i, "paths").map(|v| v.map(Globs::new)))
            .transpose()?,
        exclude: table
            .get("exclude")
            .map(|i| r.globs(i, "exclude").map(|v| v.map(Globs::new)))
            .transpose()?,
        rules: table
            .get("rules")
            .map(|i| r.rules(i))
            .transpose()?
            .unwrap_or_default(),
        overrides,
        baseline: match table.get("baseline") {
            None => None,
            Some(item) => {
                let rel = r.string(item, "baseline")?;
                if rel.is_empty() {
                    return Err(r.error(
                        item.span(),
                        "`baseline` is empty".to_string(),
                        Some(
                            "name the baseline file, e.g. `baseline = \"pwk-baseline.json\"`"
                                .into(),
                        ),
                    ));
                }
                Some(Val {
                    value: lexical(&dir.join(rel)),
                    origin: r.origin(item.span()),
                })
            }
        },
        matcher,
        delegate_budget: table
            .get("delegate")
            .map(|i| r.delegate(i))
            .transpose()?
            .flatten(),
    };
    Ok((layer, extend))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pwk.toml");
        std::fs::write(&p, text).unwrap();
        Config::load(&p)
    }

    fn err(text: &str) -> String {
        let e = load(text).unwrap_err().to_string();
        e.split_once("pwk.toml:").unwrap().1.to_string()
    }

    #[test]
    fn located_errors() {
        assert_eq!(
            err("host = \"tintinweb\"\nbogus = 1\n"),
            "2:1: unknown key `bogus` in a pwk configuration\n  help: the keys in a pwk configuration are host, paths, exclude, rules, overrides, extend, baseline, delegate"
        );
        assert!(
            err("[rules]\ncrlf = \"warning\"\n").starts_with("2:8: the level of `crlf` must be")
        );
        assert!(err("[rules]\ncrlf = \"warning\"\n").ends_with("did you mean `\"warn\"`?"));
        assert!(err("[rules]\nunknown-kye = \"off\"\n").starts_with("2:1: no rule `unknown-kye`"));
        assert!(err("host = \"tintinwebb\"\n").starts_with("1:8: `host = \"tintinwebb\"`"));
        assert!(err("paths = \"roles\"\n").starts_with("1:9: `paths` must be a list"));
        assert!(
            err("[[overrides]]\nfiles = [\"a/**\"]\nhots = \"herdr\"\n")
                .starts_with("3:1: unknown key `hots` in `[[overrides]]`")
        );
        assert!(
            err("[[overrides]]\nhost = \"herdr\"\n").starts_with("1:1: an override needs `files`")
        );
        assert!(
            err("host = \n").starts_with("1:8: invalid TOML"),
            "{}",
            err("host = \n")
        );
    }

    #[test]
    fn the_delegate_budget_is_read_with_located_errors() {
        let c = load("[delegate]\nbudget = { max_tokens = 5000, max_cost_usd = 0.5 }\n").unwrap();
        let b = c.delegate_budget().unwrap();
        assert_eq!(b.value.max_tokens, Some(5000));
        assert_eq!(b.value.max_cost_usd, Some(0.5));
        assert_eq!(b.value.max_wall_seconds, None);
        assert!(
            b.origin.to_string().ends_with("pwk.toml:2:10"),
            "{}",
            b.origin
        );
        assert!(load("").unwrap().delegate_budget().is_none());
        let e = err("[delegate]\nbudget = { max_tokens = 0 }\n");
        assert!(
            e.starts_with(
                "2:25: `[delegate] budget`: `max_tokens` must be a positive whole number"
            ),
            "{e}"
        );
        let e = err("[delegate]\nbudget = { max_token = 5 }\n");
        assert!(
            e.starts_with("2:12: unknown key `max_token` in `[delegate] budget`"),
            "{e}"
        );
        assert!(e.contains("did you mean `max_tokens`?"), "{e}");
        let e = err("[delegate]\nbudget = { max_cost_usd = \"1\" }\n");
        assert!(
            e.contains("`max_cost_usd` must be a number, found string"),
            "{e}"
        );
        let e = err("[delegate]\nbugdet = {}\n");
        assert!(
            e.starts_with("2:1: unknown key `bugdet` in `[delegate]`"),
            "{e}"
        );
    }

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

    #[test]
    fn the_override_matcher_returns_what_each_glob_matches_in_order() {
        let mut text = String::new();
        let globs = [
            "legacy/",
            "draft-*.md",
            "/top.md",
            "roles/*.md",
            "roles/**/*.md",
            "nothing/",
            "a.md",
        ];
        for (i, g) in globs.iter().enumerate() {
            text.push_str(&format!(
                "[[overrides]]\nfiles = [\"{g}\", \"x{i}.md\"]\nrules = {{ crlf = \"off\" }}\n"
            ));
        }
        let config = load(&text).unwrap();
        let layer = config.layers.last().unwrap();
        let base = layer.path.parent().unwrap().to_path_buf();
        for rel in [
            "legacy/x/y.md",
            "a/draft-1.md",
            "top.md",
            "sub/top.md",
            "roles/a.md",
            "roles/sub/draft-a.md",
            "a.md",
            "deep/x3.md",
            "x0.md",
            "none.md",
        ] {
            let path = base.join(rel);
            let naive: Vec<usize> = layer
                .overrides
                .iter()
                .enumerate()
                .filter(|(_, o)| o.files.iter().any(|g| g.matches(&path)))
                .map(|(i, _)| i)
                .collect();
            assert_eq!(layer.matcher.matching(&path), naive, "{rel}");
        }
        assert!(
            layer
                .matcher
                .matching(Path::new("/elsewhere/a.md"))
                .is_empty()
        );
    }
}
