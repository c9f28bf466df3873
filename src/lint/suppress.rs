//! Inline suppressions in frontmatter comments.
//!
//! `# pwk: ignore[rule-id, …] reason` on the line before a key, or at the end of
//! its line, suppresses those rules' findings on that key (its whole entry, a
//! block list's lines included); `# pwk: ignore-file[rule-id, …] reason`
//! anywhere in the frontmatter suppresses them in the whole file. The reason is
//! required: a suppression without one is not applied and is itself a finding
//! (`invalid-suppression`). A suppression that hides nothing is
//! `unused-suppression`. Suppressed findings are kept, with their reason, for
//! the summary, JSON and SARIF: never dropped silently.

use std::ops::Range;

use serde::Serialize;

use super::Diagnostic;
use super::fix::{Fix, Safety};
use super::rules::{self, Rule};
use crate::host::HostProfile;
use crate::meter::{self, Work};
use crate::role::{Node, RoleDoc, Value};

/// Why a finding is not reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SuppressionKind {
    /// `# pwk: ignore[…]` on or before the key.
    Inline,
    /// `# pwk: ignore-file[…]`.
    File,
    /// `pwk lint --baseline`.
    Baseline,
}

/// A finding that a suppression (or the baseline) hides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppressed {
    pub diagnostic: Diagnostic,
    pub kind: SuppressionKind,
    pub reason: String,
}

/// One parsed `# pwk:` directive.
#[derive(Debug, Clone)]
struct Directive {
    /// Rule ids and their spans in the file.
    ids: Vec<(String, Range<usize>)>,
    /// The span of the text between `[` and `]`.
    list: Range<usize>,
    reason: String,
    /// `None`: the whole file.
    covers: Option<Range<usize>>,
    /// What to delete to remove the comment (the whole line for a comment on
    /// its own line; the spaces and the comment for a trailing one).
    removal: Range<usize>,
    used: Vec<bool>,
}

/// A frontmatter comment: where `#` is, and whether code precedes it on its line.
pub(crate) struct Comment<'a> {
    pub(crate) at: usize,
    /// The text after `#`.
    pub(crate) text: &'a str,
    pub(crate) own_line: bool,
    line: Range<usize>,
    /// The line break after the line (for removing a whole line).
    line_with_break: Range<usize>,
}

/// The comments of the frontmatter, skipping `#` inside quoted values and
/// block-scalar text (also what `pwk convert` carries over).
pub(crate) fn comments(doc: &RoleDoc) -> Vec<Comment<'_>> {
    let Ok(fences) = &doc.fences else {
        return Vec::new();
    };
    let text = &doc.text;
    let mut quoted: Vec<Range<usize>> = Vec::new();
    if let Some(tree) = doc.mapping() {
        collect_quoted(text, tree, &mut quoted);
    }
    // Disjoint, sorted: a `#` is looked up by binary search (a scan of every quoted
    // value for each `#` was quadratic in a line of quoted items).
    quoted.sort_unstable_by_key(|q| q.start);
    let in_quotes = |at: usize| {
        meter::add(Work::Scan, 1);
        let i = quoted.partition_point(|q| q.start <= at);
        i > 0 && at < quoted[i - 1].end
    };
    let mut out = Vec::new();
    let mut block_indent: Option<usize> = None;
    for (pos, raw) in crate::role::frontmatter::lines_in(text, fences.yaml.clone()) {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let blank = line.trim().is_empty();
        if let Some(k) = block_indent {
            if blank || indent > k {
                continue; // block scalar text
            }
            block_indent = None;
        }
        let bytes = line.as_bytes();
        meter::add(Work::Scan, raw.len() + 1);
        let mut hash = None;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'#'
                && (i == indent || (i > 0 && matches!(bytes[i - 1], b' ' | b'\t')))
                && !in_quotes(pos + i)
            {
                hash = Some(i);
                break;
            }
        }
        let code = &line[..hash.unwrap_or(line.len())];
        if opens_block_scalar(code) {
            block_indent = Some(indent);
        }
        if let Some(i) = hash {
            let end = pos + raw.len();
            let next = if text[end..].starts_with('\n') {
                end + 1
            } else {
                end
            };
            out.push(Comment {
                at: pos + i,
                text: &line[i + 1..],
                own_line: i == indent,
                line: pos..pos + line.len(),
                line_with_break: pos..next,
            });
        }
    }
    out
}

/// `key: |`, `- >-`, …: the next, more indented lines are text.
fn opens_block_scalar(code: &str) -> bool {
    let t = code.trim_end();
    let Some(last) = t.split([' ', '\t']).next_back() else {
        return false;
    };
    let before = &t[..t.len() - last.len()];
    (last.starts_with('|') || last.starts_with('>'))
        && last[1..]
            .bytes()
            .all(|b| b == b'-' || b == b'+' || b.is_ascii_digit())
        && (before.trim_end().ends_with(':') || before.trim_end().ends_with('-'))
}

fn collect_quoted(text: &str, node: &Node, out: &mut Vec<Range<usize>>) {
    match &node.value {
        Value::Scalar { plain: false, .. } => {
            if matches!(text.as_bytes().get(node.span.start), Some(b'"' | b'\'')) {
                out.push(node.span.clone());
            }
        }
        Value::Scalar { .. } => {}
        Value::Sequence(items) => items.iter().for_each(|n| collect_quoted(text, n, out)),
        Value::Mapping(_) => {
            for (_, v) in node.as_mapping().unwrap_or_default() {
                collect_quoted(text, v, out);
            }
        }
    }
}

/// Every key of the frontmatter, at any depth, with the end of its entry (key
/// through the end of its value), sorted by where the key starts: a directive finds
/// the entry it covers by binary search, not by a walk of the tree.
struct Entries(Vec<(usize, usize)>);

impl Entries {
    fn new(doc: &RoleDoc) -> Entries {
        fn walk(node: &Node, out: &mut Vec<(usize, usize)>) {
            if let Some(m) = node.as_mapping() {
                for (k, v) in m {
                    out.push((k.span.start, v.span.end));
                    walk(v, out);
                }
            } else if let Some(items) = node.as_sequence() {
                items.iter().for_each(|i| walk(i, out));
            }
        }
        let mut out = Vec::new();
        if let Some(m) = doc.mapping() {
            walk(m, &mut out);
        }
        out.sort_unstable();
        Entries(out)
    }

    /// The entry (key through the end of its value) of the first key that starts on
    /// `line`; else the line itself.
    fn covered(&self, line: Range<usize>) -> Range<usize> {
        meter::add(Work::Suppress, 1);
        let i = self.0.partition_point(|&(k, _)| k < line.start);
        match self.0.get(i) {
            Some(&(k, end)) if k < line.end => k..end.max(line.end),
            _ => line,
        }
    }
}

/// A finding made here (no `Checker`: suppressions are read after the rules ran).
fn finding(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    rule: &'static Rule,
    span: Range<usize>,
    label: &str,
    message: String,
    help: Option<String>,
) -> Diagnostic {
    Diagnostic {
        rule: rule.id,
        severity: profile.severity_of(rule.id, rule.severity),
        message,
        help,
        path: doc.path.clone(),
        start: doc.position(span.start),
        end: doc.position(span.end),
        span,
        label: label.into(),
        related: Vec::new(),
        fixes: Vec::new(),
    }
}

fn invalid(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    span: Range<usize>,
    message: String,
    help: &str,
) -> Diagnostic {
    finding(
        doc,
        profile,
        &rules::invalid_suppression::RULE,
        span,
        "not applied",
        message,
        Some(help.into()),
    )
}

const FORM: &str = "write `# pwk: ignore[rule-id] why this is an exception` (or `ignore-file[…]`)";

/// Parse the directives; malformed ones become findings.
fn directives(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    problems: &mut Vec<Diagnostic>,
) -> Vec<Directive> {
    let cs = comments(doc);
    let mut out = Vec::new();
    let entries = Entries::new(doc);
    // The lines with code on them (not blank, not a comment), in order: an own-line
    // directive covers the first one after it.
    let yaml_end = doc.fences.as_ref().map_or(0, |f| f.yaml.end);
    let code_lines: Vec<(usize, usize)> = match &doc.fences {
        Ok(f) => crate::role::frontmatter::lines_in(&doc.text, f.yaml.clone())
            .filter(|(_, l)| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with('#')
            })
            .map(|(pos, l)| (pos, l.trim_end_matches('\r').len()))
            .collect(),
        Err(_) => Vec::new(),
    };
    for c in &cs {
        let body = c.text.trim_start();
        let Some(rest) = body.strip_prefix("pwk:") else {
            continue;
        };
        let at = c.at + 1 + (c.text.len() - body.len());
        let span = at..c.line.end;
        let rest_trim = rest.trim_start();
        let rest_at = at + 4 + (rest.len() - rest_trim.len());
        let (file, after) = if let Some(a) = rest_trim.strip_prefix("ignore-file[") {
            (true, a)
        } else if let Some(a) = rest_trim.strip_prefix("ignore[") {
            (false, a)
        } else {
            problems.push(invalid(
                doc,
                profile,
                span,
                "not a suppression: `# pwk:` must be followed by `ignore[…]` or `ignore-file[…]`"
                    .into(),
                FORM,
            ));
            continue;
        };
        let list_at = rest_at + (rest_trim.len() - after.len());
        let Some(close) = after.find(']') else {
            problems.push(invalid(
                doc,
                profile,
                span,
                "the rule list has no closing `]`".into(),
                FORM,
            ));
            continue;
        };
        let list = &after[..close];
        let reason = after[close + 1..].trim().to_string();
        let mut ids = Vec::new();
        let mut offset = 0;
        for part in list.split(',') {
            let id = part.trim();
            let start = list_at + offset + (part.len() - part.trim_start().len());
            offset += part.len() + 1;
            if id.is_empty() {
                continue;
            }
            let id_span = start..start + id.len();
            if let Err(e) = rules::lookup(id) {
                let hint = e.help("`pwk rules` lists the rule ids");
                problems.push(invalid(
                    doc,
                    profile,
                    id_span,
                    format!("`{id}` names no rule; it suppresses nothing"),
                    &hint,
                ));
                continue;
            }
            ids.push((id.to_string(), id_span));
        }
        if ids.is_empty() {
            if !list.split(',').any(|p| !p.trim().is_empty()) {
                problems.push(invalid(
                    doc,
                    profile,
                    span,
                    "the suppression names no rule".into(),
                    FORM,
                ));
            }
            continue;
        }
        if reason.is_empty() {
            problems.push(invalid(
                doc,
                profile,
                span,
                format!(
                    "the suppression of {} has no reason, so it is not applied",
                    ids.iter()
                        .map(|(i, _)| format!("`{i}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                "say why after the `]`: `# pwk: ignore[rule-id] why this is an exception`",
            ));
            continue;
        }
        let covers = if file {
            None
        } else if c.own_line {
            // The next line with code on it.
            let next = code_lines.partition_point(|&(pos, _)| pos < c.line_with_break.end);
            let target = code_lines.get(next).filter(|&&(pos, _)| pos < yaml_end);
            match target {
                Some(&(pos, len)) => Some(entries.covered(pos..pos + len)),
                None => {
                    problems.push(invalid(
                        doc,
                        profile,
                        span,
                        "the suppression is on the last line of the frontmatter: no key follows it"
                            .into(),
                        "put it on the line before the key, or at the end of the key's line",
                    ));
                    continue;
                }
            }
        } else {
            Some(entries.covered(c.line.clone()))
        };
        let removal = if c.own_line {
            c.line_with_break.clone()
        } else {
            let code = &doc.text[c.line.start..c.at];
            c.line.start + code.trim_end_matches([' ', '\t']).len()..c.line.end
        };
        out.push(Directive {
            used: vec![false; ids.len()],
            ids,
            list: list_at..list_at + list.len(),
            reason,
            covers,
            removal,
        });
    }
    out
}

/// Split `diagnostics` into the reported and the suppressed ones, and add the
/// findings about the suppressions themselves.
pub(crate) fn apply(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    diagnostics: Vec<Diagnostic>,
) -> (Vec<Diagnostic>, Vec<Suppressed>) {
    // Most files have no directive: one substring search, no comment scan.
    if crate::text::scan::find(doc.text.as_bytes(), b"pwk:").is_none() {
        return (diagnostics, Vec::new());
    }
    apply_directives(doc, profile, diagnostics)
}

/// [`apply`] for a file that mentions `pwk:`: off a clean file's path, and out of
/// its pages (docs/src/perf.md, step 35).
#[cold]
#[inline(never)]
fn apply_directives(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    diagnostics: Vec<Diagnostic>,
) -> (Vec<Diagnostic>, Vec<Suppressed>) {
    let mut problems = Vec::new();
    let mut dirs = directives(doc, profile, &mut problems);
    if dirs.is_empty() && problems.is_empty() {
        return (diagnostics, Vec::new());
    }
    let hidden = hiding(&dirs, &diagnostics);
    let mut active = Vec::with_capacity(diagnostics.len());
    let mut suppressed = Vec::new();
    for (d, by) in diagnostics.into_iter().zip(hidden) {
        let Some((k, j)) = by else {
            active.push(d);
            continue;
        };
        let dir = &mut dirs[k];
        dir.used[j] = true;
        suppressed.push(Suppressed {
            kind: if dir.covers.is_some() {
                SuppressionKind::Inline
            } else {
                SuppressionKind::File
            },
            reason: dir.reason.clone(),
            diagnostic: d,
        });
    }
    for dir in &dirs {
        // `duplicate-name` is found across files, after this check: never
        // "unused" here (see [`suppression_for`]).
        let unused: Vec<usize> = (0..dir.ids.len())
            .filter(|&i| !dir.used[i] && dir.ids[i].0 != rules::duplicate_name::RULE.id)
            .collect();
        let all = unused.len() == dir.ids.len();
        for &i in &unused {
            let (id, span) = &dir.ids[i];
            let where_ = if dir.covers.is_none() {
                "in this file"
            } else {
                "on the key it covers"
            };
            let mut d = finding(
                doc,
                profile,
                &rules::unused_suppression::RULE,
                span.clone(),
                "suppresses nothing",
                format!("`{id}` is suppressed here but has no finding {where_}"),
                Some(if all {
                    "remove the comment".into()
                } else {
                    format!("remove `{id}` from the list")
                }),
            );
            let fix = if all {
                Fix::replace(
                    "remove the unused suppression",
                    Safety::Safe,
                    dir.removal.clone(),
                    "",
                )
            } else {
                let keep: Vec<&str> = dir
                    .ids
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| dir.used[*j])
                    .map(|(_, (id, _))| id.as_str())
                    .collect();
                Fix::replace(
                    format!("remove `{id}` from the suppression"),
                    Safety::Safe,
                    dir.list.clone(),
                    keep.join(", "),
                )
            };
            // One fix per comment: on its first unused id.
            if i == unused[0] {
                d.fixes.push(fix);
            }
            problems.push(d);
        }
    }
    active.extend(problems);
    active.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    (active, suppressed)
}

/// For each finding, the directive that hides it and the position of its rule in
/// the directive's list: the first inline directive (in file order) whose entry
/// holds the finding's start, else the first file-wide one, naming its rule.
///
/// One sweep over the findings by position, with the inline directives whose entry
/// is open at that position kept per rule in file order: O((findings + directives)
/// log directives), where trying every directive on every finding was quadratic
/// (n keys each with its own `# pwk: ignore`).
fn hiding(dirs: &[Directive], diagnostics: &[Diagnostic]) -> Vec<Option<(usize, usize)>> {
    use std::collections::{BTreeSet, HashMap};
    // The first position of each rule in a directive's list (a repeated id is
    // the first one's).
    fn firsts(dir: &Directive) -> HashMap<&str, usize> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (j, (id, _)) in dir.ids.iter().enumerate() {
            seen.entry(id.as_str()).or_insert(j);
        }
        seen
    }
    let mut file_wide: HashMap<&str, (usize, usize)> = HashMap::new();
    // (position, 0 = opens / 1 = closes, directive, rule, position in its list)
    let mut events: Vec<(usize, u8, usize, &str, usize)> = Vec::new();
    for (k, dir) in dirs.iter().enumerate() {
        for (id, j) in firsts(dir) {
            meter::add(Work::Suppress, 1);
            match &dir.covers {
                None => {
                    file_wide.entry(id).or_insert((k, j));
                }
                Some(r) => {
                    events.push((r.start, 0, k, id, j));
                    events.push((r.end, 1, k, id, j));
                }
            }
        }
    }
    events.sort_unstable();
    let mut order: Vec<usize> = (0..diagnostics.len()).collect();
    order.sort_by_key(|&i| diagnostics[i].span.start);
    let mut open: HashMap<&str, BTreeSet<(usize, usize)>> = HashMap::new();
    let mut next = 0;
    let mut out = vec![None; diagnostics.len()];
    for i in order {
        let d = &diagnostics[i];
        let at = d.span.start;
        while let Some(&(pos, kind, k, id, j)) = events.get(next) {
            if pos > at {
                break;
            }
            meter::add(Work::Suppress, 1);
            let set = open.entry(id).or_default();
            if kind == 0 {
                set.insert((k, j));
            } else {
                set.remove(&(k, j));
            }
            next += 1;
        }
        meter::add(Work::Suppress, 1);
        // A finding about the file as a whole (empty span at its start) is not on a key.
        let inline = (!(d.span.is_empty() && at == 0))
            .then(|| open.get(d.rule).and_then(|s| s.first().copied()))
            .flatten();
        out[i] = inline.or_else(|| file_wide.get(d.rule).copied());
    }
    out
}

/// The suppression in `doc` that hides `d`, a finding made outside the file's
/// own check (the cross-file `duplicate-name`): its kind and reason.
pub(crate) fn suppression_for(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    d: &Diagnostic,
) -> Option<(SuppressionKind, String)> {
    crate::text::scan::find(doc.text.as_bytes(), b"pwk:")?;
    let dirs = directives(doc, profile, &mut Vec::new());
    for pass in [false, true] {
        for dir in &dirs {
            if dir.covers.is_none() != pass || !dir.ids.iter().any(|(id, _)| id == d.rule) {
                continue;
            }
            let here = match &dir.covers {
                None => true,
                Some(r) => r.contains(&d.span.start),
            };
            if here {
                let kind = if pass {
                    SuppressionKind::File
                } else {
                    SuppressionKind::Inline
                };
                return Some((kind, dir.reason.clone()));
            }
        }
    }
    None
}
