//! `pwk lsp`: a language server for role files over stdio (`lsp-server`'s
//! message types and connection, pwk's own bounded framing: [`framing`]; one
//! protocol thread and one worker thread, no async runtime: [`worker`]).
//!
//! Diagnostics come from the lint engine run in memory on the buffer
//! ([`crate::lint::check_bytes`]) with the host profile `pwk lint` would use, plus
//! the cross-file `duplicate-name` findings over the workspace's role files.
//! Hover, completion, code actions (from the findings' fix edits), document symbols
//! and go to definition (a role's other definitions in the discovery layers) are
//! answered for the buffers pwk serves ([`workspace::Workspace::owns`]); for any
//! other buffer the answer is empty.

mod actions;
mod complete;
pub(crate) mod document;
pub(crate) mod framing;
mod info;
mod models;
pub(crate) mod position;
mod server;
pub(crate) mod uri;
mod worker;
pub(crate) mod workspace;

pub(crate) use server::{Options, serve};

/// Why the server stopped other than by `shutdown` and `exit`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ServeError {
    #[error("the client closed the connection without `shutdown` and `exit`")]
    Disconnected,
    #[error("the client sent `exit` without `shutdown` first")]
    ExitWithoutShutdown,
    #[error("protocol error: {0}")]
    Protocol(String),
}
