//! The two ways pwk talks to pi, as implementations of [`super::supervise::Transport`]:
//! [`json`] (`--mode json`, or `--print` as the text-mode fallback: the prompt on
//! stdin, then EOF) and [`rpc`] (`--mode rpc`: a `prompt` command, a `steer` at the
//! turn budget, stdin closed when the agent settles).

pub(crate) mod json;
pub(crate) mod rpc;
