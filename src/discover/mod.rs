//! Role discovery across the package, global and project layers, as one host sees
//! them.
//!
//! [`resolve_in`] scans the directories a host reads ([`sources`]: the profile's
//! `discovery` data, resolved against this machine), parses every role file it finds
//! and decides what the host makes of each ([`classify`]: its name, whether it
//! loads), then which definition wins for each name and what it shadows
//! ([`precedence`]). The package layer is the canonical roles built into pwk
//! ([`BUNDLED_ROLES`]); only pwk's own runner reads it. Files a host does not read
//! (a directory it never looks in, the project root for a host that reads the
//! current directory) are still reported, with the reason, so a role that is
//! installed but invisible never goes unnoticed.
//!
//! Files are read with [`read_role_file`] (no symlinks, non-blocking, size-capped):
//! a symlink, FIFO or device in an agents directory is listed as broken, never
//! followed and never waited on. Directory entries are sorted, so the result never
//! depends on the order the file system lists them in.

mod classify;
mod precedence;
pub(crate) mod render;
pub mod runtime;
mod scan;
mod sources;
pub mod template;

pub use classify::first_problem;
pub use sources::SourceDir;

use std::path::{Path, PathBuf};

use crate::fs::read::read_role_file;
use crate::role::{Role, RoleDoc};
use crate::roles::BUNDLED_ROLES;

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
            RolePath::File(p) => crate::display::display_path(cwd, p),
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
    /// exact name). Under a host that matches names without regard to case
    /// (its profile's `identity.case_insensitive`: tintinweb), a unique
    /// case-insensitive match is accepted.
    pub fn find(&self, name: &str) -> Option<&ResolvedRole> {
        // `roles` is sorted by name.
        if let Ok(i) = self.roles.binary_search_by(|r| r.name.as_str().cmp(name)) {
            return Some(&self.roles[i]);
        }
        if self.host.identity.case_insensitive.is_some() {
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

/// Every host's definition of `name` across `views` (one discovery per host, the
/// project's host first), in that order: `show` describes the first and names the
/// others.
pub fn find_in<'a>(views: &'a [Discovery], name: &str) -> Vec<(&'a Discovery, &'a ResolvedRole)> {
    views
        .iter()
        .filter_map(|d| d.find(name).map(|r| (d, r)))
        .collect()
}

/// Every role name any host of `views` answers to, sorted, each once (what
/// did-you-mean picks from).
pub fn known_names(views: &[Discovery]) -> Vec<&str> {
    let mut known: Vec<&str> = views
        .iter()
        .flat_map(|d| d.roles.iter().map(|r| r.name.as_str()))
        .collect();
    known.sort_unstable();
    known.dedup();
    known
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
    /// The project root (`--dir`, or the one [`crate::fs::root::find_root`] found).
    pub project_root: PathBuf,
}

/// Discover every role under `host`'s rules from explicit roots.
pub fn resolve_in(roots: &Roots, host: Host) -> Discovery {
    let project_root = roots.project_root.clone();
    let root_marker = crate::fs::root::root_marker_of(&project_root);
    let mut notes = Vec::new();
    let mut sources = sources::profile_sources(host, roots, &project_root, &mut notes);
    let mut files = Vec::new();
    for (index, source) in sources.iter_mut().enumerate() {
        match source.path {
            None => {
                for bundled in BUNDLED_ROLES {
                    let file_name = bundled.file_name();
                    let doc = RoleDoc::parse(PathBuf::from(&file_name), bundled.content.as_bytes());
                    files.push(classify::classify(
                        host,
                        RolePath::Builtin(file_name),
                        index,
                        source.layer,
                        Ok(doc),
                    ));
                }
            }
            Some(ref dir) => {
                let dir = dir.clone();
                // A project directory reached through a symbolic link is reported,
                // not read (the one rule: `crate::fs::linked_dir`).
                if let Some(link) = crate::fs::linked_dir(&roots.cwd, &project_root, &dir)
                    && std::fs::metadata(&dir).is_ok_and(|m| m.is_dir())
                {
                    source.exists = true;
                    source.error = Some(crate::fs::linked_dir_message(&roots.cwd, &link));
                    continue;
                }
                // Nor one that another user controls (the one trust rule, `crate::fs::trust`).
                if let Some(u) = crate::fs::trust::untrusted_on_the_way(&project_root, &dir)
                    && std::fs::metadata(&dir).is_ok_and(|m| m.is_dir())
                {
                    source.exists = true;
                    source.error = Some(u.dir_warning(&roots.cwd));
                    continue;
                }
                let listing = scan::list_md_files(&dir, source.recursive, &source.skip_dirs);
                source.exists = listing.exists;
                source.error = listing.error;
                for path in listing.files {
                    let doc = match read_role_file(&path) {
                        Ok(bytes) => Ok(RoleDoc::parse(path.clone(), &bytes)),
                        Err(e) => Err(e.to_string()),
                    };
                    files.push(classify::classify(
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
    let roles = precedence::pick_winners(host, &roots.cwd, &sources, &files);
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::write_tree_file as write;

    fn role(name: &str, desc: &str) -> String {
        format!("---\nname: {name}\ndescription: {desc}\ntools: read, grep\n---\nBody of {name}.\n")
    }

    fn roots(tmp: &Path) -> Roots {
        Roots {
            cwd: tmp.join("proj"),
            home: Some(tmp.join("home")),
            global_agents_dir: Some(tmp.join("home/.pi/agent/agents")),
            project_root: tmp.join("proj"),
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
    fn first_problem_names_the_reader_errors() {
        // Broken-ness is the reader's verdict; the text is the first lint error, with
        // its position and rule id.
        let p = |text: &str| {
            first_problem(
                &RoleDoc::parse("x.md", text.as_bytes()),
                HostId::Pwk.newest(),
            )
        };
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
        let bad = first_problem(
            &RoleDoc::parse("x.md", b"---\nname: \xff\n---\n"),
            HostId::Pwk.newest(),
        );
        assert!(bad.unwrap().contains("[invalid-utf8]"));
    }
}
