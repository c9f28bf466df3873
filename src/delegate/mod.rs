//! `pwk delegate`: one atomic task on the real `pi` CLI.
//!
//! Data flows one way: stdin JSON → [`request`] (validation; blocked before launch)
//! → [`command`] (prompt, session choice, [`session`] metadata for continuations,
//! [`lock`] for writing tasks) → [`runner`] (one pi process) → [`stream`] (events) and
//! [`classify`] (error codes) → [`report`] (the worker's report block) → one JSON result.
//!
//! * [`runner`]: `PiRunSpec` → [`run_pi`] → [`PiRunOutcome`]; also what the provider
//!   operations and `pwk smoke` ([`plan_launch`]) build on.
//! * [`stream`]: LF framing and the event parser (bounded memory, no snapshots).
//! * [`classify`]: pi's failure signatures (both generations) → [`ErrorCode`].

pub mod classify;
pub mod command;
pub mod lock;
pub mod process;
pub mod report;
pub mod request;
pub mod runner;
pub mod session;
pub mod stream;
pub mod types;

pub use process::pending_signal;
pub use runner::{
    PiLaunch, PiRunOutcome, PiRunSpec, PromptTransport, SessionChoice, SystemPromptMode, locate_pi,
    plan_launch, run_pi,
};
pub use types::{ErrorCode, Progress, RunError, RunStatus, Usage};

/// The proptest settings of the delegate fuzz tests: 64 cases by default,
/// `PWK_FUZZ_CASES=N` for long runs.
#[cfg(test)]
pub(crate) fn fuzz_config() -> proptest::prelude::ProptestConfig {
    let cases = std::env::var("PWK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    proptest::prelude::ProptestConfig {
        cases,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    }
}
