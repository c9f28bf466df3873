//! `pwk setup`: the canonical roles and the descriptor-based installer (Unix only).
//!
//! - [`bundled`]: the five roles, compiled in from `roles/`.
//! - The files are written through [`crate::fs`], the one writer.
//! - [`ops`]: one install: open, lock, plan, apply, write the manifest.
//! - [`plan`]: one outcome per role from what is on disk, then apply.
//! - [`hint`], [`history`], [`manifest`]: whose file is it.
//! - [`readers`]: who else reads the shared `.agents/agents/`, and what each does
//!   with the roles.

pub mod bundled;
pub mod hint;
pub mod history;
pub(crate) mod manifest;
pub(crate) mod ops;
pub(crate) mod pi_check;
pub(crate) mod plan;
pub(crate) mod readers;
pub(crate) mod render;

#[cfg(test)]
mod tests;

/// The agents directory below a project root.
pub const PROJECT_AGENTS_DIR: [&str; 2] = [".agents", "agents"];
