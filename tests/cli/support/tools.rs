//! The real tools the tests drive, located one way, with one skip policy.
//!
//! Each [`Tool`] comes from its environment variable (`scripts/test.sh` exports them
//! after provisioning), else from its provisioned place in the worktree. When it is
//! missing:
//! - under `CI=true` or `PWK_TEST_REQUIRE_PI=1` the test fails (a test that needs a
//!   real part never passes without it in CI);
//! - otherwise the test says `SKIPPED: <test>: <tool> not provisioned (…)` on stderr
//!   and appends the same line to the skip log ([`skip_log`]), which
//!   `scripts/test.sh` prints at the end of the run, so a skipped test is counted as
//!   skipped, not as passed.

use std::io::Write as _;
use std::path::PathBuf;

use super::repo_root;

/// A real program (or package) a test needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// pi 0.73.1 (`@mariozechner/pi-coding-agent`).
    Pi073,
    /// pi 1.6 (`@earendil-works/pi-coding-agent`).
    Pi16,
    /// The host oracle (tests/oracle/driver.mjs): the subagent hosts' own loaders.
    Oracle,
    /// The CLI host oracle (tests/oracle/cli-hosts.mjs): Claude Code, Copilot CLI,
    /// OpenCode, Gemini CLI.
    CliOracle,
    /// The official MCP SDK client and the MCP Inspector (a directory).
    McpClient,
    /// Neovim.
    Nvim,
    /// Node.js (runs the MCP clients; the launchers above bring their own).
    Node,
    /// Python 3 (the host-fact extractors, scripts/host-extract/).
    Python,
}

impl Tool {
    /// The environment variable that names it.
    pub fn var(self) -> &'static str {
        match self {
            Tool::Pi073 => "PWK_TEST_PI073",
            Tool::Pi16 => "PWK_TEST_PI16",
            Tool::Oracle => "PWK_TEST_ORACLE",
            Tool::CliOracle => "PWK_TEST_CLI_ORACLE",
            Tool::McpClient => "PWK_TEST_MCP_CLIENT",
            Tool::Nvim => "PWK_TEST_NVIM",
            Tool::Node => "PWK_TEST_NODE",
            Tool::Python => "PWK_TEST_PYTHON",
        }
    }

    /// What provisions it.
    fn provisioner(self) -> &'static str {
        match self {
            Tool::Pi073 | Tool::Pi16 => "./scripts/provision-pi.sh",
            Tool::Oracle | Tool::CliOracle => "./scripts/provision-hosts.sh",
            Tool::McpClient => "./scripts/provision-mcp.sh",
            Tool::Nvim => "./scripts/provision-editor.sh",
            Tool::Node => "install Node.js 22 or later",
            Tool::Python => "install Python 3",
        }
    }

    /// Where provisioning puts it in the worktree (`None`: on PATH only).
    fn provisioned(self) -> Option<PathBuf> {
        let root = repo_root();
        Some(match self {
            Tool::Pi073 => root.join(".pi-test/bin/pi073"),
            Tool::Pi16 => root.join(".pi-test/bin/pi16"),
            Tool::Oracle => root.join(".host-test/bin/oracle"),
            Tool::CliOracle => root.join(".host-test/bin/cli-oracle"),
            Tool::McpClient => root.join(".mcp-test"),
            Tool::Nvim | Tool::Node | Tool::Python => return None,
        })
    }

    /// Whether `p` is the tool (a file; the MCP client is a directory holding the SDK).
    fn is_there(self, p: &std::path::Path) -> bool {
        match self {
            Tool::McpClient => p
                .join("node_modules/@modelcontextprotocol/sdk/package.json")
                .is_file(),
            _ => p.is_file(),
        }
    }

    /// The program name looked up on `PATH` when nothing else names it.
    fn program(self) -> Option<&'static str> {
        match self {
            Tool::Nvim => Some("nvim"),
            Tool::Node => Some("node"),
            Tool::Python => Some("python3"),
            _ => None,
        }
    }

    fn find(self) -> Option<PathBuf> {
        let named = std::env::var_os(self.var()).map(PathBuf::from);
        let on_path = || {
            let program = self.program()?;
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|d| d.join(program))
                .find(|p| p.is_file())
        };
        named
            .or_else(|| self.provisioned())
            .filter(|p| self.is_there(p))
            .or_else(on_path)
    }
}

/// Whether a missing tool fails the test (`CI=true` or `PWK_TEST_REQUIRE_PI=1`).
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("PWK_TEST_REQUIRE_PI").is_ok_and(|v| v == "1")
}

/// The file that collects the skips of a run (`scripts/test.sh` empties it before
/// `cargo test` and prints it after): `PWK_TEST_SKIP_LOG`, else
/// `target/tmp/pwk-test-skips.txt`.
pub fn skip_log() -> PathBuf {
    std::env::var_os("PWK_TEST_SKIP_LOG")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pwk-test-skips.txt"))
}

/// The running test's name (libtest names each test's thread after the test).
fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_string()
}

/// Record that the running test did not run, and why (see the module doc).
pub fn skip(why: &str) {
    let line = format!("SKIPPED: {}: {why}", test_name());
    eprintln!("{line}");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(skip_log())
    {
        let _ = writeln!(f, "{line}");
    }
}

/// The tool, or `None` after recording the skip; a failure when tools are
/// [`required`].
pub fn tool(t: Tool) -> Option<PathBuf> {
    if let Some(p) = t.find() {
        return Some(p);
    }
    let why = format!(
        "{t:?} not provisioned (set {} or run {})",
        t.var(),
        t.provisioner()
    );
    if required() {
        panic!("CI=true / PWK_TEST_REQUIRE_PI=1: {why}");
    }
    skip(&why);
    None
}

/// Both pi generations that are provisioned, each as (label, launcher); each missing
/// one recorded as a skip (a failure when tools are [`required`]).
pub fn pis() -> Vec<(&'static str, PathBuf)> {
    [("pi073", Tool::Pi073), ("pi16", Tool::Pi16)]
        .into_iter()
        .filter_map(|(label, t)| tool(t).map(|p| (label, p)))
        .collect()
}
