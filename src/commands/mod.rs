//! Command glue: one file per verb (clap args and `Context` in, exit status out).

pub mod config;
pub mod lsp;
