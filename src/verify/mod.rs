//! `pwk verify`: ask the hosts installed on this machine which of the project's roles
//! they really load, with which name, tools and model, and compare with what pwk's
//! profile of that host says.
//!
//! For each host whose program is installed ([`installed`]): the role files in the
//! host's own project directories are copied into a scratch project (never written
//! in the user's project; read through the one bounded reader, so a link, a FIFO or
//! an oversized file is reported, not followed or waited on), the host is run on the
//! copy offline ([`ask`]), and pwk lints and lists the same copy under the host's
//! newest profile ([`compare`]). Every child runs under pwk's one supervisor
//! (`pi::process`: own process group, time limit, descendants reaped).
//!
//! Why the hosts are asked through a Node driver (`cli-hosts.mjs`, embedded in the
//! binary) rather than from Rust: the hosts are Node programs (Gemini CLI is a Node
//! bundle; the native Claude Code, Copilot and OpenCode builds are Bun/Node compiles
//! installed with npm), so a machine that has one has Node; and the driver is the one
//! pwk's own CI already runs against the pinned hosts (tests/oracle/ links to it), so
//! the probe users run is the probe that is tested. Its model-API mocks listen on
//! 127.0.0.1 (an ephemeral port) inside the driver process, which pwk supervises and
//! ends; the hosts get a fresh HOME and XDG directories, dummy keys and base URLs at
//! that mock, and nothing else of the user's environment but PATH.

pub mod ask;
pub mod compare;
pub mod installed;
pub mod render;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::host::HostId;

pub use installed::{Found, Gate, Installed, Skipped};

/// What `pwk verify` was asked.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The project root (read only).
    pub root: PathBuf,
    /// Only these hosts (empty: every host installed).
    pub hosts: Vec<HostId>,
    /// `--host-bin HOST=PATH`.
    pub host_bins: Vec<(HostId, PathBuf)>,
    /// `PATH`, to find the hosts' programs and `node`.
    pub path: Option<std::ffi::OsString>,
    /// pi's agent directory (its settings list the pi extensions installed).
    pub agent_dir: Option<PathBuf>,
    /// `--node`: the Node that runs the driver (default: `node` on PATH).
    pub node: Option<PathBuf>,
    /// The longest one host may run.
    pub limit: Duration,
    /// `--run-project-code`: run the hosts' code that lies in the project (a
    /// vendored extension, a package installed under `.pi/npm/`, a pi package in
    /// its `node_modules`, a program on a `PATH` entry in it), as pi would. Without
    /// it such a copy is passed over for the user's or pi's own, and the output says
    /// so.
    pub run_project_code: bool,
}

/// One role file the host's directories hold, as it was staged (or why not).
#[derive(Debug, Clone, serde::Serialize)]
pub struct StagedFile {
    /// Relative to the project root, `/`-separated.
    pub file: String,
    /// Why it was not copied (then neither pwk nor the host judge it here).
    pub not_staged: Option<String>,
    #[serde(skip)]
    bytes: Vec<u8>,
}

/// One host pwk would run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Probe {
    pub installed: Installed,
    /// pwk's profile of the host for the installed version (the one whose range holds
    /// it, else the newest): `claude-code@2.1`.
    pub profile: String,
    /// The version that profile was measured on.
    pub measured: String,
    pub files: Vec<StagedFile>,
    /// `--host` for pwk's side (`opencode@1`).
    #[serde(skip)]
    spec: String,
    /// What is run (the driver's command line, paths as on this machine).
    pub command: Vec<String>,
    /// The `PATH` the host runs with: the user's, less its entries in the project
    /// unless `--run-project-code` ([`Gate::path_outside`]).
    #[serde(skip)]
    path: Option<std::ffi::OsString>,
}

/// What `pwk verify` would do (`--dry-run`), and what it did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    pub node: Option<PathBuf>,
    /// `node` programs on PATH that lie in the project, passed over.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub node_skipped: Vec<Skipped>,
    pub probes: Vec<Probe>,
    /// Hosts not run, and why (not installed; no role files for it).
    pub not_run: Vec<NotRun>,
}

/// A host not run, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NotRun {
    pub host: String,
    pub reason: String,
    /// Its copies in the project, not run (no consent).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub project_code_skipped: Vec<Skipped>,
}

/// The deepest a host directory is walked, and the most files staged per host.
const MAX_DEPTH: usize = 8;
const MAX_FILES: usize = 2_000;

/// Find the installed hosts and the files each would be asked about.
pub fn plan(opts: &VerifyOptions) -> Plan {
    let gate =
        Gate::new(&opts.root, opts.run_project_code).with_agent_dir(opts.agent_dir.as_deref());
    let mut node_skipped = Vec::new();
    // `--node` is the user's choice, wherever it is.
    let node = opts.node.clone().or_else(|| {
        crate::pi::all_on_path(opts.path.as_deref()?, "node")
            .find(|n| gate.allows(n, "`node` on PATH", &mut node_skipped))
    });
    // The PATH every host runs with, and the entries left out (named for each host).
    let mut path_skipped = Vec::new();
    let path = opts
        .path
        .as_deref()
        .map(|p| gate.path_outside(p, &mut path_skipped));
    let mut probes = Vec::new();
    let mut not_run = Vec::new();
    for name in installed::verifiable_names() {
        let host = HostId::from_name(name).expect("a registered host");
        if !opts.hosts.is_empty() && !opts.hosts.contains(&host) {
            continue;
        }
        let cli = installed::VERIFIABLE.iter().find(|(h, _)| *h == name);
        let mut skipped = Vec::new();
        let inst = match cli {
            Some(_) => installed::find(
                host,
                &opts.host_bins,
                opts.path.as_ref(),
                &gate,
                &mut skipped,
            ),
            None => installed::find_extension(
                host,
                &opts.host_bins,
                opts.agent_dir.as_deref(),
                &opts.root,
                opts.path.as_ref(),
                &gate,
                &mut skipped,
            ),
        };
        let Some(mut inst) = inst else {
            if !skipped.is_empty() {
                let said: Vec<String> = skipped.iter().map(Skipped::sentence).collect();
                not_run.push(NotRun {
                    host: name.to_string(),
                    reason: format!(
                        "not checked: {}; no copy outside the project was found ({}, or name one with --host-bin {name}=PATH)",
                        said.join("; "),
                        installed::OPT_IN
                    ),
                    project_code_skipped: skipped,
                });
                continue;
            }
            let why = match cli {
                Some((_, program)) => format!(
                    "not installed (`{program}` is not on PATH; name it with --host-bin {name}=PATH)"
                ),
                None if host == HostId::PiExample => format!(
                    "not installed (no `.pi/extensions/subagent/` in the project or the agent dir, and no pi 1.6 package on PATH that ships `examples/extensions/subagent/`; name its directory with --host-bin {name}=DIR)"
                ),
                None => format!(
                    "not installed (no pi settings list `npm:{}`; name its package directory with --host-bin {name}=DIR)",
                    host.package().unwrap_or_default()
                ),
            };
            not_run.push(NotRun {
                host: name.to_string(),
                reason: why,
                project_code_skipped: Vec::new(),
            });
            continue;
        };
        for s in &path_skipped {
            if !skipped.iter().any(|k| k.path == s.path) {
                skipped.push(s.clone());
            }
        }
        inst.project_code_skipped = skipped;
        let files = stage_list(&opts.root, host);
        if files.is_empty() {
            let dirs: Vec<String> = host.project_dirs().map(|d| format!("{d}/")).collect();
            not_run.push(NotRun {
                host: name.to_string(),
                reason: format!("no role files in {}", dirs.join(", ")),
                project_code_skipped: Vec::new(),
            });
            continue;
        }
        let profile = host.profile_for_version(inst.version.as_deref());
        let command = ask::command_line(node.as_deref(), &inst);
        probes.push(Probe {
            spec: profile.label(),
            profile: profile.label(),
            measured: profile.measured.to_string(),
            installed: inst,
            files,
            command,
            path: path.clone(),
        });
    }
    Plan {
        node,
        node_skipped,
        probes,
        not_run,
    }
}

/// The `*.md` files under `host`'s project directories, read (bounded, links not
/// followed), sorted.
fn stage_list(root: &Path, host: HostId) -> Vec<StagedFile> {
    let mut out = Vec::new();
    // A pi extension reads pi's directories too.
    let pi_dirs = host
        .is_pi()
        .then_some(crate::lint::DEFAULT_DIRS)
        .into_iter()
        .flatten();
    for dir in host.project_dirs().chain(pi_dirs) {
        let full = root.join(dir);
        // A host directory reached through a link is not read (as lint reports it).
        if let Some(link) = crate::fs::linked_dir(root, root, &full) {
            out.push(StagedFile {
                file: format!("{dir}/"),
                not_staged: Some(format!(
                    "not checked: {}",
                    crate::fs::linked_dir_message(root, &link)
                )),
                bytes: Vec::new(),
            });
            continue;
        }
        walk(root, &full, 0, &mut out);
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out.dedup_by(|a, b| a.file == b.file);
    out
}

fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<StagedFile>) {
    // A directory that is a link is not walked (as `pwk lint` reports it).
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return;
    };
    if !meta.is_dir() || depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if out.len() >= MAX_FILES {
            return;
        }
        let path = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            walk(root, &path, depth + 1, out);
            continue;
        }
        let rel = |p: &Path| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .replace('\\', "/")
        };
        if ft.is_symlink() && path.is_dir() {
            out.push(StagedFile {
                file: format!("{}/", rel(&path)),
                not_staged: Some(
                    "not checked: a symbolic link to a directory; pwk does not read roles through one"
                        .to_string(),
                ),
                bytes: Vec::new(),
            });
            continue;
        }
        let Some(name) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !name.ends_with(".md") {
            continue;
        }
        let rel = rel(&path);
        match crate::fs::read::read_role_file(&path) {
            Ok(bytes) => out.push(StagedFile {
                file: rel,
                not_staged: None,
                bytes,
            }),
            Err(e) => out.push(StagedFile {
                file: rel,
                not_staged: Some(format!("not checked: it {e}")),
                bytes: Vec::new(),
            }),
        }
    }
}

/// A scratch directory (mode 0700) removed with everything in it when dropped.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    pub fn new(what: &str) -> std::io::Result<Scratch> {
        use std::os::unix::fs::DirBuilderExt;
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let mut last = None;
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default();
            let path = base.join(format!(
                "pwk-verify-{what}-{}-{}-{nanos}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    // The canonical path: hosts report what they read by real path.
                    let path = std::fs::canonicalize(&path).unwrap_or(path);
                    return Ok(Scratch { path });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no scratch directory")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Copy the staged files into a fresh project (with a `.git` marker, so it is its own
/// root).
pub fn stage(files: &[StagedFile]) -> std::io::Result<Scratch> {
    let scratch = Scratch::new("project")?;
    std::fs::create_dir(scratch.path().join(".git"))?;
    for f in files.iter().filter(|f| f.not_staged.is_none()) {
        let to = scratch.path().join(&f.file);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&to, &f.bytes)?;
    }
    Ok(scratch)
}

/// One host's answer, compared.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HostReport {
    pub host: String,
    /// The installed version.
    pub version: Option<String>,
    pub program: PathBuf,
    /// pwk's profile compared (`claude-code@2.1`), measured on `measured`.
    pub profile: String,
    pub measured: String,
    /// The host could not be asked (then `rows` is empty).
    pub error: Option<String>,
    /// How the copy asked was found.
    pub found: Found,
    /// What ran lies in the project (run with consent).
    pub project_code: bool,
    /// Copies in the project passed over for the one asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub project_code_skipped: Vec<Skipped>,
    pub rows: Vec<compare::Row>,
    pub seconds: f64,
}

impl HostReport {
    pub fn disagrees(&self) -> bool {
        self.rows.iter().any(|r| r.agree == Some(false))
    }
}

/// Run every probe of `plan`, one host after the other.
pub fn run(plan: &Plan, opts: &VerifyOptions) -> Vec<HostReport> {
    plan.probes
        .iter()
        .map(|p| run_one(plan.node.as_deref(), &plan.node_skipped, p, opts))
        .collect()
}

fn run_one(
    node: Option<&Path>,
    plan_node_skipped: &[Skipped],
    probe: &Probe,
    opts: &VerifyOptions,
) -> HostReport {
    let started = std::time::Instant::now();
    let mut report = HostReport {
        host: probe.installed.host.as_str().to_string(),
        version: probe.installed.version.clone(),
        program: probe.installed.program.clone(),
        profile: probe.profile.clone(),
        measured: probe.measured.clone(),
        error: None,
        found: probe.installed.found,
        project_code: probe.installed.project_code,
        project_code_skipped: probe.installed.project_code_skipped.clone(),
        rows: Vec::new(),
        seconds: 0.0,
    };
    let result = (|| -> Result<Vec<compare::Row>, String> {
        let node = node.ok_or_else(|| match plan_node_skipped {
            [] => "`node` was not found on PATH (the hosts are Node programs; pwk asks them through Node): name it with --node PATH".to_string(),
            skipped => format!(
                "no `node` outside the project on PATH ({}): name one with --node PATH, or {}",
                skipped.iter().map(Skipped::sentence).collect::<Vec<_>>().join("; "),
                installed::OPT_IN
            ),
        })?;
        let project =
            stage(&probe.files).map_err(|e| format!("could not stage the role files: {e}"))?;
        let doc = ask::ask(
            node,
            &probe.installed,
            project.path(),
            opts.limit,
            probe.path.as_deref(),
        )?;
        let pwk = compare::pwk_view(project.path(), &probe.spec)?;
        Ok(compare::compare(&probe.files, &pwk, &doc))
    })();
    match result {
        Ok(rows) => report.rows = rows,
        Err(e) => report.error = Some(e),
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}
