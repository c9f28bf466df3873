//! Role discovery across the package, global and project layers.
//!
//! [`resolve`] scans the layers a host reads, parses every role file it finds, and
//! works out which definition wins for each role name and what it shadows:
//!
//! - **package**: the canonical roles built into pwk ([`BUNDLED_ROLES`]).
//! - **global**: `$PI_CODING_AGENT_DIR/agents/` (default `~/.pi/agent/agents/`).
//! - **project**: `.agents/agents/` and `.pi/agents/` under the project root
//!   ([`find_project_root`]), `.pi/agents/` winning.
//!
//! Precedence is project > global > package. [`Host`] picks the directories and the
//! identity rule a real host uses (see [`HostProfile`]): tintinweb names a role by its
//! file stem, the others by `name`; herdr never reads `.agents/agents/`; nicobailon
//! scans `.agents/**` recursively. Files that a host does not read are still reported,
//! with the reason, so a role that is installed but invisible never goes unnoticed.
//!
//! Files are read with [`read_role_file`] (no symlinks, non-blocking, size-capped):
//! a symlink, FIFO or device in an agents directory is listed as broken, never
//! followed and never waited on. Directory entries are sorted, so the result never
//! depends on the order the file system lists them in.

pub(crate) mod render;
pub mod runtime;
mod scan;
pub mod skills;
pub mod template;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::fs::read::read_role_file;
use crate::install::bundled::BUNDLED_ROLES;
use crate::role::{Role, RoleDoc, SplitError, YamlError};

/// The host profile discovery follows (directories, identity, what it loads).
pub type Host = &'static crate::host::HostProfile;
pub use crate::host::{HostId, IdentityBy};

/// A discovery layer. Later variants win a name clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    Package,
    Global,
    Project,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Package => "package",
            Layer::Global => "global",
            Layer::Project => "project",
        }
    }
}

/// Which kind of directory a source is; decides the notes pwk gives about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirKind {
    /// The roles compiled into pwk.
    Package,
    /// `<agent dir>/agents/`.
    GlobalAgents,
    /// `~/.agents/` (nicobailon's second user directory).
    HomeAgents,
    /// `<project>/.agents/agents/`.
    ProjectAgents,
    /// `<project>/.agents/` as a whole (nicobailon's recursive legacy scan).
    ProjectDotAgents,
    /// `<project>/.pi/agents/`.
    ProjectPi,
    /// A directory a host other than pi's names in its profile (`.claude/agents/`).
    HostAgents,
}

/// One place roles are looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceDir {
    pub layer: Layer,
    pub kind: DirKind,
    /// The directory; `None` for the package layer.
    pub path: Option<PathBuf>,
    /// Whether sub-directories are searched too.
    pub recursive: bool,
    /// Whether the host reads this directory. Unread directories are scanned only so
    /// that pwk can say which installed roles the host cannot see.
    pub read_by_host: bool,
    /// Why the host does not read it (set when `read_by_host` is false).
    pub unread_reason: Option<String>,
    /// Position in the host's load order (higher wins).
    pub rank: usize,
    /// Whether the directory exists (always true for the package layer).
    pub exists: bool,
    /// Why the directory could not be listed, if it could not.
    pub error: Option<String>,
}

impl SourceDir {
    /// The directory as shown to the user.
    pub fn display(&self, cwd: &Path) -> String {
        match &self.path {
            None => "built into pwk".to_string(),
            Some(p) => {
                let mut s = crate::context::display_path(cwd, p);
                if !s.ends_with('/') {
                    s.push('/');
                }
                if self.recursive {
                    s.push_str("**");
                }
                s
            }
        }
    }
}

/// Where a role file is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RolePath {
    /// A role compiled into pwk, by file name (`pwk-recon-scout.md`).
    Builtin(String),
    /// A file on disk (absolute).
    File(PathBuf),
}

impl RolePath {
    /// The path as shown to the user: relative to `cwd` when under it.
    pub fn display(&self, cwd: &Path) -> String {
        match self {
            RolePath::Builtin(file) => format!("builtin:{file}"),
            RolePath::File(p) => crate::context::display_path(cwd, p),
        }
    }

    /// The file on disk, if it is one.
    pub fn as_file(&self) -> Option<&Path> {
        match self {
            RolePath::File(p) => Some(p),
            RolePath::Builtin(_) => None,
        }
    }
}

/// One role file found in a source, parsed, with what the host makes of it.
#[derive(Debug, Clone)]
pub struct RoleFile {
    pub path: RolePath,
    /// Index into [`Discovery::sources`].
    pub source: usize,
    pub layer: Layer,
    /// The file name without `.md`.
    pub stem: String,
    /// The parsed file; `None` when it could not be read.
    pub doc: Option<RoleDoc>,
    /// The typed view; `None` when the frontmatter did not parse.
    pub role: Option<Role>,
    /// The first problem with the file (read error, parse error, missing key).
    pub problem: Option<String>,
    /// Whether the host can load it (broken files are skipped by hosts).
    pub loadable: bool,
    /// `disable-model-invocation: true` and the host honours it.
    pub hidden: bool,
    /// `disable-model-invocation: true` in the file, whatever the host makes of it.
    pub declares_hidden: bool,
    /// The name the host knows it by.
    pub identity: String,
}

/// A definition the current one beats.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Shadowed {
    pub source: Layer,
    /// As shown to the user (relative to the current directory when under it).
    pub path: String,
    #[serde(skip)]
    pub role_path: RolePath,
}

/// The effective definition of one role name.
#[derive(Debug, Clone)]
pub struct ResolvedRole {
    /// The name the host knows it by.
    pub name: String,
    /// The winning file.
    pub path: RolePath,
    pub layer: Layer,
    /// Index into [`Discovery::sources`].
    pub source: usize,
    pub doc: RoleDoc,
    pub role: Role,
    /// Hidden from listings (`disable-model-invocation: true`, honoured by the host).
    pub hidden: bool,
    /// Lower-priority definitions of the same name, highest first.
    pub shadows: Vec<Shadowed>,
    /// What the user should know about this role under the host.
    pub notes: Vec<String>,
}

/// Everything discovery found.
#[derive(Debug, Clone)]
pub struct Discovery {
    pub host: Host,
    /// Which host profile, and why (`host profile tintinweb@0.18 (--host)`).
    pub host_choice: String,
    pub cwd: PathBuf,
    pub project_root: PathBuf,
    /// The marker that made `project_root` the root (`.git`, `.agents`, `.pi`), if any.
    pub root_marker: Option<&'static str>,
    /// Every source, lowest priority first.
    pub sources: Vec<SourceDir>,
    /// Every role file found, in load order (lowest priority first, then by path).
    pub files: Vec<RoleFile>,
    /// The winners, sorted by name (hidden ones included).
    pub roles: Vec<ResolvedRole>,
    /// Discovery-wide notes (e.g. the host reads the current directory, not the root).
    pub notes: Vec<String>,
}

impl Discovery {
    /// The effective definition of `name` (hidden roles too: they stay invokable by
    /// exact name). Under tintinweb, which matches case-insensitively, a unique
    /// case-insensitive match is accepted.
    pub fn find(&self, name: &str) -> Option<&ResolvedRole> {
        // `roles` is sorted by name.
        if let Ok(i) = self.roles.binary_search_by(|r| r.name.as_str().cmp(name)) {
            return Some(&self.roles[i]);
        }
        if self.host.host == HostId::Tintinweb {
            let mut it = self
                .roles
                .iter()
                .filter(|r| r.name.eq_ignore_ascii_case(name));
            if let (Some(r), None) = (it.next(), it.next()) {
                return Some(r);
            }
        }
        None
    }

    /// Files with `name` as identity that the host does not load: broken, or in a
    /// directory the host does not read.
    pub fn unloaded(&self, name: &str) -> Vec<&RoleFile> {
        self.files
            .iter()
            .filter(|f| f.identity == name && (!f.loadable || !self.sources[f.source].read_by_host))
            .collect()
    }

    /// Every name pwk knows (identities, stems and `name` values), for did-you-mean.
    pub fn known_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for f in &self.files {
            names.push(f.identity.clone());
            names.push(f.stem.clone());
            if let Some(n) = f.role.as_ref().and_then(|r| r.name.clone()) {
                names.push(n);
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// The source a file or role came from.
    pub fn source(&self, index: usize) -> &SourceDir {
        &self.sources[index]
    }

    /// Whether any file is broken (unreadable or unparseable, or missing what the
    /// host requires).
    pub fn has_broken(&self) -> bool {
        self.files.iter().any(|f| !f.loadable)
    }
}

/// The directories discovery starts from (the command layer fills them in).
#[derive(Debug, Clone)]
pub struct Roots {
    /// Where the host runs: hosts whose project base is the working directory read
    /// `<cwd>/.pi/agents`.
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    /// `$PI_CODING_AGENT_DIR/agents` (default `~/.pi/agent/agents`).
    pub global_agents_dir: Option<PathBuf>,
    /// The project root when the user named it (`--dir`); otherwise it is found
    /// from `cwd` by [`find_project_root`].
    pub project_root: Option<PathBuf>,
}

/// Every role the chosen host sees from `cwd` (the project root found from it), with
/// `env`'s home and agent directory.
pub fn resolve_from(
    cwd: &Path,
    env: &crate::env::Env,
    choice: &crate::host::HostChoice,
) -> Discovery {
    let (root, _) = find_project_root(cwd, env.home.as_deref());
    let chosen = choice.resolve(&root, env.agent_dir().as_deref());
    let mut d = resolve_in(
        &Roots {
            cwd: cwd.to_path_buf(),
            home: env.home.clone(),
            global_agents_dir: env.global_agents_dir(),
            project_root: None,
        },
        chosen.profile,
    );
    d.host_choice = chosen.explain();
    d
}

/// The project root: the nearest directory, from `cwd` upwards, that contains `.git`,
/// `.agents` or `.pi`. The walk stops below `home` (whose `.pi/` is pi's own
/// configuration, not a project), unless `cwd` is `home` itself. Without a marker the
/// root is `cwd`.
pub fn find_project_root(cwd: &Path, home: Option<&Path>) -> (PathBuf, Option<&'static str>) {
    let found = crate::project::find_root(cwd, home);
    (found.root, found.marker)
}

/// The marker that makes `dir` a project root, if any.
pub fn root_marker_of(dir: &Path) -> Option<&'static str> {
    PROJECT_MARKERS
        .into_iter()
        .find(|m| std::fs::symlink_metadata(dir.join(m)).is_ok())
}

/// What makes a directory a project root.
const PROJECT_MARKERS: [&str; 3] = [".git", ".agents", ".pi"];

/// Discover every role under `host`'s rules from explicit roots.
pub fn resolve_in(roots: &Roots, host: Host) -> Discovery {
    let (project_root, root_marker) = match &roots.project_root {
        Some(root) => (root.clone(), root_marker_of(root)),
        None => find_project_root(&roots.cwd, roots.home.as_deref()),
    };
    let mut notes = Vec::new();
    let mut sources = profile_sources(host, roots, &project_root, &mut notes);
    let mut files = Vec::new();
    for (index, source) in sources.iter_mut().enumerate() {
        match source.kind {
            DirKind::Package => {
                for bundled in BUNDLED_ROLES {
                    let file_name = bundled.file_name();
                    let doc = RoleDoc::parse(PathBuf::from(&file_name), bundled.content.as_bytes());
                    files.push(classify(
                        host,
                        RolePath::Builtin(file_name),
                        index,
                        source.layer,
                        Ok(doc),
                    ));
                }
            }
            _ => {
                let Some(dir) = source.path.clone() else {
                    continue;
                };
                // A project directory reached through a symbolic link is reported,
                // not read (the one rule: `crate::project::linked_dir`).
                if let Some(link) = crate::project::linked_dir(&roots.cwd, &project_root, &dir)
                    && std::fs::metadata(&dir).is_ok_and(|m| m.is_dir())
                {
                    source.exists = true;
                    source.error = Some(crate::project::linked_dir_message(&roots.cwd, &link));
                    continue;
                }
                let listing = scan::list_md_files(&dir, source.recursive, source.kind);
                source.exists = listing.exists;
                source.error = listing.error;
                for path in listing.files {
                    let doc = match read_role_file(&path) {
                        Ok(bytes) => Ok(RoleDoc::parse(path.clone(), &bytes)),
                        Err(e) => Err(e.to_string()),
                    };
                    files.push(classify(
                        host,
                        RolePath::File(path),
                        index,
                        source.layer,
                        doc,
                    ));
                }
            }
        }
    }
    // Load order: source rank, then path (sorted, never the directory's order).
    files.sort_by(|a, b| {
        sources[a.source]
            .rank
            .cmp(&sources[b.source].rank)
            .then_with(|| a.path.cmp(&b.path))
    });
    let roles = pick_winners(host, &roots.cwd, &sources, &files);
    Discovery {
        host,
        host_choice: format!("host profile {}", host.label()),
        cwd: roots.cwd.clone(),
        project_root,
        root_marker,
        sources,
        files,
        roles,
        notes,
    }
}

/// The sources `host` reads (and the pwk ones it does not), lowest priority first.
fn profile_sources(
    host: Host,
    roots: &Roots,
    root: &Path,
    notes: &mut Vec<String>,
) -> Vec<SourceDir> {
    let dir = |layer, kind, path: Option<PathBuf>, recursive, read: Option<String>| SourceDir {
        layer,
        kind,
        exists: path.is_none(),
        path,
        recursive,
        read_by_host: read.is_none(),
        unread_reason: read,
        rank: 0,
        error: None,
    };
    let name = host.as_str();
    let package_unread = match host.host {
        HostId::Pwk => None,
        HostId::Herdr => Some(format!(
            "built into pwk only; install with `pwk setup --global` (plain `pwk setup` writes \
             .agents/agents/, which {name} never reads)"
        )),
        HostId::ClaudeCode | HostId::Gemini | HostId::Copilot | HostId::Opencode => Some(format!(
            "built into pwk for pi hosts; {name} does not read them (`pwk convert --to {name}` writes them for it)"
        )),
        _ => Some("built into pwk only; install with `pwk setup`".to_string()),
    };
    let global = roots.global_agents_dir.clone();
    let global_missing = global.is_none();
    let cwd = roots.cwd.as_path();
    let mut out = vec![dir(
        Layer::Package,
        DirKind::Package,
        None,
        false,
        package_unread,
    )];
    match host.host {
        HostId::Pwk => {
            out.push(dir(
                Layer::Global,
                DirKind::GlobalAgents,
                global,
                false,
                None,
            ));
            out.push(dir(
                Layer::Project,
                DirKind::ProjectAgents,
                Some(root.join(".agents/agents")),
                false,
                None,
            ));
            out.push(dir(
                Layer::Project,
                DirKind::ProjectPi,
                Some(root.join(".pi/agents")),
                false,
                None,
            ));
        }
        HostId::Tintinweb | HostId::Herdr => {
            out.push(dir(
                Layer::Global,
                DirKind::GlobalAgents,
                global,
                false,
                None,
            ));
            // These hosts read project roles from the directory pi starts in.
            if root != cwd {
                let why = format!(
                    "{name} reads project roles from the directory pi starts in (here: the current directory), not from the project root"
                );
                notes.push(format!(
                    "{name} reads project roles from the current directory, not from the project root {}: start pi there to see them",
                    root.display()
                ));
                out.push(dir(
                    Layer::Project,
                    DirKind::ProjectAgents,
                    Some(root.join(".agents/agents")),
                    false,
                    Some(why.clone()),
                ));
                out.push(dir(
                    Layer::Project,
                    DirKind::ProjectPi,
                    Some(root.join(".pi/agents")),
                    false,
                    Some(why),
                ));
            }
            let agents_unread = (host.host == HostId::Herdr).then(|| {
                "herdr never reads .agents/agents/; move the file to .pi/agents/ or the global agents directory"
                    .to_string()
            });
            out.push(dir(
                Layer::Project,
                DirKind::ProjectAgents,
                Some(cwd.join(".agents/agents")),
                false,
                agents_unread,
            ));
            out.push(dir(
                Layer::Project,
                DirKind::ProjectPi,
                Some(cwd.join(".pi/agents")),
                false,
                None,
            ));
        }
        // Another host (or pi's example extension): its directories, as its profile
        // names them.
        HostId::ClaudeCode
        | HostId::Gemini
        | HostId::Copilot
        | HostId::Opencode
        | HostId::PiExample => {
            for d in &host.discovery.dirs {
                let layer = match d.layer {
                    crate::host::DirLayer::Global => Layer::Global,
                    crate::host::DirLayer::Project => Layer::Project,
                };
                let path = if let Some(rest) = d.path.strip_prefix("{home}/") {
                    roots.home.as_ref().map(|h| h.join(rest))
                } else if let Some(rest) = d.path.strip_prefix("{agent_dir}/") {
                    roots
                        .global_agents_dir
                        .as_ref()
                        .and_then(|g| g.parent())
                        .map(|a| a.join(rest))
                } else {
                    Some(root.join(&d.path))
                };
                if let Some(path) = path {
                    out.push(dir(
                        layer,
                        DirKind::HostAgents,
                        Some(path),
                        d.recursive,
                        None,
                    ));
                }
            }
        }
        HostId::Nicobailon => {
            out.push(dir(
                Layer::Global,
                DirKind::GlobalAgents,
                global,
                true,
                None,
            ));
            if let Some(home) = &roots.home {
                out.push(dir(
                    Layer::Global,
                    DirKind::HomeAgents,
                    Some(home.join(".agents")),
                    true,
                    None,
                ));
            }
            out.push(dir(
                Layer::Project,
                DirKind::ProjectDotAgents,
                Some(root.join(".agents")),
                true,
                None,
            ));
            out.push(dir(
                Layer::Project,
                DirKind::ProjectPi,
                Some(root.join(".pi/agents")),
                true,
                None,
            ));
        }
    }
    if global_missing {
        out.retain(|s| s.kind != DirKind::GlobalAgents);
        notes.push(
            "no global agents directory: neither PI_CODING_AGENT_DIR nor HOME is set".to_string(),
        );
    }
    // The same directory twice (e.g. the project is $HOME): keep the higher-priority one.
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut deduped: Vec<SourceDir> = Vec::new();
    for s in out.into_iter().rev() {
        if let Some(p) = &s.path {
            if seen.contains(p) {
                continue;
            }
            seen.push(p.clone());
        }
        deduped.push(s);
    }
    deduped.reverse();
    for (rank, s) in deduped.iter_mut().enumerate() {
        s.rank = rank;
    }
    deduped
}

/// Parse results and host rules → one [`RoleFile`].
fn classify(
    host: Host,
    path: RolePath,
    source: usize,
    layer: Layer,
    doc: Result<RoleDoc, String>,
) -> RoleFile {
    let file_name = match &path {
        RolePath::Builtin(f) => PathBuf::from(f),
        RolePath::File(p) => p.clone(),
    };
    // The host's suffix comes off whole (Copilot: `x.agent.md` is `x`).
    let stem = file_name
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(host.discovery.suffix.as_str()))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| {
            file_name
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    // A host that repairs frontmatter strict YAML rejects (Claude Code) reads the
    // repaired text; one that ends the frontmatter at the first `---` anywhere
    // reads only what comes before it.
    // One that turns each lone `\r` into `\n` (pi's parseFrontmatter) sees the
    // frontmatter of a file whose lines end in `\r`.
    let doc = doc.map(|d| match (&d.fences, &host.parser.cr_newlines) {
        (Err(crate::role::SplitError::MissingOpeningFence { .. }), Some(_)) => d
            .with_cr_newlines()
            .filter(|r| r.fences.is_ok())
            .unwrap_or(d),
        _ => d,
    });
    let doc = doc.map(|d| d.as_read_by(host.parser.closing, host.parser.repair));
    let (doc, problem) = match doc {
        Ok(doc) => {
            let p = first_problem(&doc);
            (Some(doc), p)
        }
        Err(e) => (None, Some(e)),
    };
    // A file without frontmatter keys: some hosts load it anyway, with every
    // default (tintinweb: the file stem, all seven built-in tools).
    let no_keys = doc.as_ref().is_some_and(|d| {
        d.invalid_utf8_at.is_none()
            && match (&d.fences, &d.tree) {
                (Err(_), _) => true,
                // pi's parser ends frontmatter only at `---`: after `...` there is none.
                (Ok(f), _) if f.close_kind == crate::role::CloseKind::Dots => true,
                (Ok(_), Some(Err(YamlError::NotMapping { .. }))) => true,
                // A host that loads a file it cannot parse with every default.
                (Ok(_), Some(Err(_)))
                    if host.bad_file.action == crate::host::BadFileAction::LoadDefaults =>
                {
                    true
                }
                (Ok(_), Some(Ok(tree))) => tree.as_mapping().is_none_or(<[_]>::is_empty),
                _ => false,
            }
    });
    let role = if no_keys && !host.is_portable() {
        match host.no_frontmatter.action {
            crate::host::NoFrontmatterAction::LoadDefaults => Some(Role::default()),
            crate::host::NoFrontmatterAction::SkipSilent => None,
        }
    } else {
        doc.as_ref().and_then(Role::from_doc)
    };
    // A file name the host passes over (Gemini CLI: `_*.md`) is not a role there.
    let excluded = match &path {
        RolePath::File(p) => p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| host.excludes(n)),
        RolePath::Builtin(_) => None,
    };
    let problem = match excluded {
        Some(e) => Some(e.note.clone()),
        None => problem,
    };
    let loadable = excluded.is_none()
        && match (&doc, &role) {
            (Some(doc), Some(role)) => loadable_by(host, doc, role),
            _ => false,
        };
    let declares_hidden = role.as_ref().is_some_and(|r| r.disable_model_invocation);
    let hidden = declares_hidden && host.reads("disable-model-invocation");
    let name = role
        .as_ref()
        .and_then(|r| r.name.clone())
        .filter(|n| !n.trim().is_empty());
    let identity = match host.identity.by {
        IdentityBy::Stem => stem.clone(),
        IdentityBy::Name | IdentityBy::NameThenStem => name.unwrap_or_else(|| stem.clone()),
    };
    RoleFile {
        path,
        source,
        layer,
        stem,
        doc,
        role,
        problem,
        loadable,
        hidden,
        declares_hidden,
        identity,
    }
}

/// Whether `host` loads a file that parsed.
fn loadable_by(host: Host, doc: &RoleDoc, role: &Role) -> bool {
    // pwk's own reader wants text; the hosts test JavaScript truthiness (any
    // non-empty string, `"   "` included).
    let present = |v: &Option<String>| {
        v.as_ref().is_some_and(|s| {
            if host.is_portable() {
                !s.trim().is_empty()
            } else {
                !s.is_empty()
            }
        })
    };
    if doc.invalid_utf8_at.is_some()
        || (doc.has_bom()
            && host.parser.bom != crate::host::BomReading::Stripped
            && host.parser.bom != crate::host::BomReading::Varies)
        || doc.bidi_at().is_some()
    {
        return false;
    }
    // A host that reads frontmatter line by line (nicobailon) does not see a key
    // whose line holds a lone `\r`, U+2028 or U+2029 ([`crate::role::line_reader`]).
    let line_keys = match (&host.parser.lone_cr, &doc.fences) {
        (Some(_), Ok(f)) => Some(crate::role::line_reader::keys(&doc.text[f.yaml.clone()])),
        _ => None,
    };
    if let Some(seen) = &line_keys
        && host.required.iter().any(|r| !seen.contains(&r.key))
    {
        return false;
    }
    // The keys without which the host skips the role (pwk: both `name` and
    // `description`, as its schema; nicobailon the same; tintinweb and herdr none).
    host.required.iter().all(|r| match r.key.as_str() {
        "name" => present(&role.name),
        "description" if r.empty_ok => role.description.is_some(),
        "description" => present(&role.description),
        other => doc.mapping().is_some_and(|m| m.get(other).is_some()),
    })
}

/// The first problem with a parsed role file, in words; `None` when it is usable.
///
/// Reports the reader's own findings: invalid UTF-8, missing or unterminated
/// frontmatter fences, YAML errors, and a missing `name` or `description`.
///
/// Whether a file is broken is decided by the reader; what is shown is the file's
/// first lint error (`pwk lint` would report the same, with its rule id), which names
/// the exact line and column.
pub fn first_problem(doc: &RoleDoc) -> Option<String> {
    let reader = reader_problem(doc)?;
    let diagnostics = crate::lint::check_doc(doc, HostId::Pwk.newest());
    let first = diagnostics
        .iter()
        .find(|d| d.severity == crate::lint::Severity::Error)
        .or(diagnostics.first());
    Some(match first {
        Some(d) => format!(
            "line {}, column {}: {} [{}]",
            d.start.line, d.start.column, d.message, d.rule
        ),
        None => reader,
    })
}

/// The reader's own verdict: why hosts would skip this file, if they would.
fn reader_problem(doc: &RoleDoc) -> Option<String> {
    let at = |offset: usize| {
        let p = doc.position(offset);
        format!("line {}, column {}", p.line, p.column)
    };
    if let Some(offset) = doc.invalid_utf8_at {
        return Some(format!("invalid UTF-8 at {}", at(offset)));
    }
    if doc.has_bom() {
        return Some(
            "the file starts with a byte order mark; hosts then see no frontmatter".into(),
        );
    }
    if let Some(offset) = doc.bidi_at() {
        return Some(format!(
            "a bidirectional control character at {} (Trojan Source)",
            at(offset)
        ));
    }
    match &doc.fences {
        Err(SplitError::MissingOpeningFence { .. }) => {
            return Some("no frontmatter: the file must start with a `---` line".to_string());
        }
        Err(SplitError::Unterminated { open }) => {
            return Some(format!(
                "frontmatter opened at {} is never closed with a `---` line",
                at(open.start)
            ));
        }
        Ok(_) => {}
    }
    match &doc.tree {
        Some(Err(e)) => return Some(yaml_problem(doc, e)),
        None => return Some("the frontmatter could not be read".to_string()),
        Some(Ok(_)) => {}
    }
    let mapping = doc.mapping()?;
    for key in ["name", "description"] {
        match mapping.get(key) {
            None => return Some(format!("missing `{key}`")),
            Some(node) => match node.as_str() {
                Some(s) if !s.trim().is_empty() => {}
                Some(_) => return Some(format!("`{key}` is empty")),
                None => {
                    return Some(format!(
                        "`{key}` must be a string (at {})",
                        at(node.span.start)
                    ));
                }
            },
        }
    }
    None
}

fn yaml_problem(doc: &RoleDoc, e: &YamlError) -> String {
    let at = |offset: usize| {
        let p = doc.position(offset);
        format!("line {}, column {}", p.line, p.column)
    };
    match e {
        YamlError::Syntax {
            message,
            at: offset,
        } => {
            format!("YAML syntax error at {}: {message}", at(*offset))
        }
        YamlError::DuplicateKey { key, first, second } => format!(
            "duplicate key `{key}` at {} (first at {})",
            at(second.start),
            at(first.start)
        ),
        YamlError::Anchor { at: offset } => {
            format!(
                "YAML anchors and aliases are not allowed (at {})",
                at(*offset)
            )
        }
        YamlError::Tag { at: offset } => {
            format!("YAML tags are not allowed (at {})", at(*offset))
        }
        YamlError::NotMapping { at: offset } => {
            format!(
                "the frontmatter is not a `key: value` mapping (at {})",
                at(*offset)
            )
        }
        YamlError::ComplexKey { at: offset } => {
            format!(
                "a frontmatter key must be a plain word (at {})",
                at(*offset)
            )
        }
        YamlError::TooDeep { at: offset } => format!(
            "lists and mappings nest more than {} levels deep (at {})",
            crate::role::yaml::MAX_DEPTH,
            at(*offset)
        ),
        YamlError::ControlCharacter { at: offset, ch } => format!(
            "a control character `{}` in the frontmatter (at {})",
            crate::text::escape_char(*ch),
            at(*offset)
        ),
    }
}

/// Group loadable files the host reads by identity; the highest-ranked wins.
fn pick_winners(
    host: Host,
    cwd: &Path,
    sources: &[SourceDir],
    files: &[RoleFile],
) -> Vec<ResolvedRole> {
    let mut groups: BTreeMap<&str, Vec<&RoleFile>> = BTreeMap::new();
    for f in files {
        if f.loadable && sources[f.source].read_by_host {
            groups.entry(f.identity.as_str()).or_default().push(f);
        }
    }
    let mut roles = Vec::new();
    for (name, mut candidates) in groups {
        // Highest rank first; within one source the first path in sorted order wins.
        candidates.sort_by(|a, b| {
            sources[b.source]
                .rank
                .cmp(&sources[a.source].rank)
                .then_with(|| a.path.cmp(&b.path))
        });
        let winner = candidates[0];
        let (Some(doc), Some(role)) = (winner.doc.clone(), winner.role.clone()) else {
            continue;
        };
        let shadows = candidates[1..]
            .iter()
            .map(|f| Shadowed {
                source: f.layer,
                path: f.path.display(cwd),
                role_path: f.path.clone(),
            })
            .collect();
        let mut notes = Vec::new();
        let same_dir = candidates[1..]
            .iter()
            .filter(|f| f.source == winner.source)
            .count();
        if same_dir > 0 {
            notes.push(format!(
                "{} files in {} answer to `{name}`; hosts pick one by directory order, which is not stable: rename or remove the others",
                same_dir + 1,
                sources[winner.source].display(cwd)
            ));
        }
        notes.extend(identity_notes(host, winner));
        if winner.declares_hidden && !host.reads("disable-model-invocation") {
            notes.push(format!(
                "{} ignores `disable-model-invocation`: this adapter is offered to the model like any other role",
                host.as_str()
            ));
        }
        if host.host == HostId::Herdr && role.cli.is_some() {
            notes.push(
                "herdr refuses to launch roles that set `cli` (external CLI adapters are unsupported there)"
                    .to_string(),
            );
        }
        let winner_rank = sources[winner.source].rank;
        for f in files {
            if !f.loadable
                && f.identity == name
                && sources[f.source].read_by_host
                && sources[f.source].rank >= winner_rank
                && f.path != winner.path
            {
                notes.push(format!(
                    "{} would override this definition but is broken, so hosts skip it",
                    f.path.display(cwd)
                ));
            }
        }
        roles.push(ResolvedRole {
            name: name.to_string(),
            path: winner.path.clone(),
            layer: winner.layer,
            source: winner.source,
            doc,
            role,
            hidden: winner.hidden,
            shadows,
            notes,
        });
    }
    roles
}

/// Notes about how the host names this file.
fn identity_notes(host: Host, f: &RoleFile) -> Vec<String> {
    let label = host.label();
    let unknown = host
        .identity
        .on_unknown
        .clone()
        .unwrap_or_else(|| "finds no role".to_string());
    let Some(name) = f.role.as_ref().and_then(|r| r.name.as_deref()) else {
        return match host.identity.by {
            IdentityBy::NameThenStem => {
                vec![format!("no `name`: known by its file stem `{}`", f.stem)]
            }
            IdentityBy::Stem | IdentityBy::Name => Vec::new(),
        };
    };
    if name == f.stem {
        return Vec::new();
    }
    match host.identity.by {
        IdentityBy::Stem => vec![format!(
            "{label} ignores `name: {name}` and answers to the file stem `{}`; calling `{name}` {unknown}",
            f.stem
        )],
        IdentityBy::Name | IdentityBy::NameThenStem if host.is_portable() => vec![format!(
            "`name: {name}` differs from the file stem `{}`: tintinweb before 0.17 would call it `{}`",
            f.stem, f.stem
        )],
        IdentityBy::Name | IdentityBy::NameThenStem => vec![format!(
            "{label} answers to `name: {name}`, not to the file stem `{}`; calling `{}` {unknown}",
            f.stem, f.stem
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn role(name: &str, desc: &str) -> String {
        format!("---\nname: {name}\ndescription: {desc}\ntools: read, grep\n---\nBody of {name}.\n")
    }

    fn roots(tmp: &Path) -> Roots {
        Roots {
            cwd: tmp.join("proj"),
            home: Some(tmp.join("home")),
            global_agents_dir: Some(tmp.join("home/.pi/agent/agents")),
            project_root: None,
        }
    }

    #[test]
    fn project_beats_global_beats_package() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        std::fs::create_dir_all(t.join("proj/.git")).unwrap();
        write(
            t,
            "home/.pi/agent/agents/pwk-spec-reviewer.md",
            &role("pwk-spec-reviewer", "global"),
        );
        write(
            t,
            "proj/.agents/agents/pwk-spec-reviewer.md",
            &role("pwk-spec-reviewer", "agents"),
        );
        write(
            t,
            "proj/.pi/agents/pwk-spec-reviewer.md",
            &role("pwk-spec-reviewer", "pi"),
        );
        let d = resolve_in(&roots(t), HostId::Pwk.newest());
        let r = d.find("pwk-spec-reviewer").unwrap();
        assert_eq!(r.role.description.as_deref(), Some("pi"));
        assert_eq!(r.layer, Layer::Project);
        let layers: Vec<Layer> = r.shadows.iter().map(|s| s.source).collect();
        assert_eq!(layers, [Layer::Project, Layer::Global, Layer::Package]);
    }

    #[test]
    fn root_is_nearest_marker_but_never_home() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        std::fs::create_dir_all(t.join("home/.pi/agent")).unwrap();
        std::fs::create_dir_all(t.join("home/work/sub")).unwrap();
        let (root, marker) = find_project_root(&t.join("home/work/sub"), Some(&t.join("home")));
        assert_eq!(root, t.join("home/work/sub"));
        assert_eq!(marker, None);
        std::fs::create_dir_all(t.join("home/work/.git")).unwrap();
        let (root, marker) = find_project_root(&t.join("home/work/sub"), Some(&t.join("home")));
        assert_eq!(root, t.join("home/work"));
        assert_eq!(marker, Some(".git"));
        let (root, _) = find_project_root(&t.join("home"), Some(&t.join("home")));
        assert_eq!(root, t.join("home"));
    }

    #[test]
    fn first_problem_names_the_reader_errors() {
        // Broken-ness is the reader's verdict; the text is the first lint error, with
        // its position and rule id.
        let p = |text: &str| first_problem(&RoleDoc::parse("x.md", text.as_bytes()));
        assert_eq!(p(&role("x", "d")), None);
        let has = |text: &str, want: &str| {
            let got = p(text).unwrap_or_default();
            assert!(got.contains(want), "{text:?}: {got}");
        };
        has("# no frontmatter\n", "[missing-frontmatter]");
        has("---\nname: x\n", "[unterminated-frontmatter]");
        has("---\nname: [x\n---\n", "[yaml-syntax]");
        has("---\nname: x\n---\n", "[missing-description]");
        has(
            "---\nname: x\nname: y\ndescription: d\n---\n",
            "[duplicate-key]",
        );
        has(
            "---\nname: x\nname: y\ndescription: d\n---\n",
            "line 3, column 1",
        );
        let bad = first_problem(&RoleDoc::parse("x.md", b"---\nname: \xff\n---\n"));
        assert!(bad.unwrap().contains("[invalid-utf8]"));
    }
}
