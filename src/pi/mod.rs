//! The pi adapter: the one place that knows where pi is and how to ask it short
//! questions.
//!
//! * [`locate`]: `$PWK_PI_BIN` (when set, with no PATH fallback), else `pi` on PATH.
//! * [`process`]: pi in its own process group, SIGTERM → grace → SIGKILL for that
//!   group, a bounded head+tail capture of a stream, and [`process::capture`]: a short
//!   bounded command (`pi --help`, `pi --list-models`) with a typed [`CaptureError`].
//! * [`models`]: the one parser of pi's `--list-models` table.
//! * [`settings`]: pi's `settings.json` files and pi-herdr-agents' `config.json`.
//!
//! The supervision of a real run (stdin prompt, event stream, watchdogs, signals) is
//! `delegate::supervise`, built on [`process`].

pub(crate) mod cache;
pub(crate) mod children;
pub(crate) mod group;
pub(crate) mod help;
pub(crate) mod models;
pub(crate) mod process;
pub(crate) mod settings;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) use models::ModelList;
pub(crate) use process::{CaptureError, capture};

use crate::env::Env;

/// Why pi could not be located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LocateError {
    #[error(
        "PWK_PI_BIN is set to {}, which is not a file (pwk does not fall back to PATH when PWK_PI_BIN is set)",
        .0.display()
    )]
    BinNotAFile(PathBuf),
    #[error(
        "`pi` was not found on PATH; install the pi coding agent or set PWK_PI_BIN to its path"
    )]
    NotOnPath,
}

/// Find the pi program: `$PWK_PI_BIN` when set (no fallback), else `pi` on PATH.
pub(crate) fn locate(env: &Env) -> Result<PathBuf, LocateError> {
    if let Some(bin) = &env.pi_bin {
        return if bin.is_file() {
            Ok(bin.clone())
        } else {
            Err(LocateError::BinNotAFile(bin.clone()))
        };
    }
    env.path
        .as_ref()
        .and_then(|path| find_on_path(path, "pi"))
        .ok_or(LocateError::NotOnPath)
}

/// The first executable file `name` in the directories of `path` (a `PATH` value):
/// how pwk finds pi, and the agent CLIs `pwk verify` runs.
pub(crate) fn find_on_path(path: &std::ffi::OsStr, name: &str) -> Option<PathBuf> {
    all_on_path(path, name).next()
}

/// Every executable `name` on `path`, in `PATH` order ([`find_on_path`] takes the
/// first; `pwk verify` passes over the ones in the project).
pub(crate) fn all_on_path<'a>(
    path: &'a std::ffi::OsStr,
    name: &'a str,
) -> impl Iterator<Item = PathBuf> + 'a {
    std::env::split_paths(path)
        .map(move |d| d.join(name))
        .filter(|p| is_executable_file(p))
}

fn is_executable_file(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The longest `pi --list-models` output read (per stream): ~80,000 models. A longer
/// listing is an error, never a listing cut in the middle.
pub(crate) const MAX_LISTING: usize = 8 << 20;

/// `pi --list-models [provider]`, parsed. pi prints the table on stdout or stderr
/// depending on its version and whether stdin is a terminal; both are read, whole
/// (over [`MAX_LISTING`] is [`CaptureError::TooLong`]).
pub(crate) fn list_models(
    program: &Path,
    provider: Option<&str>,
    cwd: &Path,
    limit: Duration,
) -> Result<ModelList, CaptureError> {
    let mut args = vec!["--list-models"];
    args.extend(provider);
    let text = process::capture_whole(program, &args, cwd, &[], limit, MAX_LISTING)?.success()?;
    Ok(ModelList::parse(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pwk_pi_bin_has_no_fallback() {
        let env = Env {
            pi_bin: Some("/nonexistent/pi".into()),
            path: Some("/usr/bin".into()),
            ..Default::default()
        };
        assert_eq!(
            locate(&env),
            Err(LocateError::BinNotAFile("/nonexistent/pi".into()))
        );
        let env = Env {
            path: Some("/nonexistent-dir".into()),
            ..Default::default()
        };
        assert_eq!(locate(&env), Err(LocateError::NotOnPath));
    }
}
