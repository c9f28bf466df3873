//! The process exit status shared by every subcommand.

/// 0 success / 1 the tool worked and found problems / 2 the tool could not do its job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing wrong.
    Success,
    /// The tool worked and found problems (lint errors, conflicts, incomplete coverage, …).
    Failure,
    /// The tool could not do its job (bad usage, unreadable input, I/O error, nothing matched).
    Error,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Error => 2,
        }
    }

    /// The worse of two statuses.
    pub fn max(self, other: ExitStatus) -> ExitStatus {
        if other.code() > self.code() {
            other
        } else {
            self
        }
    }
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(s: ExitStatus) -> Self {
        std::process::ExitCode::from(s.code())
    }
}
