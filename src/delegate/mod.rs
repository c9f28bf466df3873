//! `pwk delegate`: one atomic task on the real `pi` CLI.
//!
//! * [`runner`]: one pi process (`PiRunSpec` → [`run_pi`] → [`PiRunOutcome`]); also what
//!   the provider operations and `pwk smoke` build on.
//! * [`stream`]: LF framing and the event parser (bounded memory, no snapshots).
//! * [`classify`]: pi's failure signatures → [`ErrorCode`].

pub mod classify;
pub mod command;
pub mod lock;
pub mod report;
pub mod request;
pub mod runner;
pub mod session;
pub mod stream;
pub mod types;

pub use runner::{
    PiLaunch, PiRunOutcome, PiRunSpec, PromptTransport, SessionChoice, SystemPromptMode, locate_pi,
    plan_launch, run_pi,
};
pub use types::{ErrorCode, Progress, RunError, RunStatus, Usage};
