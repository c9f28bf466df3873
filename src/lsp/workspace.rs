//! The workspace: the project root, the host profile, which buffers pwk serves,
//! and the role files the cross-file rules see.
//!
//! The cross-file set is what `pwk lint` run at the root covers: the `*.md` files
//! directly in `.agents/agents/` and `.pi/agents/` (less the host's excluded names),
//! with open buffers standing in for their files on disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::discover::{Discovery, Roots};
use crate::fs::read::read_role_file;
use crate::host::{HostChoice, HostProfile};
use crate::lint::{self, Diagnostic, NameSite};
use crate::project::Project;
use crate::role::RoleDoc;

/// What the server needs to know about where it runs.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    /// The project root (the client's workspace folder, else the process's cwd).
    pub root: PathBuf,
    pub home: Option<PathBuf>,
    /// pi's agent directory (`$PI_CODING_AGENT_DIR`, default `~/.pi/agent`).
    pub agent_dir: Option<PathBuf>,
    /// The host profile asked for (client option, else `--host`); `None`: what
    /// the project's `pwk.toml` says, else detected.
    pub host: Option<HostChoice>,
    /// `--config FILE` (absolute): it governs every file instead of the
    /// `pwk.toml` found upwards.
    pub config: Option<PathBuf>,
}

#[derive(Debug)]
pub(crate) struct Workspace {
    pub setup: Setup,
    pub host: &'static HostProfile,
    /// The directories the host discovers roles in: (directory, recursive).
    sources: Vec<(PathBuf, bool)>,
    /// The directories `pwk lint` covers at the root.
    lint_dirs: Vec<PathBuf>,
    /// The symbolic links on the way to the directories `pwk lint` would cover
    /// (`.agents -> /elsewhere`): those directories are not read.
    pub linked: Vec<PathBuf>,
    /// The cross-file set's files as read from disk, with their names.
    disk: BTreeMap<PathBuf, Option<NameSite>>,
    /// The project (its `pwk.toml` files read once each, until one changes: then
    /// the workspace is made anew), as every command sees it.
    project: Project,
    /// Why a configuration could not be used (the defaults are used meanwhile).
    pub config_error: Option<String>,
}

impl Workspace {
    pub(crate) fn new(setup: Setup) -> Workspace {
        let project = Project::at(
            setup.root.clone(),
            setup.home.clone(),
            setup.agent_dir.clone(),
            setup.host.clone(),
        )
        .with_config_file(setup.config.clone());
        let mut config_error = None;
        // The host: as asked, else the project's configuration, else detected.
        let chosen = match project.host() {
            Ok(c) => c,
            Err(e) => {
                config_error = Some(e.relative_to(&setup.root).to_string());
                HostChoice::Auto.resolve(&setup.root, setup.agent_dir.as_deref())
            }
        };
        let mut ws = Workspace {
            host: chosen.profile,
            sources: Vec::new(),
            lint_dirs: Vec::new(),
            linked: Vec::new(),
            disk: BTreeMap::new(),
            project,
            config_error,
            setup,
        };
        ws.rescan();
        ws
    }

    /// Everything discovery finds under this host.
    pub(crate) fn discovery(&self) -> Discovery {
        self.discovery_as(self.host)
    }

    /// Everything discovery finds under `host` (for go to definition: the host
    /// that reads the buffer).
    pub(crate) fn discovery_as(&self, host: &'static HostProfile) -> Discovery {
        crate::discover::resolve_in(
            &Roots {
                cwd: self.setup.root.clone(),
                home: self.setup.home.clone(),
                global_agents_dir: self.setup.agent_dir.as_ref().map(|d| d.join("agents")),
                project_root: self.setup.root.clone(),
            },
            host,
        )
    }

    /// Read the role directories again (start-up, and when files changed on disk).
    pub(crate) fn rescan(&mut self) {
        // The host's discovery directories, without keeping the parsed files.
        self.sources = self
            .discovery()
            .sources
            .into_iter()
            .filter_map(|s| Some((s.path?, s.recursive)))
            .collect();
        // As `pwk lint` at the root: a directory reached through a link is not read.
        self.linked.clear();
        self.lint_dirs.clear();
        for d in lint::default_dirs(&self.setup.root) {
            let dir = self.setup.root.join(d);
            match self.linked_for(&dir) {
                Some(link) => {
                    if !self.linked.contains(&link) {
                        self.linked.push(link);
                    }
                }
                None => self.lint_dirs.push(dir),
            }
        }
        self.disk.clear();
        let files = lint::collect_files(&self.lint_dirs, false).files;
        for path in files {
            if self.in_cross_set(&path) {
                let site = site_on_disk(&path);
                self.disk.insert(path, site);
            }
        }
    }

    /// One file of the cross-file set changed on disk (created, changed, deleted).
    pub(crate) fn file_changed(&mut self, path: &Path) {
        if !self.in_cross_set(path) {
            return;
        }
        if path.exists() {
            let site = site_on_disk(path);
            self.disk.insert(path.to_path_buf(), site);
        } else {
            self.disk.remove(path);
        }
    }

    /// Whether pwk serves this buffer: a `.md` file the host would read as a role
    /// (in one of its discovery directories), or any `.md` whose first line is
    /// `---` (the client chose to send it to pwk). Names the host never reads as
    /// roles (nicobailon's `*.chain.md`) are not served.
    pub(crate) fn owns(&mut self, path: &Path, text: &str) -> bool {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        if !name.ends_with(".md") || self.host.excludes(name).is_some() {
            return false;
        }
        // Under a symbolic link: served as it would be otherwise, to say why it is
        // not linted ([`Workspace::check`]); no configuration is read through the link.
        let linked = path.parent().and_then(|p| self.linked_for(p)).is_some();
        // Files the configuration excludes are not linted, so not served.
        if !linked
            && let Ok(Some(config)) = self.project.config_for(path)
            && config.excludes(path)
        {
            return false;
        }
        let in_source = self.sources.iter().any(|(dir, recursive)| {
            if *recursive {
                path.starts_with(dir)
            } else {
                path.parent() == Some(dir.as_path())
            }
        });
        in_source || first_line_is_fence(text)
    }

    /// The first symbolic link between the project root and `dir` (`dir`
    /// included), as `pwk lint` sees it ([`crate::fs::linked_dir`]).
    pub(crate) fn linked_for(&self, dir: &Path) -> Option<PathBuf> {
        crate::fs::linked_dir(&self.setup.root, &self.setup.root, dir)
    }

    /// What to tell the user about the role directories not read because a link
    /// is on the way to them.
    pub(crate) fn linked_note(&self) -> Option<String> {
        let root = &self.setup.root;
        let shown: Vec<String> = self
            .linked
            .iter()
            .map(|l| crate::fs::linked_dir_message(root, l))
            .collect();
        (!shown.is_empty()).then(|| format!("pwk: not linted: {}", shown.join("; ")))
    }

    /// Whether `path` is in the set `pwk lint` covers at the root.
    pub(crate) fn in_cross_set(&self, path: &Path) -> bool {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        name.ends_with(".md")
            && self.host.excludes(name).is_none()
            && path
                .parent()
                .is_some_and(|p| self.lint_dirs.iter().any(|d| d == p))
    }

    /// The cross-file findings for the set, with `open` (path → name) standing in
    /// for the files on disk. Returns the findings per path.
    pub(crate) fn cross_file(
        &self,
        open: &BTreeMap<&Path, Option<&NameSite>>,
    ) -> BTreeMap<PathBuf, Vec<Diagnostic>> {
        let mut merged: BTreeMap<&Path, Option<&NameSite>> = self
            .disk
            .iter()
            .map(|(p, s)| (p.as_path(), s.as_ref()))
            .collect();
        for (p, s) in open {
            if self.in_cross_set(p) {
                merged.insert(p, *s);
            }
        }
        let paths: Vec<&Path> = merged.keys().copied().collect();
        let sites: Vec<Option<&NameSite>> = merged.values().copied().collect();
        let root = &self.setup.root;
        let mut out: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
        for (i, d) in lint::cross_file(&paths, &sites, self.host, |p| {
            crate::display::display_path(root, p)
        }) {
            out.entry(paths[i].to_path_buf()).or_default().push(d);
        }
        for v in out.values_mut() {
            v.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
        out
    }

    /// The single-file check of a buffer, as `pwk lint` checks the file: with
    /// the rule levels its `pwk.toml` sets and its inline suppressions.
    pub(crate) fn check(&mut self, path: &Path, text: &str) -> lint::Checked {
        if let Some(link) = path.parent().and_then(|p| self.linked_for(p)) {
            let why = crate::fs::linked_dir_message(&self.setup.root, &link);
            return lint::not_linted_linked(path, self.host, why);
        }
        let (profile, settings) = match self.project.file_profile(path) {
            Ok(x) => x,
            Err(e) => {
                self.config_error = Some(e.relative_to(&self.setup.root).to_string());
                (
                    lint::ProfileFor::fixed(self.host),
                    lint::FileSettings::default(),
                )
            }
        };
        lint::check_bytes_for(path, text.as_bytes().to_vec(), profile, &settings)
    }

    /// The host profile a buffer at `path` is read by, as `pwk lint` picks it (a
    /// file under `.claude/agents/` is Claude Code's): what its hover and
    /// completion describe. The workspace's host when the configuration cannot be
    /// read.
    pub(crate) fn profile_for(&self, path: &Path) -> &'static HostProfile {
        self.project
            .file_profile(path)
            .map_or(self.host, |(profile, _)| profile.profile)
    }

    /// The skill names found in the skill directories the host reads (its
    /// profile's `skill_dirs`, as `unknown-skill` checks them).
    pub(crate) fn skills(&self) -> Vec<String> {
        let places = crate::host::skills::SkillPlaces {
            root: self.setup.root.clone(),
            home: self.setup.home.clone(),
            agent_dir: self.setup.agent_dir.clone(),
        };
        crate::host::skills::skill_names(self.host, &places)
    }
}

/// Whether the text's first line is the `---` fence (a BOM before it too: the
/// linter then says what the BOM does).
pub(crate) fn first_line_is_fence(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.split('\n').next().unwrap_or("");
    first.trim_end() == "---"
}

fn site_on_disk(path: &Path) -> Option<NameSite> {
    let bytes = read_role_file(path).ok()?;
    lint::name_site(&RoleDoc::from_bytes(path, bytes))
}
