//! `--host auto`: which host reads a role file, from what its project says.
//!
//! Asked in this order; the first that names a host decides:
//!
//! 1. **A host's own agents directory** holds the file (`.claude/agents/`,
//!    `.opencode/agents/`, `.gemini/agents/`, `.github/agents/`): only that host reads
//!    there ([`host_of_path`]).
//! 2. **A Claude Code plugin**: `.claude-plugin/plugin.json` beside the `agents/`
//!    directory holding the file, or listing it in its `agents` paths
//!    ([`claude_plugin_of`]; docs.claude.com/en/docs/claude-code/plugins-reference,
//!    "agents/ directory in the plugin root", manifest `agents`: custom paths that
//!    supplement it).
//! 3. **The settings of the nearest project** (found by `crate::project`'s one root
//!    rule) and of pi's agent dir, as each host writes them ([`detect`]):
//!    - pi's `packages` in `.pi/settings.json` / `<agent dir>/settings.json` (a string
//!      source, or `{ "source": … }`; `@earendil-works/pi-coding-agent@1.6.0
//!      dist/core/package-manager.js:808`, written by `addSourceToSettings`, `:668`).
//!      npm sources are `npm:<name>[@<version>]` (`:1311`), installed into
//!      `<project>/.pi/npm/node_modules/<name>` or `<agent dir>/npm/node_modules/<name>`
//!      (`:1937`); git sources into `…/git/<host>/<path>` (`:1963`). The installed
//!      `package.json` gives the version when the source does not pin one;
//!    - tintinweb's own settings file `.pi/subagents.json` (written by `/agents` →
//!      Settings) and `<agent dir>/subagents.json` (`@tintinweb/pi-subagents@0.14.1
//!      src/settings.ts:186-192`, unchanged at tintinweb/pi-subagents@3f9d35c
//!      src/settings.ts:376-382);
//!    - nicobailon's `subagents` object in pi's settings (written by its agent
//!      overrides: `pi-subagents@0.67.0 src/agents/agents.ts:1567-1584`, read at
//!      `:1123-1130`);
//!    - subagents-lite's one settings file, `<agent dir>/subagents-lite.json`
//!      (IIwate/pi-subagents-lite@22d9f3c src/platform/fs/config-paths.ts:13-15);
//!    - pi's example subagent extension, installed by copying its `index.ts` and
//!      `agents.ts` into `extensions/subagent/` of the agent dir or the project's
//!      `.pi/` (`@earendil-works/pi-coding-agent@1.6.0
//!      examples/extensions/subagent/README.md:38-40`).
//! 4. **The file's own keys**, when none of the above names a host: a key only one of
//!    the pi hosts that read the file's directory reads ([`infer_from_keys`], asked by
//!    lint once the file is parsed).
//!
//! One host named: its profile. Several: the portable profile, safe on all of them.
//! None: the portable profile, which is the PWK contract (`name` and `description`
//! required). Every decision carries its reason as data ([`Detection`]).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{ALL, HostId, HostSpec};

/// How a decision was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// A settings file names the host (pi's `packages`, a host's own settings, the
    /// vendored example extension, a Claude Code plugin manifest).
    Settings,
    /// The host's own agents directory holds the files.
    Directory,
    /// The file uses keys only this host reads.
    Keys,
    /// Several hosts are named: the portable profile, safe on all of them.
    Several,
    /// Nothing names a host: the portable profile (the PWK contract).
    Nothing,
}

/// One piece of evidence: what says a host reads the files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Evidence {
    /// pi's `packages` lists the host's package (`source` as written).
    Package { source: String },
    /// The host's own project settings: tintinweb's `subagents.json`, nicobailon's
    /// `subagents` in pi's settings.
    HostSettings,
    /// pi's example subagent extension, vendored into `extensions/subagent/`.
    Extension,
    /// A Claude Code plugin manifest beside (or listing) the agents directory.
    PluginManifest,
    /// The host's own agents directory.
    Directory,
    /// Keys only this host reads.
    Keys { keys: Vec<&'static str> },
}

/// What detection found: a host, and where it is said.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Found {
    pub host: HostId,
    /// The version when known (a pinned source, an installed `package.json`).
    pub version: Option<String>,
    /// The file or directory that says so (the role file itself for keys).
    pub settings: PathBuf,
    pub evidence: Evidence,
}

/// What detection found and decided.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Detection {
    /// The profile to use.
    pub spec: HostSpec,
    /// The reason when it names the role files themselves ([`detect_from_paths`]);
    /// otherwise [`Detection::reason`] says it from the rest, when asked (most runs
    /// show it with the paths relative: [`Detection::reason_from`]).
    named_files: Option<String>,
    pub basis: Basis,
    /// Where the decision holds: the project whose settings were read, the host's
    /// agents directory, the plugin's, or the file.
    pub scope: PathBuf,
    /// Every host found, with where.
    pub found: Vec<Found>,
    /// The settings files read when none named a host (for the reason).
    pub looked: Vec<PathBuf>,
    /// Settings or marker files that could not be used, each with why, in words that
    /// follow "it" (a host they name is not known).
    pub unreadable: Vec<(PathBuf, String)>,
    /// The role files `reason` names, as given (only when it names them:
    /// [`detect_from_paths`]).
    pub files: Vec<PathBuf>,
}

/// The hint every reason ends with.
pub const CHOOSE_HINT: &str = "`--host H` to choose";

impl Detection {
    /// Why, in one sentence (shown by lint, list, show, new and config), with the
    /// paths as they are; [`Detection::reason_from`] shows them from a directory.
    pub fn reason(&self) -> String {
        match &self.named_files {
            Some(r) => r.clone(),
            None => format!(
                "{} ({CHOOSE_HINT})",
                self.describe(&|p: &Path| p.display().to_string())
            ),
        }
    }

    /// `reason` with the paths it names shown as every other path of the output is:
    /// relative to `cwd` when under it (`pwk config`, `convert`, `show`, the lint
    /// report's `host_reason`).
    pub fn reason_from(&self, cwd: &Path) -> String {
        let show = |p: &Path| crate::display::display_path(cwd, p);
        if self.files.is_empty() {
            return format!("{} ({CHOOSE_HINT})", self.describe(&show));
        }
        // A reason that names the files themselves ([`detect_from_paths`]).
        let mut paths: Vec<&PathBuf> = self.files.iter().collect();
        // The longest first: a path that begins another is replaced after it.
        paths.sort_by_key(|p| std::cmp::Reverse(p.as_os_str().len()));
        let mut out = self.reason();
        for p in paths {
            out = out.replace(&p.display().to_string(), &show(p));
        }
        out
    }

    /// Whether the file's own keys may still decide (nothing else named a host).
    pub fn undecided(&self) -> bool {
        self.basis == Basis::Nothing
    }

    /// The reason, with each path shown by `show` (relative to the current directory,
    /// escaped), without the closing hint.
    pub fn describe(&self, show: &dyn Fn(&Path) -> String) -> String {
        let mut out = self.describe_found(show);
        if !self.unreadable.is_empty() {
            let each: Vec<String> = self
                .unreadable
                .iter()
                .map(|(p, why)| format!("`{}` ({why})", show(p)))
                .collect();
            out.push_str(&format!(
                "; pwk could not read {}, so a host listed there is not known",
                each.join(", nor ")
            ));
        }
        out
    }

    #[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
    fn describe_found(&self, show: &dyn Fn(&Path) -> String) -> String {
        let label = |f: &Found| {
            let spec = HostSpec {
                host: f.host,
                version: f.version.clone(),
            };
            spec.profile()
                .map(|p| p.label())
                .unwrap_or_else(|_| f.host.newest().label())
        };
        match self.basis {
            Basis::Nothing => {
                let looked: Vec<String> = self
                    .looked
                    .iter()
                    .map(|p| format!("`{}/`", show(p)))
                    .collect();
                format!(
                    "no host is named by the settings in {}, nor by the files' directory or keys: the PWK contract applies (the portable profile)",
                    if looked.is_empty() {
                        "the project".to_string()
                    } else {
                        looked.join(" or ")
                    }
                )
            }
            Basis::Several => {
                let mut hosts: Vec<String> = Vec::new();
                for f in &self.found {
                    let said = format!("{} ({})", f.host, said_where(f, show));
                    if !hosts.contains(&said) {
                        hosts.push(said);
                    }
                }
                format!(
                    "several hosts read these files ({}): the portable profile, safe on all of them",
                    hosts.join(", ")
                )
            }
            Basis::Settings | Basis::Directory | Basis::Keys => {
                let f = &self.found[0];
                let spec_label = self
                    .spec
                    .profile()
                    .map(|p| p.label())
                    .unwrap_or_else(|_| label(f));
                let why: Vec<String> = self
                    .found
                    .iter()
                    .map(|f| evidence_sentence(f, show))
                    .collect();
                let version = match self.found.iter().find_map(|f| f.version.as_deref()) {
                    Some(_) if self.spec.version.is_none() => {
                        format!(" (a version pwk has no profile for; using {spec_label})")
                    }
                    Some(_) => String::new(),
                    None if self.basis == Basis::Settings && f.host.is_pi() => {
                        format!(" (version unknown: the newest profile, {spec_label})")
                    }
                    None => String::new(),
                };
                format!("{}{version}", why.join("; "))
            }
        }
    }
}

/// Where a found host is said, in a few words.
fn said_where(f: &Found, show: &dyn Fn(&Path) -> String) -> String {
    match &f.evidence {
        Evidence::Package { .. } | Evidence::HostSettings | Evidence::PluginManifest => {
            format!("`{}`", show(&f.settings))
        }
        Evidence::Extension => format!("`{}/`", show(&f.settings)),
        Evidence::Directory => format!("`{}/`", show(&f.settings)),
        Evidence::Keys { keys } => keys_phrase(keys),
    }
}

/// One sentence for one piece of evidence.
fn evidence_sentence(f: &Found, show: &dyn Fn(&Path) -> String) -> String {
    let at = show(&f.settings);
    match &f.evidence {
        Evidence::Package { source } => format!(
            "{}{} is installed per `{at}` (`{}`)",
            f.host,
            f.version
                .as_deref()
                .map(|v| format!(" {}", crate::text::escape_line(v)))
                .unwrap_or_default(),
            crate::text::escape_line(source)
        ),
        Evidence::HostSettings => format!("`{at}` holds {}'s own settings", f.host),
        Evidence::Extension => {
            format!("pi's example subagent extension is installed in `{at}/`")
        }
        Evidence::PluginManifest => {
            format!("`{at}` makes the files a Claude Code plugin's agents")
        }
        Evidence::Directory => format!("under `{at}/`, where {} reads its agents", f.host),
        Evidence::Keys { keys } => format!(
            "inferred from {}, which only {} reads",
            keys_phrase(keys),
            f.host
        ),
    }
}

fn keys_phrase(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Detection {
    /// The decision for `found` (in the order found: the project's before the agent
    /// dir's), read at `scope`; `looked` names what was read when nothing was found.
    fn decide(basis: Basis, scope: PathBuf, found: Vec<Found>, looked: Vec<PathBuf>) -> Detection {
        let mut hosts: Vec<HostId> = Vec::new();
        for f in &found {
            if !hosts.contains(&f.host) {
                hosts.push(f.host);
            }
        }
        let (basis, spec) = match hosts.as_slice() {
            [] => (Basis::Nothing, HostSpec::newest(HostId::Pwk)),
            [one] => {
                let version = found
                    .iter()
                    .filter(|f| f.host == *one)
                    .find_map(|f| f.version.clone());
                let spec = HostSpec {
                    host: *one,
                    version,
                };
                // A version pwk has no profile for: the newest profile, said so.
                let spec = match spec.profile() {
                    Ok(_) => spec,
                    Err(_) => HostSpec::newest(*one),
                };
                (basis, spec)
            }
            _ => (Basis::Several, HostSpec::newest(HostId::Pwk)),
        };
        Detection {
            spec,
            named_files: None,
            basis,
            scope,
            found,
            looked,
            unreadable: Vec::new(),
            files: Vec::new(),
        }
    }
}

/// Detect the host from the project's settings (`project_root`) and the agent dir's.
/// A settings file that cannot be read is named in the reason: the host it would
/// name is not known.
pub fn detect(project_root: &Path, agent_dir: Option<&Path>) -> Detection {
    let mut unreadable = Vec::new();
    let mut d = detect_in(project_root, agent_dir, &mut unreadable);
    d.unreadable = unreadable;
    d
}

fn detect_in(
    project_root: &Path,
    agent_dir: Option<&Path>,
    unreadable: &mut Vec<(PathBuf, String)>,
) -> Detection {
    let mut found: Vec<Found> = Vec::new();
    let project = project_root.join(".pi");
    let mut places: Vec<PathBuf> = vec![project];
    if let Some(a) = agent_dir {
        places.push(a.to_path_buf());
    }
    let looked = places.clone();
    for base in &places {
        // A base that is not there (no `.pi/` in this project, no pi installed)
        // holds none of the files below: one question instead of five. Anything
        // else at that path is asked file by file, so what cannot be read is said.
        if matches!(std::fs::metadata(base), Err(e) if e.kind() == std::io::ErrorKind::NotFound) {
            continue;
        }
        read_settings_at(base, agent_dir, unreadable, &mut found);
    }
    Detection::decide(Basis::Settings, project_root.to_path_buf(), found, looked)
}

/// What the settings under `base` (a project's `.pi/`, pi's agent dir) say: out of
/// the pages of a run where neither is there (docs/src/perf.md, step 35).
#[inline(never)]
fn read_settings_at(
    base: &Path,
    agent_dir: Option<&Path>,
    unreadable: &mut Vec<(PathBuf, String)>,
    found: &mut Vec<Found>,
) {
    let settings = base.join("settings.json");
    // A settings file pwk cannot read: a host it names is unknown, and said so
    // (never a silent portable profile).
    let facts = crate::pi::settings::read_host_facts(&settings).unwrap_or_else(|why| {
        unreadable.push((settings.clone(), why));
        Default::default()
    });
    for source in facts.packages {
        let Some((host, pinned)) = match_source(&source) else {
            continue;
        };
        if found.iter().any(|f| f.host == host && f.version.is_some()) {
            continue; // the project's entry wins over the global one
        }
        let version = pinned.or_else(|| installed_version(base, host, &source));
        found.push(Found {
            host,
            version,
            settings: settings.clone(),
            evidence: Evidence::Package { source },
        });
    }
    // nicobailon keeps its overrides under `subagents` in pi's settings.
    if facts.subagents_object {
        found.push(Found {
            host: HostId::Nicobailon,
            version: None,
            settings: settings.clone(),
            evidence: Evidence::HostSettings,
        });
    }
    // tintinweb's own settings file.
    let tintinweb = base.join("subagents.json");
    if marker(&tintinweb, unreadable) {
        found.push(Found {
            host: HostId::Tintinweb,
            version: None,
            settings: tintinweb,
            evidence: Evidence::HostSettings,
        });
    }
    // subagents-lite's one settings file, in the agent dir only
    // (IIwate/pi-subagents-lite@22d9f3c src/platform/fs/config-paths.ts:13-15,
    // `configFilePath`: `<agent dir>/subagents-lite.json`; the same at 2aeae37).
    let lite = base.join("subagents-lite.json");
    if Some(base) == agent_dir && marker(&lite, unreadable) {
        found.push(Found {
            host: HostId::SubagentsLite,
            version: None,
            settings: lite,
            evidence: Evidence::HostSettings,
        });
    }
    // pi's example extension, copied in.
    let example = example_extension_dir(base);
    if marker(&example.join("agents.ts"), unreadable)
        & marker(&example.join("index.ts"), unreadable)
    {
        found.push(Found {
            host: HostId::PiExample,
            version: None,
            settings: example,
            evidence: Evidence::Extension,
        });
    }
}

/// Where pi's example subagent extension is vendored under a pi base directory (the
/// agent dir, or a project's `.pi/`): its `index.ts` and `agents.ts` copied into
/// `extensions/subagent/` (`@earendil-works/pi-coding-agent@1.6.0
/// examples/extensions/subagent/README.md:38-40`).
pub fn example_extension_dir(base: &Path) -> PathBuf {
    base.join("extensions").join("subagent")
}

/// Whether the host's marker file `p` is there: a regular file, or a symbolic link
/// to one (the host follows it; a dotfiles manager links these). Only its metadata
/// is asked, so a FIFO or a device in its place cannot stall pwk. Anything else at
/// that path is not the host's file, and the run says so (`unreadable`).
fn marker(p: &Path, unreadable: &mut Vec<(PathBuf, String)>) -> bool {
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() => true,
        Ok(m) => {
            let kind = crate::fs::read::file_type_name(rustix::fs::FileType::from_raw_mode(
                std::os::unix::fs::MetadataExt::mode(&m),
            ));
            unreadable.push((
                p.to_path_buf(),
                format!("it is not a regular file ({kind})"),
            ));
            false
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        // A link to nothing, a directory pwk may not search: not there, said so.
        Err(e) => {
            unreadable.push((p.to_path_buf(), format!("it cannot be read: {e}")));
            false
        }
    }
}

/// The detection for files in `dir` from their directory alone: a host's own agents
/// directory (`.claude/agents/`), else a Claude Code plugin's agents (up to
/// `bound`, the project root above `dir`). `None`: the project's settings decide.
pub fn detect_dir(dir: &Path, bound: &Path) -> Option<Detection> {
    if let Some((host, rel)) = host_of_path(&dir.join("_")) {
        let scope = dir_named(dir, rel).unwrap_or_else(|| dir.to_path_buf());
        return Some(Detection::decide(
            Basis::Directory,
            scope.clone(),
            vec![Found {
                host,
                version: None,
                settings: scope,
                evidence: Evidence::Directory,
            }],
            Vec::new(),
        ));
    }
    let manifest = claude_plugin_of(dir, bound)?;
    Some(Detection::decide(
        Basis::Settings,
        manifest
            .parent()
            .and_then(Path::parent)
            .unwrap_or(dir)
            .to_path_buf(),
        vec![Found {
            host: HostId::ClaudeCode,
            version: None,
            settings: manifest,
            evidence: Evidence::PluginManifest,
        }],
        Vec::new(),
    ))
}

/// The ancestor of `dir` (itself included) that ends with the relative directory
/// `rel` (`.claude/agents`).
fn dir_named(dir: &Path, rel: &str) -> Option<PathBuf> {
    dir.ancestors()
        .find(|a| a.ends_with(rel))
        .map(Path::to_path_buf)
}

/// The Claude Code plugin manifest whose agents `dir` holds: a
/// `<plugin>/.claude-plugin/plugin.json` with `dir` at or under `<plugin>/agents`, or
/// under one of the manifest's `agents` paths (a string or a list, relative to the
/// plugin root). Ancestors are asked up to `bound` (included).
pub fn claude_plugin_of(dir: &Path, bound: &Path) -> Option<PathBuf> {
    for plugin in dir.ancestors() {
        let manifest = plugin.join(".claude-plugin").join("plugin.json");
        // A regular file, or a link to one (Claude Code follows it); its `agents`
        // paths are read by the bounded reader, which does not follow links.
        if std::fs::metadata(&manifest).is_ok_and(|m| m.is_file()) {
            if dir.starts_with(plugin.join("agents")) {
                return Some(manifest);
            }
            let doc = crate::pi::settings::read_json(&manifest).ok().flatten();
            let listed: Vec<&str> = match doc.as_ref().map(|d| &d["agents"]) {
                Some(serde_json::Value::String(s)) => vec![s.as_str()],
                Some(serde_json::Value::Array(a)) => a.iter().filter_map(|v| v.as_str()).collect(),
                _ => Vec::new(),
            };
            let under = listed.iter().any(|p| {
                let p = plugin.join(p.trim_start_matches("./"));
                // A listed file: its directory holds it.
                dir.starts_with(&p) || p.parent().is_some_and(|d| d == dir)
            });
            if under {
                return Some(manifest);
            }
        }
        if plugin == bound {
            break;
        }
    }
    None
}

/// The host whose own project directory holds every one of `files` (a path under
/// `.claude/agents/` is Claude Code's), from the profiles' discovery directories as
/// build.rs tabled them (no profile is parsed). pi hosts share their directories, so
/// only the other hosts' directories decide; `None` when no such host holds them
/// all.
pub fn detect_from_paths(files: &[PathBuf]) -> Option<Detection> {
    let first = files.first()?;
    let (host, dir) = host_of_path(first)?;
    if !files
        .iter()
        .all(|f| host_of_path(f).is_some_and(|(h, _)| h == host))
    {
        return None;
    }
    let scope = first
        .parent()
        .and_then(|p| dir_named(p, dir))
        .unwrap_or_else(|| PathBuf::from(dir));
    let mut d = Detection::decide(
        Basis::Directory,
        scope.clone(),
        vec![Found {
            host,
            version: None,
            settings: scope,
            evidence: Evidence::Directory,
        }],
        Vec::new(),
    );
    // The files named (`pwk convert` and `pwk config` show the reason as is).
    let shown = if files.len() == 1 {
        format!("`{}` is", first.display())
    } else {
        format!("all {} files are", files.len())
    };
    d.named_files = Some(format!(
        "{shown} under `{dir}/`, where {host} reads its agents ({CHOOSE_HINT})"
    ));
    d.files = vec![first.clone()];
    Some(d)
}

/// The non-pi host whose project directory holds `path` (somewhere above it), with
/// that directory: what [`detect_from_paths`] asks of each file (the lint planner
/// asks it of every file, so it allocates once, not per host directory).
pub fn host_of_path(path: &Path) -> Option<(HostId, &'static str)> {
    let text = path.to_string_lossy().replace('\\', "/");
    let dir = match text.rsplit_once('/') {
        Some((d, _)) => format!("/{d}/"),
        None => "/".to_string(),
    };
    // `dir` contains `/{d}/`: an occurrence of `d` between two slashes.
    let holds = |d: &str| {
        dir.match_indices(d)
            .any(|(i, _)| dir[..i].ends_with('/') && dir[i + d.len()..].starts_with('/'))
    };
    ALL.into_iter()
        .filter(|h| !h.is_pi())
        .find_map(|h| h.own_project_dirs().find(|d| holds(d)).map(|d| (h, d)))
}

/// The project directories several hosts share: pi's (`.pi/agents`) and the PWK
/// contract's (`.agents/agents`, which Antigravity CLI and goose read too). A file
/// there says nothing about its host by where it is.
pub const SHARED_DIRS: [&str; 2] = [".agents/agents", ".pi/agents"];

/// What a file's own keys say about its host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyEvidence {
    /// No key only one candidate host reads.
    None,
    /// Every such key belongs to this host.
    One(HostId, Vec<&'static str>),
    /// Keys of several hosts (each with its keys): no host is inferred.
    Several(Vec<(HostId, Vec<&'static str>)>),
}

/// The host a file's own `keys` name, among the pi hosts that read the file's
/// directory ([`candidates_for`]): a key counts when exactly one known host — of
/// every host pwk has a profile for, not only the candidates — reads it, that host
/// is a candidate, and the PWK contract (the role schema) does not document it (the
/// portable vocabulary says nothing about the host). A key several hosts read
/// (`color`: tintinweb, Claude Code and OpenCode) is weak evidence and decides
/// nothing, so the account's "which only `<host>` reads" is true of every key it
/// names. Asked for every key of every file whose host nothing else names: one
/// lookup a key.
pub fn infer_from_keys<'k>(path: &Path, keys: impl IntoIterator<Item = &'k str>) -> KeyEvidence {
    let mut candidates = None;
    let mut by_host: Vec<(HostId, Vec<&'static str>)> = Vec::new();
    for k in keys {
        let Some((key, readers)) = key_readers(k) else {
            continue;
        };
        if readers.count_ones() != 1 {
            continue;
        }
        let mine = readers & *candidates.get_or_insert_with(|| candidates_for(path));
        if mine == 0 {
            continue;
        }
        let host = ALL[mine.trailing_zeros() as usize];
        match by_host.iter_mut().find(|(h, _)| *h == host) {
            Some((_, ks)) => ks.push(key),
            None => by_host.push((host, vec![key])),
        }
    }
    match by_host.len() {
        0 => KeyEvidence::None,
        1 => {
            let (h, ks) = by_host.remove(0);
            KeyEvidence::One(h, ks)
        }
        _ => KeyEvidence::Several(by_host),
    }
}

impl Detection {
    /// The decision for files in `scope` (a file, or the directory of several) whose
    /// own keys name `host`.
    pub fn from_keys(host: HostId, keys: Vec<&'static str>, scope: PathBuf) -> Detection {
        Detection::decide(
            Basis::Keys,
            scope.clone(),
            vec![Found {
                host,
                version: None,
                settings: scope,
                evidence: Evidence::Keys { keys },
            }],
            Vec::new(),
        )
    }
}

/// A key some host reads outside the PWK contract, with its readers as bits over
/// [`ALL`] (build.rs's `KEY_READERS`, indexed at build time: asked for every key of
/// every file whose host nothing else names, and built by no run).
fn key_readers(key: &str) -> Option<(&'static str, u32)> {
    let table = super::generated::KEY_READERS;
    super::key_index::find(super::generated::KEY_READER_SLOTS, key, |n| table[n].0)
        .map(|n| table[n])
}

/// The hosts (bits over [`ALL`]) a file at `path` may be inferred to be for: the
/// hosts that read its directory when it is a shared one (`.pi/agents`,
/// `.agents/agents`: the pi hosts, and Antigravity CLI and goose there), else every
/// pi host. The other hosts read only their own
/// directories (step 1) or a plugin's (step 2), so their keys elsewhere say
/// nothing: a `maxTurns` in a pi role is a misspelt `max_turns`, not a Claude Code
/// agent.
fn candidates_for(path: &Path) -> u32 {
    static MASKS: OnceLock<[u32; 3]> = OnceLock::new();
    let masks = MASKS.get_or_init(|| {
        let mask = |keep: &dyn Fn(HostId) -> bool| {
            ALL.iter()
                .enumerate()
                .filter(|(_, h)| **h != HostId::Pwk && keep(**h))
                .fold(0u32, |m, (i, _)| m | 1 << i)
        };
        // In a shared directory, every host that reads it (Antigravity CLI's
        // `subagent` names it in `.agents/agents/`); elsewhere the pi hosts only.
        [
            mask(&|h| host_reads_dir(h, ".agents/agents")),
            mask(&|h| host_reads_dir(h, ".pi/agents")),
            mask(&|h| h.is_pi()),
        ]
    });
    match project_dir_of(path) {
        Some(".agents/agents") => masks[0],
        Some(_) => masks[1],
        None => masks[2],
    }
}

/// The well-known pi project directory holding `path` (`.agents/agents`,
/// `.pi/agents`), if it is in one.
pub fn project_dir_of(path: &Path) -> Option<&'static str> {
    const DIRS: [&str; 2] = SHARED_DIRS;
    // Asked for every file, so bytes first: `Path::parent` and `Path::ends_with`
    // parse components, at ~10x the cost. The parent of `dir/name` (a plain file
    // name) is `dir`.
    let bytes = match crate::fs::plain_parent(path) {
        Some((dir, _)) => dir,
        None => path.parent()?.as_os_str().as_encoded_bytes(),
    };
    let open_end = bytes.ends_with(b"/") || bytes.ends_with(b".");
    if !open_end && !bytes.ends_with(b"agents") {
        return None;
    }
    // Written plainly (no `//`, no `.` component), comparing bytes means comparing
    // components.
    let plain = !open_end
        && !bytes.windows(2).any(|w| w == b"//")
        && !bytes.windows(3).any(|w| w == b"/./");
    if plain {
        return DIRS.into_iter().find(|d| {
            bytes
                .strip_suffix(d.as_bytes())
                .is_some_and(|head| head.is_empty() || head.ends_with(b"/"))
        });
    }
    let parent = path.parent()?;
    DIRS.into_iter().find(|d| parent.ends_with(d))
}

/// Whether `host`'s newest profile discovers project roles in `dir` (itself, or a
/// directory it reads below: nicobailon reads `.agents/` throughout).
pub fn host_reads_dir(host: HostId, dir: &str) -> bool {
    host.project_dirs().any(|d| {
        d == dir
            || dir
                .strip_prefix(d)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// Which host a package source installs, and the version it pins.
fn match_source(source: &str) -> Option<(HostId, Option<String>)> {
    if let Some(spec) = source.strip_prefix("npm:") {
        let spec = spec.trim();
        if spec.is_empty() {
            return None;
        }
        // `@scope/name@1.2.3` or `name@1.2.3`: the version follows the last `@`
        // that is not the scope's.
        let (name, version) = match spec[1..].rfind('@') {
            Some(i) => (&spec[..=i], Some(spec[i + 2..].to_string())),
            None => (spec, None),
        };
        let host = ALL.into_iter().find(|h| h.package() == Some(name))?;
        let version = version.filter(|v| super::version::parse(v).is_some());
        return Some((host, version));
    }
    // git or local sources: the repository (`owner/name`); both tintinweb's and
    // nicobailon's repositories are called `pi-subagents`, so the owner decides.
    let path = source.trim_end_matches('/');
    let path = path.split('@').next()?.trim_end_matches(".git");
    let host = ALL
        .into_iter()
        .find(|h| h.repository().is_some_and(|repo| path.ends_with(repo)))?;
    let version = source
        .rsplit_once('@')
        .map(|(_, v)| v.trim_start_matches('v').to_string())
        .filter(|v| super::version::parse(v).is_some());
    Some((host, version))
}

/// The version in the installed package's `package.json`, where pi put it.
fn installed_version(base: &Path, host: HostId, source: &str) -> Option<String> {
    let package = host.package()?;
    let mut candidates = vec![crate::pi::settings::npm_install_dir(base, package)];
    if !source.starts_with("npm:") {
        let path = source
            .trim_start_matches("git:")
            .trim_start_matches("https://")
            .trim_start_matches("ssh://")
            .split('@')
            .next()
            .unwrap_or_default()
            .trim_end_matches(".git")
            .to_string();
        candidates.push(crate::pi::settings::git_install_dir(base, &path));
    }
    candidates.into_iter().find_map(|dir| {
        let doc = crate::pi::settings::read_json(&dir.join("package.json")).ok()??;
        doc["version"].as_str().map(str::to_string)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_map_to_hosts() {
        assert_eq!(
            match_source("npm:@tintinweb/pi-subagents@0.18.0"),
            Some((HostId::Tintinweb, Some("0.18.0".into())))
        );
        assert_eq!(
            match_source("npm:@tintinweb/pi-subagents"),
            Some((HostId::Tintinweb, None))
        );
        assert_eq!(
            match_source("npm:pi-subagents@0.67.0"),
            Some((HostId::Nicobailon, Some("0.67.0".into())))
        );
        assert_eq!(
            match_source("git:github.com/giuseppecrj/pi-herdr-agents@v3.1.0"),
            Some((HostId::Herdr, Some("3.1.0".into())))
        );
        assert_eq!(
            match_source("git:github.com/nicobailon/pi-subagents@v0.76.1"),
            Some((HostId::Nicobailon, Some("0.76.1".into())))
        );
        assert_eq!(
            match_source("https://github.com/tintinweb/pi-subagents"),
            Some((HostId::Tintinweb, None))
        );
        assert_eq!(match_source("npm:pi-web-tools"), None);
        assert_eq!(match_source("npm:"), None);
    }

    #[test]
    fn pi_example_extension_is_detected_by_its_files() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        let ext = root.join(".pi/extensions/subagent");
        std::fs::create_dir_all(&ext).unwrap();
        assert_eq!(detect(root, None).spec.host, HostId::Pwk);
        std::fs::write(ext.join("index.ts"), "").unwrap();
        std::fs::write(ext.join("agents.ts"), "").unwrap();
        let d = detect(root, None);
        assert_eq!(d.spec.host, HostId::PiExample);
        assert_eq!(d.basis, Basis::Settings);
        assert!(
            d.reason().contains("example subagent extension"),
            "{}",
            d.reason()
        );
    }

    #[test]
    fn paths_under_a_hosts_own_directory_pick_it() {
        let p = |s: &str| PathBuf::from(s);
        let d = detect_from_paths(&[p("/x/.claude/agents/a.md"), p(".claude/agents/sub/b.md")])
            .unwrap();
        assert_eq!(d.spec.host, HostId::ClaudeCode);
        assert_eq!(d.basis, Basis::Directory);
        assert!(d.reason().contains(".claude/agents/"), "{}", d.reason());
        assert!(detect_from_paths(&[p(".claude/agents/a.md"), p(".pi/agents/b.md")]).is_none());
        assert!(detect_from_paths(&[p(".pi/agents/b.md")]).is_none());
        assert!(detect_from_paths(&[p("claude/agents/b.md")]).is_none());
    }

    #[test]
    fn detection_reads_project_then_global_settings() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        let agent = t.path().join("agent");
        std::fs::create_dir_all(root.join(".pi/npm/node_modules/pi-subagents")).unwrap();
        std::fs::create_dir_all(&agent).unwrap();
        let none = detect(&root, Some(&agent));
        assert_eq!(none.spec.host, HostId::Pwk);
        assert_eq!(none.basis, Basis::Nothing);
        std::fs::write(
            root.join(".pi/settings.json"),
            r#"{"packages": [{"source": "npm:pi-subagents"}]}"#,
        )
        .unwrap();
        std::fs::write(
            root.join(".pi/npm/node_modules/pi-subagents/package.json"),
            r#"{"name": "pi-subagents", "version": "0.67.0"}"#,
        )
        .unwrap();
        let d = detect(&root, Some(&agent));
        assert_eq!(d.spec.host, HostId::Nicobailon);
        assert_eq!(d.spec.version.as_deref(), Some("0.67.0"));
        assert!(d.reason().contains("0.67.0"), "{}", d.reason());
        std::fs::write(
            agent.join("settings.json"),
            r#"{"packages": ["npm:@tintinweb/pi-subagents@0.14.1"]}"#,
        )
        .unwrap();
        let both = detect(&root, Some(&agent));
        assert_eq!(both.spec.host, HostId::Pwk);
        assert_eq!(both.basis, Basis::Several);
        assert_eq!(both.found.len(), 2);
        assert!(
            both.reason().contains("nicobailon (") && both.reason().contains("tintinweb ("),
            "{}",
            both.reason()
        );
    }

    /// A settings base (`.pi/`, the agent dir) in every state it can be in: one that
    /// is not there (absent, a link to nothing) is stepped over and says nothing;
    /// anything else in its place is still asked file by file, so what pwk cannot
    /// read is said; a real directory still names its host. Each state, for the
    /// project's base and the agent dir alike.
    #[test]
    fn a_settings_base_that_is_not_there_is_stepped_over_and_nothing_else_is() {
        type Make = fn(&Path);
        let states: [(&str, Make, Option<bool>); 6] = [
            // (state, how to make it, Some(named tintinweb) / None: unreadable said)
            ("absent", |_| {}, Some(false)),
            (
                "a link to nothing",
                |b| std::os::unix::fs::symlink(b.with_extension("gone"), b).unwrap(),
                Some(false),
            ),
            ("a regular file", |b| std::fs::write(b, "x").unwrap(), None),
            (
                "an empty directory",
                |b| std::fs::create_dir_all(b).unwrap(),
                Some(false),
            ),
            (
                "a directory with the host's settings",
                |b| {
                    std::fs::create_dir_all(b).unwrap();
                    std::fs::write(b.join("subagents.json"), "{}").unwrap();
                },
                Some(true),
            ),
            (
                "a link to such a directory",
                |b| {
                    let real = b.with_extension("real");
                    std::fs::create_dir_all(&real).unwrap();
                    std::fs::write(real.join("subagents.json"), "{}").unwrap();
                    std::os::unix::fs::symlink(&real, b).unwrap();
                },
                Some(true),
            ),
        ];
        for (state, make, want) in states {
            for agent_side in [false, true] {
                let t = tempfile::tempdir().unwrap();
                let root = t.path().join("proj");
                std::fs::create_dir_all(&root).unwrap();
                let agent = t.path().join("agent");
                let base = if agent_side {
                    agent.clone()
                } else {
                    root.join(".pi")
                };
                make(&base);
                let d = detect(&root, Some(&agent));
                let at = format!("{state}, {}", if agent_side { "agent dir" } else { ".pi/" });
                match want {
                    Some(named) => {
                        assert!(d.unreadable.is_empty(), "{at}: {:?}", d.unreadable);
                        assert_eq!(d.spec.host == HostId::Tintinweb, named, "{at}: {d:?}");
                    }
                    None => {
                        assert!(
                            d.unreadable.iter().any(|(p, _)| p.starts_with(&base)),
                            "{at}: {:?}",
                            d.unreadable
                        );
                        assert_eq!(d.spec.host, HostId::Pwk, "{at}");
                    }
                }
                assert_eq!(d.looked.len(), 2, "{at}: both bases are named as looked at");
            }
        }
    }

    /// Each host's own settings name it; a file of another shape or place does not.
    #[test]
    fn each_hosts_own_settings_name_it() {
        let t = tempfile::tempdir().unwrap();
        let case = |name: &str, files: &[(&str, &str)]| {
            let root = t.path().join(name);
            for (rel, text) in files {
                crate::testing::write_tree_file(&root, rel, text);
            }
            detect(&root, None)
        };
        let tw = case(
            "tw",
            &[(".pi/subagents.json", "{\n  \"maxConcurrent\": 2\n}")],
        );
        assert_eq!(
            (tw.spec.host, tw.basis),
            (HostId::Tintinweb, Basis::Settings)
        );
        assert!(
            tw.reason().contains("tintinweb's own settings"),
            "{}",
            tw.reason()
        );
        let nb = case(
            "nb",
            &[(
                ".pi/settings.json",
                "{\n  \"subagents\": {\n    \"agentOverrides\": {}\n  }\n}",
            )],
        );
        assert_eq!(
            (nb.spec.host, nb.basis),
            (HostId::Nicobailon, Basis::Settings)
        );
        // nicobailon's artifact directory `.pi/subagents/` is not tintinweb's file.
        std::fs::create_dir_all(t.path().join("dir/.pi/subagents.json")).unwrap();
        assert_eq!(detect(&t.path().join("dir"), None).basis, Basis::Nothing);
        // A `subagents` that is not an object is not nicobailon's.
        let other = case("other", &[(".pi/settings.json", "{\"subagents\": true}")]);
        assert_eq!(other.basis, Basis::Nothing);
    }

    #[test]
    fn a_claude_plugin_manifest_names_its_agents() {
        let t = tempfile::tempdir().unwrap();
        let plugin = t.path().join("repo/plugins/p");
        std::fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
        std::fs::create_dir_all(plugin.join("agents/sub")).unwrap();
        std::fs::create_dir_all(plugin.join("custom")).unwrap();
        std::fs::create_dir_all(plugin.join("other")).unwrap();
        std::fs::write(
            plugin.join(".claude-plugin/plugin.json"),
            r#"{"name": "p", "agents": ["./custom/"]}"#,
        )
        .unwrap();
        let bound = t.path().join("repo");
        for dir in ["agents", "agents/sub", "custom"] {
            let d = detect_dir(&plugin.join(dir), &bound).unwrap();
            assert_eq!(d.spec.host, HostId::ClaudeCode, "{dir}");
            assert_eq!(d.basis, Basis::Settings, "{dir}");
        }
        assert!(detect_dir(&plugin.join("other"), &bound).is_none());
        assert!(detect_dir(&bound, &bound).is_none());
    }

    #[test]
    fn keys_only_one_candidate_host_reads_name_it() {
        let p = Path::new;
        assert_eq!(
            infer_from_keys(
                p("x/.pi/agents/a.md"),
                ["name", "prompt_mode", "memory", "isolated"]
            ),
            KeyEvidence::One(HostId::Tintinweb, vec!["prompt_mode", "isolated"])
        );
        assert_eq!(
            infer_from_keys(p("x/.pi/agents/a.md"), ["toolBudget"]),
            KeyEvidence::One(HostId::Nicobailon, vec!["toolBudget"])
        );
        // The PWK contract's keys say nothing (nicobailon alone reads
        // `systemPromptMode`, but the contract documents it).
        assert_eq!(
            infer_from_keys(
                p(".pi/agents/a.md"),
                ["name", "systemPromptMode", "max_turns"]
            ),
            KeyEvidence::None
        );
        // herdr never reads `.agents/agents/`: its key says nothing there.
        assert!(matches!(
            infer_from_keys(p(".pi/agents/a.md"), ["persistent"]),
            KeyEvidence::One(HostId::Herdr, _)
        ));
        assert_eq!(
            infer_from_keys(p(".agents/agents/a.md"), ["persistent"]),
            KeyEvidence::None
        );
        // Claude Code reads `.claude/agents/` (and plugins'), never pi's directories
        // nor a file elsewhere: its keys say nothing (`maxTurns` in a pi role is a
        // misspelt `max_turns`).
        for dir in [".pi/agents/a.md", "agents/a.md", "a.md"] {
            assert_eq!(
                infer_from_keys(p(dir), ["permissionMode", "maxTurns"]),
                KeyEvidence::None,
                "{dir}"
            );
        }
        assert!(matches!(
            infer_from_keys(p("agents/a.md"), ["toolBudget"]),
            KeyEvidence::One(HostId::Nicobailon, _)
        ));
        assert!(matches!(
            infer_from_keys(p(".pi/agents/a.md"), ["prompt_mode", "toolBudget"]),
            KeyEvidence::Several(_)
        ));
    }

    /// The class, from the profiles: for every key some host outside the PWK
    /// contract reads, the set of hosts (any version) that read it. A key read by
    /// two or more hosts never infers one, in any directory (`color`: tintinweb,
    /// Claude Code, OpenCode); a key exactly one host reads infers that host
    /// wherever that host is a candidate, and the evidence names the key.
    #[test]
    fn only_a_key_exactly_one_known_host_reads_infers_it() {
        let documented = crate::role::schema::schema()["properties"]
            .as_object()
            .unwrap();
        let mut readers: std::collections::BTreeMap<&str, Vec<HostId>> = Default::default();
        for h in ALL.into_iter().filter(|h| *h != HostId::Pwk) {
            for p in h.profiles() {
                for k in p.keys.keys() {
                    if documented.contains_key(*k) {
                        continue;
                    }
                    let hosts = readers.entry(*k).or_default();
                    if !hosts.contains(&h) {
                        hosts.push(h);
                    }
                }
            }
        }
        let shared: Vec<&str> = readers
            .iter()
            .filter(|(_, hs)| hs.len() > 1)
            .map(|(k, _)| *k)
            .collect();
        assert!(shared.contains(&"color"), "{shared:?}");
        let dirs = [
            ".agents/agents/a.md",
            ".pi/agents/a.md",
            "agents/a.md",
            "a.md",
        ];
        // build.rs's table (`key_readers`) is this, exactly.
        for (key, hosts) in &readers {
            let bits = hosts.iter().fold(0u32, |m, h| {
                m | 1 << ALL.iter().position(|x| x == h).expect("in ALL")
            });
            assert_eq!(key_readers(key), Some((*key, bits)), "{key}");
        }
        assert_eq!(super::super::generated::KEY_READERS.len(), readers.len());
        assert_eq!(key_readers("no-such-key"), None);
        assert_eq!(key_readers(""), None);
        let (mut inferred, mut shared_seen) = (0, 0);
        for (key, hosts) in &readers {
            for dir in dirs {
                let got = infer_from_keys(Path::new(dir), [*key]);
                if hosts.len() > 1 {
                    shared_seen += 1;
                    assert_eq!(got, KeyEvidence::None, "`{key}` ({hosts:?}) in {dir}");
                    continue;
                }
                let host = hosts[0];
                let candidate = match project_dir_of(Path::new(dir)) {
                    Some(d) => host_reads_dir(host, d),
                    None => host.is_pi(),
                };
                if candidate {
                    inferred += 1;
                    assert_eq!(got, KeyEvidence::One(host, vec![*key]), "`{key}` in {dir}");
                } else {
                    assert_eq!(got, KeyEvidence::None, "`{key}` ({host}) in {dir}");
                }
            }
        }
        assert!(inferred > 0 && shared_seen > 0, "{inferred} {shared_seen}");
        // The account names the deciding key, and it is true of it.
        let d = Detection::from_keys(
            HostId::Tintinweb,
            vec!["prompt_mode"],
            PathBuf::from(".pi/agents/a.md"),
        );
        assert!(
            d.reason().contains("`prompt_mode`") && d.reason().contains("only tintinweb reads"),
            "{}",
            d.reason()
        );
    }

    /// The byte comparison answers as comparing components does, on every way of
    /// writing a parent directory.
    #[test]
    fn project_dir_of_agrees_with_path_components() {
        let parents = [
            "",
            ".",
            "/",
            "agents",
            ".agents/agents",
            ".pi/agents",
            "x/.agents/agents",
            "/x/.pi/agents",
            "x.agents/agents",
            "x/a.pi/agents",
            ".agents//agents",
            ".agents/./agents",
            "./.agents/agents",
            ".agents/agents/",
            ".agents/agents/.",
            "x//.pi/agents",
            ".pi/agents//",
            "/.pi/agents",
            "pi/agents",
            ".pi/xagents",
            ".pi/agents/x",
            "a/.agents/agents/../agents",
            "./x/.pi/agents",
            "./.pi/agents",
            "..agents/agents",
        ];
        let mut paths: Vec<std::path::PathBuf> = parents
            .iter()
            .map(|p| Path::new(p).join("role.md"))
            .collect();
        // Written as they come, not as `join` writes them.
        paths.extend(
            [
                "role.md",
                "/role.md",
                "x//role.md",
                ".agents/agents//role.md",
                ".pi/agents/./role.md",
                ".pi/agents/.",
                ".pi/agents/..",
                ".pi/agents/",
                ".pi/agents/x/..",
                "a/.pi/agents/role.md/",
            ]
            .map(std::path::PathBuf::from),
        );
        for path in paths {
            let slow = path.parent().and_then(|p| {
                [".agents/agents", ".pi/agents"]
                    .into_iter()
                    .find(|d| p.ends_with(d))
            });
            assert_eq!(project_dir_of(&path), slow, "{path:?}");
        }
    }
}
