//! `--host auto`: which subagent host a project runs, read from pi's own settings.
//!
//! pi lists installed packages in `packages` of the project `.pi/settings.json` and
//! of the agent dir's `settings.json` (a string source, or `{ "source": … }`;
//! `@earendil-works/pi-coding-agent@1.6.0 dist/core/package-manager.js:808`). npm
//! sources are `npm:<name>[@<version>]` (`:1311`) and are installed into
//! `<project>/.pi/npm/node_modules/<name>` or `<agent dir>/npm/node_modules/<name>`
//! (`:1937`); git sources into `<project>/.pi/git/<host>/<path>` or
//! `<agent dir>/git/<host>/<path>` (`:1963`). The installed `package.json` gives the
//! exact version when the source does not pin one.

use std::path::{Path, PathBuf};

use super::{ALL, HostId, HostSpec};

/// What detection found and decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The profile to use.
    pub spec: HostSpec,
    /// Why, in one sentence (shown by lint and show).
    pub reason: String,
    /// Every host package found, with its version when known and where it was listed.
    pub found: Vec<Found>,
    /// The paths `reason` names, as written there (absolute): [`Detection::reason_from`]
    /// shows them from the current directory.
    pub paths: Vec<PathBuf>,
}

impl Detection {
    /// `reason` with the paths it names shown as every other path of the output is:
    /// relative to `cwd` when under it.
    pub fn reason_from(&self, cwd: &Path) -> String {
        let mut paths: Vec<&PathBuf> = self.paths.iter().collect();
        // The longest first: a path that begins another is replaced after it.
        paths.sort_by_key(|p| std::cmp::Reverse(p.as_os_str().len()));
        let mut out = self.reason.clone();
        for p in paths {
            let shown = crate::display::display_path(cwd, p);
            out = out.replace(&p.display().to_string(), &shown);
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub host: HostId,
    pub version: Option<String>,
    /// The settings file that lists it.
    pub settings: PathBuf,
}

/// Detect the host from the project's and the agent dir's pi settings. A settings
/// file that cannot be read is named in the reason: the host it would name is not
/// known (never a silent portable profile).
pub fn detect(project_root: &Path, agent_dir: Option<&Path>) -> Detection {
    let mut unreadable = Vec::new();
    let mut d = detect_in(project_root, agent_dir, &mut unreadable);
    if !unreadable.is_empty() {
        let named: Vec<String> = unreadable
            .iter()
            .map(|(path, why)| format!("`{}` ({why})", path.display()))
            .collect();
        d.reason.push_str(&format!(
            "; pwk could not read {}, so a host listed there is not known",
            named.join(", nor ")
        ));
        d.paths.extend(unreadable.into_iter().map(|(path, _)| path));
    }
    d
}

fn detect_in(
    project_root: &Path,
    agent_dir: Option<&Path>,
    unreadable: &mut Vec<(PathBuf, String)>,
) -> Detection {
    let mut found: Vec<Found> = Vec::new();
    let project = project_root.join(".pi");
    let mut places: Vec<(PathBuf, PathBuf)> = vec![(project.join("settings.json"), project)];
    if let Some(a) = agent_dir {
        places.push((a.join("settings.json"), a.to_path_buf()));
    }
    // Settings files pwk could not read: a host they name is unknown, and said so.
    for (settings, base) in &places {
        let sources = crate::pi::settings::read_packages(settings).unwrap_or_else(|why| {
            unreadable.push((settings.clone(), why.to_string()));
            Vec::new()
        });
        for source in sources {
            let Some((host, pinned)) = match_source(&source) else {
                continue;
            };
            if found.iter().any(|f| f.host == host) {
                continue; // the project's entry wins over the global one
            }
            let version = pinned.or_else(|| installed_version(base, host, &source));
            found.push(Found {
                host,
                version,
                settings: settings.clone(),
            });
        }
    }
    let spec_of = |f: &Found| {
        let spec = HostSpec {
            host: f.host,
            version: f.version.clone(),
        };
        // A version pwk has no profile for: the newest profile, said so.
        match spec.profile() {
            Ok(_) => spec,
            Err(_) => HostSpec::newest(f.host),
        }
    };
    // pi's example subagent extension is no package: it is installed by placing
    // its index.ts and agents.ts in the agent dir's extensions/subagent/
    // (@earendil-works/pi-coding-agent@1.6.0 examples/extensions/subagent/README.md:38-40),
    // or the project's .pi/extensions/subagent/.
    if found.is_empty() {
        let example = places.iter().find_map(|(settings, base)| {
            let dir = base.join("extensions/subagent");
            (dir.join("agents.ts").is_file() && dir.join("index.ts").is_file())
                .then(|| (settings.clone(), dir))
        });
        if let Some((settings, dir)) = example {
            return Detection {
                spec: HostSpec::newest(HostId::PiExample),
                reason: format!(
                    "pi's example subagent extension is installed in {} (`--host H` to choose)",
                    dir.display()
                ),
                found: vec![Found {
                    host: HostId::PiExample,
                    version: None,
                    settings,
                }],
                paths: vec![dir],
            };
        }
    }
    match found.as_slice() {
        [] => Detection {
            spec: HostSpec::newest(HostId::Pwk),
            reason: format!(
                "no subagent host package in {}{}: using the portable profile (`--host H` to choose)",
                places[0].0.display(),
                places
                    .get(1)
                    .map(|p| format!(" or {}", p.0.display()))
                    .unwrap_or_default()
            ),
            found,
            paths: places.iter().map(|p| p.0.clone()).collect(),
        },
        [one] => {
            let spec = spec_of(one);
            let profile = spec.profile().expect("checked");
            let version = match &one.version {
                Some(v) if v != &profile.version && spec.version.is_none() => {
                    format!(
                        "{v}, newer than any profile pwk has; using {}",
                        profile.label()
                    )
                }
                Some(v) => v.clone(),
                None => format!(
                    "version unknown; using the newest profile {}",
                    profile.label()
                ),
            };
            Detection {
                reason: format!(
                    "{} ({version}) is installed per {}",
                    one.host,
                    one.settings.display()
                ),
                spec,
                paths: vec![one.settings.clone()],
                found,
            }
        }
        many => Detection {
            spec: HostSpec::newest(HostId::Pwk),
            reason: format!(
                "several subagent hosts are installed ({}): using the portable profile, safe on all of them",
                many.iter()
                    .map(|f| f.host.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            found,
            paths: Vec::new(),
        },
    }
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
    let shown = if files.len() == 1 {
        format!("`{}` is", first.display())
    } else {
        format!("all {} files are", files.len())
    };
    Some(Detection {
        spec: HostSpec::newest(host),
        reason: format!(
            "{shown} under `{dir}/`, where {host} reads its agents (`--host H` to choose)"
        ),
        found: Vec::new(),
        paths: vec![first.clone()],
    })
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
        .find_map(|h| h.project_dirs().find(|d| holds(d)).map(|d| (h, d)))
}

/// The package sources a settings file lists (nothing when it is absent or bad:
/// pi's own error is the user's guide there).
/// Which host a package source installs, and the version it pins.
fn match_source(source: &str) -> Option<(HostId, Option<String>)> {
    if let Some(spec) = source.strip_prefix("npm:") {
        let spec = spec.trim();
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
    }

    #[test]
    fn pi_example_extension_is_detected_by_its_files() {
        let root = std::env::temp_dir().join(format!("pwk-detect-example-{}", std::process::id()));
        let ext = root.join(".pi/extensions/subagent");
        std::fs::create_dir_all(&ext).unwrap();
        assert_eq!(detect(&root, None).spec.host, HostId::Pwk);
        std::fs::write(ext.join("index.ts"), "").unwrap();
        std::fs::write(ext.join("agents.ts"), "").unwrap();
        let d = detect(&root, None);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(d.spec.host, HostId::PiExample);
        assert!(
            d.reason.contains("example subagent extension"),
            "{}",
            d.reason
        );
    }

    #[test]
    fn paths_under_a_hosts_own_directory_pick_it() {
        let p = |s: &str| PathBuf::from(s);
        let d = detect_from_paths(&[p("/x/.claude/agents/a.md"), p(".claude/agents/sub/b.md")])
            .unwrap();
        assert_eq!(d.spec.host, HostId::ClaudeCode);
        assert!(d.reason.contains(".claude/agents/"), "{}", d.reason);
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
        assert!(d.reason.contains("0.67.0"), "{}", d.reason);
        std::fs::write(
            agent.join("settings.json"),
            r#"{"packages": ["npm:@tintinweb/pi-subagents@0.14.1"]}"#,
        )
        .unwrap();
        let both = detect(&root, Some(&agent));
        assert_eq!(both.spec.host, HostId::Pwk);
        assert_eq!(both.found.len(), 2);
        assert!(
            both.reason.contains("nicobailon, tintinweb"),
            "{}",
            both.reason
        );
    }
}
