//! `pi --mode json` (or `--print`): the prompt goes to stdin, which is then closed;
//! pi runs to its end and exits. The turn budget is a hard stop (the supervisor's).

use crate::delegate::supervise::{Reading, Transport};

/// The JSON (or text-mode) transport.
#[derive(Debug)]
pub(crate) struct Json {
    /// The prompt for stdin; `None` when it goes on argv (stdin is then `/dev/null`).
    pub stdin_prompt: Option<String>,
    /// `--print` mode: stdout is the answer, not events.
    pub text_mode: bool,
}

impl Transport for Json {
    type Note = ();

    fn reading(&self) -> Reading {
        if self.text_mode {
            Reading::Text
        } else {
            Reading::Events
        }
    }

    fn initial_input(&mut self) -> Option<Vec<u8>> {
        self.stdin_prompt.take().map(String::into_bytes)
    }

    fn sniff(_line: &[u8]) -> Option<()> {
        None
    }
}
