//! The role file: Markdown with YAML frontmatter.
//!
//! [`RoleDoc`] is the parsed file with every span intact (what the linter needs);
//! [`Role`] is the typed view the installer, discovery and the runner use.

pub(crate) mod frontmatter;
pub(crate) mod line_reader;
pub(crate) mod lines;
pub(crate) mod repair;
pub mod schema;
pub(crate) mod thinking;
pub mod validate;
pub mod yaml;

use std::path::{Path, PathBuf};

pub use frontmatter::{CloseKind, Closing, Fences, SplitError};
pub use lines::{LineIndex, Position};
pub use yaml::{Key, Node, Span, Value, YamlError};

/// A role file, split and parsed, with byte offsets into `text`.
#[derive(Debug, Clone)]
pub struct RoleDoc {
    /// The path as given (used for messages and the file-stem identity).
    pub path: PathBuf,
    /// The file's text. Invalid UTF-8 is replaced (see `invalid_utf8_at`).
    pub text: String,
    pub lines: LineIndex,
    /// Byte offset of the first invalid UTF-8 sequence, if any.
    pub invalid_utf8_at: Option<usize>,
    /// Where the frontmatter is, or why there is none.
    pub fences: Result<Fences, SplitError>,
    /// The frontmatter YAML tree, or why it could not be read. `None` without fences.
    pub tree: Option<Result<Node, YamlError>>,
}

impl RoleDoc {
    /// Parse a role file from its bytes. Never fails: problems are recorded.
    pub fn parse(path: impl Into<PathBuf>, bytes: &[u8]) -> RoleDoc {
        RoleDoc::from_bytes(path, bytes.to_vec())
    }

    /// [`RoleDoc::parse`] without copying valid UTF-8 input.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> RoleDoc {
        let (text, invalid_utf8_at) = match String::from_utf8(bytes) {
            Ok(s) => (s, None),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                (String::from_utf8_lossy(e.as_bytes()).into_owned(), Some(at))
            }
        };
        RoleDoc::from_text(path.into(), text, invalid_utf8_at)
    }

    fn from_text(path: PathBuf, text: String, invalid_utf8_at: Option<usize>) -> RoleDoc {
        let lines = LineIndex::new(&text);
        let fences = frontmatter::split(&text);
        let tree = match (&fences, invalid_utf8_at) {
            // Replacement characters would shift every later offset: do not parse.
            (_, Some(_)) => None,
            (Ok(f), None) => Some(yaml::parse(&text, f.yaml.clone())),
            (Err(_), None) => None,
        };
        RoleDoc {
            path,
            text,
            lines,
            invalid_utf8_at,
            fences,
            tree,
        }
    }

    /// The file as a host that ends the frontmatter at the first `---` anywhere
    /// reads it ([`Closing::FirstDashes`]), when that `---` comes before pwk's
    /// closing line: that document (a closing line put in at the cut; the lines
    /// before it unchanged) and the offset of the `---`.
    pub fn cut_at_early_dashes(&self) -> Option<(RoleDoc, usize)> {
        if self.invalid_utf8_at.is_some() {
            return None;
        }
        let at = match &self.fences {
            Ok(f) => frontmatter::early_dashes(&self.text, f)?,
            // No closing line: the host ends the frontmatter at the first `---`
            // after the opening line anyway (`---B`).
            Err(SplitError::Unterminated { open }) => {
                frontmatter::dashes_after_open(&self.text, open)?
            }
            Err(SplitError::MissingOpeningFence { .. }) => return None,
        };
        let text = format!("{}\n---\n{}", &self.text[..at], &self.text[at + 3..]);
        Some((RoleDoc::from_text(self.path.clone(), text, None), at))
    }

    /// The file as a host that turns every lone `\r` into `\n` reads it (pi's
    /// parseFrontmatter), when it has a lone `\r`. Each `\r` not before `\n`
    /// becomes `\n`, byte for byte, so every offset stays a position in the file.
    pub fn with_cr_newlines(&self) -> Option<RoleDoc> {
        if self.invalid_utf8_at.is_some() {
            return None;
        }
        let b = self.text.as_bytes();
        let lone = |i: usize| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n');
        if !(0..b.len()).any(lone) {
            return None;
        }
        let text: String = self
            .text
            .char_indices()
            .map(|(i, c)| if c == '\r' && lone(i) { '\n' } else { c })
            .collect();
        Some(RoleDoc::from_text(self.path.clone(), text, None))
    }

    /// The file as a host with this `closing` and `repair` reads it: cut where it
    /// ends the frontmatter, then repaired where strict YAML rejects it.
    pub fn as_read_by(self, closing: Closing, repair: repair::Repair) -> RoleDoc {
        let doc = match closing {
            Closing::FirstDashes => match self.cut_at_early_dashes() {
                Some((cut, _)) => cut,
                None => self,
            },
            Closing::Line => self,
        };
        match doc.repaired(repair) {
            Some((repaired, _)) => repaired,
            None => doc,
        }
    }

    /// The file as the host's `repair` reads it, when strict YAML rejects its
    /// frontmatter and the repaired text parses: that document and the lines the
    /// repair changed. `None` when there is nothing to repair or it stays broken.
    pub fn repaired(&self, repair: repair::Repair) -> Option<(RoleDoc, Vec<repair::RepairedLine>)> {
        let mut lines = self.repair_lines(repair)?;
        // Claude Code's YAML keeps the last of repeated keys: each earlier one goes,
        // as long as it is one line (a bounded number of rounds).
        for _ in 0..16 {
            let doc =
                RoleDoc::from_text(self.path.clone(), repair::apply(&self.text, &lines), None);
            match &doc.tree {
                Some(Ok(_)) => return Some((doc, lines)),
                Some(Err(YamlError::DuplicateKey { key, first, .. })) => {
                    let line = repair::overridden(&doc.text, first.clone(), key)?;
                    // The same line in the file (a repaired line is not repeated).
                    let in_file = self
                        .lines
                        .line_start(doc.lines.line_of(line.range.start) + 1)?;
                    let end = self.text[in_file..]
                        .find('\n')
                        .map_or(self.text.len(), |i| in_file + i);
                    if lines.iter().any(|l| l.range.start == in_file) {
                        return None;
                    }
                    lines.push(repair::RepairedLine {
                        range: in_file..end,
                        replacement: format!("#{}", &self.text[in_file..end]),
                        change: line.change,
                    });
                    lines.sort_by_key(|l| l.range.start);
                }
                _ => return None,
            }
        }
        None
    }

    /// The lines `repair` changes in a frontmatter strict YAML rejects (a syntax
    /// error; pwk's own refusals, anchors and tags, are not the host's).
    pub fn repair_lines(&self, repair: repair::Repair) -> Option<Vec<repair::RepairedLine>> {
        match (repair, &self.fences, &self.tree) {
            (repair::Repair::ClaudeCode, Ok(f), Some(Err(YamlError::Syntax { .. }))) => {
                let lines = repair::claude_code(&self.text, f.yaml.clone());
                (!lines.is_empty()).then_some(lines)
            }
            (repair::Repair::Opencode, Ok(f), Some(Err(YamlError::Syntax { .. }))) => {
                let lines = repair::opencode(&self.text, f.yaml.clone());
                (!lines.is_empty()).then_some(lines)
            }
            (repair::Repair::ClaudeCode, Ok(_), Some(Err(YamlError::DuplicateKey { .. }))) => {
                Some(Vec::new())
            }
            _ => None,
        }
    }

    /// The frontmatter mapping, when the file parsed.
    pub fn mapping(&self) -> Option<&Node> {
        self.tree.as_ref()?.as_ref().ok()
    }

    /// The Markdown body (everything after the closing fence; the whole file when
    /// there is no frontmatter).
    pub fn body(&self) -> &str {
        match &self.fences {
            Ok(f) => &self.text[f.body.clone()],
            Err(_) => &self.text,
        }
    }

    /// The file stem (`pwk-spec-reviewer` for `…/pwk-spec-reviewer.md`).
    pub fn stem(&self) -> Option<&str> {
        self.path.file_stem().and_then(|s| s.to_str())
    }

    /// 1-based line and column of a byte offset.
    pub fn position(&self, offset: usize) -> Position {
        self.lines.position(&self.text, offset)
    }

    /// Whether the file starts with a UTF-8 byte order mark (hosts that test for a
    /// leading `---` then see no frontmatter).
    pub fn has_bom(&self) -> bool {
        self.text.starts_with('\u{feff}')
    }

    /// The byte offset of the first bidirectional override or isolate character
    /// ("Trojan Source"), anywhere in the file.
    pub fn bidi_at(&self) -> Option<usize> {
        if !self.text.as_bytes().contains(&0xE2) {
            return None;
        }
        self.text
            .char_indices()
            .find(|&(_, c)| crate::text::is_bidi_control(c))
            .map(|(i, _)| i)
    }

    /// Whether the file uses CRLF line endings anywhere.
    pub fn has_crlf(&self) -> bool {
        self.text.contains("\r\n")
    }
}

/// The typed view of a role's frontmatter, as hosts and the runner use it.
///
/// Values of the wrong type are left out here; the linter reports them.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Role {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `tools`, as a comma-separated string or a YAML list. `None` when absent.
    pub tools: Option<Vec<String>>,
    pub deny_tools: Option<Vec<String>>,
    pub model: Option<String>,
    pub thinking: Option<String>,
    pub max_turns: Option<u64>,
    pub skills: Option<Vec<String>>,
    pub spawning: Option<bool>,
    pub system_prompt: Option<String>,
    #[serde(rename = "systemPromptMode")]
    pub system_prompt_mode: Option<String>,
    pub cli: Option<String>,
    pub cli_model: Option<String>,
    pub disable_model_invocation: bool,
    /// The Markdown body: the role's system prompt.
    pub body: String,
}

impl Role {
    /// The typed view of a parsed file; `None` when the frontmatter did not parse.
    pub fn from_doc(doc: &RoleDoc) -> Option<Role> {
        let m = doc.mapping()?;
        let string = |k: &str| m.get(k).and_then(Node::as_str).map(str::to_string);
        let boolean = |k: &str| m.get(k).map(|n| n.to_json()).and_then(|j| j.as_bool());
        Some(Role {
            name: string("name"),
            description: string("description"),
            tools: m.get("tools").and_then(string_list),
            deny_tools: m.get("deny-tools").and_then(string_list),
            model: string("model"),
            thinking: string("thinking"),
            max_turns: m.get("max_turns").and_then(|n| n.to_json().as_u64()),
            skills: m
                .get("skills")
                .or_else(|| m.get("skill"))
                .and_then(string_list),
            spawning: boolean("spawning"),
            system_prompt: string("system-prompt"),
            system_prompt_mode: string("systemPromptMode"),
            cli: string("cli"),
            cli_model: string("cli-model"),
            disable_model_invocation: boolean("disable-model-invocation").unwrap_or(false),
            body: doc.body().to_string(),
        })
    }

    /// The identity a host uses: `name`, falling back to the file stem.
    pub fn identity<'a>(&'a self, path: &'a Path) -> Option<&'a str> {
        self.name
            .as_deref()
            .or_else(|| path.file_stem().and_then(|s| s.to_str()))
    }
}

/// A list given either as a YAML sequence of strings or a comma-separated string.
pub fn string_list(node: &Node) -> Option<Vec<String>> {
    match &node.value {
        Value::Sequence(items) => items
            .iter()
            .map(|n| n.as_scalar().map(|s| s.trim().to_string()))
            .collect(),
        Value::Scalar { .. } => node.as_str().map(split_csv),
        Value::Mapping(_) => None,
    }
}

/// Split `a, b,c` into trimmed, non-empty items.
pub fn split_csv(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_view_of_a_pwk_role() {
        let text = "---\nname: pwk-smell-reviewer\ndescription: Flags smells.\ntools: read, grep, find, ls\nsystemPromptMode: replace\nmax_turns: 20\nthinking: low\n# model: <fast-tier> — set yours via pwk setup\n---\n# Body\n";
        let doc = RoleDoc::parse("roles/pwk-smell-reviewer.md", text.as_bytes());
        let role = Role::from_doc(&doc).unwrap();
        assert_eq!(role.name.as_deref(), Some("pwk-smell-reviewer"));
        assert_eq!(
            role.tools.as_deref().unwrap(),
            ["read", "grep", "find", "ls"]
        );
        assert_eq!(role.max_turns, Some(20));
        assert_eq!(role.thinking.as_deref(), Some("low"));
        assert_eq!(role.model, None);
        assert_eq!(role.body, "# Body\n");
    }

    #[test]
    fn invalid_utf8_is_recorded_not_parsed() {
        let doc = RoleDoc::parse("x.md", b"---\nname: \xff\n---\n");
        assert_eq!(doc.invalid_utf8_at, Some(10));
        assert!(doc.tree.is_none());
    }
}
