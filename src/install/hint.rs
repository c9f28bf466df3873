//! The model hint line of a role file: `model: provider/id` in the frontmatter,
//! or the shipped placeholder comment `# model: …`.
//!
//! Only whole lines at the top level of the frontmatter are touched; the body is
//! never looked at, so a body that talks about `model:` is safe.

use std::ops::Range;

use crate::role::frontmatter;

/// Why a `--fast-model` value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid --fast-model `{value}`: {why}")]
pub struct ModelError {
    pub value: String,
    pub why: &'static str,
}

/// A model hint as `provider/id`, checked so that it is one plain YAML scalar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelHint(String);

impl ModelHint {
    pub fn parse(value: &str) -> Result<ModelHint, ModelError> {
        let err = |why| {
            Err(ModelError {
                value: value.to_string(),
                why,
            })
        };
        if value.is_empty() {
            return err("it is empty; give it as provider/id, e.g. anthropic/claude-haiku-4-5");
        }
        if value.chars().any(char::is_whitespace) {
            return err("it contains whitespace");
        }
        let Some((provider, id)) = value.split_once('/') else {
            return err("it is not in provider/id form (e.g. anthropic/claude-haiku-4-5)");
        };
        if provider.is_empty() || id.is_empty() {
            return err("both the provider and the id must be non-empty (provider/id)");
        }
        let ok = |c: char| c.is_ascii_alphanumeric() || "-_./:@+~".contains(c);
        if !value.chars().all(ok) {
            return err("it may contain only letters, digits and - _ . / : @ + ~");
        }
        if !value.starts_with(|c: char| c.is_ascii_alphanumeric()) {
            return err("it must start with a letter or digit");
        }
        Ok(ModelHint(value.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn provider(&self) -> &str {
        self.0.split_once('/').map_or("", |(p, _)| p)
    }

    /// The id, without a `:<thinking>` suffix pi also accepts.
    pub fn id(&self) -> &str {
        let id = self.0.split_once('/').map_or("", |(_, id)| id);
        match id.rsplit_once(':') {
            Some((base, level)) if crate::role::thinking::is_level(level) => base,
            _ => id,
        }
    }

    /// The frontmatter line that carries it.
    pub fn line(&self) -> String {
        format!("model: {}", self.0)
    }
}

/// The top-level frontmatter lines of `text` (ranges without the line break).
fn frontmatter_lines(text: &str) -> Vec<Range<usize>> {
    let Ok(f) = frontmatter::split(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut pos = f.yaml.start;
    while pos < f.yaml.end {
        let end = text[pos..f.yaml.end]
            .find('\n')
            .map_or(f.yaml.end, |i| pos + i);
        out.push(pos..end);
        pos = end + 1;
    }
    out
}

fn is_model_line(line: &str) -> bool {
    line.starts_with("model:")
}

fn is_placeholder_line(line: &str) -> bool {
    line.starts_with("# model:") || line.starts_with("#model:")
}

/// The `model:` line of the frontmatter, verbatim, if there is one.
pub fn model_line(text: &str) -> Option<&str> {
    frontmatter_lines(text)
        .into_iter()
        .map(|r| text[r].trim_end_matches('\r'))
        .find(|l| is_model_line(l))
}

/// `text` with its model hint set to `line` (a whole `model: …` line).
///
/// Replacement order: an existing `model:` line; else the `# model:` placeholder
/// comment; else a new line right after `systemPromptMode:`; else a new last
/// line of the frontmatter.
pub fn with_model_line(text: &str, line: &str) -> String {
    let lines = frontmatter_lines(text);
    let find = |pred: fn(&str) -> bool| lines.iter().find(|r| pred(&text[(*r).clone()])).cloned();
    if let Some(r) = find(is_model_line).or_else(|| find(is_placeholder_line)) {
        return format!("{}{}{}", &text[..r.start], line, &text[r.end..]);
    }
    let after = find(|l| l.starts_with("systemPromptMode:")).or_else(|| lines.last().cloned());
    match after {
        Some(r) => format!("{}\n{}{}", &text[..r.end], line, &text[r.end..]),
        None => text.to_string(), // no frontmatter: nothing sensible to do
    }
}

/// `text` with every model hint line (set or placeholder) removed from the
/// frontmatter: two files that differ only in their model hint normalize alike.
pub fn without_model_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in frontmatter_lines(text) {
        let l = &text[r.clone()];
        if is_model_line(l) || is_placeholder_line(l) {
            out.push_str(&text[last..r.start]);
            last = (r.end + 1).min(text.len());
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAST: &str = "---\nname: x\nsystemPromptMode: replace\nmax_turns: 20\n# model: <provider/id> — set yours\n---\n# Body\nmodel: not-this\n";
    const JUDGE: &str = "---\nname: y\nsystemPromptMode: replace\nmax_turns: 40\n---\nBody\n";

    #[test]
    fn validates_models() {
        assert!(ModelHint::parse("anthropic/claude-haiku-4-5").is_ok());
        assert!(ModelHint::parse("openrouter/anthropic/claude-3.5:beta").is_ok());
        for bad in [
            "", "haiku", "/x", "x/", "a b/c", "a/b c", "a/b\n", "a/b#c", "-a/b", "a/'b'",
        ] {
            assert!(ModelHint::parse(bad).is_err(), "{bad:?} accepted");
        }
        let m = ModelHint::parse("mock/mock-small:low").unwrap();
        assert_eq!((m.provider(), m.id()), ("mock", "mock-small"));
    }

    #[test]
    fn replaces_the_placeholder_then_the_line() {
        let once = with_model_line(FAST, "model: a/b");
        assert!(once.contains("\nmodel: a/b\n---\n"), "{once}");
        assert!(!once.contains("# model:"));
        let twice = with_model_line(&once, "model: c/d");
        assert!(
            twice.contains("\nmodel: c/d\n") && !twice.contains("a/b"),
            "{twice}"
        );
        assert!(
            twice.ends_with("# Body\nmodel: not-this\n"),
            "body untouched"
        );
        assert_eq!(model_line(&twice), Some("model: c/d"));
    }

    #[test]
    fn inserts_after_system_prompt_mode() {
        let out = with_model_line(JUDGE, "model: a/b");
        assert_eq!(
            out,
            "---\nname: y\nsystemPromptMode: replace\nmodel: a/b\nmax_turns: 40\n---\nBody\n"
        );
    }

    #[test]
    fn normalization_ignores_only_the_hint() {
        let a = with_model_line(FAST, "model: a/b");
        assert_eq!(without_model_lines(&a), without_model_lines(FAST));
        assert_eq!(without_model_lines(JUDGE), JUDGE);
        assert_eq!(
            without_model_lines(&with_model_line(JUDGE, "model: q/r")),
            JUDGE,
            "an inserted line normalizes away"
        );
        assert!(
            without_model_lines(FAST).contains("model: not-this"),
            "body kept"
        );
    }
}
