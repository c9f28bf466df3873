//! `pwk delegate`: one atomic task on the real `pi` CLI.

pub mod command;
