//! `invalid-suppression`: a `# pwk:` comment pwk cannot honour.
//!
//! The finding is made by [`crate::lint::suppress`].

use crate::lint::Severity;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "invalid-suppression",
    severity: Severity::Warning,
    also: None,
    summary: "a `# pwk:` suppression comment without a reason, or naming no rule",
    explanation: "A suppression is `# pwk: ignore[rule-id, …] reason` on the line before a key or at the end of its line, or `# pwk: ignore-file[rule-id] reason` anywhere in the frontmatter. The reason is required: a suppression without one is not applied (the finding it meant to hide is reported too), so every exception says why it is one. A rule id that names no rule, an empty list, or another word after `pwk:` is reported here too.",
    bad: "---\nname: reviewer\ntools: read, deploy  # pwk: ignore[unknown-tool]\n---\n",
    good: "---\nname: reviewer\ntools: read, deploy  # pwk: ignore[unknown-tool] deploy is our extension's tool\n---\n",
};
