//! `not-a-regular-file`: a symlink, FIFO, socket or device where a role file should be.

use crate::lint::Severity;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "not-a-regular-file",
    severity: Severity::Error,
    also: None,
    summary: "the path is a symlink, FIFO, socket or device, not a regular file",
    explanation: "pwk opens role files without following symlinks and without blocking, and lints regular files only: a FIFO or device could hang a reader, and a symlink can point outside the project (pwk's installer refuses them too). Replace the link with the file itself.",
    bad: ".agents/agents/reviewer.md -> ../../shared/reviewer.md",
    good: ".agents/agents/reviewer.md (a regular file)",
};
