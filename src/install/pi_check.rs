//! Asking the local `pi` whether it can resolve a model hint.
//!
//! nicobailon's pi-subagents refuses to launch a role whose `model:` its pi cannot
//! resolve, so a typo in `--fast-model` would take the fast reviewers out of
//! service there. Setup asks `pi --list-models <provider>` (stdin `/dev/null`,
//! both output streams read: pi 0.73 prints the table on stderr when stdin is not
//! a terminal) and warns when the model is not listed.

use std::path::PathBuf;
use std::time::Duration;

use super::hint::ModelHint;
use crate::env::Env;

/// How long `pi --list-models` may take before it is killed.
pub(crate) const LIST_MODELS_TIMEOUT: Duration = Duration::from_secs(15);

/// What pi said about a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ModelCheck {
    /// pi lists the model.
    Resolvable,
    /// pi ran and does not list it; `listed` holds the ids it lists for the provider.
    NotListed { pi: PathBuf, listed: Vec<String> },
    /// The check could not be made (no pi, pi failed, timed out).
    Unchecked { why: String },
}

/// Ask pi whether it lists `model`.
pub(crate) fn check_model(env: &Env, model: &ModelHint, timeout: Duration) -> ModelCheck {
    let pi = match crate::pi::locate(env) {
        Ok(pi) => pi,
        Err(e) => {
            return ModelCheck::Unchecked { why: e.to_string() };
        }
    };
    let listed = match crate::pi::list_models(
        &pi,
        Some(model.provider()),
        std::path::Path::new("."),
        timeout,
    ) {
        Ok(list) => list.ids_of(model.provider()),
        Err(why) => {
            return ModelCheck::Unchecked {
                why: format!("`{} --list-models` {why}", pi.display()),
            };
        }
    };
    if listed.iter().any(|id| id == model.id()) {
        ModelCheck::Resolvable
    } else {
        ModelCheck::NotListed { pi, listed }
    }
}
