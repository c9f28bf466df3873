//! The frontmatter comments of a file being converted, placed by what they stand
//! next to: a comment on an entry's line, on the lines before it (with no other
//! entry between) or inside its nested value goes with that entry, and so is
//! carried over with it or dropped (and reported) with it; `# pwk: ignore-file[…]`
//! and the text before the first and after the last entry are the file's own.
//! Comments are found by the linter's scanner (`lint::suppress::comments`), which
//! skips `#` inside quoted values and block-scalar text.

use crate::role::{Key, Node, RoleDoc};

/// One comment: the text after `#`, its line (1-based), and where it sat.
#[derive(Debug, Clone)]
pub(super) struct Note {
    pub text: String,
    pub line: usize,
    own_line: bool,
}

impl Note {
    /// pwk's placeholder for a model line (`# model: <provider/id> — …`).
    pub(super) fn is_model_hint(&self) -> bool {
        self.text.trim_start().starts_with("model:")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Head,
    Entry(usize),
    Tail,
}

/// Every comment of a frontmatter with its place.
#[derive(Debug, Default)]
pub(super) struct Placed {
    notes: Vec<(Note, Place)>,
    /// The notes of each entry (indices into `notes`, in file order): asked once
    /// per entry, a lookup each.
    by_entry: std::collections::HashMap<usize, Vec<usize>>,
}

impl Placed {
    pub(super) fn of(doc: &RoleDoc, entries: &[(Key, Node)]) -> Placed {
        let mut notes = Vec::new();
        for c in crate::lint::suppress::comments(doc) {
            let text = c.text.trim_end_matches('\r').to_string();
            let directive = text.trim_start();
            // The last entry starting at or before the comment (the entries are in
            // file order: a binary search, not a pass over them per comment).
            let before = entries
                .partition_point(|(k, _)| k.span.start <= c.at)
                .checked_sub(1);
            let place = if directive.starts_with("pwk: ignore-file") {
                Place::Head
            } else if !c.own_line {
                before.map_or(Place::Head, Place::Entry)
            } else {
                match before {
                    // Inside a nested value (a block list's or mapping's lines).
                    Some(j) if c.at < entries[j].1.span.end => Place::Entry(j),
                    Some(j) if j + 1 < entries.len() => Place::Entry(j + 1),
                    Some(_) => Place::Tail,
                    // Before the first key: an inline directive is the key's,
                    // other text the file's.
                    None if directive.starts_with("pwk: ignore[") && !entries.is_empty() => {
                        Place::Entry(0)
                    }
                    None => Place::Head,
                }
            };
            notes.push((
                Note {
                    text,
                    line: doc.position(c.at).line,
                    own_line: c.own_line,
                },
                place,
            ));
        }
        let mut by_entry: std::collections::HashMap<usize, Vec<usize>> = Default::default();
        for (i, (_, place)) in notes.iter().enumerate() {
            if let Place::Entry(e) = place {
                by_entry.entry(*e).or_default().push(i);
            }
        }
        Placed { notes, by_entry }
    }

    /// The comments that go with source entry `index`, in file order.
    pub(super) fn of_entry(&self, index: usize) -> Vec<Note> {
        self.by_entry.get(&index).map_or(Vec::new(), |at| {
            at.iter().map(|&i| self.notes[i].0.clone()).collect()
        })
    }

    /// The file's own comments, each with whether it goes before the entries.
    pub(super) fn file_wide(&self) -> impl Iterator<Item = (&Note, bool)> {
        self.notes.iter().filter_map(|(n, p)| match p {
            Place::Head => Some((n, true)),
            Place::Tail => Some((n, false)),
            Place::Entry(_) => None,
        })
    }
}

/// An emitted entry with its comments: those that stood on their own lines
/// before it; the first that trailed its line stays at the end of a one-line
/// entry (else it goes before it, too).
pub(super) fn around(entry: &str, notes: &[Note]) -> String {
    let one_line = entry.matches('\n').count() == 1;
    let trailing = notes.iter().position(|n| !n.own_line && one_line);
    let mut out = String::new();
    for (i, n) in notes.iter().enumerate() {
        if Some(i) != trailing {
            out.push_str(&format!("#{}\n", n.text.trim_end()));
        }
    }
    match trailing {
        Some(i) => {
            out.push_str(entry.trim_end_matches('\n'));
            out.push_str(&format!(" #{}\n", notes[i].text.trim_end()));
        }
        None => out.push_str(entry),
    }
    out
}
