//! Where a host looks for roles: its profile's discovery directories, resolved
//! against this machine (`{home}`, `{agent_dir}`, the project base), plus the places
//! it does not read that pwk still scans so that it can say which installed roles the
//! host cannot see.

use std::path::{Path, PathBuf};

use super::{Host, Layer, Roots};
use crate::host::{Base, DirLayer, HostKind};

/// One place roles are looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceDir {
    pub layer: Layer,
    /// The directory; `None` for the package layer (the roles built into pwk).
    pub path: Option<PathBuf>,
    /// Whether sub-directories are searched too.
    pub recursive: bool,
    /// Sub-directories (at the top of `path`) a recursive scan leaves out.
    pub skip_dirs: Vec<String>,
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
                let mut s = crate::display::display_path(cwd, p);
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

    fn new(layer: Layer, path: Option<PathBuf>, unread: Option<String>) -> SourceDir {
        SourceDir {
            layer,
            exists: path.is_none(),
            path,
            recursive: false,
            skip_dirs: Vec::new(),
            read_by_host: unread.is_none(),
            unread_reason: unread,
            rank: 0,
            error: None,
        }
    }
}

/// The sources `host` reads (and those it does not that pwk scans anyway), lowest
/// priority first: the package layer, then each layer's directories as the profile
/// lists them (`discovery.dirs`), a layer's unread directories (`discovery.unread`)
/// before its read ones.
pub(super) fn profile_sources(
    host: Host,
    roots: &Roots,
    root: &Path,
    notes: &mut Vec<String>,
) -> Vec<SourceDir> {
    let name = host.as_str();
    let cwd = roots.cwd.as_path();
    let agent_dir = roots.global_agents_dir.as_ref().and_then(|g| g.parent());
    // `{home}/x`, `{agent_dir}/x`, or `x` below `base`; `None` when the machine has
    // no such directory (no HOME, no agent directory).
    let resolve = |path: &str, base: &Path| -> Option<PathBuf> {
        if let Some(rest) = path.strip_prefix("{home}/") {
            roots.home.as_ref().map(|h| h.join(rest))
        } else if let Some(rest) = path.strip_prefix("{agent_dir}/") {
            agent_dir.map(|a| a.join(rest))
        } else {
            Some(base.join(path))
        }
    };
    let discovery = &host.discovery;
    let base = match discovery.base {
        Base::Cwd => cwd,
        Base::ProjectRoot | Base::Upward => root,
    };
    let mut out = vec![SourceDir::new(Layer::Package, None, package_note(host))];
    for (dir_layer, layer) in [
        (DirLayer::Global, Layer::Global),
        (DirLayer::Project, Layer::Project),
    ] {
        // (path, recursive, skip_dirs, why not read)
        let mut dirs: Vec<(&str, bool, &[&str], Option<String>)> = Vec::new();
        for u in discovery.unread.iter().filter(|u| u.layer == dir_layer) {
            dirs.push((u.path, false, &[], Some(u.note.to_string())));
        }
        for d in discovery.dirs.iter().filter(|d| d.layer == dir_layer) {
            dirs.push((d.path, d.recursive, &d.skip_dirs, None));
        }
        // A host that reads project roles from where it starts does not see the
        // project root's: scanned, and said so.
        if layer == Layer::Project && discovery.base == Base::Cwd && root != cwd {
            let why = format!(
                "{name} reads project roles from the directory pi starts in (here: the current directory), not from the project root"
            );
            notes.push(format!(
                "{name} reads project roles from the current directory, not from the project root {}: start pi there to see them",
                root.display()
            ));
            for (path, recursive, skip, _) in &dirs {
                if let Some(p) = resolve(path, root) {
                    let mut s = SourceDir::new(layer, Some(p), Some(why.clone()));
                    s.recursive = *recursive;
                    s.skip_dirs = skip.iter().map(|s| s.to_string()).collect();
                    out.push(s);
                }
            }
        }
        for (path, recursive, skip, unread) in dirs {
            if let Some(p) = resolve(path, base) {
                let mut s = SourceDir::new(layer, Some(p), unread);
                s.recursive = recursive;
                s.skip_dirs = skip.iter().map(|s| s.to_string()).collect();
                out.push(s);
            }
        }
    }
    let wants = |prefix: &str| discovery.dirs.iter().any(|d| d.path.starts_with(prefix));
    if roots.global_agents_dir.is_none() && wants("{agent_dir}/") {
        notes.push(
            "no global agents directory: neither PI_CODING_AGENT_DIR nor HOME is set".to_string(),
        );
    } else if roots.home.is_none() && wants("{home}/") {
        notes.push(format!(
            "no user agents directory: HOME is not set, so {name}'s user directory is not searched"
        ));
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

/// Why `host` does not see the roles built into pwk (`None`: it does, the portable
/// profile being pwk's own runner).
fn package_note(host: Host) -> Option<String> {
    let name = host.as_str();
    match host.host.kind() {
        HostKind::Portable => None,
        HostKind::Cli => Some(format!(
            "built into pwk; {name} does not read them (`pwk convert --to {name}` writes them for it)"
        )),
        HostKind::Pi
            if crate::install::bundled::project_agents_dir(host)
                == crate::install::PROJECT_AGENTS_DIR =>
        {
            Some("built into pwk only; install with `pwk setup`".to_string())
        }
        HostKind::Pi => Some(format!(
            "built into pwk only; install with `pwk setup --global`, or with `pwk setup` in a \
             project whose host is {name} (`host = \"{name}\"` in pwk.toml: it then writes \
             .pi/agents/; for another host it writes .agents/agents/, which {name} never reads)"
        )),
    }
}
