//! Role discovery across the package, global and project layers.

pub mod command;
