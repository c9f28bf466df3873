//! What every command receives: the working directory, the environment snapshot
//! and the colour decision (the writers to stdout and stderr are in
//! [`crate::display`], which the servers use too).

use std::io::IsTerminal;
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

    /// A path as shown in messages: relative to the current directory when under it.
    pub fn display_path(&self, path: &Path) -> String {
        crate::display::display_path(&self.cwd, path)
    }
}
