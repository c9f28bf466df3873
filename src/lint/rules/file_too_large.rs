//! `file-too-large`: over the 1 MiB role file limit.

use crate::lint::Severity;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "file-too-large",
    severity: Severity::Error,
    also: None,
    summary: "the file is larger than 1 MiB",
    explanation: "A role file is a short system prompt. pwk refuses files over 1 MiB (1,048,576 bytes) without reading them, so a huge or endless file cannot stall a lint run; a host would paste all of it into every child's context. Split the content, or move reference material into a skill.",
    bad: "reviewer.md (4 GiB)",
    good: "reviewer.md (a few KiB)",
};
