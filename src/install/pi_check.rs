//! Asking the local `pi` whether it can resolve a model hint.
//!
//! nicobailon's pi-subagents refuses to launch a role whose `model:` its pi cannot
//! resolve, so a typo in `--fast-model` would take the fast reviewers out of
//! service there. Setup asks `pi --list-models <provider>` (stdin `/dev/null`,
//! both output streams read: pi 0.73 prints the table on stderr when stdin is not
//! a terminal) and warns when the model is not listed.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::hint::ModelHint;
use crate::env::Env;

/// How long `pi --list-models` may take before it is killed.
pub const LIST_MODELS_TIMEOUT: Duration = Duration::from_secs(15);

/// What pi said about a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelCheck {
    /// pi lists the model.
    Resolvable,
    /// pi ran and does not list it; `listed` holds the ids it lists for the provider.
    NotListed { pi: PathBuf, listed: Vec<String> },
    /// The check could not be made (no pi, pi failed, timed out).
    Unchecked { why: String },
}

/// The pi binary: `$PWK_PI_BIN` (no fallback), else `pi` on `PATH`.
pub fn find_pi(env: &Env) -> Result<PathBuf, String> {
    if let Some(bin) = &env.pi_bin {
        return if bin.is_file() {
            Ok(bin.clone())
        } else {
            Err(format!(
                "PWK_PI_BIN points to `{}`, which is not a file",
                bin.display()
            ))
        };
    }
    let path = env.path.as_ref().ok_or("PATH is not set")?;
    std::env::split_paths(path)
        .map(|d| d.join("pi"))
        .find(|p| is_executable(p))
        .ok_or_else(|| "no `pi` on PATH".to_string())
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Ask pi whether it lists `model`.
pub fn check_model(env: &Env, model: &ModelHint, timeout: Duration) -> ModelCheck {
    let pi = match find_pi(env) {
        Ok(pi) => pi,
        Err(why) => return ModelCheck::Unchecked { why },
    };
    let output = match run_bounded(&pi, &["--list-models", model.provider()], timeout) {
        Ok(o) => o,
        Err(why) => {
            return ModelCheck::Unchecked {
                why: format!("`{} --list-models` {why}", pi.display()),
            };
        }
    };
    let listed = listed_models(&output, model.provider());
    if listed.iter().any(|id| id == model.id()) {
        ModelCheck::Resolvable
    } else {
        ModelCheck::NotListed { pi, listed }
    }
}

/// The model ids of `provider` in pi's `--list-models` table
/// (`provider  model  context  max-out  thinking  images`).
pub fn listed_models(table: &str, provider: &str) -> Vec<String> {
    table
        .lines()
        .filter_map(|line| {
            let mut cols = line.split_whitespace();
            match (cols.next(), cols.next()) {
                (Some(p), Some(id)) if p == provider => Some(id.to_string()),
                _ => None,
            }
        })
        .collect()
}

/// Run `bin args…` with stdin from `/dev/null`, collect stdout and stderr
/// together, and kill it after `timeout`.
fn run_bounded(bin: &Path, args: &[&str], timeout: Duration) -> Result<String, String> {
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not be started: {e}"))?;
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            // Bounded: a model table is a few KiB; never hold more than 4 MiB.
            let _ = (&mut r).take(4 << 20).read_to_end(&mut buf);
            buf
        })
    };
    let out = child.stdout.take().map(|s| drain(Box::new(s)));
    let err = child.stderr.take().map(|s| drain(Box::new(s)));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "did not finish within {} s and was stopped",
                    timeout.as_secs()
                ));
            }
            Err(e) => return Err(format!("could not be waited for: {e}")),
        }
    };
    let mut text = String::new();
    for h in [out, err].into_iter().flatten() {
        text.push_str(&String::from_utf8_lossy(&h.join().unwrap_or_default()));
        text.push('\n');
    }
    if !status.success() {
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string();
        return Err(format!("failed ({status}): {first}"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_model_table() {
        let table = "provider  model          context  max-out  thinking  images\nmock      mock-model     128K     16.4K    no        no    \nmock      mock-reasoner  128K     16.4K    yes       no    \nother     x              1K       1K       no        no\n";
        assert_eq!(
            listed_models(table, "mock"),
            ["mock-model", "mock-reasoner"]
        );
        assert!(listed_models(table, "nope").is_empty());
    }
}
