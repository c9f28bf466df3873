//! `comment-in-value`: ` #` in a plain value starts a YAML comment, and the host
//! keeps only the text before it (`description: Fix bugs #1 priority` is "Fix bugs").

use crate::host::ParserKind;
use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::{Node, Value};

pub(crate) const RULE: Rule = Rule {
    id: "comment-in-value",
    severity: Severity::Warning,
    also: None,
    summary: "` #` in an unquoted value starts a comment: the host keeps only the text before it",
    explanation: "In YAML, ` #` (a space, then `#`) starts a comment, even in the middle of an unquoted value: `description: Fix bugs #1 priority` is read as `Fix bugs`, silently (measured with Claude Code 2.1.332, case a3; every YAML reader does the same). pwk reports it for `description`, and for other keys when the `#` is followed directly by text (`#1`, `#tag`), where a comment was probably not meant. Quote the value to keep it whole, or put the comment on a line of its own.",
    bad: "---\nname: fixer\ndescription: Fix bugs #1 priority\n---\n",
    good: "---\nname: fixer\ndescription: \"Fix bugs #1 priority\"\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    if cx.profile.parser.kind != ParserKind::Yaml {
        return;
    }
    let Some(entries) = tree.as_mapping() else {
        return;
    };
    let reads = if cx.profile.is_portable() {
        "every host reads".to_string()
    } else {
        format!("{} reads", cx.profile.label())
    };
    let yaml_end = cx.doc.fences.as_ref().map_or(0, |f| f.yaml.end);
    for (i, (key, node)) in entries.iter().enumerate() {
        match &node.value {
            Value::Scalar { plain: true, .. } => {
                // A plain value may go on over more-indented lines, up to the next key.
                let next = entries.get(i + 1).map_or(yaml_end, |(k, _)| k.span.start);
                one(cx, &reads, &key.text, None, node, next);
            }
            Value::Sequence(items) => {
                for (n, item) in items.iter().enumerate() {
                    if matches!(item.value, Value::Scalar { plain: true, .. }) {
                        one(cx, &reads, &key.text, Some(n), item, item.span.end);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Where a comment starts in `line`: a `#` after a space or tab.
fn comment_at(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    (1..b.len()).find(|&i| b[i] == b'#' && matches!(b[i - 1], b' ' | b'\t'))
}

/// ` #` cutting the plain scalar `node` of `key` (`item`: its position in a list):
/// on the scalar's own line, or on a continuation line before `until` (the next key).
fn one(
    cx: &mut Checker<'_>,
    reads: &str,
    key: &str,
    item: Option<usize>,
    node: &Node,
    until: usize,
) {
    let text = &cx.doc.text;
    let Value::Scalar { text: value, .. } = &node.value else {
        return;
    };
    if value.is_empty() || node.span.end > text.len() {
        return;
    }
    // Only what follows the scalar on its own line is read here, never the rest of
    // the line: the items of a flow list share one line, and a scan from each to
    // the line's end would cost the line's length per item (quadratic).
    let bytes = text.as_bytes();
    let blank = |b: &u8| matches!(b, b' ' | b'\t');
    let after = node.span.end
        + bytes[node.span.end..]
            .iter()
            .take_while(|b| blank(b))
            .count();
    // What is left of the line once blanks and `\r`s are passed: nothing, if the
    // value may go on below.
    let line_ends = |from: usize| {
        let mut p = from;
        while bytes.get(p) == Some(&b'\r') {
            p += 1;
        }
        (p == bytes.len() || bytes[p] == b'\n').then_some(p)
    };
    let (start, continued) = if after > node.span.end && bytes.get(after) == Some(&b'#') {
        // On the scalar's own line, right after it (the parser ended it there).
        (after, false)
    } else if let (None, Some(eol)) = (item, line_ends(after)) {
        // On a continuation line: more indented than the key, not blank, not a
        // comment of its own (either ends the value).
        let mut found = None;
        let mut pos = (eol + 1).min(text.len());
        while pos < until.min(text.len()) {
            let end =
                crate::text::scan::find_byte(b'\n', &bytes[pos..]).map_or(text.len(), |i| pos + i);
            let line = text[pos..end].trim_end_matches('\r');
            let body = line.trim_start_matches([' ', '\t']);
            if body.is_empty() || body.starts_with('#') || body.len() == line.len() {
                break;
            }
            if let Some(at) = comment_at(line) {
                found = Some(pos + at);
                break;
            }
            pos = end + 1;
        }
        match found {
            Some(at) => (at, true),
            None => return,
        }
    } else {
        return;
    };
    // A comment runs to the end of its line, and a line holds one: each line is
    // read here once.
    let eol =
        crate::text::scan::find_byte(b'\n', &bytes[start..]).map_or(text.len(), |i| start + i);
    let comment = text[start..eol].trim_end_matches(['\r', ' ', '\t']);
    let glued = comment[1..].starts_with(|c: char| !c.is_whitespace());
    if key != "description" && !glued {
        return;
    }
    let what = match item {
        Some(n) => format!("item {} of `{key}`", n + 1),
        None => format!("`{key}`"),
    };
    let message = format!(
        "`{comment}` is a YAML comment: {reads} {what} as {}",
        serde_json::Value::from(value.as_str())
    );
    let help = format!("quote the value to keep {what} whole, or move the comment to its own line");
    // A one-line value: quoting it keeps it whole (the comment may have been meant
    // as one). A value over several lines: no fix.
    let fix = (!continued).then(|| {
        let whole = &text[node.span.start..start + comment.len()];
        let quoted = format!("\"{}\"", whole.replace('\\', "\\\\").replace('"', "\\\""));
        Fix::replace(
            match item {
                Some(_) => format!("quote the item: `{quoted}`"),
                None => format!("quote the value: `{key}: {quoted}`"),
            },
            Safety::Unsafe,
            node.span.start..start + comment.len(),
            quoted,
        )
    });
    let d = cx.emit(
        &RULE,
        start..start + comment.len(),
        "a YAML comment",
        message,
        Some(help),
    );
    d.fixes.extend(fix);
}

#[cfg(test)]
mod tests {
    use crate::host::HostId;
    use crate::role::RoleDoc;

    fn found(yaml: &str) -> Vec<(usize, String)> {
        let text = format!("---\nname: r\n{yaml}---\nBody\n");
        let doc = RoleDoc::parse("a.md", text.as_bytes());
        crate::lint::check_doc(&doc, HostId::ClaudeCode.newest())
            .into_iter()
            .filter(|d| d.rule == super::RULE.id)
            .map(|d| (d.start.column, d.message))
            .collect()
    }

    #[test]
    fn a_comment_inside_a_description_is_reported() {
        let m = found("description: Fix bugs #1 priority\n");
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].0, 23);
        assert!(
            m[0].1.contains("reads `description` as \"Fix bugs\""),
            "{m:?}"
        );
        assert_eq!(found("description: d\nmodel: sonnet #fast\n").len(), 1);
    }

    /// N28 (oracle: Claude Code 2.1.332 reads `first line continued` and tools
    /// `Read, Bash`).
    #[test]
    fn a_comment_on_a_continuation_line_or_in_a_list_item_is_reported() {
        let m = found("description: first line\n  continued #2 more\ntools: Read\n");
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].1
                .contains("reads `description` as \"first line continued\""),
            "{m:?}"
        );
        let m = found("description: d\ntools:\n  - Read #Grep\n  - Bash\n");
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].1.contains("item 1 of `tools` as \"Read\""), "{m:?}");
        // A meant comment on its own line, or after a list item with a space: not.
        assert!(found("description: a\n  b\n# note #1\n").is_empty());
        assert!(found("description: d\ntools:\n  - Read # the reader\n").is_empty());
    }

    /// N28 by class: ` #` on the last continuation line of a plain value (indent,
    /// how many lines, glued or spaced comment, which key), and `#x` glued in any item
    /// of a block list: reported where YAML cuts the value, as the rule's own
    /// one-line case is (a description's any comment, another key's glued one).
    #[test]
    fn every_comment_that_cuts_a_continued_value_or_a_list_item_is_reported() {
        let mut cases = 0;
        for key in ["description", "model", "x-note"] {
            for indent in ["  ", "    ", " "] {
                for line in 0..3 {
                    for comment in ["#2", "# two"] {
                        cases += 1;
                        let mut yaml = format!("{key}: first line\n");
                        // After a comment the value has ended (more lines would be a
                        // YAML error): the comment is on the last continuation line.
                        for n in 0..=line {
                            let c = if n == line {
                                format!(" {comment}")
                            } else {
                                String::new()
                            };
                            yaml.push_str(&format!("{indent}more{n}{c} words\n"));
                        }
                        if key != "description" {
                            yaml.push_str("description: d\n");
                        }
                        let m = found(&yaml);
                        let want = usize::from(key == "description" || !comment.starts_with("# "));
                        assert_eq!(m.len(), want, "{yaml:?}: {m:?}");
                        if want == 1 {
                            let read: Vec<String> =
                                (0..=line).map(|n| format!("more{n}")).collect();
                            let expect = format!("first line {}", read.join(" words "));
                            assert!(
                                m[0].1.contains(&format!("as \"{expect}\"")),
                                "{yaml:?}: {m:?}"
                            );
                        }
                    }
                }
            }
        }
        for items in 1..4 {
            for at in 0..items {
                for comment in ["#Grep", "# the reader"] {
                    cases += 1;
                    let mut yaml = String::from("description: d\ntools:\n");
                    for n in 0..items {
                        let c = if n == at {
                            format!(" {comment}")
                        } else {
                            String::new()
                        };
                        yaml.push_str(&format!("  - T{n}{c}\n"));
                    }
                    let m = found(&yaml);
                    let want = usize::from(comment == "#Grep");
                    assert_eq!(m.len(), want, "{yaml:?}: {m:?}");
                    if want == 1 {
                        assert!(
                            m[0].1
                                .contains(&format!("item {} of `tools` as \"T{at}\"", at + 1)),
                            "{m:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(cases, 66);
    }

    /// The same findings whatever ends the lines (`\n`, `\r\n`) and whatever blanks
    /// come before the `#`, for a value on one line, on continuation lines, and for
    /// items of block and flow lists (one flow line holding every item).
    #[test]
    fn line_endings_and_blanks_do_not_change_what_is_found() {
        // Each shape, and how many findings it has.
        let shapes = [
            ("description: Fix bugs{b}#1 priority\n", 1),
            (
                "description: first line\n  continued{b}#2 more\ntools: Read\n",
                1,
            ),
            ("description: d\ntools:\n  - Read{b}#Grep\n  - Bash\n", 1),
            ("description: d\ntools: [Read, Bash{b}#Grep\n  , Edit]\n", 1),
            ("description: d\ntools: [Read, Bash, Edit]{b}#x\n", 0),
            ("description: d\nmodel: sonnet{b}#fast\n", 1),
            ("description: d\nmodel: sonnet{b}# the fast tier\n", 0),
        ];
        for (shape, want) in shapes {
            let mut seen: Option<Vec<String>> = None;
            for eol in ["\n", "\r\n"] {
                for b in [" ", "\t", "  ", " \t"] {
                    let yaml = shape.replace("{b}", b).replace('\n', eol);
                    // What each finding says up to its first `:` (the comment it
                    // names), columns aside (the blanks move them).
                    let said: Vec<String> = found(&yaml)
                        .into_iter()
                        .map(|(_, msg)| msg.split(':').next().unwrap_or("").to_string())
                        .collect();
                    assert_eq!(said.len(), want, "{yaml:?}: {said:?}");
                    match &seen {
                        None => seen = Some(said),
                        Some(first) => assert_eq!(&said, first, "{yaml:?}"),
                    }
                }
            }
        }
        // And one flow line holding every item: each item read once.
        let items: Vec<String> = (0..2000).map(|i| format!("T{i}")).collect();
        let m = found(&format!(
            "description: d\ntools: [{}] #x\n",
            items.join(",")
        ));
        assert!(m.is_empty(), "{m:?}");
        let m = found(&format!(
            "description: d\ntools: [{} #Grep\n  ]\n",
            items.join(",")
        ));
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].1.contains("item 2000 of `tools` as \"T1999\""),
            "{m:?}"
        );
    }

    #[test]
    fn meant_comments_and_quoted_values_are_not() {
        assert!(found("description: \"Fix bugs #1\"\n").is_empty());
        assert!(found("description: Fix bugs#1\n").is_empty());
        assert!(found("description: d\nmodel: sonnet  # the fast tier\n").is_empty());
        assert!(found("description: d\n# a comment\n").is_empty());
    }
}
