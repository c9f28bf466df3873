//! `pwk lint`: rules, diagnostics and renderers.

pub mod command;
