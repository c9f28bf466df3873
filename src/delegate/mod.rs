//! `pwk delegate`: one atomic task on the real `pi` CLI.
//!
//! Data flows one way: stdin JSON → [`request`] (validation; blocked before launch)
//! → [`task`] (prompt, session choice, [`session`] metadata for continuations,
//! [`lock`] for writing tasks) → [`runner`] (one pi process) → [`stream`] (events) and
//! [`runner::classify`] (error codes) → [`report`] (the worker's report block) → one JSON result.
//!
//! * [`runner`]: `PiRunSpec` → [`run_pi`] (JSON) / [`run_pi_rpc`] (RPC) →
//!   [`PiRunOutcome`]; also what the provider operations and `pwk smoke`
//!   ([`plan_launch`]) build on.
//! * [`supervise`]: the one supervisor (process group, stdin, stream reading,
//!   timeout / stall / signal / turn-budget checks, SIGTERM → grace → SIGKILL), with
//!   the two [`transport`]s (`json`, `rpc`).
//! * [`stream`]: LF framing and the event parser (bounded memory, no snapshots).
//! * [`runner::classify`]: what a run ended as — the outcome of a supervised attempt, and pi's
//!   failure signatures (both generations) → [`ErrorCode`].

pub(crate) mod budget;
pub(crate) mod lock;
pub(crate) mod process;
pub(crate) mod report;
pub(crate) mod request;
pub mod runner;
pub(crate) mod session;
pub mod stream;
pub(crate) mod supervise;
pub(crate) mod task;
pub(crate) mod transport;
pub mod types;

pub use budget::Budget;
pub use process::pending_signal;
pub use runner::{
    PiLaunch, PiRunOutcome, PiRunSpec, PromptTransport, SessionChoice, SystemPromptMode, locate_pi,
    plan_launch, run_pi, run_pi_rpc,
};
pub use types::{ErrorCode, Progress, RunError, RunStatus, Usage};
