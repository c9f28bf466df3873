//! `unreadable-file`: a role file pwk could not read (exit 2).

use crate::lint::Severity;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "unreadable-file",
    severity: Severity::Error,
    also: None,
    summary: "a role file could not be read",
    explanation: "pwk could not open or read the file (permissions, an I/O error), so nothing in it was checked. The run exits 2, not 1: the lint is incomplete. The finding is in every output format so that a JSON or SARIF consumer counts it too. Make the file readable.",
    bad: "reviewer.md (mode 000)",
    good: "reviewer.md (mode 644)",
};
