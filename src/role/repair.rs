//! A host's own repair of frontmatter that strict YAML rejects.
//!
//! Claude Code 2.1.332 parses the frontmatter strictly (Bun.YAML) and, when that
//! fails, rewrites it and parses again (measured with the real CLI, and read in its
//! binary: `DDr`/`_u`, ../shared/reference/host-loaders.md section 2):
//!
//! ```js
//! var Su=/[{}[\]*&#!|>%@`]|: /;
//! function _u(e){… for(let g of n){let h=g.match(/^([a-zA-Z_-]+):\s+(\S.*)$/);if(h){let[,y,k]=h;
//!   if(k.startsWith('"')&&k.endsWith('"')||k.startsWith("'")&&k.endsWith("'")){o.push(g);continue}
//!   if(k.startsWith("[")&&k.endsWith("]"))try{if(Array.isArray(lQ(k))){o.push(g);continue}}catch{}
//!   if(Su.test(k)){let C=k.replaceAll("\\","\\\\").replaceAll('"',"\\\"");o.push(`${y}: "${C}"`);continue}}
//!   o.push(g)}return o.join(`\n`)}
//! … _u(e).replace(/^\t+/gm,(o)=>"  ".repeat(o.length))
//! ```
//!
//! Every line stays one line, so a line number in the repaired text is the same line
//! in the file.

use std::ops::Range;

use serde::Deserialize;

/// Which repair a host applies when strict YAML rejects the frontmatter (a host
/// profile's `parser.repair`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Repair {
    /// None: the parser's verdict stands.
    #[default]
    None,
    /// Claude Code's: quote top-level values, leading tabs to spaces ([`claude_code`]).
    ClaudeCode,
    /// OpenCode's: a top-level value holding `:` becomes a block scalar ([`opencode`]).
    Opencode,
}

/// One line the repair changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairedLine {
    /// The line in the file (bytes, without its line break).
    pub range: Range<usize>,
    /// What the host reads instead.
    pub replacement: String,
    /// What changed.
    pub change: Change,
}

/// What the repair did to one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Quoted the value of this key.
    Quoted(String),
    /// Leading tabs became spaces.
    Tabs,
    /// An earlier entry of a repeated key, which the host's YAML overrides (Bun.YAML
    /// keeps the last value): commented out.
    Overridden(String),
}

/// The line of an earlier entry of a repeated key `key` at `first` (its key's span),
/// commented out: the host reads the later one. `None` when the entry is not one
/// line (its value continues on the next line).
pub(crate) fn overridden(file: &str, first: Range<usize>, key: &str) -> Option<RepairedLine> {
    let start = file[..first.start].rfind('\n').map_or(0, |i| i + 1);
    let end = file[start..].find('\n').map_or(file.len(), |i| start + i);
    let next = file.get(end + 1..).unwrap_or("");
    if start != first.start || next.starts_with([' ', '\t']) {
        return None;
    }
    Some(RepairedLine {
        range: start..end,
        replacement: format!("#{}", &file[start..end]),
        change: Change::Overridden(key.to_string()),
    })
}

/// Claude Code's repair of the frontmatter `file[yaml]`: the lines it changes
/// (empty when it changes nothing).
pub(crate) fn claude_code(file: &str, yaml: Range<usize>) -> Vec<RepairedLine> {
    let mut out = Vec::new();
    let mut start = yaml.start;
    for line in file[yaml.clone()].split('\n') {
        let range = start..start + line.len();
        start = range.end + 1;
        let (quoted, text) = match quote_line(line) {
            Some((key, q)) => (Some(key), q),
            None => (None, line.to_string()),
        };
        let change = quoted.map_or(Change::Tabs, Change::Quoted);
        let tabs = text.len() - text.trim_start_matches('\t').len();
        let text = if tabs > 0 {
            format!("{}{}", "  ".repeat(tabs), &text[tabs..])
        } else {
            text
        };
        if text != line {
            out.push(RepairedLine {
                range,
                replacement: text,
                change,
            });
        }
    }
    out
}

/// OpenCode's repair of the frontmatter `file[yaml]` (`fallbackSanitization` in
/// packages/opencode/src/config/markdown.ts; measured with OpenCode 1.18.33, cases
/// o03 and o17):
///
/// ```js
/// if (line.trim().startsWith("#") || line.trim() === "") … keep
/// if (line.match(/^\s+/)) … keep
/// const kvMatch = line.match(/^([a-zA-Z_][a-zA-Z0-9_]*)\s*:\s*(.*)$/) … value = kvMatch[2].trim()
/// if (value === "" || value === ">" || value === "|" || value.startsWith('"') || value.startsWith("'")) … keep
/// if (value.includes(":")) { result.push(`${key}: |-`); result.push(`  ${value}`) }
/// ```
///
/// A one-line `|-` block holds the value as written, backslashes and all: pwk writes
/// it as the double-quoted string with the same text, so every line stays one line.
/// No tab handling: a tab-indented line stays as it is.
pub(crate) fn opencode(file: &str, yaml: Range<usize>) -> Vec<RepairedLine> {
    let mut out = Vec::new();
    let mut start = yaml.start;
    for raw in file[yaml.clone()].split('\n') {
        let range = start..start + raw.len();
        start = range.end + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || line.starts_with(char::is_whitespace) {
            continue;
        }
        let key_len = line
            .char_indices()
            .take_while(|&(i, c)| {
                c.is_ascii_alphabetic() || c == '_' || (i > 0 && c.is_ascii_digit())
            })
            .count();
        if key_len == 0 {
            continue;
        }
        let Some(value) = line[key_len..]
            .trim_start_matches(char::is_whitespace)
            .strip_prefix(':')
        else {
            continue;
        };
        let value = value.trim();
        if value.is_empty()
            || value == ">"
            || value == "|"
            || value.starts_with(['"', '\''])
            || !value.contains(':')
        {
            continue;
        }
        let key = &line[..key_len];
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push(RepairedLine {
            range: range.start..range.start + line.len(),
            replacement: format!("{key}: \"{escaped}\""),
            change: Change::Quoted(key.to_string()),
        });
    }
    out
}

/// `_u` for one line: `(key, the quoted line)` when it quotes the value.
fn quote_line(line: &str) -> Option<(String, String)> {
    let key_len = line
        .bytes()
        .take_while(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'-')
        .count();
    if key_len == 0 || line.as_bytes().get(key_len) != Some(&b':') {
        return None;
    }
    let after = &line[key_len + 1..];
    // `\s+` then `(\S.*)$`: JavaScript's `.` stops at CR, U+2028 and U+2029, and
    // `\s` is Unicode white space.
    let value = after.trim_start_matches(char::is_whitespace);
    if value.len() == after.len() || value.is_empty() {
        return None;
    }
    if value.contains(['\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let quoted_already = |q: char| value.starts_with(q) && value.ends_with(q);
    if quoted_already('"') || quoted_already('\'') {
        return None;
    }
    if value.starts_with('[') && value.ends_with(']') && is_flow_list(value) {
        return None;
    }
    let special = value.contains(": ") || value.chars().any(|c| "{}[]*&#!|>%@`".contains(c));
    if !special {
        return None;
    }
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    Some((
        line[..key_len].to_string(),
        format!("{}: \"{escaped}\"", &line[..key_len]),
    ))
}

/// Whether `value` parses, alone, as a YAML list.
fn is_flow_list(value: &str) -> bool {
    let text = format!("k: {value}\n");
    super::yaml::parse(&text, 0..text.len())
        .ok()
        .and_then(|t| t.get("k").map(|v| v.as_sequence().is_some()))
        .unwrap_or(false)
}

/// `text` with `lines` replaced.
pub(crate) fn apply(text: &str, lines: &[RepairedLine]) -> String {
    let mut out = String::with_capacity(text.len() + lines.len() * 2);
    let mut at = 0;
    for l in lines {
        out.push_str(&text[at..l.range.start]);
        out.push_str(&l.replacement);
        at = l.range.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repair(yaml: &str) -> Vec<String> {
        claude_code(yaml, 0..yaml.len())
            .into_iter()
            .map(|l| l.replacement)
            .collect()
    }

    #[test]
    fn quotes_values_claude_code_quotes() {
        assert_eq!(
            repair("name: a\ndescription: Use this agent when: you review\n"),
            ["description: \"Use this agent when: you review\""]
        );
        assert_eq!(
            repair("description: [WIP] reviews\n"),
            ["description: \"[WIP] reviews\""]
        );
        assert_eq!(
            repair("description: `pytest` \"runner\"\n"),
            ["description: \"`pytest` \\\"runner\\\"\""]
        );
        assert_eq!(repair("description: Fix #1\n"), ["description: \"Fix #1\""]);
        // Left alone: quoted, a flow list, nothing special, indented, `key:value`.
        assert!(
            repair("description: \"a: b\"\ntools: [Read, Grep]\nname: plain\n  x: a: b\nk:a: b\n")
                .is_empty()
        );
        // Not matched at all: a CR before the end of the line (JavaScript's `.`).
        assert!(repair("description: a: b\r\n").is_empty());
    }

    #[test]
    fn opencode_quotes_values_with_a_colon_only() {
        let repair = |yaml: &str| -> Vec<String> {
            opencode(yaml, 0..yaml.len())
                .into_iter()
                .map(|l| l.replacement)
                .collect()
        };
        assert_eq!(
            repair("name: a\ndescription: Use when: you review\\n\n"),
            ["description: \"Use when: you review\\\\n\""]
        );
        assert_eq!(repair("model: a:b\n"), ["model: \"a:b\""]);
        // Left alone: no colon, quoted, indented, a hyphenated key, tabs.
        assert!(
            repair("description: [WIP] #1\ntitle: \"a: b\"\n  x: a: b\nargument-hint: a: b\ntools:\n\t- read\n")
                .is_empty()
        );
    }

    #[test]
    fn leading_tabs_become_two_spaces_each() {
        assert_eq!(repair("tools:\n\t\t- Read\n"), ["    - Read"]);
    }
}
