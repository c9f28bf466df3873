//! pwk: lint, install, list, convert and run agent roles for `pi`, its subagent
//! extensions and other agent hosts.
//!
//! `run` is the only entry point the binary uses: one match on the subcommand.
//! Each concern lives in its own module, and imports point down the layers drawn in
//! `docs/src/architecture.md` (commands → servers → provider → project → config →
//! features → delegate → base → leaf), which `tests/cli/layers.rs` enforces.

#![warn(unreachable_pub)]
// The crate docs are for its maintainers (`cargo doc --document-private-items`): a
// public item may link to the private items it is built from.
#![allow(rustdoc::private_intra_doc_links)]

pub mod cli;
pub mod commands;
pub(crate) mod config;
pub(crate) mod context;
pub(crate) mod convert;
pub mod delegate;
pub mod discover;
pub(crate) mod display;
pub mod env;
pub(crate) mod exit;
pub(crate) mod fs;
pub mod host;
pub mod install;
pub(crate) mod json;
pub mod lint;
pub(crate) mod lsp;
pub(crate) mod mcp;
pub(crate) mod meter;
pub(crate) mod pi;
pub(crate) mod project;
pub(crate) mod provider;
pub mod role;
pub mod roles;
pub(crate) mod severity;
pub(crate) mod suggest;
pub mod text;
pub mod verify;

#[cfg(test)]
mod testing;

pub use context::Context;
pub use exit::ExitStatus;

pub use commands::run;
