//! Which hosts are installed on this machine, where, and at which version.
//!
//! Cheap by design (`pwk lint` and `pwk show` ask it for the "newer than pwk's
//! facts" note): a PATH lookup and one bounded read of the `package.json` of the npm
//! package the program belongs to. No host is started.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::host::HostId;

/// The hosts `pwk verify` can ask, and the program each is found by on PATH.
pub const VERIFIABLE: [(&str, &str); 4] = [
    ("claude-code", "claude"),
    ("opencode", "opencode"),
    ("gemini", "gemini"),
    ("copilot", "copilot"),
];

/// The pi extensions `pwk verify` can ask (their own loaders, run on pi 1.6's module
/// resolution): tintinweb and nicobailon found in pi's settings (`packages`), installed
/// where `pi install` puts them; pi's example extension vendored into
/// `extensions/subagent/` of the project's `.pi/` or the agent dir, else the one the
/// installed pi package ships; or named with `--host-bin HOST=DIR`.
pub const PI_EXTENSIONS: [&str; 3] = ["tintinweb", "nicobailon", "pi-example"];

/// Whether `pwk verify` can ask `host`.
pub fn verifiable(host: HostId) -> bool {
    VERIFIABLE.iter().any(|(h, _)| *h == host.as_str()) || PI_EXTENSIONS.contains(&host.as_str())
}

/// The names of every host `pwk verify` can ask.
pub fn verifiable_names() -> Vec<&'static str> {
    VERIFIABLE
        .iter()
        .map(|(h, _)| *h)
        .chain(PI_EXTENSIONS)
        .collect()
}

/// How an installed host was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Found {
    /// Named with `--host-bin HOST=PATH`.
    HostBin,
    /// Its program on PATH.
    Path,
    /// A package pi's settings list, where `pi install` put it.
    PiSettings,
    /// pi's example extension, copied into `extensions/subagent/` of the project's
    /// `.pi/` or the agent dir.
    Vendored,
    /// pi's example extension as the installed pi package ships it
    /// (`examples/extensions/subagent/`).
    PiPackage,
}

/// Which code `pwk verify` may run: none that lies in the project (see
/// [`crate::fs::in_project`]: a vendored extension, a package the project installed
/// under `.pi/npm/`, a pi package in its `node_modules`, a program on a `PATH` entry
/// in it), unless the user consented (`--run-project-code`; `--host-bin` for the host
/// it names).
#[derive(Debug, Clone)]
pub struct Gate {
    root: PathBuf,
    consent: bool,
    /// pi's agent dir: the user's own, even where the project holds it (`pwk verify`
    /// run in the home directory, whose `.pi` makes it the project root).
    own: Option<PathBuf>,
}

impl Gate {
    /// For the project at `root`; `consent`: `--run-project-code`.
    pub fn new(root: &Path, consent: bool) -> Gate {
        Gate {
            root: root.to_path_buf(),
            consent,
            own: None,
        }
    }

    /// The same, with pi's agent dir (the user's own code, wherever it lies).
    pub fn with_agent_dir(self, agent_dir: Option<&Path>) -> Gate {
        Gate {
            own: agent_dir.map(Path::to_path_buf),
            ..self
        }
    }

    /// Every copy allowed (a lookup that runs nothing: the version notes).
    pub fn open() -> Gate {
        Gate {
            root: PathBuf::new(),
            consent: true,
            own: None,
        }
    }

    /// The same, with consent (`--host-bin` for its host).
    fn consenting(&self) -> Gate {
        Gate {
            consent: true,
            ..self.clone()
        }
    }

    /// Whether `path` lies in the project (whether or not it may run).
    pub fn is_project(&self, path: &Path) -> bool {
        !self.root.as_os_str().is_empty()
            && crate::fs::in_project(&self.root, path)
            && !self
                .own
                .as_deref()
                .is_some_and(|own| crate::fs::in_project(own, path))
    }

    /// Whether the copy at `path` (`what` it is) may run; if not, it is noted in
    /// `skipped`.
    pub fn allows(&self, path: &Path, what: &str, skipped: &mut Vec<Skipped>) -> bool {
        if self.consent || !self.is_project(path) {
            return true;
        }
        let shown = path
            .strip_prefix(&self.root)
            .ok()
            .filter(|r| !r.as_os_str().is_empty())
            .map_or_else(|| path.to_path_buf(), Path::to_path_buf);
        if !skipped.iter().any(|s| s.path == shown) {
            skipped.push(Skipped {
                what: what.to_string(),
                path: shown,
            });
        }
        false
    }

    /// `path` (a `PATH` value) without its entries in the project, each noted in
    /// `skipped`: what a host runs with, so that a program it starts by name (git,
    /// rg, a shell's tools) is not the project's. A relative entry stays: the host
    /// runs in pwk's scratch directory, where it names nothing of the project.
    pub fn path_outside(&self, path: &OsStr, skipped: &mut Vec<Skipped>) -> OsString {
        let kept: Vec<PathBuf> = std::env::split_paths(path)
            .filter(|dir| {
                dir.is_relative()
                    || self.allows(
                        dir,
                        "any program the host would start from the `PATH` entry",
                        skipped,
                    )
            })
            .collect();
        std::env::join_paths(kept).expect("entries split at `:` hold none")
    }
}

/// A copy of a host's code found in the project and not run (no consent).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// What it is ("pi's example extension vendored in the project").
    pub what: String,
    /// Where, relative to the project root when it is written beneath it.
    pub path: PathBuf,
}

impl Skipped {
    /// "the project's copy of X at `P` was not run (code in the project)".
    pub fn sentence(&self) -> String {
        format!(
            "{} at `{}` was not run: it is code in the project",
            self.what,
            self.path.display()
        )
    }
}

/// How to run the project's copies anyway.
pub const OPT_IN: &str = "run it with --run-project-code if you trust this repository's code";

/// One installed host.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Installed {
    pub host: HostId,
    /// The program as found (a link on PATH is resolved: `.js` programs run with Node).
    pub program: PathBuf,
    /// Its version, from the `package.json` of the npm package it belongs to.
    pub version: Option<String>,
    pub found: Found,
    /// A pi extension: the pi 1.6 package it is loaded with (the one Node resolves
    /// from the extension's directory, else the `pi` on PATH's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pi: Option<PathBuf>,
    /// What runs (the program, or the pi that loads the extension) lies in the
    /// project: run with consent (`--run-project-code`, or `--host-bin`).
    pub project_code: bool,
    /// Copies in the project passed over for this one (no consent).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub project_code_skipped: Vec<Skipped>,
}

/// The files of pi's example extension in its directory (`index.ts` registers the
/// `subagent` tool, `agents.ts` is the loader pwk runs).
const EXAMPLE_FILES: [&str; 2] = ["index.ts", "agents.ts"];

/// Where the pi package keeps its example extension.
const EXAMPLE_IN_PI: &str = "examples/extensions/subagent";

/// The program `host` runs as: `--host-bin` (`bins`), else its name on `path` (the
/// first one `gate` allows; the ones passed over are noted in `skipped`).
pub fn find(
    host: HostId,
    bins: &[(HostId, PathBuf)],
    path: Option<&OsString>,
    gate: &Gate,
    skipped: &mut Vec<Skipped>,
) -> Option<Installed> {
    let (program, found) = match bins.iter().find(|(h, _)| *h == host) {
        Some((_, p)) => (p.clone(), Found::HostBin),
        None => {
            let name = VERIFIABLE.iter().find(|(h, _)| *h == host.as_str())?.1;
            let what = format!("`{name}` on PATH");
            let program =
                crate::pi::all_on_path(path?, name).find(|p| gate.allows(p, &what, skipped))?;
            (program, Found::Path)
        }
    };
    let program = std::fs::canonicalize(&program).unwrap_or(program);
    Some(Installed {
        host,
        version: package_version(&program),
        project_code: gate.is_project(&program),
        program,
        found,
        pi: None,
        project_code_skipped: Vec::new(),
    })
}

/// A pi extension: `--host-bin HOST=DIR`, else the npm package pi's settings
/// (`<agent dir>/settings.json`, `<project>/.pi/settings.json`) list for it, where
/// `pi install` put it; pi's example extension: [`find_example`].
///
/// Copies in the project that `gate` does not allow are passed over (and noted in
/// `skipped`); `--host-bin` is consent for its host.
pub fn find_extension(
    host: HostId,
    bins: &[(HostId, PathBuf)],
    agent_dir: Option<&Path>,
    root: &Path,
    path: Option<&OsString>,
    gate: &Gate,
    skipped: &mut Vec<Skipped>,
) -> Option<Installed> {
    if host == HostId::PiExample {
        return find_example(bins, agent_dir, root, path, gate, skipped);
    }
    let package = host.package()?;
    let named = bins.iter().find(|(h, _)| *h == host);
    let gate = &match named {
        Some(_) => gate.consenting(),
        None => gate.clone(),
    };
    let (dir, found) = match named {
        Some((_, p)) => (p.clone(), Found::HostBin),
        None => {
            let bases = [agent_dir.map(Path::to_path_buf), Some(root.join(".pi"))];
            let what = format!("{host} (`npm:{package}` in pi's settings) installed");
            bases.into_iter().flatten().find_map(|base| {
                let settings =
                    crate::pi::settings::read_json(&base.join("settings.json")).ok()??;
                let listed = crate::pi::settings::package_sources(&settings)
                    .iter()
                    .any(|s| {
                        s.strip_prefix("npm:")
                            .is_some_and(|n| n == package || n.starts_with(&format!("{package}@")))
                    });
                let dir = crate::pi::settings::npm_install_dir(&base, package);
                (listed && dir.join("package.json").is_file() && gate.allows(&dir, &what, skipped))
                    .then_some((dir, Found::PiSettings))
            })?
        }
    };
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let pi = pi_package(&dir, path, gate, skipped);
    Some(Installed {
        host,
        version: dir_version(&dir),
        project_code: gate.is_project(&dir) || pi.as_deref().is_some_and(|p| gate.is_project(p)),
        pi,
        program: dir,
        found,
        project_code_skipped: Vec::new(),
    })
}

/// pi's example subagent extension: `--host-bin pi-example=DIR` (the directory that
/// holds its `agents.ts`), else vendored into `extensions/subagent/` of the project's
/// `.pi/` or the agent dir (as `pwk lint`'s host detection finds it), else the one the
/// pi 1.6 package on PATH ships in `examples/extensions/subagent/`. It is no package
/// of its own: its version is the version of the pi that loads it.
fn find_example(
    bins: &[(HostId, PathBuf)],
    agent_dir: Option<&Path>,
    root: &Path,
    path: Option<&OsString>,
    gate: &Gate,
    skipped: &mut Vec<Skipped>,
) -> Option<Installed> {
    let has_files = |d: &Path| EXAMPLE_FILES.iter().all(|f| d.join(f).is_file());
    let named = bins.iter().find(|(h, _)| *h == HostId::PiExample);
    let gate = &match named {
        Some(_) => gate.consenting(),
        None => gate.clone(),
    };
    let vendored = "pi's example extension vendored";
    let (dir, found) = match named {
        Some((_, p)) => (p.clone(), Found::HostBin),
        None => [Some(root.join(".pi")), agent_dir.map(Path::to_path_buf)]
            .into_iter()
            .flatten()
            .map(|base| crate::host::example_extension_dir(&base))
            .find(|d| has_files(d) && gate.allows(d, vendored, skipped))
            .map(|d| (d, Found::Vendored))
            .or_else(|| {
                let d = pi_package(root, path, gate, skipped)?.join(EXAMPLE_IN_PI);
                has_files(&d).then_some((d, Found::PiPackage))
            })?,
    };
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let pi = pi_package(&dir, path, gate, skipped);
    Some(Installed {
        host: HostId::PiExample,
        version: pi.as_deref().and_then(dir_version),
        project_code: gate.is_project(&dir) || pi.as_deref().is_some_and(|p| gate.is_project(p)),
        pi,
        program: dir,
        found,
        project_code_skipped: Vec::new(),
    })
}

/// The `version` of the npm package at `dir` (an extension's, pi's).
fn dir_version(dir: &Path) -> Option<String> {
    crate::fs::read::read(&dir.join("package.json"), crate::fs::Kind::Settings)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|d| d["version"].as_str().map(str::to_string))
}

/// The pi 1.6 package (`@earendil-works/pi-coding-agent`) an extension in `dir`
/// loads with: the one Node resolves from there (a `node_modules` on the way up),
/// else the package of the `pi` on PATH; each the first `gate` allows (a pi package
/// in the project's `node_modules` is the project's code).
fn pi_package(
    dir: &Path,
    path: Option<&OsString>,
    gate: &Gate,
    skipped: &mut Vec<Skipped>,
) -> Option<PathBuf> {
    const PI: &str = "node_modules/@earendil-works/pi-coding-agent";
    if let Some(p) = dir
        .ancestors()
        .map(|a| a.join(PI))
        .filter(|p| p.join("package.json").is_file())
        .find(|p| gate.allows(p, "the pi package", skipped))
    {
        return Some(p);
    }
    let pi =
        crate::pi::all_on_path(path?, "pi").find(|p| gate.allows(p, "`pi` on PATH", skipped))?;
    let pi = std::fs::canonicalize(pi).ok()?;
    pi.ancestors()
        .find(|a| {
            a.join("package.json").is_file() && a.ends_with("@earendil-works/pi-coding-agent")
        })
        .filter(|a| gate.allows(a, "the pi package", skipped))
        .map(Path::to_path_buf)
}

/// The least Node version the npm package at `dir` declares (`engines.node`, when
/// written as `>=X.Y.Z` or `>=X`), with the text as written.
pub fn node_required(dir: &Path) -> Option<((u64, u64, u64), String)> {
    let bytes = crate::fs::read::read(&dir.join("package.json"), crate::fs::Kind::Settings).ok()?;
    let doc: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let text = doc["engines"]["node"].as_str()?.trim();
    let least = parse_node_version(text.strip_prefix(">=")?.trim())?;
    Some((least, text.to_string()))
}

/// `v22.19.0`, `22.19.0`, `22.19` or `22` as (major, minor, patch).
pub fn parse_node_version(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.trim().trim_start_matches('v').split('.');
    let major = parts.next()?.parse().ok()?;
    let mut next = || -> Option<u64> {
        match parts.next() {
            None => Some(0),
            Some(p) => p.parse().ok(),
        }
    };
    let (minor, patch) = (next()?, next()?);
    parts.next().is_none().then_some((major, minor, patch))
}

/// The version of the npm package `program` belongs to: the `version` of the
/// nearest `package.json` above it (at most 4 levels: `bin/x`, `bundle/x.js`,
/// `node_modules/@scope/pkg-platform/x`), when it names a package.
pub fn package_version(program: &Path) -> Option<String> {
    let mut dir = program.parent();
    for _ in 0..4 {
        let d = dir?;
        if let Ok(bytes) = crate::fs::read::read(&d.join("package.json"), crate::fs::Kind::Settings)
        {
            let doc: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
            doc["name"].as_str()?;
            return doc["version"].as_str().map(str::to_string);
        }
        dir = d.parent();
    }
    None
}

/// The hosts of `profiles` (`claude-code@2.1`, `tintinweb@0.18`, as a lint report
/// names them) whose installed version is newer than pwk's newest profile was measured
/// on, each once, with the sentence `pwk lint` and `pwk show` say. Cheap: a PATH
/// lookup and a `package.json` read per agent CLI; a pi extension's version is the
/// one `--host auto` read (`detected`). No host is started.
pub fn newer_than_facts<'a>(
    profiles: impl IntoIterator<Item = &'a str>,
    detected: &[crate::host::Found],
    path: Option<&OsString>,
) -> Vec<String> {
    let mut seen: Vec<HostId> = Vec::new();
    let mut out = Vec::new();
    for p in profiles {
        let Some(host) = HostId::from_name(p.split('@').next().unwrap_or(p)) else {
            continue;
        };
        if seen.contains(&host) {
            continue;
        }
        seen.push(host);
        let version = if VERIFIABLE.iter().any(|(h, _)| *h == host.as_str()) {
            find(host, &[], path, &Gate::open(), &mut Vec::new()).and_then(|i| i.version)
        } else {
            detected
                .iter()
                .find(|f| f.host == host)
                .and_then(|f| f.version.clone())
        };
        let Some(version) = version else { continue };
        if let Some(measured) = host.facts_older_than(&version) {
            let check = if VERIFIABLE.iter().any(|(h, _)| *h == host.as_str()) {
                "`pwk verify` checks them"
            } else {
                "findings about what changed since may be missing"
            };
            out.push(format!(
                "{host} {version} is installed; pwk's facts are from {measured} — {check}"
            ));
        }
    }
    out
}

/// `HOST=PATH` (`--host-bin`).
pub fn parse_host_bin(s: &str) -> Result<(HostId, PathBuf), String> {
    let (host, path) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not HOST=PATH"))?;
    let id = HostId::from_name(host)
        .filter(|h| verifiable(*h))
        .ok_or_else(|| {
            format!(
                "`{host}` is not a host `pwk verify` can run; one of {}",
                verifiable_names().join(", ")
            )
        })?;
    if path.is_empty() {
        return Err(format!("`{s}` names no program"));
    }
    Ok((id, PathBuf::from(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_of_the_package_the_program_belongs_to() {
        let t = tempfile::tempdir().unwrap();
        let pkg = t.path().join("node_modules/@a/cli-linux-x64");
        std::fs::create_dir_all(pkg.join("bin")).unwrap();
        std::fs::write(
            pkg.join("package.json"),
            r#"{"name":"@a/cli-linux-x64","version":"2.1.340"}"#,
        )
        .unwrap();
        std::fs::write(pkg.join("bin/cli"), "").unwrap();
        assert_eq!(
            package_version(&pkg.join("bin/cli")).as_deref(),
            Some("2.1.340")
        );
        // A package.json that names no package (a project's) is not the host's.
        std::fs::write(t.path().join("package.json"), r#"{"version":"9.9.9"}"#).unwrap();
        std::fs::write(t.path().join("x"), "").unwrap();
        assert_eq!(package_version(&t.path().join("x")), None);
    }

    #[test]
    fn pi_example_vendored_or_shipped_by_pi() {
        let t = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| crate::testing::write_tree_file(t.path(), rel, text);
        // A pi 1.6 package beside the project, and its example extension.
        let pi = "node_modules/@earendil-works/pi-coding-agent";
        write(
            &format!("{pi}/package.json"),
            r#"{"name":"@earendil-works/pi-coding-agent","version":"1.6.0"}"#,
        );
        for f in EXAMPLE_FILES {
            write(&format!("{pi}/{EXAMPLE_IN_PI}/{f}"), "//\n");
        }
        let root = t.path().join("project");
        std::fs::create_dir_all(&root).unwrap();
        let consent = Gate::new(&root, true);
        let find = || {
            find_extension(
                HostId::PiExample,
                &[],
                None,
                &root,
                None,
                &consent,
                &mut Vec::new(),
            )
            .unwrap()
        };
        let shipped = find();
        assert_eq!(shipped.found, Found::PiPackage);
        assert_eq!(shipped.version.as_deref(), Some("1.6.0"));
        assert!(shipped.program.ends_with(EXAMPLE_IN_PI), "{shipped:?}");
        // One of its two files vendored is not the extension; both are.
        write("project/.pi/extensions/subagent/agents.ts", "//\n");
        assert_eq!(find().found, Found::PiPackage);
        write("project/.pi/extensions/subagent/index.ts", "//\n");
        let vendored = find();
        assert_eq!(vendored.found, Found::Vendored);
        assert!(vendored.program.ends_with(".pi/extensions/subagent"));
        assert_eq!(vendored.version.as_deref(), Some("1.6.0"));
        assert!(vendored.pi.as_deref().is_some_and(|p| p.ends_with(pi)));
        // --host-bin wins.
        let named = find_extension(
            HostId::PiExample,
            &[(HostId::PiExample, t.path().join("elsewhere"))],
            None,
            &root,
            None,
            &consent,
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(named.found, Found::HostBin);
        // No pi anywhere and nothing vendored: not installed.
        let bare = tempfile::tempdir().unwrap();
        let gate = Gate::new(bare.path(), false);
        let none = find_extension(
            HostId::PiExample,
            &[],
            None,
            bare.path(),
            None,
            &gate,
            &mut Vec::new(),
        );
        assert!(none.is_none());
    }

    /// The PATH a host runs with: every entry in the project (as written, or through a
    /// link into it) left out and noted, relative entries and the rest kept in order;
    /// with consent, all of it.
    #[test]
    fn path_entries_in_the_project_are_left_out() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("project");
        for d in [
            "project/node_modules/.bin",
            "project/tools",
            "user/bin",
            "usr/bin",
        ] {
            std::fs::create_dir_all(t.path().join(d)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("tools"), t.path().join("user/linked")).unwrap();
        let entries = [
            root.join("node_modules/.bin"),
            t.path().join("user/bin"),
            PathBuf::from("relative/bin"),
            t.path().join("user/linked"),
            root.join("missing/bin"),
            t.path().join("usr/bin"),
        ];
        let path = std::env::join_paths(&entries).unwrap();
        let mut skipped = Vec::new();
        let kept = Gate::new(&root, false).path_outside(&path, &mut skipped);
        let kept: Vec<PathBuf> = std::env::split_paths(&kept).collect();
        assert_eq!(
            kept,
            [
                t.path().join("user/bin"),
                PathBuf::from("relative/bin"),
                t.path().join("usr/bin")
            ]
        );
        let noted: Vec<&Path> = skipped.iter().map(|s| s.path.as_path()).collect();
        assert_eq!(
            noted,
            [
                Path::new("node_modules/.bin"),
                t.path().join("user/linked").as_path(),
                Path::new("missing/bin")
            ]
        );
        let mut none = Vec::new();
        let all = Gate::new(&root, true).path_outside(&path, &mut none);
        assert_eq!(all, path);
        assert!(none.is_empty());
    }

    /// Without consent the copy vendored in the project is passed over (and noted) for
    /// the agent dir's, else the pi package's; a pi package in the project's
    /// `node_modules` is passed over too; `--host-bin` in the project is consent.
    #[test]
    fn project_copies_are_passed_over_without_consent() {
        let t = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| crate::testing::write_tree_file(t.path(), rel, text);
        let pi = "node_modules/@earendil-works/pi-coding-agent";
        for base in ["", "project/"] {
            write(
                &format!("{base}{pi}/package.json"),
                r#"{"name":"@earendil-works/pi-coding-agent","version":"1.6.0"}"#,
            );
            for f in EXAMPLE_FILES {
                write(&format!("{base}{pi}/{EXAMPLE_IN_PI}/{f}"), "//\n");
                write(&format!("project/.pi/extensions/subagent/{f}"), "//\n");
            }
        }
        let root = t.path().join("project");
        let find = |gate: &Gate, agent: Option<&Path>, bins: &[(HostId, PathBuf)]| {
            let mut skipped = Vec::new();
            let found = find_extension(
                HostId::PiExample,
                bins,
                agent,
                &root,
                None,
                gate,
                &mut skipped,
            );
            (found, skipped)
        };
        let default = Gate::new(&root, false);
        // The project's vendored copy and its node_modules pi: passed over for the pi
        // package beside the project.
        let (found, skipped) = find(&default, None, &[]);
        let found = found.unwrap();
        assert_eq!(found.found, Found::PiPackage);
        assert!(!found.project_code);
        assert!(!found.program.starts_with(&root), "{found:?}");
        assert!(
            !found.pi.as_deref().unwrap().starts_with(&root),
            "{found:?}"
        );
        let paths: Vec<&Path> = skipped.iter().map(|s| s.path.as_path()).collect();
        assert_eq!(
            paths,
            [Path::new(".pi/extensions/subagent"), Path::new(pi)],
            "{skipped:?}"
        );
        assert!(skipped[0].sentence().contains("was not run"), "{skipped:?}");
        // The agent dir's vendored copy is the user's.
        for f in EXAMPLE_FILES {
            write(&format!("agent/extensions/subagent/{f}"), "//\n");
        }
        let agent = t.path().join("agent");
        let (found, skipped) = find(&default, Some(&agent), &[]);
        let found = found.unwrap();
        assert_eq!(found.found, Found::Vendored);
        assert!(
            found
                .program
                .starts_with(std::fs::canonicalize(&agent).unwrap())
        );
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        // Consent: the project's, as pi would load it.
        let (found, skipped) = find(&Gate::new(&root, true), Some(&agent), &[]);
        let found = found.unwrap();
        assert!(found.project_code && skipped.is_empty(), "{found:?}");
        assert!(found.program.ends_with("project/.pi/extensions/subagent"));
        // --host-bin inside the project is consent for that host.
        let named = [(HostId::PiExample, root.join(".pi/extensions/subagent"))];
        let (found, skipped) = find(&default, None, &named);
        let found = found.unwrap();
        assert!(found.project_code && skipped.is_empty(), "{found:?}");
        assert_eq!(found.found, Found::HostBin);
        // Nothing outside the project: not installed, the project's copies noted.
        std::fs::remove_dir_all(t.path().join("node_modules")).unwrap();
        let (found, skipped) = find(&default, None, &[]);
        assert!(found.is_none());
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        // Run in the home directory, the agent dir lies in the project root: it is
        // still the user's own (and the project's vendored copy still is not).
        for f in EXAMPLE_FILES {
            write(
                &format!("project/.pi/agent/extensions/subagent/{f}"),
                "//\n",
            );
        }
        let home_agent = root.join(".pi/agent");
        let home = Gate::new(&root, false).with_agent_dir(Some(&home_agent));
        let (found, skipped) = find(&home, Some(&home_agent), &[]);
        let found = found.unwrap();
        assert_eq!(found.found, Found::Vendored);
        assert!(!found.project_code, "{found:?}");
        assert!(found.program.ends_with(".pi/agent/extensions/subagent"));
        let paths: Vec<&Path> = skipped.iter().map(|s| s.path.as_path()).collect();
        assert_eq!(
            paths,
            [Path::new(".pi/extensions/subagent"), Path::new(pi)],
            "{skipped:?}"
        );
        // Without it named, the same copy is the project's.
        let (found, _) = find(&default, Some(&home_agent), &[]);
        assert!(found.is_none(), "{found:?}");
    }

    /// What lies in the project: as written or where it leads; a link in the project
    /// on the way; `..` either way; the root itself a link.
    #[test]
    fn inside_the_project_as_written_or_where_it_leads() {
        use std::os::unix::fs::symlink;
        let t = tempfile::tempdir().unwrap();
        let t = std::fs::canonicalize(t.path()).unwrap();
        let root = t.join("project");
        let outside = t.join("outside");
        for d in [".pi/real", "node_modules/x"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::create_dir_all(outside.join("copy/deep/er")).unwrap();
        std::fs::create_dir_all(t.join("project2")).unwrap();
        symlink(outside.join("copy"), root.join(".pi/link")).unwrap();
        symlink(root.join(".pi/real"), outside.join("into")).unwrap();
        symlink(&root, t.join("rootlink")).unwrap();
        let gate = Gate::new(&root, false);
        let inside = |p: PathBuf| gate.is_project(&p);
        assert!(inside(root.clone()), "the root itself");
        assert!(inside(root.join(".pi/real")));
        assert!(inside(root.join("node_modules/x/missing")), "not there yet");
        assert!(!inside(outside.join("copy")));
        assert!(
            !inside(t.join("project2/x")),
            "a sibling sharing the name's start"
        );
        // A link in the project that leads out is the project's choice.
        assert!(inside(root.join(".pi/link")));
        assert!(inside(root.join(".pi/link/deep")));
        // Leaving through it with `..` still went through it.
        assert!(inside(root.join(".pi/link/deep/er/../../../outside")));
        // A link outside that leads in.
        assert!(inside(outside.join("into")));
        // `..`: lexically out of a real directory is out; in from outside is in.
        assert!(!inside(root.join(".pi/real/../../../outside/copy")));
        assert!(inside(outside.join("../project/.pi/real")));
        assert!(inside(outside.join("copy/../../project")));
        // The root named through a link: both names are the project's.
        assert!(inside(t.join("rootlink/.pi/real")));
        let by_link = Gate::new(&t.join("rootlink"), false);
        assert!(by_link.is_project(&root.join(".pi/real")));
        assert!(by_link.is_project(&t.join("rootlink/node_modules/x")));
        assert!(!by_link.is_project(&outside.join("copy")));
        // Consent does not change what is the project's, only what may run.
        let mut skipped = Vec::new();
        assert!(Gate::new(&root, true).allows(&root.join(".pi/real"), "x", &mut skipped));
        assert!(!gate.allows(&root.join(".pi/real"), "x", &mut skipped));
        assert!(gate.allows(&outside.join("copy"), "x", &mut skipped));
        assert_eq!(skipped.len(), 1);
        assert!(!Gate::open().is_project(&root));
    }

    #[test]
    fn host_bin_names_a_verifiable_host() {
        assert!(parse_host_bin("claude-code=/x/claude").is_ok());
        assert!(parse_host_bin("tintinweb=/x").is_ok());
        assert!(parse_host_bin("pi-example=/x").is_ok());
        assert!(parse_host_bin("herdr=/x").unwrap_err().contains("one of"));
    }

    #[test]
    fn node_versions_and_engine_floors_parse() {
        assert_eq!(parse_node_version("v20.20.2"), Some((20, 20, 2)));
        assert_eq!(parse_node_version("22.19"), Some((22, 19, 0)));
        assert_eq!(parse_node_version("22"), Some((22, 0, 0)));
        for bad in ["", "v", "x.1", "22.x", "1.2.3.4", "^22"] {
            assert_eq!(parse_node_version(bad), None, "{bad}");
        }
        let dir = tempfile::tempdir().unwrap();
        for (engines, want) in [
            (r#"">=22.19.0""#, Some((22, 19, 0))),
            (r#"">= 20""#, Some((20, 0, 0))),
            (r#""^20 || ^22""#, None),
            ("22", None),
        ] {
            std::fs::write(
                dir.path().join("package.json"),
                format!(r#"{{"name":"p","engines":{{"node":{engines}}}}}"#),
            )
            .unwrap();
            assert_eq!(node_required(dir.path()).map(|r| r.0), want, "{engines}");
        }
        assert!(parse_host_bin("claude").unwrap_err().contains("HOST=PATH"));
        assert!(
            parse_host_bin("gemini=")
                .unwrap_err()
                .contains("names no program")
        );
    }
}
