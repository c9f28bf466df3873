//! The project every command works on: its root (one rule, which stops at a
//! directory another user owns), its `pwk.toml` (with `extend` and
//! `[[overrides]]`), the host it is linted and listed for, and the set of role
//! files `pwk lint` covers. Built once per command by the command layer and
//! handed to every front end: lint (and `--fix`, `--diff`, the baseline), list,
//! show, smoke, new, setup, convert, review/recon, the language server and the MCP
//! server, so they all agree on the project.
//!
//! Precedence for the host, highest first: `--host` (or the caller's own
//! option), an `[[overrides]]` entry matching the file, `host` in `pwk.toml`
//! (or the file `--config` names), `auto` (the host a file's own directory names,
//! `.claude/agents/` → claude-code; else pi's settings; else the portable profile).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::config::{ConfigError, Configs, Origin, ResolvedConfig, Val};
use crate::fs::trust::{Untrusted, trust_entry, trusted_dir, untrusted_on_the_way};
use crate::host::{Chosen, Detection, HostChoice};
use crate::lint::{FileSettings, LintOptions, LintReport, SettingsSource, WalkError};

/// What the caller says about the project (the command line, an editor's or an
/// MCP client's options).
#[derive(Debug, Clone, Default)]
pub struct ProjectOptions {
    /// The directory the command runs in.
    pub cwd: PathBuf,
    /// `--dir`: the project root itself (relative to `cwd`); must be a directory.
    pub dir: Option<PathBuf>,
    /// `--host` (beats every configuration).
    pub host: Option<HostChoice>,
    /// `--config FILE`: this configuration governs every file (no `pwk.toml` is
    /// looked for).
    pub config: Option<PathBuf>,
    /// `$HOME` (bounds the root walk).
    pub home: Option<PathBuf>,
    /// pi's agent directory (`$PI_CODING_AGENT_DIR`, default `~/.pi/agent`).
    pub agent_dir: Option<PathBuf>,
}

/// Why a project (or its file set) could not be made: exit 2.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("--dir `{}` is not a directory; give the project's root directory", .0.display())]
    DirNotADirectory(PathBuf),
    #[error("--dir `{}` does not exist; give an existing project directory", .0.display())]
    DirMissing(PathBuf),
    #[error("--dir `{}` cannot be used: {why}; give an existing project directory", .path.display())]
    DirUnusable { path: PathBuf, why: String },
    #[error("--config `{}` does not exist", .0.display())]
    ConfigMissing(PathBuf),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("nothing to lint: {0}")]
    NothingToLint(String),
}

impl ProjectError {
    /// The same error with the paths of a configuration error relative to `cwd`.
    pub fn relative_to(self, cwd: &Path) -> ProjectError {
        match self {
            ProjectError::Config(e) => ProjectError::Config(e.relative_to(cwd)),
            other => other,
        }
    }
}

/// The project a command works in.
#[derive(Debug)]
pub struct Project {
    /// The project root: `--dir`, else the nearest directory upwards from `cwd` that
    /// holds `.git`, `.agents` or `.pi` (stopping below `$HOME` and before a
    /// directory another user owns), else `cwd`.
    pub root: PathBuf,
    /// Where the host is taken to run: `--dir` when given, else the current directory.
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    pub agent_dir: Option<PathBuf>,
    /// `--host`.
    pub host_flag: Option<HostChoice>,
    /// `--config FILE`, absolute.
    pub config_file: Option<PathBuf>,
    /// The directory owned by another user where the root walk stopped, if it did.
    pub stopped_at: Option<PathBuf>,
    /// What pwk does not use because another user controls it: the project the
    /// root walk stopped at, a configuration on the way, a directory of roles.
    pub ignored: Vec<Untrusted>,
    configs: Mutex<Configs>,
    /// `--host auto`'s decisions, by directory (each asked once per run).
    detections: Mutex<std::collections::HashMap<PathBuf, Detection>>,
}

impl Project {
    /// Find the project for `opts`; `--dir` and `--config` must exist.
    pub fn open(opts: ProjectOptions) -> Result<Project, ProjectError> {
        // The configuration lookup walks to the root again for each directory of
        // files: this walk is its first (each directory is walked once a run).
        let mut configs = Configs::new(opts.home.as_deref());
        let (root, cwd, stopped_at, ignored) = match &opts.dir {
            None => {
                let found = configs.root_of(&opts.cwd);
                (
                    found.root,
                    opts.cwd.clone(),
                    found.stopped_at,
                    found.ignored,
                )
            }
            Some(dir) => {
                let root = opts.cwd.join(dir);
                match std::fs::metadata(&root) {
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => return Err(ProjectError::DirNotADirectory(dir.clone())),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Err(ProjectError::DirMissing(dir.clone()));
                    }
                    Err(e) => {
                        return Err(ProjectError::DirUnusable {
                            path: dir.clone(),
                            why: e.to_string(),
                        });
                    }
                }
                (root.clone(), root, None, None)
            }
        };
        let config_file = match &opts.config {
            None => None,
            Some(f) => {
                let abs = std::path::absolute(opts.cwd.join(f)).unwrap_or_else(|_| f.clone());
                if std::fs::symlink_metadata(&abs).is_err() {
                    return Err(ProjectError::ConfigMissing(f.clone()));
                }
                Some(abs)
            }
        };
        if let Some(f) = &config_file {
            configs = configs.with_file(f.clone());
            // Read it now: a bad file named on the command line stops every command.
            configs.for_path(&cwd)?;
        }
        let ignored = ignored_files(&cwd, &root, ignored);
        Ok(Project {
            ignored,
            root,
            cwd,
            home: opts.home,
            agent_dir: opts.agent_dir,
            host_flag: opts.host,
            config_file,
            stopped_at,
            configs: Mutex::new(configs),
            detections: Default::default(),
        })
    }

    /// The project rooted at `root` as given (an editor's workspace folder), no
    /// check made: nothing here can fail.
    pub fn at(
        root: PathBuf,
        home: Option<PathBuf>,
        agent_dir: Option<PathBuf>,
        host: Option<HostChoice>,
    ) -> Project {
        Project {
            configs: Mutex::new(Configs::new(home.as_deref())),
            cwd: root.clone(),
            root,
            home,
            agent_dir,
            host_flag: host,
            config_file: None,
            stopped_at: None,
            ignored: Vec::new(),
            detections: Default::default(),
        }
    }

    /// The same project with `--config FILE` (absolute): that file governs every
    /// path (an editor's or MCP client's server started with `--config`).
    pub fn with_config_file(mut self, file: Option<PathBuf>) -> Project {
        if let Some(f) = &file {
            self.configs = Mutex::new(Configs::new(self.home.as_deref()).with_file(f.clone()));
        }
        self.config_file = file;
        self
    }

    /// The host profile `path` is linted for, and its settings, as `pwk lint` would
    /// lint it (an editor's buffer): under `--host auto` with nothing else naming a
    /// host, the file's own keys decide once it is parsed ([`crate::lint::ProfileFor::infer`]).
    pub fn file_profile(
        &self,
        path: &Path,
    ) -> Result<(crate::lint::ProfileFor, FileSettings), ConfigError> {
        let resolved = self.resolve_file(path)?;
        let chosen = self.host_in(&resolved.host.value, crate::fs::dir_of(path));
        let mut settings = resolved.settings();
        settings.skills = Some(self.skill_places());
        Ok((crate::lint::ProfileFor::of(&chosen), settings))
    }

    /// The host a role file at `path` is read by, and why, as every front end decides
    /// it: `--host`, an `[[overrides]]` entry matching it, `host` in `pwk.toml`, else
    /// detection ([`Project::detect_dir`]). When `detection` is undecided
    /// ([`Detection::undecided`]), the file's own keys may still name its host
    /// ([`crate::host::infer_from_keys`], asked once the file is parsed).
    pub fn host_for(&self, path: &Path) -> Result<Chosen, ConfigError> {
        let resolved = self.resolve_file(path)?;
        let mut chosen = self.host_in(&resolved.host.value, crate::fs::dir_of(path));
        if chosen.detection.is_none() && resolved.host.origin != Origin::Flag("--host") {
            chosen.source = Some(describe_origin(&resolved.host.origin, &self.cwd));
        }
        Ok(chosen)
    }

    /// The profile for the files in `dir` under `choice` (a configuration's host, or
    /// `auto`: [`Project::detect_dir`]).
    pub fn host_in(&self, choice: &HostChoice, dir: &Path) -> Chosen {
        match choice {
            HostChoice::Spec(_) => choice.resolve(&self.root, self.agent_dir.as_deref()),
            HostChoice::Auto => {
                let d = self.detect_dir(dir);
                Chosen {
                    profile: d.spec.profile().expect("detection picks known profiles"),
                    detection: Some(d),
                    source: None,
                }
            }
        }
    }

    /// `--host auto` for the files in `dir` (each directory decided once): a host's
    /// own agents directory or a Claude Code plugin's, else the settings of the
    /// nearest project above `dir` (the one root rule, [`crate::fs::root::find_root`]; this project's
    /// root when none is found) and of pi's agent dir. Several projects in one tree
    /// each get their own host.
    pub fn detect_dir(&self, dir: &Path) -> Detection {
        let dir = crate::fs::absolute(dir);
        if let Some(d) = self.detections().get(&dir) {
            return d.clone();
        }
        let (project, place) = self.place_of(&dir);
        let d = match place {
            Some(d) => d,
            None => {
                let key = project.join(".pi");
                let cached = self.detections().get(&key).cloned();
                match cached {
                    Some(d) => d,
                    None => {
                        let d = crate::host::detect(&project, self.agent_dir.as_deref());
                        self.detections().insert(key, d.clone());
                        d
                    }
                }
            }
        };
        self.detections().insert(dir, d.clone());
        d
    }

    /// What the directory `dir` alone says of the host its files are written for
    /// (a host's own agents directory, a Claude Code plugin's agents), as
    /// [`Project::detect_dir`] asks it first; `None`: the settings decide.
    pub fn detect_place(&self, dir: &Path) -> Option<Detection> {
        self.place_of(&crate::fs::absolute(dir)).1
    }

    /// The project root above the absolute directory `dir` (this project's root
    /// when no marker is found), and what `dir` alone says
    /// ([`crate::host::detect_dir`], asked up to that root).
    fn place_of(&self, dir: &Path) -> (PathBuf, Option<Detection>) {
        let found = self.configs().root_of(dir);
        let project = match found.marker {
            Some(_) => found.root,
            None => self.root.clone(),
        };
        let place = crate::host::detect_dir(dir, &project);
        (project, place)
    }

    fn detections(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<PathBuf, Detection>> {
        self.detections.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn configs(&self) -> std::sync::MutexGuard<'_, Configs> {
        self.configs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Where the skill directories of this project, this user and pi are: shared by
    /// every file's settings (a lint run copies them per file).
    pub fn skill_places(&self) -> Arc<crate::host::skills::SkillPlaces> {
        Arc::new(crate::host::skills::SkillPlaces {
            root: self.root.clone(),
            home: self.home.clone(),
            agent_dir: self.agent_dir.clone(),
        })
    }

    /// Discovery's starting points for this project.
    pub fn roots(&self) -> crate::discover::Roots {
        crate::discover::Roots {
            cwd: self.cwd.clone(),
            home: self.home.clone(),
            global_agents_dir: self.agent_dir.as_ref().map(|d| d.join("agents")),
            project_root: self.root.clone(),
        }
    }

    /// The configuration that applies to `path` (a file or a directory), with
    /// `--host` applied.
    pub fn resolve(&self, path: &Path) -> Result<ResolvedConfig, ConfigError> {
        Ok(self
            .configs()
            .resolve(path)?
            .with_host_flag(self.host_flag.as_ref()))
    }

    /// [`Project::resolve`] for a path known to be a file.
    pub fn resolve_file(&self, path: &Path) -> Result<ResolvedConfig, ConfigError> {
        Ok(self
            .configs()
            .resolve_file(path)?
            .with_host_flag(self.host_flag.as_ref()))
    }

    /// `[delegate] budget` of the configuration governing the directory commands run
    /// in (`cwd`): the default spend limits of every delegated run (`pwk delegate`,
    /// `run-request`, `review`, `recon`, `pwk mcp`). A request's own limits beat it.
    pub fn delegate_budget(
        &self,
    ) -> Result<Option<crate::config::Val<crate::delegate::Budget>>, ConfigError> {
        Ok(self
            .configs()
            .for_path(&self.cwd)?
            .and_then(|c| c.delegate_budget().cloned()))
    }

    /// The configuration file governing `path`, with what it says about
    /// `paths` and `exclude` (for `pwk config`).
    pub fn config_for(&self, path: &Path) -> Result<Option<crate::config::Config>, ConfigError> {
        Ok(self.configs().for_path(path)?.cloned())
    }

    /// The host choice for the project as a whole (what `list`, `show`, `smoke`,
    /// `setup`, `new` and `convert` use): `--host`, else the project's `pwk.toml`,
    /// else `auto`.
    pub fn host_choice(&self) -> Result<Val<HostChoice>, ConfigError> {
        Ok(self.resolve(&self.cwd)?.host)
    }

    /// The host profile for the project as a whole (`auto` reads pi's settings).
    pub fn host(&self) -> Result<Chosen, ConfigError> {
        let choice = self.host_choice()?;
        let mut chosen = choice.value.resolve(&self.root, self.agent_dir.as_deref());
        if chosen.detection.is_none() && choice.origin != Origin::Flag("--host") {
            chosen.source = Some(describe_origin(&choice.origin, &self.cwd));
        }
        Ok(chosen)
    }

    /// Every role the project's host sees.
    pub fn discover(&self) -> Result<crate::discover::Discovery, ConfigError> {
        let chosen = self.host()?;
        let mut d = crate::discover::resolve_in(&self.roots(), chosen.profile);
        d.host_choice = chosen.explain(&self.cwd);
        Ok(d)
    }

    /// The hosts whose roles `list`, `show`, `smoke` and the MCP role tools describe
    /// here, the project's host first, as `pwk lint` picks a host for each file: a
    /// host named (`--host`, `host` in `pwk.toml`) is the only one; under `auto`,
    /// the project's host ([`Project::host`]: the pi directories' reader) and every
    /// other host whose own agents directory exists — in the project (what `pwk
    /// lint` lints for that host) or in the user's home (`~/.claude/agents/`), where
    /// that host finds roles for this project too.
    pub fn role_hosts(&self) -> Result<Vec<Chosen>, ConfigError> {
        let primary = self.host()?;
        if self.host_choice()?.value != HostChoice::Auto {
            return Ok(vec![primary]);
        }
        // The project's directories lint walks first (the one list of them), then
        // the user's own directories of each host.
        let project = self.agents_dirs();
        let mut out = vec![primary];
        for h in crate::host::ALL.into_iter().filter(|h| !h.is_pi()) {
            if out.iter().any(|c| c.profile.host == h) {
                continue;
            }
            let profile = h.newest();
            let in_project = project
                .iter()
                .find(|d| d.host == Some(h))
                .map(|d| d.path.clone());
            let in_home = || {
                profile.discovery.dirs.iter().find_map(|d| {
                    let rest = d.path.strip_prefix("{home}/")?;
                    let path = self.home.as_ref()?.join(rest);
                    path.is_dir().then_some(path)
                })
            };
            let Some(dir) = in_project.or_else(in_home) else {
                continue;
            };
            out.push(Chosen {
                profile,
                detection: None,
                source: Some(format!(
                    "auto: {}/ is where {h} reads its agents",
                    crate::display::display_path(&self.cwd, &dir).trim_end_matches('/')
                )),
            });
        }
        Ok(out)
    }

    /// Every role of the project, one discovery per host of [`Project::role_hosts`]
    /// (the project's host first): each role as its own host resolves it.
    pub fn discover_hosts(&self) -> Result<Vec<crate::discover::Discovery>, ConfigError> {
        let roots = self.roots();
        Ok(self
            .role_hosts()?
            .into_iter()
            .map(|chosen| {
                let mut d = crate::discover::resolve_in(&roots, chosen.profile);
                d.host_choice = chosen.explain(&self.cwd);
                d
            })
            .collect())
    }

    /// The first symbolic link on the way from the project root to `dir` (`dir`
    /// included): a directory of the project reached through it is not read
    /// ([`crate::fs::linked_dir`]).
    pub fn linked_dir(&self, dir: &Path) -> Option<PathBuf> {
        crate::fs::linked_dir(&self.cwd, &self.root, dir)
    }

    /// The agents directories present in the project, each with the host whose
    /// directory it is (`None`: a pi directory, `.agents/agents/` or `.pi/agents/`).
    pub fn agents_dirs(&self) -> Vec<AgentsDir> {
        agents_dirs(&self.root)
    }

    /// The files a lint run covers: `paths` as given; with none, `paths` from the
    /// configuration, else every agents directory present ([`Project::agents_dirs`]).
    /// `exclude` leaves out what a walk found, never a file named.
    pub fn file_set(&self, req: &FileRequest) -> Result<FileSet, ProjectError> {
        let mut dirs = Vec::new();
        // Who named the files, for `--fix` (the one confinement rule, `crate::fs`).
        let mut named_by = crate::fs::NamedBy::User("the paths given".into());
        let paths = if req.paths.is_empty() {
            let from_config = {
                let mut configs = self.configs();
                configs.for_path(&self.cwd)?.and_then(|c| {
                    let at = c.paths().map(|p| describe_origin(&p.origin, &self.cwd));
                    c.path_files()
                        .map(|f| (f, c.path().to_path_buf(), at.unwrap_or_default()))
                })
            };
            named_by = match &from_config {
                Some((_, _, at)) => crate::fs::NamedBy::Config {
                    key: "paths",
                    at: at.clone(),
                    help: None,
                },
                None => crate::fs::NamedBy::Pwk,
            };
            match from_config {
                Some((files, _, _)) if !files.is_empty() => files,
                Some((_, config, _)) if !req.allow_empty => {
                    return Err(ProjectError::NothingToLint(format!(
                        "`paths` in `{}` matches no `*.md` file",
                        crate::display::display_path(&self.cwd, &config)
                    )));
                }
                Some(_) => Vec::new(),
                None => {
                    dirs = self.agents_dirs();
                    if dirs.is_empty() && !req.allow_empty {
                        let names: Vec<String> = agents_dir_names()
                            .iter()
                            .map(|(d, _)| format!("`{d}/`"))
                            .collect();
                        return Err(ProjectError::NothingToLint(format!(
                            "no agents directory ({}) exists in the project `{}`; pass files or directories, or --allow-empty",
                            names.join(", "),
                            crate::display::display_path(&self.cwd, &self.root)
                        )));
                    }
                    dirs.iter().map(|d| d.path.clone()).collect()
                }
            }
        } else {
            req.paths.clone()
        };
        // Where `--fix` opens files from (see `crate::fs`): the project root, and the
        // paths the user named (never what a configuration named).
        let anchors = crate::fs::Anchors::new(&self.cwd, &self.root, &req.paths);
        // A directory in the project reached through a symbolic link (a cloned
        // repository's `.agents -> /elsewhere`) or that another user controls is not
        // entered: reported, not linted. (What the user names is read.)
        let skipped = |p: &PathBuf| -> Option<String> {
            if req.paths.contains(p) {
                return None;
            }
            if let Some(link) = anchors.symlink_on_the_way(p) {
                return Some(crate::fs::linked_dir_message(&self.cwd, &link));
            }
            untrusted_on_the_way(&self.root, p).map(|u| u.dir_warning(&self.cwd))
        };
        let (paths, not_read): (Vec<_>, Vec<_>) = paths
            .into_iter()
            .map(|p| {
                let why = skipped(&p);
                (p, why)
            })
            .partition(|(_, why)| why.is_none());
        let paths: Vec<PathBuf> = paths.into_iter().map(|(p, _)| p).collect();
        // The project's agents directories are walked at every depth: a role in a
        // subdirectory is read by the hosts that descend (nicobailon, Claude Code,
        // OpenCode, Copilot CLI) and never found by the others, which lint says
        // (`host-unread-directory`); either way it is linted, not passed over.
        let mut collected = crate::lint::collect_files(&paths, req.recursive || !dirs.is_empty());
        for (dir, why) in not_read {
            collected.errors.push(WalkError::Io {
                source: std::io::Error::other(why.unwrap_or_default()),
                path: dir,
            });
        }
        let mut files = Vec::with_capacity(collected.files.len());
        // How many files `exclude` left out, and where the first one's `exclude`
        // is written, so that "nothing to lint" says why (N33).
        let mut excluded: (usize, Option<String>) = (0, None);
        {
            let mut configs = self.configs();
            for f in collected.files {
                let named = req.paths.contains(&f);
                let by = if named {
                    None
                } else {
                    configs.for_file(&f)?.and_then(|c| {
                        c.excludes(&crate::fs::absolute(&f)).then(|| {
                            c.exclude()
                                .map(|e| describe_origin(&e.origin, &self.cwd))
                                .unwrap_or_default()
                        })
                    })
                };
                match by {
                    None => files.push(f),
                    Some(at) => {
                        excluded.0 += 1;
                        excluded.1.get_or_insert(at);
                    }
                }
            }
        }
        if files.is_empty() && collected.errors.is_empty() && !req.allow_empty && excluded.0 > 0 {
            let shown: Vec<String> = paths
                .iter()
                .map(|p| format!("`{}`", crate::display::display_path(&self.cwd, p)))
                .collect();
            return Err(ProjectError::NothingToLint(format!(
                "{} `*.md` file{} in {} {} left out by `exclude` ({}); name a file to lint it anyway, or narrow `exclude`",
                excluded.0,
                if excluded.0 == 1 { "" } else { "s" },
                shown.join(", "),
                if excluded.0 == 1 { "is" } else { "are all" },
                excluded.1.unwrap_or_default()
            )));
        }
        if files.is_empty() && collected.errors.is_empty() && !req.allow_empty {
            let shown: Vec<String> = paths
                .iter()
                .map(|p| format!("`{}`", crate::display::display_path(&self.cwd, p)))
                .collect();
            return Err(ProjectError::NothingToLint(format!(
                "no `*.md` file in {}{}",
                shown.join(", "),
                if req.recursive {
                    ""
                } else {
                    " (use --recursive to look in subdirectories)"
                }
            )));
        }
        Ok(FileSet {
            files,
            anchors,
            named_by,
            walk_errors: collected.errors,
            other_case: collected.other_case,
            dirs,
            recursive: req.recursive,
        })
    }

    /// How each file of `set` is linted: its configuration's settings, and groups of
    /// files by the host profile they are linted for.
    pub fn plan(&self, set: FileSet, base: &FileSettings) -> Result<LintPlan, ConfigError> {
        let mut settings = std::collections::HashMap::new();
        // Files grouped by host choice, and under `auto` by what decided their host
        // (their directory's detection, an index into `decided`).
        let mut keyed: Vec<(GroupKey, Vec<PathBuf>)> = Vec::new();
        let mut decided: Vec<Detection> = Vec::new();
        let mut last_dir: Option<(PathBuf, usize)> = None;
        for f in &set.files {
            let resolved = self.resolve_file(f)?;
            let mut s = resolved.settings();
            s.no_inline_suppressions = base.no_inline_suppressions;
            // `--extend-select` turns back on what the configuration turned off.
            s.levels
                .retain(|k, v| *v != crate::lint::RuleLevel::Off || !base.enable.contains(k));
            s.enable.clone_from(&base.enable);
            s.skills = base.skills.clone();
            s.models = base.models.clone();
            // Command-line levels (`--select`, `--ignore`) beat the configuration.
            s.levels
                .extend(base.levels.iter().map(|(k, v)| (k.clone(), *v)));
            if s != *base {
                settings.insert(f.clone(), s);
            }
            let detection = match resolved.host.value {
                // The directory decides, so it is asked once per directory (a file
                // name holding a backslash is asked on its own: host_of_path reads it
                // as a separator).
                HostChoice::Auto if last_dir.as_ref().is_some_and(|(d, _)| plainly_in(f, d)) => {
                    last_dir.as_ref().map(|(_, i)| *i)
                }
                HostChoice::Auto => {
                    let plain = !f
                        .file_name()
                        .is_some_and(|n| n.as_encoded_bytes().contains(&b'\\'));
                    let dir = crate::fs::dir_of(f);
                    let i = match &last_dir {
                        Some((d, i)) if plain && d == dir => *i,
                        _ => {
                            let by_name = (!plain)
                                .then(|| crate::host::detect_from_paths(std::slice::from_ref(f)))
                                .flatten();
                            let d = by_name.unwrap_or_else(|| self.detect_dir(dir));
                            let i = match decided.iter().position(|x| *x == d) {
                                Some(i) => i,
                                None => {
                                    decided.push(d);
                                    decided.len() - 1
                                }
                            };
                            if plain {
                                last_dir = Some((dir.to_path_buf(), i));
                            }
                            i
                        }
                    };
                    Some(i)
                }
                HostChoice::Spec(_) => None,
            };
            let key = (resolved.host.value, detection);
            match keyed.iter_mut().find(|(k, _)| *k == key) {
                Some((_, g)) => g.push(f.clone()),
                None => keyed.push((key, vec![f.clone()])),
            }
        }
        let mut groups = Vec::new();
        for ((choice, detection), files) in keyed {
            let chosen = match detection {
                Some(i) => {
                    let d = decided[i].clone();
                    Chosen {
                        profile: d.spec.profile().expect("detection picks known profiles"),
                        detection: Some(d),
                        source: None,
                    }
                }
                None => choice.resolve(&self.root, self.agent_dir.as_deref()),
            };
            groups.push(LintGroup { chosen, files });
        }
        if groups.is_empty() {
            groups.push(LintGroup {
                chosen: self.host()?,
                files: Vec::new(),
            });
        }
        let settings = Arc::new(settings);
        let default = base.clone();
        let source = SettingsSource(Arc::new(move |p: &Path| match settings.get(p) {
            Some(s) => s.clone(),
            None => default.clone(),
        }));
        Ok(LintPlan {
            groups,
            settings: source,
            walk_errors: set.walk_errors,
            other_case: set.other_case,
            dirs: set.dirs,
            recursive: set.recursive,
            cwd: self.cwd.clone(),
        })
    }
}

/// Whether `file` is `dir/name`, written so (one `/`, a plain file name without a
/// backslash): then `file.parent()` is `dir`. Asked for every file of a run, where
/// parsing the path's components cost more than the rest of the grouping.
fn plainly_in(file: &Path, dir: &Path) -> bool {
    let d = dir.as_os_str().as_encoded_bytes();
    !d.is_empty()
        && !d.ends_with(b"/")
        && crate::fs::plain_parent(file)
            .is_some_and(|(parent, name)| parent == d && !name.contains(&b'\\'))
}

/// A lint group's key: the host choice, and under `auto` what decided the files'
/// host (an index into the run's distinct detections).
type GroupKey = (HostChoice, Option<usize>);

/// What a lint run asks for.
#[derive(Debug, Clone, Default)]
pub struct FileRequest {
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
    pub allow_empty: bool,
}

/// The files of one lint run.
#[derive(Debug, Default)]
pub struct FileSet {
    pub files: Vec<PathBuf>,
    /// The trust anchors `--fix` opens these files from.
    pub anchors: crate::fs::Anchors,
    /// Who named these files: the paths given, `paths` of the configuration, or
    /// pwk's own walk of the agents directories.
    pub named_by: crate::fs::NamedBy,
    pub walk_errors: Vec<WalkError>,
    /// Files found whose extension is `md` in another case (reported as skipped).
    pub other_case: Vec<PathBuf>,
    /// The agents directories linted when no path was given.
    pub dirs: Vec<AgentsDir>,
    pub recursive: bool,
}

/// An agents directory of the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentsDir {
    pub path: PathBuf,
    /// The host whose own directory it is (`None`: pi's).
    pub host: Option<crate::host::HostId>,
}

/// The project directories a lint run with no path looks in, in order, each with
/// the host whose own directory it is (`None`: pi's, `.agents/agents` and
/// `.pi/agents`): pi's first, then every other host's of the registry.
pub(crate) fn agents_dir_names() -> Vec<(&'static str, Option<crate::host::HostId>)> {
    let mut out: Vec<(&'static str, Option<crate::host::HostId>)> = crate::lint::DEFAULT_DIRS
        .iter()
        .map(|d| (*d, None))
        .collect();
    for h in crate::host::ALL.into_iter().filter(|h| !h.is_pi()) {
        for rel in h.own_project_dirs() {
            if !out.iter().any(|(d, _)| *d == rel) {
                out.push((rel, Some(h)));
            }
        }
    }
    out
}

/// What a bare `pwk lint` lints, in one paragraph: `pwk lint --help` says it, and
/// the README and the book carry it (a test keeps them equal).
pub(crate) fn default_paths_help() -> String {
    let dirs: Vec<String> = agents_dir_names()
        .iter()
        .map(|(d, _)| format!("`{d}/`"))
        .collect();
    format!(
        "With no PATH, `pwk lint` lints the `*.md` files at any depth inside every agents \
directory that exists under the project root (`--dir`; else the nearest directory upwards \
holding `.git`, `.agents` or `.pi`, stopping below `$HOME`, else the current directory): {}; \
or the files `paths` in pwk.toml names. Under `--host auto` (the default), a host's own directory is linted for that \
host. A directory given as PATH means every `*.md` directly inside it (`--recursive` walks it).",
        dirs.join(", ")
    )
}

/// Every agents directory present under `root`, in [`agents_dir_names`]' order.
pub(crate) fn agents_dirs(root: &Path) -> Vec<AgentsDir> {
    agents_dir_names()
        .into_iter()
        .map(|(rel, host)| AgentsDir {
            path: root.join(rel),
            host,
        })
        .filter(|d| d.path.is_dir())
        .collect()
}

/// One group of a lint run: files linted for one host profile.
#[derive(Debug, Clone)]
pub struct LintGroup {
    pub chosen: Chosen,
    pub files: Vec<PathBuf>,
}

/// A lint run, planned: the groups, each file's settings, the walk's errors.
#[derive(Debug)]
pub struct LintPlan {
    pub groups: Vec<LintGroup>,
    pub settings: SettingsSource,
    pub walk_errors: Vec<WalkError>,
    /// Files whose extension is `md` in another case (reported as skipped).
    pub other_case: Vec<PathBuf>,
    pub dirs: Vec<AgentsDir>,
    pub recursive: bool,
    pub cwd: PathBuf,
}

impl LintPlan {
    /// The lint options of one group.
    pub fn options(&self, group: &LintGroup, keep_text: bool) -> LintOptions {
        LintOptions {
            host: group.chosen.profile,
            host_reason: group
                .chosen
                .detection
                .as_ref()
                .map(|d| d.reason_from(&self.cwd)),
            detection: group.chosen.detection.clone(),
            recursive: self.recursive,
            keep_text,
            cwd: Some(self.cwd.clone()),
            settings: Some(self.settings.clone()),
        }
    }

    /// Lint every group and merge the reports (the walk's errors added).
    pub fn lint(self, keep_text: bool) -> LintReport {
        let mut report: Option<LintReport> = None;
        for g in &self.groups {
            let part = crate::lint::lint_files(&g.files, &self.options(g, keep_text));
            report = Some(match report {
                None => part,
                Some(r) => r.merge(part),
            });
        }
        let mut report = report.expect("a plan has at least one group");
        report.add_walk_errors(self.walk_errors);
        report.skip_other_case(self.other_case);
        report
    }

    /// The findings of the text held in memory as the file at `path` (stdin, an
    /// editor's or an MCP client's buffer), linted as the group it belongs to.
    pub fn lint_text(&self, path: &Path, text: Vec<u8>, keep_text: bool) -> LintReport {
        let group = self
            .groups
            .iter()
            .find(|g| g.files.iter().any(|f| f == path))
            .unwrap_or(&self.groups[0]);
        crate::lint::lint_text_report(path, text, &self.options(group, keep_text))
    }
}

/// An origin as a short phrase for `Chosen::explain`.
pub(crate) fn describe_origin(origin: &Origin, cwd: &Path) -> String {
    match origin {
        Origin::Default => "default".into(),
        Origin::Flag(f) => (*f).into(),
        Origin::File { path, line, column } => format!(
            "{}:{line}:{column}",
            crate::display::display_path(cwd, path)
        ),
    }
}

/// Everything of the project another user controls, so that pwk says what it does
/// not use: `walk` (what the root walk stopped at), the configuration files from
/// `cwd` up to `root`, the role directories of `root`. Each path once.
#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
fn ignored_files(cwd: &Path, root: &Path, walk: Option<Untrusted>) -> Vec<Untrusted> {
    let mut out: Vec<Untrusted> = walk.into_iter().collect();
    let mut add = |u: Untrusted| {
        if !out.iter().any(|o| o.path == u.path) {
            out.push(u);
        }
    };
    for dir in cwd.ancestors() {
        if !trusted_dir(dir) {
            break;
        }
        for n in crate::config::FILE_NAMES {
            if let Err(u) = trust_entry(&dir.join(n)) {
                add(u);
            }
        }
        if dir == root {
            break;
        }
    }
    for d in agents_dirs(root) {
        if let Some(u) = untrusted_on_the_way(root, &d.path) {
            add(u);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::plainly_in;
    use std::path::Path;

    /// Whenever the byte test says yes, `parent()` agrees.
    #[test]
    fn plainly_in_agrees_with_parent() {
        let dirs = ["x", "x/y", "/x", ".agents/agents", "./x", "x/.", "/"];
        let files = [
            "x/a.md",
            "x/y/a.md",
            "/x/a.md",
            ".agents/agents/r.md",
            "./x/a.md",
            "x/./a.md",
            "x//a.md",
            "x/y",
            "x/..",
            "x/.",
            "x/",
            "x\\a.md",
            "x/a\\b.md",
            "/a.md",
            "xa.md",
            "x/y/z/a.md",
        ];
        for d in dirs {
            for f in files {
                let (file, dir) = (Path::new(f), Path::new(d));
                if plainly_in(file, dir) {
                    assert_eq!(file.parent(), Some(dir), "{f:?} in {d:?}");
                }
            }
        }
        assert!(plainly_in(Path::new("x/y/a.md"), Path::new("x/y")));
        assert!(!plainly_in(Path::new("x/y/z/a.md"), Path::new("x/y")));
    }
}
