//! Reading one `pwk.toml` and the files it `extend`s: TOML with spans, every
//! key checked, every error at `file:line:col` (ruff_workspace's `options` +
//! `pyproject` line).

use std::path::{Path, PathBuf};

use toml_edit::{Item, TableLike, Value};

use super::{Config, ConfigError, Glob, Globs, Layer, Origin, Override, OverrideMatcher, Val};
use crate::host::HostChoice;
use crate::lint::{RuleLevel, rules};
use crate::role::LineIndex;

/// How many files an `extend` chain may hold.
const MAX_EXTEND: usize = 8;

impl Config {
    /// Read the configuration file at `path` and the files it extends.
    #[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let mut layers = Vec::new();
        let mut next = Some((path.to_path_buf(), None::<Origin>));
        while let Some((file, from)) = next.take() {
            // Without `..`: a layer's globs are relative to its own directory,
            // which must be a prefix of the absolute paths they are matched to.
            let file = lexical(&std::path::absolute(&file).unwrap_or(file));
            if layers.iter().any(|l: &Layer| l.path == file) {
                return Err(at_origin(
                    from,
                    format!(
                        "`extend` makes a cycle: `{}` is already read",
                        file.display()
                    ),
                ));
            }
            if layers.len() == MAX_EXTEND {
                return Err(at_origin(
                    from,
                    format!("`extend` chains more than {MAX_EXTEND} files"),
                ));
            }
            let text = read_config(&file).map_err(|why| match &from {
                Some(origin @ Origin::File { .. }) => at_origin(
                    Some(origin.clone()),
                    format!("cannot read the extended file `{}`: {why}", file.display()),
                ),
                _ => ConfigError::Read {
                    path: file.clone(),
                    why,
                },
            })?;
            // The directory its globs, `baseline` and `extend` are relative to, named
            // as the linted files are (N23: `extend = "up/base.toml"` with `up -> ..`
            // is the parent's file, whose globs match the parent's files).
            let anchor = layers
                .first()
                .map_or_else(|| parent_of(&file), |l: &Layer| l.dir.clone());
            let base = base_dir(&anchor, &file);
            let (layer, extend) = parse(&file, &base, &text)?;
            next = extend;
            layers.push(layer);
        }
        layers.reverse();
        Ok(Config { layers })
    }
}

fn parent_of(file: &Path) -> PathBuf {
    file.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The directory holding `file`, named from `anchor` (the directory of the
/// configuration that was found, as the linted paths name it): its real directory
/// below the real directory of `anchor` or of its nearest ancestor that holds it.
/// A symbolic link on the way to `file` is resolved as the kernel reads the file;
/// the result is a path the linted files' (unresolved) paths start with. Without
/// such an ancestor, its real directory.
fn base_dir(anchor: &Path, file: &Path) -> PathBuf {
    let dir = parent_of(file);
    let Ok(real) = std::fs::canonicalize(&dir) else {
        return dir;
    };
    for a in anchor.ancestors() {
        if let Ok(a_real) = std::fs::canonicalize(a)
            && let Ok(rest) = real.strip_prefix(&a_real)
        {
            return if rest.as_os_str().is_empty() {
                a.to_path_buf()
            } else {
                a.join(rest)
            };
        }
    }
    real
}

fn read_config(path: &Path) -> Result<String, String> {
    use crate::fs::{Kind, ReadError};
    match crate::fs::read::read(path, Kind::Config) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_string()),
        // The same words for a project's own `pwk.toml` as for an `extend` target:
        // what pwk does not do, and the two ways to name the real file (N33).
        Err(ReadError::Symlink(_)) => Err(
            "it is a symbolic link, which pwk does not follow to a configuration; replace the link with the file, or name the file itself (`--config FILE`, or `extend = \"FILE\"`)".into(),
        ),
        Err(e) => Err(format!("it {e}")),
    }
}

fn at_origin(origin: Option<Origin>, message: String) -> ConfigError {
    match origin {
        Some(Origin::File { path, line, column }) => ConfigError::Invalid {
            path,
            line,
            column,
            message,
            help: None,
        },
        _ => ConfigError::Read {
            path: PathBuf::new(),
            why: message,
        },
    }
}

/// Reading one file: spans to positions, errors at positions.
struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    lines: LineIndex,
    dir: PathBuf,
}

impl Reader<'_> {
    fn origin(&self, span: Option<std::ops::Range<usize>>) -> Origin {
        let at = span.map_or(0, |s| s.start);
        let p = self.lines.position(self.text, at);
        Origin::File {
            path: self.path.to_path_buf(),
            line: p.line,
            column: p.column,
        }
    }

    fn error(
        &self,
        span: Option<std::ops::Range<usize>>,
        message: impl Into<String>,
        help: Option<String>,
    ) -> ConfigError {
        let Origin::File { line, column, .. } = self.origin(span) else {
            unreachable!("a file origin")
        };
        ConfigError::Invalid {
            path: self.path.to_path_buf(),
            line,
            column,
            message: message.into(),
            help,
        }
    }

    fn unknown_key(
        &self,
        table: &dyn TableLike,
        key: &str,
        allowed: &[&str],
        context: &str,
    ) -> ConfigError {
        let span = table.key(key).and_then(|k| k.span());
        let help = crate::suggest::did_you_mean(key, allowed.iter().copied())
            .map(|s| format!("did you mean `{s}`?"))
            .unwrap_or_else(|| format!("the keys {context} are {}", allowed.join(", ")));
        let key = crate::text::clip(key);
        self.error(span, format!("unknown key `{key}` {context}"), Some(help))
    }

    fn string<'i>(&self, item: &'i Item, key: &str) -> Result<&'i str, ConfigError> {
        item.as_str().ok_or_else(|| {
            self.error(
                item.span(),
                format!("`{key}` must be a string, found {}", item.type_name()),
                None,
            )
        })
    }

    fn host(&self, item: &Item) -> Result<Val<HostChoice>, ConfigError> {
        let s = self.string(item, "host")?;
        let value = s.parse::<HostChoice>().map_err(|e| {
            self.error(
                item.span(),
                format!("`host = \"{}\"`: {e}", crate::text::clip(s)),
                Some(format!(
                    "use `auto`, a host ({}) or `host@version`",
                    crate::host::name_list()
                )),
            )
        })?;
        Ok(Val {
            value,
            origin: self.origin(item.span()),
        })
    }

    fn globs(&self, item: &Item, key: &str) -> Result<Val<Vec<Glob>>, ConfigError> {
        let not_list = || {
            self.error(
                item.span(),
                format!(
                    "`{key}` must be a list of glob strings, found {}",
                    item.type_name()
                ),
                Some(format!("write `{key} = [\"roles/**\"]`")),
            )
        };
        let array = item.as_array().ok_or_else(not_list)?;
        let mut out = Vec::new();
        for v in array.iter() {
            let Some(s) = v.as_str() else {
                return Err(self.error(
                    v.span(),
                    format!(
                        "each entry of `{key}` must be a string, found {}",
                        v.type_name()
                    ),
                    None,
                ));
            };
            let glob = Glob::new(s, &self.dir).map_err(|e| {
                self.error(
                    v.span(),
                    format!(
                        "`{}` is not a valid glob: {}",
                        crate::text::clip(s),
                        e.kind()
                    ),
                    None,
                )
            })?;
            out.push(glob);
        }
        Ok(Val {
            value: out,
            origin: self.origin(item.span()),
        })
    }

    fn rules(&self, item: &Item) -> Result<Vec<(String, Val<RuleLevel>)>, ConfigError> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span(),
                format!("`rules` must be a table, found {}", item.type_name()),
                Some("write `[rules]` with lines such as `crlf = \"off\"`".into()),
            )
        })?;
        let mut out = Vec::new();
        for (id, value) in table.iter() {
            let key_span = table.key(id).and_then(|k| k.span());
            if let Err(e) = rules::lookup(id) {
                let help = e.help("`pwk rules` lists them");
                return Err(self.error(key_span, format!("no rule `{id}`"), Some(help)));
            }
            let level = match value.as_str() {
                Some("error") => RuleLevel::Error,
                Some("warn") => RuleLevel::Warn,
                Some("off") => RuleLevel::Off,
                other => {
                    let found = match other {
                        Some(s) => format!("`\"{s}\"`"),
                        None => value.type_name().to_string(),
                    };
                    let help = other
                        .and_then(|s| crate::suggest::did_you_mean(s, ["error", "warn", "off"]))
                        .map(|s| format!("did you mean `\"{s}\"`?"))
                        .unwrap_or_else(|| "use \"error\", \"warn\" or \"off\"".into());
                    return Err(self.error(
                        value.span().or(key_span),
                        format!("the level of `{id}` must be \"error\", \"warn\" or \"off\", found {found}"),
                        Some(help),
                    ));
                }
            };
            out.push((
                id.to_string(),
                Val {
                    value: level,
                    origin: self.origin(value.span().or(key_span)),
                },
            ));
        }
        Ok(out)
    }

    /// `[delegate]`: `budget = { max_tokens = N, max_cost_usd = X, max_wall_seconds = S }`,
    /// each limit checked as the request's `budget` is (the same parser).
    fn delegate(&self, item: &Item) -> Result<Option<Val<crate::delegate::Budget>>, ConfigError> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span(),
                format!("`delegate` must be a table, found {}", item.type_name()),
                Some("write `[delegate]` with `budget = { max_tokens = 200000 }`".into()),
            )
        })?;
        for (k, _) in table.iter() {
            if k != "budget" {
                return Err(self.unknown_key(table, k, &["budget"], "in `[delegate]`"));
            }
        }
        let Some(budget) = table.get("budget") else {
            return Ok(None);
        };
        let keys = BUDGET_KEYS.map(|(k, _)| k);
        let t = budget.as_table_like().ok_or_else(|| {
            self.error(
                budget.span(),
                format!("`budget` must be a table, found {}", budget.type_name()),
                Some("write `budget = { max_tokens = 200000, max_cost_usd = 2.5, max_wall_seconds = 900 }`".into()),
            )
        })?;
        let mut json = serde_json::Map::new();
        for (k, v) in t.iter() {
            let Some((_, wire)) = BUDGET_KEYS.iter().find(|(name, _)| *name == k) else {
                return Err(self.unknown_key(t, k, &keys, "in `[delegate] budget`"));
            };
            let n = match v.as_value() {
                Some(Value::Integer(i)) => serde_json::Value::from(*i.value()),
                // NaN and the infinities have no JSON form (they would read as
                // `null`): named as TOML spells them.
                Some(Value::Float(f)) if !f.value().is_finite() => {
                    let word = match *f.value() {
                        x if x.is_nan() => "nan",
                        x if x > 0.0 => "inf",
                        _ => "-inf",
                    };
                    return Err(self.error(
                        v.span(),
                        format!(
                            "`[delegate] budget`: `{k}` must be a finite positive number, not {word}"
                        ),
                        None,
                    ));
                }
                Some(Value::Float(f)) => serde_json::Value::from(*f.value()),
                // `on_unknown_usage = "stop"`: the one key whose value is a word.
                Some(Value::String(s)) if k == "on_unknown_usage" => {
                    serde_json::Value::from(s.value().as_str())
                }
                _ => {
                    return Err(self.error(
                        v.span(),
                        format!(
                            "`[delegate] budget`: `{k}` must be a number, found {}",
                            v.type_name()
                        ),
                        None,
                    ));
                }
            };
            json.insert(wire.to_string(), n);
            if let Err(problems) =
                crate::delegate::Budget::parse(&serde_json::Value::Object(json.clone()), "budget")
            {
                let why = problems[0].1.replace(&format!("budget.{wire}"), k);
                return Err(self.error(
                    v.span().or_else(|| t.key(k).and_then(|k| k.span())),
                    format!("`[delegate] budget`: {why}"),
                    None,
                ));
            }
        }
        let value = crate::delegate::Budget::parse(&serde_json::Value::Object(json), "budget")
            .unwrap_or_default();
        Ok(Some(Val {
            value,
            origin: self.origin(budget.span()),
        }))
    }

    fn overrides(&self, item: &Item) -> Result<Vec<Override>, ConfigError> {
        let mut tables: Vec<(&dyn TableLike, Option<std::ops::Range<usize>>)> = Vec::new();
        match item {
            Item::ArrayOfTables(a) => {
                for t in a.iter() {
                    tables.push((t, t.span()));
                }
            }
            Item::Value(Value::Array(a)) => {
                for v in a.iter() {
                    match v.as_inline_table() {
                        Some(t) => tables.push((t, v.span())),
                        None => {
                            return Err(self.error(
                                v.span(),
                                format!("each override must be a table, found {}", v.type_name()),
                                Some("write `[[overrides]]` sections".into()),
                            ));
                        }
                    }
                }
            }
            _ => {
                return Err(self.error(
                    item.span(),
                    format!(
                        "`overrides` must be an array of tables, found {}",
                        item.type_name()
                    ),
                    Some("write `[[overrides]]` sections with `files = [...]`".into()),
                ));
            }
        }
        let mut out = Vec::new();
        const KEYS: [&str; 3] = ["files", "host", "rules"];
        for (table, span) in tables {
            for (k, _) in table.iter() {
                if !KEYS.contains(&k) {
                    return Err(self.unknown_key(table, k, &KEYS, "in `[[overrides]]`"));
                }
            }
            let Some(files) = table.get("files") else {
                return Err(self.error(
                    span,
                    "an override needs `files`: the globs it applies to",
                    Some("add `files = [\"legacy/**\"]`".into()),
                ));
            };
            out.push(Override {
                files: self.globs(files, "files")?.value,
                host: table.get("host").map(|h| self.host(h)).transpose()?,
                rules: table
                    .get("rules")
                    .map(|r| self.rules(r))
                    .transpose()?
                    .unwrap_or_default(),
                origin: self.origin(span),
            });
        }
        Ok(out)
    }
}

/// `path` with `.` and `..` components resolved as text (`/p/sub/../base.toml`
/// is `/p/base.toml`), as `std::path::absolute` leaves them.
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            // `/..` is `/`: a key's `../../..` past the root names the root, not
            // a `/../etc` the messages would then show.
            Component::ParentDir => {
                if !out.pop() && !out.has_root() {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The keys a configuration file may hold at its top level.
pub(super) const TOP_KEYS: [&str; 8] = [
    "host",
    "paths",
    "exclude",
    "rules",
    "overrides",
    "extend",
    "baseline",
    "delegate",
];

/// The keys of `[delegate] budget`, and the request key each stands for.
pub(super) const BUDGET_KEYS: [(&str, &str); 4] = [
    ("max_tokens", "maxTokens"),
    ("max_cost_usd", "maxCostUsd"),
    ("max_wall_seconds", "maxWallSeconds"),
    ("on_unknown_usage", "onUnknownUsage"),
];

/// The file a layer extends, and where it says so.
type Extend = Option<(PathBuf, Option<Origin>)>;

/// `(key, word)` when the TOML error at byte `at` is a value written as a bare word
/// (`key = word`, the word not a TOML literal): a string without its quotes.
fn bare_word_value(text: &str, at: usize) -> Option<(&str, &str)> {
    let start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let (key, value) = text[start..end].split_once('=')?;
    let key = key.trim();
    // The error must point into the value, and the value be one word (a trailing
    // comment aside).
    if at < start + key.len() {
        return None;
    }
    let word = value.split('#').next()?.trim();
    let is_word = word.starts_with(|c: char| c.is_alphabetic())
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '@'));
    let literal = matches!(word, "true" | "false" | "inf" | "nan");
    let plain_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    (is_word && !literal && plain_key).then_some((key, word))
}

/// Parse one file; returns the layer and the file it extends.
fn parse(path: &Path, dir: &Path, text: &str) -> Result<(Layer, Extend), ConfigError> {
    let dir = dir.to_path_buf();
    let r = Reader {
        path,
        text,
        lines: LineIndex::new(text),
        dir: dir.clone(),
    };
    let doc = toml_edit::Document::parse(text).map_err(|e| {
        // A bare word where a value goes (`host = tintinweb`): toml_edit tries it as
        // a boolean and says so; the user forgot the quotes.
        if let Some((key, word)) = e.span().and_then(|s| bare_word_value(text, s.start)) {
            return r.error(
                e.span(),
                format!("invalid TOML: `{key} = {word}`: a string must be quoted"),
                Some(format!("write `{key} = \"{word}\"`")),
            );
        }
        let message = e.message().trim_end().to_string();
        r.error(e.span(), format!("invalid TOML: {message}"), None)
    })?;
    let table = doc.as_table();
    for (k, _) in table.iter() {
        if !TOP_KEYS.contains(&k) {
            return Err(r.unknown_key(table, k, &TOP_KEYS, "in a pwk configuration"));
        }
    }
    let extend = match table.get("extend") {
        None => None,
        Some(item) => {
            let rel = r.string(item, "extend")?;
            Some((dir.join(rel), Some(r.origin(item.span()))))
        }
    };
    let overrides: Vec<Override> = table
        .get("overrides")
        .map(|i| r.overrides(i))
        .transpose()?
        .unwrap_or_default();
    let matcher = OverrideMatcher::new(&overrides);
    let layer = Layer {
        path: path.to_path_buf(),
        dir: dir.clone(),
        host: table.get("host").map(|h| r.host(h)).transpose()?,
        paths: table
            .get("paths")
            .map(|i| r.globs(i, "paths").map(|v| v.map(Globs::new)))
            .transpose()?,
        exclude: table
            .get("exclude")
            .map(|i| r.globs(i, "exclude").map(|v| v.map(Globs::new)))
            .transpose()?,
        rules: table
            .get("rules")
            .map(|i| r.rules(i))
            .transpose()?
            .unwrap_or_default(),
        overrides,
        baseline: match table.get("baseline") {
            None => None,
            Some(item) => {
                let rel = r.string(item, "baseline")?;
                if rel.is_empty() {
                    return Err(r.error(
                        item.span(),
                        "`baseline` is empty".to_string(),
                        Some(
                            "name the baseline file, e.g. `baseline = \"pwk-baseline.json\"`"
                                .into(),
                        ),
                    ));
                }
                Some(Val {
                    value: lexical(&dir.join(rel)),
                    origin: r.origin(item.span()),
                })
            }
        },
        matcher,
        delegate_budget: table
            .get("delegate")
            .map(|i| r.delegate(i))
            .transpose()?
            .flatten(),
    };
    Ok((layer, extend))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn load(text: &str) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pwk.toml");
        std::fs::write(&p, text).unwrap();
        Config::load(&p)
    }

    fn err(text: &str) -> String {
        let e = load(text).unwrap_err().to_string();
        e.split_once("pwk.toml:").unwrap().1.to_string()
    }

    #[test]
    fn located_errors() {
        assert_eq!(
            err("host = \"tintinweb\"\nbogus = 1\n"),
            "2:1: unknown key `bogus` in a pwk configuration\n  help: the keys in a pwk configuration are host, paths, exclude, rules, overrides, extend, baseline, delegate"
        );
        assert!(
            err("[rules]\ncrlf = \"warning\"\n").starts_with("2:8: the level of `crlf` must be")
        );
        assert!(err("[rules]\ncrlf = \"warning\"\n").ends_with("did you mean `\"warn\"`?"));
        assert!(err("[rules]\nunknown-kye = \"off\"\n").starts_with("2:1: no rule `unknown-kye`"));
        assert!(err("host = \"tintinwebb\"\n").starts_with("1:8: `host = \"tintinwebb\"`"));
        assert!(err("paths = \"roles\"\n").starts_with("1:9: `paths` must be a list"));
        assert!(
            err("[[overrides]]\nfiles = [\"a/**\"]\nhots = \"herdr\"\n")
                .starts_with("3:1: unknown key `hots` in `[[overrides]]`")
        );
        assert!(
            err("[[overrides]]\nhost = \"herdr\"\n").starts_with("1:1: an override needs `files`")
        );
        assert!(
            err("host = \n").starts_with("1:8: invalid TOML"),
            "{}",
            err("host = \n")
        );
        // An unquoted string is called that, not a bad boolean (issue #32).
        for (text, want) in [
            (
                "host = tintinweb\n",
                "1:8: invalid TOML: `host = tintinweb`: a string must be quoted\n  help: write `host = \"tintinweb\"`",
            ),
            (
                "[delegate]\nbudget = { max_tokens = 5 }\n[rules]\ncrlf = off # no\n",
                "4:8: invalid TOML: `crlf = off`: a string must be quoted\n  help: write `crlf = \"off\"`",
            ),
            (
                "host = nicobailon@0.67\n",
                "1:8: invalid TOML: `host = nicobailon@0.67`: a string must be quoted\n  help: write `host = \"nicobailon@0.67\"`",
            ),
        ] {
            assert_eq!(err(text), want, "{text:?}");
        }
        assert!(!err("host = tru\n").contains("boolean, expected"));
        // Not a word (a digit first): TOML's own message, which says it too.
        assert!(
            !err("host = 1x\n").contains("`host = 1x`"),
            "{}",
            err("host = 1x\n")
        );
    }

    #[test]
    fn the_delegate_budget_is_read_with_located_errors() {
        let c = load("[delegate]\nbudget = { max_tokens = 5000, max_cost_usd = 0.5 }\n").unwrap();
        let b = c.delegate_budget().unwrap();
        assert_eq!(b.value.max_tokens, Some(5000));
        assert_eq!(b.value.max_cost_usd, Some(0.5));
        assert_eq!(b.value.max_wall_seconds, None);
        assert!(
            b.origin.to_string().ends_with("pwk.toml:2:10"),
            "{}",
            b.origin
        );
        assert!(load("").unwrap().delegate_budget().is_none());
        let c =
            load("[delegate]\nbudget = { max_tokens = 9, on_unknown_usage = \"stop\" }\n").unwrap();
        assert_eq!(
            c.delegate_budget().unwrap().value.on_unknown_usage,
            Some(crate::delegate::budget::OnUnknownUsage::Stop)
        );
        let e = err("[delegate]\nbudget = { on_unknown_usage = \"halt\" }\n");
        assert!(e.contains("must be \"warn\" or \"stop\""), "{e}");
        let e = err("[delegate]\nbudget = { max_tokens = 0 }\n");
        assert!(
            e.starts_with(
                "2:25: `[delegate] budget`: `max_tokens` must be a positive whole number"
            ),
            "{e}"
        );
        let e = err("[delegate]\nbudget = { max_token = 5 }\n");
        assert!(
            e.starts_with("2:12: unknown key `max_token` in `[delegate] budget`"),
            "{e}"
        );
        assert!(e.contains("did you mean `max_tokens`?"), "{e}");
        let e = err("[delegate]\nbudget = { max_cost_usd = \"1\" }\n");
        assert!(
            e.contains("`max_cost_usd` must be a number, found string"),
            "{e}"
        );
        let e = err("[delegate]\nbugdet = {}\n");
        assert!(
            e.starts_with("2:1: unknown key `bugdet` in `[delegate]`"),
            "{e}"
        );
    }

    #[test]
    fn the_override_matcher_returns_what_each_glob_matches_in_order() {
        let mut text = String::new();
        let globs = [
            "legacy/",
            "draft-*.md",
            "/top.md",
            "roles/*.md",
            "roles/**/*.md",
            "nothing/",
            "a.md",
        ];
        for (i, g) in globs.iter().enumerate() {
            text.push_str(&format!(
                "[[overrides]]\nfiles = [\"{g}\", \"x{i}.md\"]\nrules = {{ crlf = \"off\" }}\n"
            ));
        }
        let config = load(&text).unwrap();
        let layer = config.layers.last().unwrap();
        let base = layer.path.parent().unwrap().to_path_buf();
        for rel in [
            "legacy/x/y.md",
            "a/draft-1.md",
            "top.md",
            "sub/top.md",
            "roles/a.md",
            "roles/sub/draft-a.md",
            "a.md",
            "deep/x3.md",
            "x0.md",
            "none.md",
        ] {
            let path = base.join(rel);
            let naive: Vec<usize> = layer
                .overrides
                .iter()
                .enumerate()
                .filter(|(_, o)| o.files.iter().any(|g| g.matches(&path)))
                .map(|(i, _)| i)
                .collect();
            assert_eq!(layer.matcher.matching(&path), naive, "{rel}");
        }
        assert!(
            layer
                .matcher
                .matching(Path::new("/elsewhere/a.md"))
                .is_empty()
        );
    }
}
