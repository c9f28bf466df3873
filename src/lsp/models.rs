//! Model ids for completion: `pi --list-models`, asked once in the background with
//! a time limit, cached. A completion never waits for pi: until the list is in it
//! offers no model ids and says the list is incomplete.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long pi may take to list its models.
const LIMIT: Duration = Duration::from_secs(15);

#[derive(Debug, Clone, Default)]
enum State {
    #[default]
    NotStarted,
    Loading,
    Ready(Vec<String>),
    Failed,
}

#[derive(Debug, Clone, Default)]
pub(super) struct ModelCache {
    state: Arc<Mutex<State>>,
}

impl ModelCache {
    /// The `provider/id` list when it is in; otherwise starts asking pi (once) and
    /// returns `None`. `Some(empty)` when pi is not there or failed.
    pub(super) fn get(&self, pi: Option<&Path>, cwd: &Path) -> Option<Vec<String>> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match &*state {
            State::Ready(ids) => return Some(ids.clone()),
            State::Failed => return Some(Vec::new()),
            State::Loading => return None,
            State::NotStarted => {}
        }
        let Some(pi) = pi.map(Path::to_path_buf) else {
            *state = State::Failed;
            return Some(Vec::new());
        };
        *state = State::Loading;
        let cell = Arc::clone(&self.state);
        let cwd: PathBuf = cwd.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("pwk-lsp-models".into())
            .spawn(move || {
                let next = match crate::pi::list_models(&pi, None, &cwd, LIMIT) {
                    Ok(list) => State::Ready(
                        list.models
                            .into_iter()
                            .map(|(p, m)| format!("{p}/{m}"))
                            .collect(),
                    ),
                    Err(_) => State::Failed,
                };
                *cell.lock().unwrap_or_else(|e| e.into_inner()) = next;
            });
        if spawned.is_err() {
            *state = State::Failed;
            return Some(Vec::new());
        }
        None
    }
}
