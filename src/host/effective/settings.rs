//! The deny rules of a host's own settings files (Claude Code's `permissions.deny`,
//! the profile's `settings.keys[].denies_tools`): what they take from a role's tools.

use serde::Serialize;

use super::{Access, Grants};
use crate::host::HostProfile;

/// One deny rule of a host's settings, as written, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenyRule {
    /// As written (`Bash`, `Read(./.env)`).
    pub rule: String,
    /// The settings key that holds it (`permissions.deny`).
    pub key: String,
    /// The file, as the output shows paths.
    pub file: String,
}

/// A deny rule of the host's settings that reaches one of the role's tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsDenial {
    /// The tool, in the host's name.
    pub tool: String,
    /// The rule as written.
    pub rule: String,
    /// The settings key that holds it (`permissions.deny`).
    pub key: String,
    /// The file it is in.
    pub file: String,
    /// `every-call` (a bare tool name) or `some-calls` (`Tool(specifier)`).
    pub denies: &'static str,
}

impl SettingsDenial {
    /// Whether the rule denies every call of the tool.
    pub fn whole(&self) -> bool {
        self.denies == "every-call"
    }
}

/// A deny rule of the host's settings that denies nothing, and why: the host drops
/// it as invalid, or it names no tool as written (Claude Code trims nothing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IgnoredRule {
    /// The rule as written.
    pub rule: String,
    /// The settings key that holds it (`permissions.deny`).
    pub key: String,
    /// The file it is in.
    pub file: String,
    /// Why it denies nothing, in the host's words where it has them.
    pub why: String,
}

/// How many (MCP tool pattern, tool) pairs one role's settings are tried on: a
/// pattern is matched against its server's tools only, so real settings stay far
/// below; a settings file and a role made to multiply each other stop here, and the
/// tools' note says so.
const PATTERN_TESTS: usize = 100_000;

/// How much of a rule's text goes into a reason in words (the rule itself is
/// untrusted and may be long; [`SettingsDenial::rule`] keeps it whole).
const RULE_IN_WORDS: usize = 80;

impl Grants {
    /// Apply `rules`, the deny rules of the host's settings (every file's, lowest
    /// priority first): a bare tool name denies every call of the tool it names
    /// exactly (an old name, `Task`, the tool it is now: `Agent`), and so does
    /// `Tool(*)`; `Tool(specifier)` denies the calls it matches. A rule naming a tool
    /// the role does not get changes nothing, but one that names a tool of the open
    /// set (a role that inherits every tool of the session) takes it from that set.
    /// A rule the host drops as invalid ([`read_rule`]) denies nothing. (Claude Code
    /// 2.1.332 reads a rule so: `(*)` is no specifier, and the name goes through its
    /// alias map.)
    pub fn deny_by_settings(&mut self, p: &HostProfile, rules: &[DenyRule]) {
        use std::collections::HashSet;
        let t = &p.tools;
        // A tool's name as the host compares names.
        let norm = |a: &str| -> String {
            if t.case_insensitive {
                a.to_ascii_lowercase()
            } else {
                a.to_string()
            }
        };
        // Where each name, and each MCP server's tools, are among the role's tools and
        // the names it leaves to extensions: a rule costs a lookup, not a pass over
        // every tool (a settings file and a role of thousands of entries each).
        let index = |names: &mut dyn Iterator<Item = &str>| {
            let mut at = Index::default();
            for (i, name) in names.enumerate() {
                at.by_name.entry(norm(name)).or_default().push(i);
                if let Some((server, tool)) = mcp_name(name) {
                    let tool = tool.map(str::to_string);
                    at.by_server
                        .entry(server.to_string())
                        .or_default()
                        .push((i, tool));
                }
            }
            at
        };
        let tools_at = index(&mut self.tools.iter().map(|g| g.tool.as_str()));
        let provided_at = index(&mut self.provided.iter().map(String::as_str));
        let mut taken_provided = vec![false; self.provided.len()];
        // The tools denied whole so far (the first rule that denies one says why).
        let mut whole_denied: HashSet<String> = HashSet::new();
        // A whole rule seen before does what it did the first time: nothing more.
        let mut applied: HashSet<&str> = HashSet::new();
        let mut pattern_tests = 0usize;
        // The patterns the bound left untested (a rule's two lookups, tools then
        // provided names, come one after the other).
        let (mut untested, mut last_untested) = (0usize, None::<&str>);
        for r in rules {
            let rule = r.rule.as_str();
            let ignored = |why: String| IgnoredRule {
                rule: r.rule.clone(),
                key: r.key.clone(),
                file: r.file.clone(),
                why,
            };
            let (written, specifier) = match read_rule(rule) {
                Ok(read) => read,
                Err(why) => {
                    self.settings_ignored
                        .push(ignored(format!("Claude Code drops it ({why})")));
                    continue;
                }
            };
            if rule.trim() != rule {
                self.settings_ignored.push(ignored(
                    "it names no tool: Claude Code keeps the spaces around a rule".to_string(),
                ));
                continue;
            }
            let base = t.aliases.get(written).copied().unwrap_or(written);
            let whole = matches!(specifier, None | Some("*"));
            if whole && !applied.insert(rule) {
                continue;
            }
            // The tools it reaches: the one it names, or every tool of an MCP server
            // it names whole (`mcp__github`, `mcp__github__*`, `mcp__*`) or by a
            // pattern (`mcp__github__get_*`), as Claude Code 2.1.332 matches them
            // ([`mcp_name`], [`wildcard`]).
            let mut reach = |at: &Index| -> Vec<usize> {
                let mut out = at.by_name.get(&norm(base)).cloned().unwrap_or_default();
                let tools_of = |server: &str| at.by_server.get(server).into_iter().flatten();
                if let Some((server, pattern)) = mcp_name(base) {
                    match pattern {
                        None | Some("*") if server == "*" => {
                            out.extend(at.by_server.values().flatten().map(|(i, _)| *i));
                        }
                        None | Some("*") => out.extend(tools_of(server).map(|(i, _)| *i)),
                        Some(pattern) if pattern.contains('*') => {
                            for (i, tool) in tools_of(server) {
                                if pattern_tests == PATTERN_TESTS {
                                    if last_untested != Some(rule) {
                                        untested += 1;
                                        last_untested = Some(rule);
                                    }
                                    break;
                                }
                                pattern_tests += 1;
                                crate::meter::add(crate::meter::Work::DenyMatch, 1);
                                if tool.as_deref().is_some_and(|t| wildcard(pattern, t)) {
                                    out.push(*i);
                                }
                            }
                        }
                        Some(_) => {}
                    }
                }
                crate::meter::add(crate::meter::Work::DenyMatch, 1 + out.len());
                out.sort_unstable();
                out.dedup();
                out
            };
            let reached = reach(&tools_at);
            let reached_provided = reach(&provided_at);
            let shown = crate::text::snippet(rule, RULE_IN_WORDS);
            let why = if whole {
                format!(
                    "`{shown}` in `{}` of {}: every call is denied",
                    r.key, r.file
                )
            } else {
                format!(
                    "`{shown}` in `{}` of {}: the calls it matches are denied",
                    r.key, r.file
                )
            };
            let denial = |tool: &str| SettingsDenial {
                tool: tool.to_string(),
                rule: r.rule.clone(),
                key: r.key.clone(),
                file: r.file.clone(),
                denies: if whole { "every-call" } else { "some-calls" },
            };
            for &i in &reached {
                let g = &mut self.tools[i];
                if whole_denied.contains(&norm(&g.tool)) {
                    continue;
                }
                let before = std::mem::replace(&mut g.access, Access::Full);
                // A bare name takes the tool whatever the role's own keys say.
                g.access = if whole {
                    whole_denied.insert(norm(&g.tool));
                    Access::Denied(why.clone())
                } else {
                    before.and(Access::Limited(why.clone()))
                };
                self.settings_denied.push(denial(&g.tool));
            }
            if !reached.is_empty() || !whole || whole_denied.contains(&norm(base)) {
                continue;
            }
            // A tool the role names only as an extension's or MCP server's, or one
            // of the open set (every tool of the session) that it does not list: a
            // built-in of the host, or an extension's (`mcp__…`) by its exact name.
            let taken: Vec<usize> = reached_provided
                .into_iter()
                .filter(|&i| !taken_provided[i])
                .collect();
            for &i in &taken {
                taken_provided[i] = true;
            }
            let of_session = self.open.is_some()
                && (t.builtins.iter().any(|b| norm(b) == norm(base))
                    || t.extension_prefixes
                        .iter()
                        .any(|pre| !pre.is_empty() && base.starts_with(*pre)));
            if of_session {
                self.open_except.push(base.to_string());
            }
            if !taken.is_empty() && !of_session {
                for &i in &taken {
                    whole_denied.insert(norm(&self.provided[i]));
                    self.settings_denied.push(denial(&self.provided[i]));
                }
            } else if !taken.is_empty() || of_session {
                whole_denied.insert(norm(base));
                self.settings_denied.push(denial(base));
            }
        }
        if taken_provided.contains(&true) {
            let mut at = 0;
            self.provided.retain(|_| {
                at += 1;
                !taken_provided[at - 1]
            });
        }
        if untested > 0 {
            self.note.push_str(&format!(
                "; pwk stopped matching the settings' MCP tool patterns after {PATTERN_TESTS} tests: {untested} not tested to the end, so they may deny more"
            ));
        }
    }
}

/// Where names are in a list of tools: by name as the host compares names, and by
/// MCP server, each with its tool's name.
#[derive(Default)]
struct Index {
    by_name: std::collections::HashMap<String, Vec<usize>>,
    by_server: std::collections::HashMap<String, Vec<(usize, Option<String>)>>,
}

/// An MCP tool's server and tool name as Claude Code 2.1.332 reads a name (`gr`):
/// `mcp__github__create_issue` is `github`, `create_issue`; `mcp__github` is the
/// server alone; anything else (no `mcp__`, an empty server) is no MCP name.
fn mcp_name(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix("mcp__")?;
    match rest.find("__") {
        None if rest.is_empty() => None,
        None => Some((rest, None)),
        Some(0) => None,
        Some(i) => Some((&rest[..i], Some(&rest[i + 2..]))),
    }
}

/// `text` matches `pattern`, whose `*` stands for any text (none included): its
/// first part starts it, its last ends it, and the parts between come in order
/// (the binary's matcher; linear in the text).
pub(super) fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, .., last] = parts.as_slice() else {
        return pattern == text;
    };
    if text.len() < first.len() + last.len() || !text.starts_with(first) || !text.ends_with(last) {
        return false;
    }
    let end = text.len() - last.len();
    let mut at = first.len();
    for part in &parts[1..parts.len() - 1] {
        match text[at..end].find(part) {
            Some(i) => at += i + part.len(),
            None => return false,
        }
    }
    true
}

/// A deny rule as Claude Code 2.1.332 reads it: its tool name as written and its
/// specifier (`Bash(rm *)`: `Bash`, `rm *`), or, for a rule it drops as invalid
/// (which then denies nothing), the reason in its own words. Read in the binary
/// (`bD`, the rule's shape; `Jpe`, the validator that drops a rule from the
/// settings) and confirmed by the real CLI (the host-oracle fixture
/// `settings-deny-rules-it-drops-deny-nothing`): nothing is trimmed (`"Bash "` is
/// valid and names no tool); a rule is malformed when it has a parenthesis but no
/// unescaped `(` before an unescaped `)` that ends it, or one in the tool name
/// (`Bash(ls`, `Bash(*) `); `Tool()` is dropped, and so are a blank rule, a name
/// that starts with a lower-case letter and has no `_` (`bash`), and an MCP tool's
/// rule with a specifier (`mcp__x(y)`). A rule without a name before its
/// parenthesis (`(x)`) is its whole text as a name, which names no tool.
///
/// The same validator then reads the content of a rule with a specifier (`*`
/// excepted: that is the whole tool), and drops the rule when its content has an
/// escaped parenthesis beside unbalanced unescaped ones (`Edit(a\(b(c)`), or when the
/// tool's own check refuses it ([`content_refused`]).
///
/// Held to the binary's own validator, run on 3,892 generated rules
/// (`fixtures/deny-rules/claude-code@2.1.332.json`, written by
/// `scripts/host-extract/deny_rules.py`): the same rules dropped, for the same reason.
fn read_rule(rule: &str) -> Result<(&str, Option<&str>), &'static str> {
    if rule.trim().is_empty() {
        return Err("Permission rule cannot be empty");
    }
    // A parenthesis after an odd number of backslashes is escaped.
    let escaped = |at: usize| {
        rule.as_bytes()[..at]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count()
            % 2
            == 1
    };
    // `raw`: the text between the parentheses, as written (also for `(x)`, whose
    // name is its whole text).
    let mut raw = None;
    let (name, specifier) = if !rule.contains(['(', ')']) {
        (rule, None)
    } else {
        let open = rule
            .match_indices('(')
            .map(|(i, _)| i)
            .find(|&i| !escaped(i));
        let close = rule
            .rmatch_indices(')')
            .map(|(i, _)| i)
            .find(|&i| !escaped(i));
        match (open, close) {
            (None, None) => (rule, None),
            (Some(open), Some(close))
                if open < close
                    && close == rule.len() - 1
                    && !rule[..open].contains(['(', ')']) =>
            {
                let content = &rule[open + 1..close];
                raw = Some(content);
                match (open, content.is_empty()) {
                    (0, true) => return Err("Empty parentheses with no tool name"),
                    (_, true) => return Err("Empty parentheses"),
                    (0, false) => (rule, None),
                    _ => (&rule[..open], Some(content)),
                }
            }
            _ => return Err("Malformed Tool(content) rule"),
        }
    };
    if name.starts_with("mcp__") && specifier.is_some() {
        return Err("MCP rules do not support patterns in parentheses");
    }
    let first = name.chars().next().unwrap_or_default();
    if !name.contains('_') && !first.to_uppercase().eq([first]) {
        return Err("Tool names must start with uppercase");
    }
    if raw.is_some_and(ambiguous_escapes) {
        return Err(r#"Ambiguous "\(" or "\)" beside an unescaped parenthesis"#);
    }
    if let Some(content) = specifier.filter(|s| *s != "*") {
        // What the tool's check reads: `\(`, `\)` and `\\` unescaped.
        let content = content
            .replace("\\(", "(")
            .replace("\\)", ")")
            .replace("\\\\", "\\");
        if let Some(why) = content_refused(name, &content) {
            return Err(why);
        }
    }
    Ok((name, specifier))
}

/// The tools whose rule content is a file pattern (the binary's
/// `filePatternTools`).
const FILE_PATTERN_TOOLS: [&str; 7] = [
    "Read",
    "Write",
    "Edit",
    "Glob",
    "NotebookRead",
    "NotebookEdit",
    "Cd",
];

/// Why Claude Code 2.1.332 refuses `content` as the specifier of a rule for `tool`,
/// in its own words: each tool's own check in the binary's validator (`Jpe`):
/// `customValidation` for WebSearch (no `*` or `?`) and WebFetch (`domain:` and a
/// host name, not a URL), Bash's empty prefix (`Bash(:*)`), and `:*` in a file
/// pattern (`Read(src:*)`: that syntax is Bash's).
fn content_refused(tool: &str, content: &str) -> Option<&'static str> {
    match tool {
        "WebSearch" if content.contains(['*', '?']) => Some("WebSearch does not support wildcards"),
        "WebFetch" if content.contains("://") || content.starts_with("http") => {
            Some("WebFetch permissions use domain format, not URLs")
        }
        "WebFetch" if !content.starts_with("domain:") => {
            Some(r#"WebFetch permissions must use "domain:" prefix"#)
        }
        "Bash" if content == ":*" => Some("Prefix cannot be empty before :*"),
        t if FILE_PATTERN_TOOLS.contains(&t) && content.contains(":*") => {
            Some(r#"The ":*" syntax is only for Bash prefix rules"#)
        }
        _ => None,
    }
}

/// The binary's `zd`: `raw` holds an escaped parenthesis (`\(` or `\)` after a
/// character other than a backslash, or first) and its unescaped `(` and `)` do not
/// pair up in number.
fn ambiguous_escapes(raw: &str) -> bool {
    let b = raw.as_bytes();
    // Whether the byte at `at` follows an odd run of backslashes.
    let escaped = |at: usize| b[..at].iter().rev().take_while(|c| **c == b'\\').count() % 2 == 1;
    let escaped_paren = (1..b.len())
        .any(|i| b[i - 1] == b'\\' && matches!(b[i], b'(' | b')') && (i == 1 || b[i - 2] != b'\\'));
    let unescaped = |p: u8| (0..b.len()).filter(|&i| b[i] == p && !escaped(i)).count();
    escaped_paren && unescaped(b'(') != unescaped(b')')
}

#[cfg(test)]
mod tests {
    /// Every rule of the table `scripts/host-extract/deny_rules.py` wrote by running
    /// Claude Code 2.1.332's own validator (cut out of its binary) on 3,892 generated
    /// rules: pwk drops the rules it drops, with its reason, and keeps the others.
    #[test]
    fn deny_rules_as_claude_code_reads_them() {
        let table: Vec<serde_json::Value> = serde_json::from_str(include_str!(
            "../../../fixtures/deny-rules/claude-code@2.1.332.json"
        ))
        .expect("the table is JSON");
        assert!(table.len() > 3000, "{}", table.len());
        let mut wrong = Vec::new();
        for row in &table {
            let rule = row["rule"].as_str().expect("a rule");
            let host = row["drops"].as_str();
            let ours = super::read_rule(rule).err();
            if ours != host {
                wrong.push(format!("{rule:?}: Claude Code {host:?}, pwk {ours:?}"));
            }
        }
        assert!(
            wrong.is_empty(),
            "{} of {}:\n{}",
            wrong.len(),
            table.len(),
            wrong.join("\n")
        );
    }
}
