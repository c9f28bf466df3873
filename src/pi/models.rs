//! The one parser of pi's `--list-models` table
//! (`provider  model  context  max-out  thinking  images`).

/// The `(provider, model)` pairs pi lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelList {
    pub models: Vec<(String, String)>,
    /// The listed models whose `thinking` column says `no` (no reasoning: pi clamps
    /// every thinking level to `off` for them).
    pub without_thinking: Vec<(String, String)>,
}

impl ModelList {
    /// Parse the table: the rows after the `provider model …` header (lines before
    /// it, such as warnings, are not models).
    pub fn parse(text: &str) -> ModelList {
        let mut models = Vec::new();
        let mut without_thinking = Vec::new();
        let mut seen_header = false;
        for line in text.lines() {
            let mut cols = line.split_whitespace();
            let (Some(p), Some(m)) = (cols.next(), cols.next()) else {
                continue;
            };
            if p == "provider" && m == "model" {
                seen_header = true;
            } else if seen_header {
                // provider model context max-out thinking images
                if cols.nth(2) == Some("no") {
                    without_thinking.push((p.to_string(), m.to_string()));
                }
                models.push((p.to_string(), m.to_string()));
            }
        }
        ModelList {
            models,
            without_thinking,
        }
    }

    /// The model ids listed for `provider`.
    pub fn ids_of(&self, provider: &str) -> Vec<String> {
        self.models
            .iter()
            .filter(|(p, _)| p == provider)
            .map(|(_, m)| m.clone())
            .collect()
    }
}

/// The models pi can run on this machine: what `pi --list-models` lists, and the
/// `enabledModels` scope of pi's settings (`<agent dir>/settings.json`, overridden by
/// `<cwd>/.pi/settings.json`).
///
/// How pi 0.73.1 picks the model of a run (`@mariozechner/pi-coding-agent@0.73.1`):
/// an explicit `--model` is resolved against the whole registry, not the scope
/// (`dist/main.js:226`, `resolveCliModel`); without one, the saved default when it is
/// in the scope, else the scope's first model (`dist/main.js:248-262`); with no scope,
/// the settings default when listed, else the first model with credentials
/// (`dist/core/model-resolver.js:383-433`, `findInitialModel`). The scope's patterns
/// are globs matched without case against `provider/id` or the id
/// (`dist/core/model-resolver.js:205-240`, `resolveModelScope`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelScope {
    pub list: ModelList,
    /// `enabledModels`, when set and not empty.
    pub enabled: Option<Vec<String>>,
    /// pi's settings default (`defaultProvider`/`defaultModel`), as `provider/id`.
    pub default: Option<String>,
}

/// How a role's `model` resolves against a [`ModelScope`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// pi lists it. `in_scope`: `None` when there is no `enabledModels`.
    Resolves {
        provider: String,
        id: String,
        thinking: Option<String>,
        in_scope: Option<bool>,
    },
    /// A bare id several providers list.
    Ambiguous { candidates: Vec<String> },
    /// pi lists no such model; the closest listed `provider/id`, if any.
    Unlisted { suggestion: Option<String> },
}

/// pi's thinking levels (a `model:level` suffix).
const THINKING: [&str; 6] = ["off", "minimal", "low", "medium", "high", "xhigh"];

impl ModelScope {
    /// Whether `provider/id` is in the `enabledModels` scope (`None`: no scope).
    pub fn in_scope(&self, provider: &str, id: &str) -> Option<bool> {
        let patterns = self.enabled.as_ref()?;
        let full = format!("{provider}/{id}");
        Some(patterns.iter().any(|p| {
            // A `:level` suffix is the pattern's thinking level, not part of it.
            let pat = match p.rsplit_once(':') {
                Some((m, t)) if THINKING.contains(&t) => m,
                _ => p.as_str(),
            };
            if pat.contains(['*', '?', '[']) {
                globset::GlobBuilder::new(pat)
                    .case_insensitive(true)
                    .literal_separator(true)
                    .build()
                    .map(|g| {
                        let m = g.compile_matcher();
                        m.is_match(&full) || m.is_match(id)
                    })
                    .unwrap_or(false)
            } else {
                pat.eq_ignore_ascii_case(&full) || pat.eq_ignore_ascii_case(id)
            }
        }))
    }

    /// Resolve a role's `model` (`provider/id`, a bare id, either with `:thinking`).
    pub fn resolve(&self, hint: &str) -> Resolution {
        let hint = hint.trim();
        let (bare, thinking) = match hint.rsplit_once(':') {
            Some((m, t)) if THINKING.contains(&t) => (m, Some(t.to_string())),
            _ => (hint, None),
        };
        let hits: Vec<&(String, String)> = match bare.split_once('/') {
            Some((p, m)) => self
                .list
                .models
                .iter()
                .filter(|(pp, mm)| pp == p && mm == m)
                .collect(),
            None => self
                .list
                .models
                .iter()
                .filter(|(_, mm)| mm == bare)
                .collect(),
        };
        match hits.as_slice() {
            [(p, m)] => Resolution::Resolves {
                provider: p.clone(),
                id: m.clone(),
                thinking,
                in_scope: self.in_scope(p, m),
            },
            [] => {
                let full: Vec<String> = self
                    .list
                    .models
                    .iter()
                    .map(|(p, m)| format!("{p}/{m}"))
                    .collect();
                let suggestion = if bare.contains('/') {
                    crate::suggest::did_you_mean(bare, full.iter().map(String::as_str))
                        .map(str::to_string)
                } else {
                    crate::suggest::did_you_mean(
                        bare,
                        self.list.models.iter().map(|(_, m)| m.as_str()),
                    )
                    .and_then(|id| {
                        let tail = format!("/{id}");
                        full.iter().find(|f| f.ends_with(&tail)).cloned()
                    })
                };
                Resolution::Unlisted { suggestion }
            }
            many => Resolution::Ambiguous {
                candidates: many.iter().map(|(p, m)| format!("{p}/{m}")).collect(),
            },
        }
    }

    /// What pi runs when a run names no model (or a host drops a role's model that
    /// does not resolve): the settings default when listed and in the scope, else the
    /// scope's first listed model, else the default when listed, else the first
    /// listed model (pi prefers one with credentials; pwk cannot see credentials).
    pub fn fallback(&self) -> Option<String> {
        let listed = |pm: &str| {
            pm.split_once('/')
                .is_some_and(|(p, m)| self.list.models.iter().any(|(pp, mm)| pp == p && mm == m))
        };
        let default = self.default.clone().filter(|d| listed(d));
        if self.enabled.is_some() {
            if let Some(d) = &default
                && let Some((p, m)) = d.split_once('/')
                && self.in_scope(p, m) == Some(true)
            {
                return Some(d.clone());
            }
            if let Some((p, m)) = self
                .list
                .models
                .iter()
                .find(|(p, m)| self.in_scope(p, m) == Some(true))
            {
                return Some(format!("{p}/{m}"));
            }
        }
        default.or_else(|| self.list.models.first().map(|(p, m)| format!("{p}/{m}")))
    }
}

/// `pi --list-models` (bounded, through the child registry) and pi's settings, read
/// once per pi binary and models/settings files (by path and modification time) in
/// this process.
pub(crate) fn scope_for(
    program: &std::path::Path,
    agent_dir: Option<&std::path::Path>,
    cwd: &std::path::Path,
) -> Result<ModelScope, String> {
    use std::sync::{Mutex, OnceLock};
    type Key = Vec<(std::path::PathBuf, Option<std::time::SystemTime>)>;
    static CACHE: OnceLock<Mutex<Vec<(Key, ModelScope)>>> = OnceLock::new();
    let settings = super::settings::pi_settings_paths(agent_dir, cwd);
    let mut files = vec![program.to_path_buf()];
    files.extend(agent_dir.map(|d| d.join("models.json")));
    files.extend(settings.iter().cloned());
    let key: Key = files
        .into_iter()
        .map(|f| {
            let t = std::fs::metadata(&f).and_then(|m| m.modified()).ok();
            (f, t)
        })
        .collect();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    if let Some((_, s)) = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(k, _)| *k == key)
    {
        return Ok(s.clone());
    }
    let list = super::list_models(program, None, cwd, std::time::Duration::from_secs(30))
        .map_err(|e| format!("`pi --list-models` {e}"))?;
    let mut scope = ModelScope {
        list,
        ..ModelScope::default()
    };
    let (mut provider, mut model) = (None, None);
    for path in &settings {
        let Some(json) = super::settings::read_json(path).ok().flatten() else {
            continue;
        };
        if let Some(v) = json.get("enabledModels").and_then(|v| v.as_array()) {
            let pats: Vec<String> = v
                .iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect();
            scope.enabled = Some(pats).filter(|p| !p.is_empty());
        }
        let d = super::settings::PiDefaults::from_json(&json);
        provider = d.provider.or(provider);
        model = d.model.or(model);
    }
    scope.default = match (provider, model) {
        (Some(p), Some(m)) => Some(format!("{p}/{m}")),
        (None, Some(m)) if m.contains('/') => Some(m),
        _ => None,
    };
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((key, scope.clone()));
    Ok(scope)
}

/// What `pwk show` / `pwk smoke` say about a role's `model` on this machine.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct ModelCheck {
    /// The `model` as the role (or `--model`) gives it.
    pub hint: String,
    /// `false` when pi could not be asked (`note` says why).
    pub checked: bool,
    /// pi lists exactly one model for it.
    pub resolves: bool,
    /// The `provider/id` it resolves to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// The thinking level asked for: the hint's `:level` suffix, else the role's
    /// `thinking`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// The level pi runs the resolved model at: `off` for a model pi lists without
    /// thinking (pi clamps to what the model supports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_runs: Option<String>,
    /// Whether it is in pi's `enabledModels` scope; absent when there is no scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_enabled_models: Option<bool>,
    /// The closest listed `provider/id` (did-you-mean), or the providers of an
    /// ambiguous bare id.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// The `provider/id` that runs: the resolved one, else the fallback (pi's start
    /// model on this machine) when the host falls back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<String>,
    pub note: String,
}

impl ModelCheck {
    /// pi could not be asked.
    pub(crate) fn unchecked(hint: &str, why: &str) -> ModelCheck {
        ModelCheck {
            hint: hint.to_string(),
            checked: false,
            resolves: false,
            resolved: None,
            thinking: None,
            thinking_runs: None,
            in_enabled_models: None,
            candidates: Vec::new(),
            runs: None,
            note: format!("not checked against pi's models: {why}"),
        }
    }

    /// Check `hint` against `scope`. `host` names the host; `on_unresolved` is what
    /// it does with a model that does not resolve (its profile's cited fact), and
    /// `refuses` whether that is a refusal (nothing runs).
    pub(crate) fn of(
        scope: &ModelScope,
        hint: &str,
        thinking: Option<&str>,
        host: &str,
        on_unresolved: &str,
        refuses: bool,
    ) -> ModelCheck {
        let role_thinking = thinking.map(str::trim).filter(|t| !t.is_empty());
        let mut c = ModelCheck::unchecked(hint, "");
        c.checked = true;
        let fallback = scope.fallback();
        let instead = |c: &mut ModelCheck, why: String| {
            c.runs = if refuses { None } else { fallback.clone() };
            c.note = format!(
                "{why}; {host}: {on_unresolved}{}",
                match (&fallback, refuses) {
                    (_, true) => String::new(),
                    (Some(f), false) => format!(
                        " — on this machine pi starts on {f} (settings default / enabledModels, else the first listed model)"
                    ),
                    (None, false) => " — pi lists no model to start on".to_string(),
                }
            );
        };
        match scope.resolve(hint) {
            Resolution::Resolves {
                provider,
                id,
                thinking,
                in_scope,
            } => {
                let full = format!("{provider}/{id}");
                c.resolves = true;
                c.resolved = Some(full.clone());
                c.thinking = thinking.or_else(|| role_thinking.map(str::to_string));
                // pi 0.73.1 dist/core/agent-session.js:1157-1159 (setThinkingLevel
                // clamps) and pi-ai dist/models.js:31-33 (no reasoning: only `off`).
                let plain = scope
                    .list
                    .without_thinking
                    .iter()
                    .any(|(p, m)| *p == provider && *m == id);
                c.thinking_runs = c.thinking.as_ref().map(|t| {
                    if plain && t != "off" {
                        "off".to_string()
                    } else {
                        t.clone()
                    }
                });
                c.in_enabled_models = in_scope;
                c.runs = Some(full.clone());
                c.note = match in_scope {
                    Some(false) => format!(
                        "resolves to {full}, which is outside pi's `enabledModels`: pi still runs it when the role passes it as --model (an explicit model is looked up in the whole registry, pi 0.73.1 dist/main.js:226), but a run that names no model starts on {}",
                        fallback.as_deref().unwrap_or("no listed model")
                    ),
                    _ => format!("resolves to {full} (listed by `pi --list-models`)"),
                };
                if let (Some(asked), Some(runs)) = (&c.thinking, &c.thinking_runs)
                    && asked != runs
                {
                    c.note.push_str(&format!(
                        "; pi lists it without thinking, so thinking `{asked}` runs as `off`"
                    ));
                }
            }
            Resolution::Ambiguous { candidates } => {
                let why = format!(
                    "{} providers list `{hint}` ({}); write it as provider/id",
                    candidates.len(),
                    candidates.join(", ")
                );
                c.candidates = candidates;
                instead(&mut c, why);
            }
            Resolution::Unlisted { suggestion } => {
                let why = format!(
                    "`pi --list-models` lists no `{hint}`{}",
                    suggestion
                        .as_ref()
                        .map(|s| format!(" (did you mean {s}?)"))
                        .unwrap_or_default()
                );
                c.candidates = suggestion.into_iter().collect();
                instead(&mut c, why);
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_resolves_is_ambiguous_or_unlisted_and_the_scope_is_globbed() {
        let list = ModelList::parse(
            "provider model\nmock mock-model\nmock mock-small\nother mock-model\nanthropic claude-haiku-4-5\n",
        );
        let mut s = ModelScope {
            list,
            enabled: None,
            default: Some("mock/mock-model".into()),
        };
        assert_eq!(
            s.resolve("mock/mock-small:low"),
            Resolution::Resolves {
                provider: "mock".into(),
                id: "mock-small".into(),
                thinking: Some("low".into()),
                in_scope: None
            }
        );
        assert!(
            matches!(s.resolve("mock-model"), Resolution::Ambiguous { candidates } if candidates.len() == 2)
        );
        assert_eq!(
            s.resolve("anthropic/claude-haiku-4.5"),
            Resolution::Unlisted {
                suggestion: Some("anthropic/claude-haiku-4-5".into())
            }
        );
        assert_eq!(
            s.resolve("claude-haiku-45"),
            Resolution::Unlisted {
                suggestion: Some("anthropic/claude-haiku-4-5".into())
            }
        );
        assert_eq!(s.fallback().as_deref(), Some("mock/mock-model"));
        s.enabled = Some(vec!["ANTHROPIC/*".into(), "mock-small:high".into()]);
        assert_eq!(s.in_scope("anthropic", "claude-haiku-4-5"), Some(true));
        assert_eq!(s.in_scope("mock", "mock-small"), Some(true));
        assert_eq!(s.in_scope("mock", "mock-model"), Some(false));
        // The default is outside the scope: the scope's first listed model runs.
        assert_eq!(s.fallback().as_deref(), Some("mock/mock-small"));
    }

    #[test]
    fn thinking_runs_off_on_a_model_listed_without_it() {
        let list = ModelList::parse(
            "provider  model          context  max-out  thinking  images
mock      mock-model     128K     16.4K    no        no
mock      mock-reasoner  128K     16.4K    yes       no
",
        );
        assert_eq!(
            list.without_thinking,
            [("mock".into(), "mock-model".into())]
        );
        let s = ModelScope {
            list,
            ..ModelScope::default()
        };
        let c = ModelCheck::of(&s, "mock/mock-model", Some("high"), "pwk", "x", false);
        assert_eq!(c.thinking.as_deref(), Some("high"));
        assert_eq!(c.thinking_runs.as_deref(), Some("off"));
        assert!(c.note.contains("runs as `off`"), "{}", c.note);
        let c = ModelCheck::of(
            &s,
            "mock/mock-reasoner:low",
            Some("high"),
            "pwk",
            "x",
            false,
        );
        assert_eq!(c.thinking_runs.as_deref(), Some("low"));
    }

    #[test]
    fn parses_the_model_table() {
        let table = "warning: something\nprovider  model          context  max-out  thinking  images\nmock      mock-model     128K     16.4K    no        no    \nmock      mock-reasoner  128K     16.4K    yes       no    \nother     x              1K       1K       no        no\n";
        let list = ModelList::parse(table);
        assert_eq!(list.models.len(), 3);
        assert_eq!(list.ids_of("mock"), ["mock-model", "mock-reasoner"]);
        assert!(list.ids_of("nope").is_empty());
        assert!(ModelList::parse("no table here\n").models.is_empty());
    }
}
