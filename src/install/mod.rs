//! `pwk setup`: the canonical roles and the descriptor-based installer (Unix only).

pub mod bundled;
pub mod command;
pub mod safe;
