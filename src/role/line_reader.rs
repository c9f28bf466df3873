//! What a host's own line-by-line frontmatter reader sees (nicobailon's
//! `parseFrontmatter`, pi-subagents@0.67.0 src/agents/frontmatter.ts:65-153): the
//! top-level keys it reads, so a rule can say which keys YAML sees and it loses.
//!
//! The reader turns `\r\n` into `\n` (line 68) and splits on `\n` only (line 83); a
//! line is a key when it matches `^([\w-]+):\s*(.*)$` (line 114), where JavaScript's
//! `.` matches no `\r`, U+2028 or U+2029. So a lone `\r` (one not before `\n`) that
//! YAML reads as a line break joins two YAML lines into one the reader does not
//! match: both keys are lost. A key whose value is empty, `>`, `>-`, `|` or `|-`
//! opens a block, and the more-indented lines after it are its value (lines 89-92,
//! 121-128).

/// The top-level keys the line reader reads from `yaml` (the text between the
/// fences), in order.
pub(crate) fn keys(yaml: &str) -> Vec<String> {
    let normalized = yaml.replace("\r\n", "\n");
    let mut out = Vec::new();
    // (indent of the key that opened a block, folded or literal)
    let mut block: Option<(usize, bool)> = None;
    for line in normalized.split('\n') {
        let indent = line
            .char_indices()
            .find(|(_, c)| !is_js_space(*c))
            .map_or(line.len(), |(i, _)| i);
        let trimmed = line.trim_matches(is_js_space);
        if let Some((open, scalar)) = block {
            if indent > open || (scalar && trimmed.is_empty()) {
                continue;
            }
            block = None;
        }
        let Some((key, rest)) = key_line(line) else {
            continue;
        };
        let raw = rest.trim_matches(is_js_space);
        let quoted = raw.len() >= 2
            && ((raw.starts_with('"') && raw.ends_with('"'))
                || (raw.starts_with('\'') && raw.ends_with('\'')));
        let value = if quoted { &raw[1..raw.len() - 1] } else { raw };
        let scalar = !quoted && matches!(raw, ">" | ">-" | "|" | "|-");
        if value.is_empty() || scalar {
            block = Some((indent, scalar));
        }
        out.push(key.to_string());
    }
    out
}

/// `^([\w-]+):\s*(.*)$` in JavaScript: the key and what follows the colon.
fn key_line(line: &str) -> Option<(&str, &str)> {
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(line.len());
    if end == 0 || !line[end..].starts_with(':') {
        return None;
    }
    let rest = &line[end + 1..];
    let value = rest.trim_start_matches(is_js_space);
    if value.contains(['\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    Some((&line[..end], rest))
}

/// JavaScript's `\s` (and what `trim()` removes).
fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_cr_joins_two_keys_the_reader_then_loses() {
        assert_eq!(keys("name: a\ndescription: b\n"), ["name", "description"]);
        assert_eq!(keys("name: a\rdescription: b\ntools: read\n"), ["tools"]);
        assert_eq!(
            keys("name: a\r\ndescription: b\r\n"),
            ["name", "description"]
        );
        // A CR in the white space after the colon is eaten by `\s*`.
        assert_eq!(keys("name:\r a\n"), ["name"]);
    }

    #[test]
    fn block_values_are_not_keys() {
        assert_eq!(
            keys("description: >\n  text\n  x: y\nname: a\n"),
            ["description", "name"]
        );
        assert_eq!(keys("tools:\n  - read\nname: a"), ["tools", "name"]);
    }
}
