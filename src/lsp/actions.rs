//! Code actions from the findings' fix edits ([`crate::lint::fix`]): every fix is
//! a `quickfix` (a safe one preferred, an unsafe one titled as such), and
//! `source.fixAll.pwk` applies every safe fix that does not overlap another.

use std::collections::HashMap;

use lsp_types as lt;

use super::document::{Open, to_lsp};
use super::position::Encoding;
use crate::lint::fix::{Fix, Safety};

/// The kind of the fix-all action.
pub(super) const FIX_ALL: &str = "source.fixAll.pwk";

pub(super) fn code_actions(
    o: &Open,
    range: lt::Range,
    only: Option<&[lt::CodeActionKind]>,
    enc: Encoding,
) -> Vec<lt::CodeActionOrCommand> {
    let wants = |kind: &str| match only {
        None => true,
        Some(kinds) => kinds
            .iter()
            .any(|k| kind == k.as_str() || kind.starts_with(&format!("{}.", k.as_str()))),
    };
    let doc = &o.doc;
    let start = doc.offset(range.start, enc);
    let end = doc.offset(range.end, enc);
    let mut out = Vec::new();
    let diagnostics = o.diagnostics();
    if wants(lt::CodeActionKind::QUICKFIX.as_str()) {
        for d in &diagnostics {
            // Touching the range counts (a cursor at the end of a key too).
            if d.span.start > end || d.span.end < start {
                continue;
            }
            for fix in &d.fixes {
                let title = match fix.safety {
                    Safety::Safe => fix.title.clone(),
                    Safety::Unsafe => format!("{} (unsafe: check the result)", fix.title),
                };
                out.push(lt::CodeActionOrCommand::CodeAction(lt::CodeAction {
                    title,
                    kind: Some(lt::CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![to_lsp(doc, d, enc)]),
                    edit: Some(edit(o, &[fix], enc)),
                    is_preferred: Some(fix.safety == Safety::Safe),
                    ..Default::default()
                }));
            }
        }
    }
    if wants(FIX_ALL) {
        let safe: Vec<&Fix> = diagnostics
            .iter()
            .flat_map(|d| &d.fixes)
            .filter(|f| f.safety == Safety::Safe)
            .collect();
        let chosen = non_overlapping(safe);
        if !chosen.is_empty() {
            out.push(lt::CodeActionOrCommand::CodeAction(lt::CodeAction {
                title: format!(
                    "pwk: apply {} safe fix{}",
                    chosen.len(),
                    if chosen.len() == 1 { "" } else { "es" }
                ),
                kind: Some(lt::CodeActionKind::new(FIX_ALL)),
                edit: Some(edit(o, &chosen, enc)),
                ..Default::default()
            }));
        }
    }
    out
}

/// The fixes to apply together: in file order, each one whose edits touch none
/// already taken (the rest wait for the next round, after a re-lint).
fn non_overlapping(mut fixes: Vec<&Fix>) -> Vec<&Fix> {
    fixes.sort_by_key(|f| f.edits.first().map(|e| (e.range.start, e.range.end)));
    fixes.dedup();
    let mut taken: Vec<std::ops::Range<usize>> = Vec::new();
    let mut out = Vec::new();
    for f in fixes {
        let clashes = f.edits.iter().any(|e| {
            taken
                .iter()
                .any(|t| e.range.start < t.end && t.start < e.range.end || e.range == *t)
        });
        if !clashes {
            taken.extend(f.edits.iter().map(|e| e.range.clone()));
            out.push(f);
        }
    }
    out
}

fn edit(o: &Open, fixes: &[&Fix], enc: Encoding) -> lt::WorkspaceEdit {
    let edits: Vec<lt::TextEdit> = fixes
        .iter()
        .flat_map(|f| &f.edits)
        .map(|e| {
            let (range, new_text) = whole_line_breaks(&o.doc.text, e.range.clone(), &e.replacement);
            lt::TextEdit {
                range: o.doc.range(range, enc),
                new_text,
            }
        })
        .collect();
    // lsp-types keys the edits by `Uri` (clippy: interior mutability in a key; the
    // map is built once and only serialized).
    #[allow(clippy::mutable_key_type)]
    let mut changes = HashMap::new();
    changes.insert(o.doc.uri.clone(), edits);
    lt::WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }
}

/// An edit that ends (or starts) between the `\r` and the `\n` of a CRLF, widened
/// to the whole line break: LSP positions cannot point inside one (`\r\n` is one
/// line end), so the edit keeps the part it did not change.
fn whole_line_breaks(
    text: &str,
    mut range: std::ops::Range<usize>,
    replacement: &str,
) -> (std::ops::Range<usize>, String) {
    let b = text.as_bytes();
    let splits = |at: usize| at > 0 && b.get(at - 1) == Some(&b'\r') && b.get(at) == Some(&b'\n');
    let mut new_text = replacement.to_string();
    if splits(range.start) {
        range.start -= 1;
        new_text.insert(0, '\r');
    }
    if splits(range.end) {
        range.end += 1;
        new_text.push('\n');
    }
    (range, new_text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::fix::Fix;

    #[test]
    fn edits_never_split_a_crlf() {
        let text = "a\r\nb\r\n";
        // Removing the `\r` of the first line break becomes "replace CRLF with LF".
        assert_eq!(whole_line_breaks(text, 1..2, ""), (1..3, "\n".to_string()));
        assert_eq!(whole_line_breaks(text, 0..1, "x"), (0..1, "x".to_string()));
    }

    #[test]
    fn overlapping_fixes_wait_for_the_next_round() {
        let a = Fix::replace("a", Safety::Safe, 0..3, "x");
        let b = Fix::replace("b", Safety::Safe, 2..5, "y");
        let c = Fix::replace("c", Safety::Safe, 5..6, "z");
        let chosen = non_overlapping(vec![&c, &b, &a]);
        assert_eq!(
            chosen.iter().map(|f| f.title.as_str()).collect::<Vec<_>>(),
            ["a", "c"]
        );
    }
}
