//! pwk: lint, install, list and run agent roles for the `pi` coding agent.
//!
//! `run` is the only entry point the binary uses: one match on the subcommand.
//! Each concern lives in its own module; dependencies point one way
//! (provider → delegate → role; install → role; lint → role; discover → role).

pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod convert;
pub mod delegate;
pub mod discover;
pub mod env;
pub mod exit;
pub mod fs;
pub mod host;
pub mod install;
pub mod json;
pub mod lint;
pub mod lsp;
pub mod mcp;
pub mod meter;
pub mod pi;
pub mod project;
pub mod provider;
pub mod role;
pub mod suggest;
pub mod text;

pub use context::Context;
pub use exit::ExitStatus;

pub use commands::run;
