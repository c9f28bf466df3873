//! What every command receives: the working directory, the environment snapshot
//! and the colour decision; plus the only writers to stdout and stderr.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::cli::ColorChoice;
use crate::env::Env;

/// Per-invocation facts, read once at start-up.
#[derive(Debug, Clone)]
pub struct Context {
    /// The current directory, as the process saw it at start.
    pub cwd: PathBuf,
    /// The environment variables pwk reads.
    pub env: Env,
    /// Whether human output on stderr may use colour.
    pub color_stderr: bool,
    /// Whether human output on stdout may use colour.
    pub color_stdout: bool,
}

impl Context {
    pub fn from_process(color: ColorChoice) -> anyhow::Result<Context> {
        let cwd = std::env::current_dir()
            .map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))?;
        let env = Env::from_process();
        let decide = |is_tty: bool| match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_tty && !env.no_color,
        };
        Ok(Context {
            color_stderr: decide(std::io::stderr().is_terminal()),
            color_stdout: decide(std::io::stdout().is_terminal()),
            cwd,
            env,
        })
    }

    /// A context for tests and embedding: no colour, the given directory and environment.
    pub fn for_dir(cwd: PathBuf, env: Env) -> Context {
        Context {
            cwd,
            env,
            color_stderr: false,
            color_stdout: false,
        }
    }

    /// A path as shown in messages: relative to the current directory when under it.
    pub fn display_path(&self, path: &Path) -> String {
        display_path(&self.cwd, path)
    }
}

/// `path` relative to `cwd` when it lies under it, else as given.
pub fn display_path(cwd: &Path, path: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// Write bytes to stdout. A closed pipe (e.g. `pwk lint | head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Write a string plus newline to stderr, ignoring a closed pipe.
pub fn eprintln_safe(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}
