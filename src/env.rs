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
        }
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
