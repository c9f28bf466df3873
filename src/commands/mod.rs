//! Command glue, one file per verb: clap arguments and the process context in,
//! typed options to the domain module, an exit status out.

pub mod lsp;
