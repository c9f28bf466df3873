//! Mechanical repairs as data: what `--fix`, JSON/SARIF `fixes` and the language
//! server's code actions all apply.
//!
//! A [`Fix`] is a titled list of byte-range [`Edit`]s in one file's text, with a
//! [`Safety`] level. Edits of one fix never overlap; they are applied from the
//! end of the file backwards so earlier offsets stay valid.

use std::ops::Range;

use serde::Serialize;

/// Whether a fix can be applied without a human looking at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Safety {
    /// Keeps the meaning the author intended (quoted integer → integer, CRLF → LF).
    Safe,
    /// A guess (a misspelt key with one close match, `name` to the file stem).
    Unsafe,
}

/// Replace `range` (bytes in the file) with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub range: Range<usize>,
    pub replacement: String,
}

/// One repair for one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// What the fix does, imperative: "unquote `max_turns`".
    pub title: String,
    pub safety: Safety,
    /// Non-overlapping, sorted by start.
    pub edits: Vec<Edit>,
    /// The key a rename makes (`tools` for `tols` → `tools`): two fixes that
    /// make the same key are never taken in one round (the file would hold it
    /// twice and no longer parse).
    #[serde(skip)]
    pub creates_key: Option<String>,
}

impl Fix {
    pub fn new(title: impl Into<String>, safety: Safety, mut edits: Vec<Edit>) -> Fix {
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        Fix {
            title: title.into(),
            safety,
            edits,
            creates_key: None,
        }
    }

    /// A fix that renames a key to `key`.
    pub fn creating_key(mut self, key: impl Into<String>) -> Fix {
        self.creates_key = Some(key.into());
        self
    }

    /// One edit.
    pub fn replace(
        title: impl Into<String>,
        safety: Safety,
        range: Range<usize>,
        replacement: impl Into<String>,
    ) -> Fix {
        Fix::new(
            title,
            safety,
            vec![Edit {
                range,
                replacement: replacement.into(),
            }],
        )
    }
}

/// Which fixes to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Applicability {
    /// Only [`Safety::Safe`] fixes (`--fix`).
    Safe,
    /// Unsafe fixes too (`--unsafe-fixes`).
    All,
}

impl Applicability {
    pub(crate) fn allows(self, safety: Safety) -> bool {
        self == Applicability::All || safety == Safety::Safe
    }
}

/// Whether two edits touch the same bytes (two insertions at one offset count:
/// their order would be a guess).
fn overlaps(a: &Edit, b: &Edit) -> bool {
    crate::meter::add(crate::meter::Work::Overlap, 1);
    (a.range.start < b.range.end && b.range.start < a.range.end)
        || (a.range.start == b.range.start && (a.range.is_empty() || b.range.is_empty()))
}

/// Apply `fixes` to `text`: each fix whole or not at all, in the order given,
/// skipping a fix whose edits overlap one already taken, or that makes a key
/// another taken fix makes (the next round of `--fix` sees it again on the new
/// text). Returns the new text and the indices of the fixes applied. Bytes
/// outside the taken edits are copied unchanged.
pub(crate) fn apply(text: &str, fixes: &[&Fix]) -> (String, Vec<usize>) {
    // The edits taken so far by (start, end): pairwise apart, so their starts differ
    // and only the two taken edits around a new one's start can overlap it (a
    // lookup each, not a pass over every edit taken: a file with a fix on each of
    // its lines, or one fix with an edit on each, stays linear).
    let mut taken: std::collections::BTreeMap<(usize, usize), &Edit> =
        std::collections::BTreeMap::new();
    let mut made: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut applied = Vec::new();
    let clashes_taken = |taken: &std::collections::BTreeMap<(usize, usize), &Edit>, e: &Edit| {
        use std::ops::Bound::{Excluded, Unbounded};
        let start = e.range.start;
        let before = taken.range(..=(start, usize::MAX)).next_back();
        let after = taken
            .range((Excluded((start, usize::MAX)), Unbounded))
            .next();
        before.into_iter().chain(after).any(|(_, t)| overlaps(e, t))
    };
    for (i, fix) in fixes.iter().enumerate() {
        let fits = fix.edits.iter().all(|e| {
            e.range.start <= e.range.end
                && e.range.end <= text.len()
                && text.is_char_boundary(e.range.start)
                && text.is_char_boundary(e.range.end)
        });
        // The fix's own edits apart too, checked the same way: a fix may hold an
        // edit for each line (a file's line endings).
        let mut own = std::collections::BTreeMap::new();
        let clashes = fix.edits.iter().any(|e| {
            let clash = clashes_taken(&own, e) || clashes_taken(&taken, e);
            own.insert((e.range.start, e.range.end), e);
            clash
        });
        let collides = fix.creates_key.as_deref().is_some_and(|k| made.contains(k));
        if fits && !clashes && !collides {
            taken.extend(fix.edits.iter().map(|e| ((e.range.start, e.range.end), e)));
            made.extend(fix.creates_key.as_deref());
            applied.push(i);
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in taken.values() {
        out.push_str(&text[at..e.range.start]);
        out.push_str(&e.replacement);
        at = e.range.end;
    }
    out.push_str(&text[at..]);
    (out, applied)
}

/// The outcome of fixing one file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fixed {
    pub text: String,
    /// The titles of the fixes applied, in the order applied.
    pub applied: Vec<String>,
}

/// Rounds of lint-and-fix at most: a fix may reveal another (the text after
/// `…` → `---` parses, and its quoted integer is then seen).
const MAX_ROUNDS: usize = 8;

/// Apply every allowed fix that `lint` reports for `text`, linting again after
/// each round until nothing more applies. `lint` is the file's full check (its
/// host profile, configuration and suppressions), so a suppressed or disabled
/// finding is never fixed.
pub(crate) fn fix_text(
    text: &str,
    applicability: Applicability,
    mut lint: impl FnMut(&str) -> Vec<super::Diagnostic>,
) -> Fixed {
    let mut current = text.to_string();
    let mut applied = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let diagnostics = lint(&current);
        // The first allowed fix of each finding.
        let chosen: Vec<&Fix> = diagnostics
            .iter()
            .filter_map(|d| d.fixes.iter().find(|f| applicability.allows(f.safety)))
            .collect();
        if chosen.is_empty() {
            break;
        }
        let (next, taken) = apply(&current, &chosen);
        if taken.is_empty() || next == current {
            break;
        }
        applied.extend(taken.iter().map(|&i| chosen[i].title.clone()));
        current = next;
    }
    Fixed {
        text: current,
        applied,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_non_overlapping_fixes_whole() {
        let text = "a: \"1\"\r\nb: x\r\n";
        let crlf = Fix::new(
            "lf",
            Safety::Safe,
            vec![
                Edit {
                    range: 6..7,
                    replacement: String::new(),
                },
                Edit {
                    range: 12..13,
                    replacement: String::new(),
                },
            ],
        );
        let unquote = Fix::replace("unquote", Safety::Safe, 3..6, "1");
        let clash = Fix::replace("clash", Safety::Safe, 4..5, "2");
        let (out, applied) = apply(text, &[&crlf, &unquote, &clash]);
        assert_eq!(out, "a: 1\nb: x\n");
        assert_eq!(applied, [0, 1]);
    }

    #[test]
    fn two_renames_to_one_key_are_not_taken_in_one_round() {
        let text = "tool: read\ntols: grep\n";
        let a = Fix::replace("rename `tool`", Safety::Unsafe, 0..4, "tools").creating_key("tools");
        let b =
            Fix::replace("rename `tols`", Safety::Unsafe, 11..15, "tools").creating_key("tools");
        let (out, applied) = apply(text, &[&a, &b]);
        assert_eq!(out, "tools: read\ntols: grep\n");
        assert_eq!(applied, [0]);
    }

    #[test]
    fn refuses_edits_outside_the_text() {
        let bad = Fix::replace("x", Safety::Safe, 2..9, "");
        assert_eq!(apply("abc", &[&bad]), ("abc".to_string(), vec![]));
    }

    /// The indexed overlap test takes exactly what a pass over every edit taken
    /// takes, on random fixes of one to three edits: replacements, deletions and
    /// insertions (empty ranges), many sharing or touching offsets, some outside
    /// the text.
    mod indexed_overlap {
        use super::super::*;
        use proptest::prelude::*;

        /// The rule as written: each fix against every edit already taken.
        fn naive(text: &str, fixes: &[&Fix]) -> Vec<usize> {
            let mut taken: Vec<&Edit> = Vec::new();
            let mut applied = Vec::new();
            for (i, fix) in fixes.iter().enumerate() {
                let fits = fix.edits.iter().all(|e| e.range.end <= text.len());
                let clashes = fix.edits.iter().enumerate().any(|(j, e)| {
                    fix.edits[..j].iter().any(|f| overlaps(e, f))
                        || taken.iter().any(|t| overlaps(e, t))
                });
                if fits && !clashes {
                    taken.extend(fix.edits.iter());
                    applied.push(i);
                }
            }
            applied
        }

        fn edit() -> impl Strategy<Value = Edit> {
            (0usize..24, 0usize..4).prop_map(|(start, len)| Edit {
                range: start..start + len,
                replacement: "x".repeat(len % 3),
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn takes_what_a_pass_over_every_edit_takes(
                fixes in proptest::collection::vec(proptest::collection::vec(edit(), 1..4), 0..30)
            ) {
                let text = "abcdefghijklmnopqrstu";
                let fixes: Vec<Fix> =
                    fixes.into_iter().map(|e| Fix::new("f", Safety::Safe, e)).collect();
                let refs: Vec<&Fix> = fixes.iter().collect();
                let (_, applied) = apply(text, &refs);
                prop_assert_eq!(applied, naive(text, &refs));
            }
        }
    }

    mod property {
        use super::super::*;
        use crate::host::HostId;
        use crate::role::RoleDoc;
        use proptest::prelude::*;

        /// Frontmatter lines: fixable mistakes, their neighbours, and noise.
        const LINES: &[&str] = &[
            "name: r",
            "name: other-name",
            "description: Reviews diffs.",
            "description: \"quoted: text # not a comment\"",
            "tools: read, grep",
            "tools: \"read, grep\"",
            "tools: [read, grep]",
            "tools:\n  - read\n  - grep",
            "tools:\n\t- read\n\t- grep",
            "tools:\n  - read # the reader\n  - grep",
            "tols: read",
            "tool: grep",
            "max_turns: \"20\"",
            "max_turns: '7'",
            "max_turns: 20",
            "spawning: \"false\"",
            "skill: code-review",
            "skills: a, b",
            "thinking: med",
            "thinking: lots",
            "systemPromptMode: replaced",
            "modle: a/b",
            "# a comment",
            "x-owner: me",
            "nested:\n  key: \"1\"",
            "\tbad: tab",
            "key: [unclosed",
            "",
        ];

        fn role() -> impl Strategy<Value = (String, usize)> {
            (
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                prop::collection::vec(0..LINES.len(), 0..10),
                0..4usize,
            )
                .prop_map(|(bom, crlf, dots, picks, host)| {
                    let mut t = String::new();
                    if bom {
                        t.push('\u{feff}');
                    }
                    t.push_str("---\n");
                    for i in picks {
                        t.push_str(LINES[i]);
                        t.push('\n');
                    }
                    t.push_str(if dots { "...\n" } else { "---\n" });
                    t.push_str("Body\n");
                    if crlf {
                        t = t.replace('\n', "\r\n");
                    }
                    (t, host)
                })
        }

        fn host(i: usize) -> &'static crate::host::HostProfile {
            [
                HostId::Pwk,
                HostId::Tintinweb,
                HostId::Nicobailon,
                HostId::Herdr,
            ][i]
                .newest()
        }

        fn parses(text: &str) -> bool {
            matches!(RoleDoc::parse("r.md", text.as_bytes()).tree, Some(Ok(_)))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            /// Fixing never breaks a file that parsed, and is idempotent.
            #[test]
            fn fixing_keeps_parsing_files_parsing((text, h) in role()) {
                let lint = |t: &str| crate::lint::check_doc(&RoleDoc::parse("r.md", t.as_bytes()), host(h));
                let fixed = fix_text(&text, Applicability::All, lint);
                if parses(&text) {
                    prop_assert!(parses(&fixed.text), "{text:?}\n→ {:?}", fixed.text);
                }
                let again = fix_text(&fixed.text, Applicability::All, lint);
                prop_assert_eq!(&again.text, &fixed.text);
            }

            /// One round touches only the bytes of the edits it took: everything
            /// between them is copied, in order.
            #[test]
            fn a_round_touches_only_its_edits((text, h) in role()) {
                let diagnostics = crate::lint::check_doc(&RoleDoc::parse("r.md", text.as_bytes()), host(h));
                let chosen: Vec<&Fix> = diagnostics.iter().filter_map(|d| d.fixes.first()).collect();
                let (out, taken) = apply(&text, &chosen);
                let mut edits: Vec<&Edit> = taken.iter().flat_map(|&i| chosen[i].edits.iter()).collect();
                edits.sort_by_key(|e| e.range.start);
                let (mut at_in, mut at_out) = (0, 0);
                for e in edits {
                    let kept = &text[at_in..e.range.start];
                    prop_assert_eq!(&out[at_out..at_out + kept.len()], kept);
                    at_out += kept.len();
                    prop_assert_eq!(&out[at_out..at_out + e.replacement.len()], e.replacement.as_str());
                    at_out += e.replacement.len();
                    at_in = e.range.end;
                }
                prop_assert_eq!(&out[at_out..], &text[at_in..]);
            }
        }
    }
}
