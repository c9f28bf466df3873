//! `pwk setup`: the canonical roles and the descriptor-based installer (Unix only).
//!
//! - [`bundled`]: the five roles, compiled in from `roles/`.
//! - [`safe`]: the no-symlink, descriptor-relative filesystem layer (open chain,
//!   inspect, temp file + rename, verify), and [`create_file_exclusive`] for
//!   `pwk new`.
//! - [`plan`]: one outcome per role from what is on disk, then apply.
//! - [`hint`], [`history`], [`manifest`]: whose file is it.

#[cfg(not(unix))]
compile_error!(
    "pwk's installer is Unix-only: it relies on openat/O_NOFOLLOW/renameat/flock to write role files safely"
);

pub mod bundled;
pub mod hint;
pub mod history;
pub mod manifest;
pub mod pi_check;
pub mod plan;
pub mod render;
pub mod safe;

#[cfg(test)]
mod tests;

pub use safe::{SafeWriteError, create_file_beneath, create_file_exclusive};

/// The agents directory below a project root.
pub const PROJECT_AGENTS_DIR: [&str; 2] = [".agents", "agents"];
