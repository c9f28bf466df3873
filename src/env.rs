//! The one place that reads the process environment.
//!
//! Everything below the command layer receives these values as data, so tests can
//! pin them and no module reads `std::env` on its own.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A snapshot of the environment variables pwk cares about.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `PI_CODING_AGENT_DIR`: pi's agent/config dir (default `~/.pi/agent`).
    pub pi_agent_dir: Option<PathBuf>,
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `PWK_PI_BIN`: the pi binary to launch (no PATH fallback when set).
    pub pi_bin: Option<PathBuf>,
    /// `PATH`, for finding `pi`.
    pub path: Option<OsString>,
    /// `XDG_RUNTIME_DIR`: where per-user state (write locks) goes when pi has no
    /// agent directory.
    pub xdg_runtime_dir: Option<PathBuf>,
    /// `NO_COLOR` set to a non-empty value.
    pub no_color: bool,
    /// `GITHUB_ACTIONS=true`.
    pub github_actions: bool,
    /// `PWK_METER`: where a debug build writes its work counts ([`crate::meter`]).
    pub meter: Option<PathBuf>,
    /// `PWK_CACHE_DIR`: where pwk keeps what it learnt about pi binaries (overrides
    /// the platform cache directory).
    pub pwk_cache_dir: Option<PathBuf>,
    /// `XDG_CACHE_HOME` (an absolute path; a relative one is ignored, as the XDG
    /// base directory specification says).
    pub xdg_cache_home: Option<PathBuf>,
    /// The variables a host with its own CLI reads for a sub-agent's model
    /// ([`HOST_VARS`]), those set.
    pub host_vars: std::collections::BTreeMap<&'static str, String>,
}

/// The environment variables the host profiles' model chains name
/// (`settings.model_chain[].env`; a test keeps the two in step).
pub const HOST_VARS: &[&str] = &[
    "ANTHROPIC_MODEL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
    "GEMINI_MODEL",
];

/// pwk's cache directory: `base` is the user's own layout (opened following
/// symbolic links, created when missing); `sub`, when set, is pwk's directory in it
/// (never a symbolic link).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheDir {
    pub base: PathBuf,
    pub sub: Option<&'static str>,
}

impl CacheDir {
    /// The directory itself.
    pub fn path(&self) -> PathBuf {
        match self.sub {
            Some(s) => self.base.join(s),
            None => self.base.clone(),
        }
    }
}

/// `PWK_DEBUG_PANIC` set in a debug build: pwk panics on purpose, so the tests see
/// the internal-error path (its message and exit code 101) as a user would. A
/// release build never reads it.
pub fn debug_panic_requested() -> bool {
    cfg!(debug_assertions) && std::env::var_os("PWK_DEBUG_PANIC").is_some_and(|v| !v.is_empty())
}

/// `PWK_DEBUG_PROFILE_PATCH=HOST=JSON` in a debug build: an RFC 7396 merge patch pwk
/// applies over every profile of HOST as it reads it. The tests' doctored profile
/// (`pwk verify` must then disagree with the real host). A release build never reads
/// it.
pub fn debug_profile_patch() -> Option<(String, String)> {
    if !cfg!(debug_assertions) {
        return None;
    }
    let v = std::env::var("PWK_DEBUG_PROFILE_PATCH").ok()?;
    let (host, patch) = v.split_once('=')?;
    Some((host.to_string(), patch.to_string()))
}

impl Env {
    /// Read the real process environment.
    pub fn from_process() -> Env {
        let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        Env {
            pi_agent_dir: non_empty("PI_CODING_AGENT_DIR").map(PathBuf::from),
            home: non_empty("HOME").map(PathBuf::from),
            pi_bin: non_empty("PWK_PI_BIN").map(PathBuf::from),
            path: non_empty("PATH"),
            xdg_runtime_dir: non_empty("XDG_RUNTIME_DIR").map(PathBuf::from),
            no_color: non_empty("NO_COLOR").is_some(),
            github_actions: std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"),
            meter: non_empty("PWK_METER").map(PathBuf::from),
            pwk_cache_dir: non_empty("PWK_CACHE_DIR").map(PathBuf::from),
            xdg_cache_home: non_empty("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute()),
            host_vars: HOST_VARS
                .iter()
                .filter_map(|&k| Some((k, non_empty(k)?.to_string_lossy().into_owned())))
                .collect(),
        }
    }

    /// pwk's cache directory: `$PWK_CACHE_DIR`, else `$XDG_CACHE_HOME/pwk`, else
    /// `~/.cache/pwk`; `None` with none of them (then nothing is cached on disk).
    pub fn cache_dir(&self) -> Option<CacheDir> {
        if let Some(dir) = &self.pwk_cache_dir {
            return Some(CacheDir {
                base: self.expand_tilde(dir),
                sub: None,
            });
        }
        let base = match &self.xdg_cache_home {
            Some(x) => x.clone(),
            None => self.home.as_ref()?.join(".cache"),
        };
        Some(CacheDir {
            base,
            sub: Some("pwk"),
        })
    }

    /// pi's agent directory: `$PI_CODING_AGENT_DIR` (with `~` expanded), else `~/.pi/agent`.
    pub fn agent_dir(&self) -> Option<PathBuf> {
        match &self.pi_agent_dir {
            Some(dir) => Some(self.expand_tilde(dir)),
            None => self.home.as_ref().map(|h| h.join(".pi").join("agent")),
        }
    }

    /// The global agents directory: `<agent dir>/agents`.
    pub fn global_agents_dir(&self) -> Option<PathBuf> {
        self.agent_dir().map(|d| d.join("agents"))
    }

    fn expand_tilde(&self, p: &Path) -> PathBuf {
        match (p.strip_prefix("~"), &self.home) {
            (Ok(rest), Some(home)) => home.join(rest),
            _ => p.to_path_buf(),
        }
    }
}

/// `PWK_SAFE_DIRECTORIES`: directories owned by another user that pwk may still take
/// as a project root and read `pwk.toml` from (as git's `safe.directory`). A
/// `:`-separated list of absolute paths, or `*` for every directory. Read once.
pub fn safe_directories() -> &'static SafeDirectories {
    static SAFE: std::sync::OnceLock<SafeDirectories> = std::sync::OnceLock::new();
    SAFE.get_or_init(|| SafeDirectories::parse(std::env::var_os("PWK_SAFE_DIRECTORIES")))
}

/// The parsed `PWK_SAFE_DIRECTORIES`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SafeDirectories {
    /// `*`: every directory is safe.
    pub all: bool,
    pub dirs: Vec<PathBuf>,
}

impl SafeDirectories {
    pub fn parse(value: Option<OsString>) -> SafeDirectories {
        let Some(value) = value else {
            return SafeDirectories::default();
        };
        let mut out = SafeDirectories::default();
        for part in std::env::split_paths(&value) {
            if part.as_os_str() == "*" {
                out.all = true;
            } else if part.is_absolute() {
                out.dirs.push(part);
            }
        }
        out
    }

    /// Whether `dir` is listed (or everything is).
    pub fn allows(&self, dir: &Path) -> bool {
        self.all || self.dirs.iter().any(|d| d == dir)
    }
}
