//! `pwk mcp`: pwk as an MCP server over stdio (the official Rust SDK, rmcp).
//!
//! * [`tools`]: the tools, their input and output JSON Schemas, and the handlers,
//!   each a thin call into the module that owns the concept (lint, discover,
//!   delegate, provider).
//! * [`tasks`]: the task registry — states, the concurrency cap, abort of all.
//! * [`server`]: rmcp's handler, resources (`pwk://roles/<name>`,
//!   `pwk://schema/role`), progress notifications and cancellation.
//! * [`transport`]: stdio, read by the one strict JSON reader and bounded.
//!
//! Every pi process runs under the one supervisor; a task's [`Remote`] steers and
//! aborts it. When the client disconnects (stdin EOF), or pwk receives SIGINT, SIGTERM
//! or SIGHUP, every task and run is aborted and waited for before [`serve`] returns:
//! no pi process outlives the server.
//!
//! [`Remote`]: crate::delegate::supervise::Remote

pub(crate) mod server;
pub(crate) mod tasks;
pub(crate) mod tools;
pub(crate) mod transport;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;

use crate::env::Env;

/// How long the server waits at exit for aborted tasks to be gone.
const EXIT_WAIT: Duration = Duration::from_secs(15);

/// How to serve.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// The directory tools resolve relative paths and roles from.
    pub cwd: PathBuf,
    pub env: Env,
    pub max_tasks: usize,
    /// `[delegate] budget` of the server's project.
    pub default_budget: crate::delegate::Budget,
    /// `--config FILE` (absolute): the configuration of the `lint` tool's project.
    pub config: Option<PathBuf>,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ServeError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the MCP session could not be initialised: {0}")]
    Init(String),
    #[error("the MCP session ended with an error: {0}")]
    Session(String),
}

/// Serve MCP on stdin/stdout until the client disconnects; then stop every pi
/// process the server started.
pub(crate) fn serve(config: Config) -> Result<(), ServeError> {
    let registry = Arc::new(
        tasks::Registry::new(config.env, config.max_tasks)
            .with_default_budget(config.default_budget),
    );
    let server = server::Server::new(config.cwd, config.config, Arc::clone(&registry));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .enable_io()
        .build()
        .map_err(ServeError::Runtime)?;
    // SIGINT / SIGTERM / SIGHUP: pwk's signal flag (installed now) stops every pi
    // group the supervisors run, and ends the session like a disconnect.
    let _ = crate::delegate::pending_signal();
    let outcome = rt.block_on(async move {
        let running = server
            // pwk's transport: the strict JSON reader (no duplicate keys) and a
            // bound on the message size, with error answers.
            .serve(transport::Strict::new(
                tokio::io::stdin(),
                tokio::io::stdout(),
            ))
            .await
            .map_err(|e| ServeError::Init(e.to_string()))?;
        let stop = running.cancellation_token();
        tokio::spawn(async move {
            while crate::delegate::pending_signal().is_none() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            stop.cancel();
        });
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| ServeError::Session(e.to_string()))
    });
    // The client is gone (or the session failed): no pi process outlives the server.
    registry.abort_all(EXIT_WAIT);
    rt.shutdown_timeout(Duration::from_secs(1));
    outcome
}
