//! Provider operations (seed 000): codebase-recon and feature-review.

pub mod command;
