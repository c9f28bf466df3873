//! One install of the canonical roles: open the agents directory below a trust
//! anchor without following a symlink, hold its lock from the first read to the
//! last write, plan each role against what is on disk, apply, and write the
//! manifest. The command layer picks the host and the target and renders the
//! result.

use std::path::{Path, PathBuf};

use super::manifest::{MANIFEST_NAME, Manifest};
use super::plan::{self, Options, RoleResult};
use crate::display::display_path;
use crate::fs::write::{self as safe, Inspect, NoHooks, Replace, SafeDir, WriteOptions};
use crate::roles::BundledRole;

/// Where the roles go: a trust anchor the user named, and the directories below
/// it that are opened without following symlinks.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub root: PathBuf,
    pub below: Vec<&'static str>,
    /// The root may be created (pi's agent dir); a project dir must exist.
    pub create_root: bool,
}

impl Target {
    /// The agents directory the roles are written in.
    pub(crate) fn agents_dir(&self) -> PathBuf {
        self.below.iter().fold(self.root.clone(), |p, c| p.join(c))
    }
}

/// One install.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub roles: &'a [BundledRole],
    pub target: &'a Target,
    pub options: Options,
    /// A dry run or a check: read, plan, write nothing.
    pub look_only: bool,
    /// Paths in messages are shown relative to it.
    pub cwd: &'a Path,
}

/// What an install did (or, looking only, would do).
#[derive(Debug)]
pub(crate) struct Installed {
    pub results: Vec<RoleResult>,
    pub warnings: Vec<String>,
    pub stray_temps_removed: usize,
    /// The manifest could not be written (the roles were).
    pub manifest_failed: bool,
}

/// Why an install did not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InstallError {
    #[error("`{0}` does not exist; give an existing project directory")]
    NoRoot(String),
    #[error("cannot create `{path}`")]
    CreateRoot {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{why}\n  pwk setup only writes into a real directory `{path}`; move what is in the way and re-run"
    )]
    Open {
        path: String,
        why: safe::SafeWriteError,
    },
    /// The directory lock, or reading what is on disk.
    #[error(transparent)]
    Write(#[from] safe::SafeWriteError),
}

/// Install `req.roles` into `req.target`.
pub(crate) fn install(req: Request<'_>) -> Result<Installed, InstallError> {
    let target = req.target;
    let agents_path = target.agents_dir();
    let shown = |p: &Path| display_path(req.cwd, p);
    let look_only = req.look_only;

    // Open the anchor, then the agents directory below it, never through a symlink.
    let root_exists = std::fs::metadata(&target.root).is_ok();
    if !root_exists && !target.create_root {
        return Err(InstallError::NoRoot(shown(&target.root)));
    }
    if !root_exists && !look_only {
        std::fs::create_dir_all(&target.root).map_err(|source| InstallError::CreateRoot {
            path: shown(&target.root),
            source,
        })?;
    }
    let dir = if root_exists || !look_only {
        open_agents_dir(target, !look_only, req.cwd).map_err(|why| InstallError::Open {
            path: shown(&agents_path),
            why,
        })?
    } else {
        None
    };

    // Hold the directory lock from the first read to the last write, so two runs
    // at once see each other's results rather than interleaving.
    let mut stray_temps_removed = 0;
    if let Some(d) = &dir {
        d.lock(!look_only)?;
        if !look_only {
            let names = own_names(req.roles);
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            stray_temps_removed = d.remove_stray_temps(&refs);
        }
    }

    let mut warnings = Vec::new();
    let (manifest, manifest_state) = read_manifest(dir.as_ref(), &mut warnings);
    let mut hooks = NoHooks;
    let planned = plan::plan(
        req.roles,
        dir.as_ref(),
        &agents_path,
        &manifest,
        &req.options,
        &mut hooks,
    )?;
    let mut manifest_failed = false;
    let results = match (&dir, look_only) {
        (Some(d), false) => {
            let results = plan::apply(planned, d, &mut hooks);
            let next = plan::next_manifest(&manifest, &results);
            if let Err(e) = write_manifest(d, &next, &manifest_state) {
                warnings.push(e);
                manifest_failed = true;
            }
            results
        }
        _ => planned.into_iter().map(|p| p.result).collect(),
    };
    Ok(Installed {
        results,
        warnings,
        stray_temps_removed,
        manifest_failed,
    })
}

/// The names pwk writes in the agents directory, whose stray temps it may remove:
/// the roles, the manifest, and the backups (`.bak`, then `.bak.1` … `.bak.99`,
/// `fs::write::SafeDir::write_backup`; an interrupted --force leaves those behind).
fn own_names(roles: &[BundledRole]) -> Vec<String> {
    let mut names: Vec<String> = roles.iter().map(BundledRole::file_name).collect();
    names.push(MANIFEST_NAME.to_string());
    for r in roles {
        let file = r.file_name();
        names.push(format!("{file}.bak"));
        names.extend((1..100).map(|n| format!("{file}.bak.{n}")));
    }
    names
}

fn open_agents_dir(
    target: &Target,
    create: bool,
    cwd: &Path,
) -> Result<Option<SafeDir>, safe::SafeWriteError> {
    // Through the one confinement check (`crate::fs`): the anchor is the project
    // root, or pi's agent directory for --global (the output directory the
    // environment names); the agents directory below it is pwk's choice.
    let anchors = crate::fs::Anchors::new(cwd, &target.root, &[]);
    let dir = anchors.open_dir(
        &target.agents_dir(),
        &crate::fs::NamedBy::Pwk,
        create,
        &mut NoHooks,
    )?;
    // Messages name paths relative to the current directory, as everywhere.
    Ok(dir.map(|d| d.with_display_path(PathBuf::from(display_path(cwd, &target.agents_dir())))))
}

/// What was at the manifest's name when it was read.
enum ManifestState {
    Absent,
    File {
        bytes: Vec<u8>,
        ident: safe::Ident,
        mode: u32,
    },
    /// Something pwk will not replace (symlink, FIFO, …): leave it.
    Untouchable,
}

fn read_manifest(dir: Option<&SafeDir>, warnings: &mut Vec<String>) -> (Manifest, ManifestState) {
    let Some(d) = dir else {
        return (Manifest::new(), ManifestState::Absent);
    };
    match d.inspect(MANIFEST_NAME, crate::fs::Kind::Role, &mut NoHooks) {
        Ok(Inspect::Absent) => (Manifest::new(), ManifestState::Absent),
        Ok(Inspect::File(ex)) => {
            let m = Manifest::parse(&ex.content).unwrap_or_else(|why| {
                warnings.push(format!(
                    "ignoring the unreadable install manifest {} ({why}); it will be rewritten",
                    d.path().join(MANIFEST_NAME).display()
                ));
                Manifest::new()
            });
            (
                m,
                ManifestState::File {
                    bytes: ex.content,
                    ident: ex.ident,
                    mode: ex.mode & 0o777,
                },
            )
        }
        Ok(Inspect::Refused(r)) => {
            warnings.push(format!(
                "the install manifest {} is left alone ({}); edited roles cannot be told from pwk's own copies",
                d.path().join(MANIFEST_NAME).display(),
                r.reason()
            ));
            (Manifest::new(), ManifestState::Untouchable)
        }
        Err(e) => {
            warnings.push(format!("cannot read the install manifest: {e}"));
            (Manifest::new(), ManifestState::Untouchable)
        }
    }
}

/// Write the manifest only when its content changes (a no-op run writes nothing).
fn write_manifest(d: &SafeDir, next: &Manifest, state: &ManifestState) -> Result<(), String> {
    let bytes = next.to_bytes();
    let written = match state {
        ManifestState::Untouchable => return Ok(()),
        ManifestState::File { bytes: old, .. } if *old == bytes => return Ok(()),
        ManifestState::File {
            bytes: old,
            ident,
            mode,
        } => d.write_file(
            MANIFEST_NAME,
            &bytes,
            Replace::Existing(crate::fs::Expected::of(*ident, old)),
            WriteOptions {
                mode: *mode,
                ..WriteOptions::default()
            },
            &mut NoHooks,
        ),
        ManifestState::Absent => d.write_file(
            MANIFEST_NAME,
            &bytes,
            Replace::Fresh,
            WriteOptions::default(),
            &mut NoHooks,
        ),
    };
    written
        .map(|_| ())
        .map_err(|e| format!("the install manifest was not written: {e}"))
}
