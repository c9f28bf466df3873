//! `unused-suppression`: a `# pwk: ignore[…]` comment that suppresses nothing.
//!
//! The finding is made by [`crate::lint::suppress`], after the other rules ran.

use crate::lint::Severity;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "unused-suppression",
    severity: Severity::Warning,
    also: None,
    summary: "a `# pwk: ignore[…]` comment suppresses nothing",
    explanation: "A suppression names rules whose findings it hides. When the key it sits on no longer has that finding (the role was fixed, or the comment moved), the comment is stale: it would silently hide a future finding of that rule on that key. Remove it (`pwk lint --fix` does, when every rule it names is unused). Like ruff's RUF100. Not reported with `--no-inline-suppressions`.",
    bad: "---\nname: reviewer\ntools: read  # pwk: ignore[unknown-tool] our own tool\n---\n",
    good: "---\nname: reviewer\ntools: read\n---\n",
};
