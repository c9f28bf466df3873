//! pi's and pi-herdr-agents' settings files: where they are and what pwk reads
//! from them. Files are opened without following symlinks or blocking (a FIFO is
//! refused, never waited on) and size-capped.
//!
//! * pi: `<agent dir>/settings.json`, overridden key by key by
//!   `<cwd>/.pi/settings.json`: `defaultProvider`, `defaultModel`,
//!   `defaultThinkingLevel`.
//! * pi-herdr-agents: `<agent dir>/herdr-agents/config.json`:
//!   `models.agents.<name>` and `models.default` (a string, or a list whose first
//!   entry is used).

use std::path::{Path, PathBuf};

use crate::fs::{Kind, ReadError};

/// pi's settings files, lowest priority first.
pub(crate) fn pi_settings_paths(agent_dir: Option<&Path>, cwd: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = agent_dir
        .map(|d| d.join("settings.json"))
        .into_iter()
        .collect();
    paths.push(cwd.join(".pi").join("settings.json"));
    paths
}

/// The package sources a settings document lists: `packages` entries are a source
/// string or `{ "source": … }` (`@earendil-works/pi-coding-agent@1.6.0
/// dist/core/package-manager.js:808`).
pub(crate) fn package_sources(json: &serde_json::Value) -> Vec<String> {
    json["packages"]
        .as_array()
        .map(|pkgs| {
            pkgs.iter()
                .filter_map(|p| p.as_str().or_else(|| p["source"].as_str()))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Where pi installs an npm package for the scope whose settings live in `base`
/// (`<project>/.pi` or the agent dir): `<base>/npm/node_modules/<name>`
/// (package-manager.js:1937).
pub(crate) fn npm_install_dir(base: &Path, name: &str) -> PathBuf {
    base.join("npm").join("node_modules").join(name)
}

/// Where pi clones a git package: `<base>/git/<host>/<path>` (package-manager.js:1963).
pub(crate) fn git_install_dir(base: &Path, host_and_path: &str) -> PathBuf {
    base.join("git").join(host_and_path)
}

/// What one pi settings file sets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PiDefaults {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub thinking: Option<String>,
}

impl PiDefaults {
    pub(crate) fn from_json(json: &serde_json::Value) -> PiDefaults {
        let get = |k: &str| json[k].as_str().map(str::to_string);
        PiDefaults {
            provider: get("defaultProvider"),
            model: get("defaultModel"),
            thinking: get("defaultThinkingLevel"),
        }
    }
}

/// What `--host auto` reads from one pi settings file: the `packages` sources
/// ([`package_sources`]) and whether it holds a `subagents` object (nicobailon's agent
/// overrides, `pi-subagents@0.67.0 src/agents/agents.ts:1567-1584`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HostFacts {
    pub packages: Vec<String>,
    pub subagents_object: bool,
}

/// [`HostFacts`] of the settings file at `path` (none when it does not exist); `Err`
/// says why it cannot be used (not a regular file, too large, not JSON). Only
/// `packages` is parsed: the rest is skipped without a depth limit (N25: pi's
/// `JSON.parse` reads a file nested deeper than serde_json's 128 levels, so pwk must
/// too).
#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
pub(crate) fn read_host_facts(path: &Path) -> Result<HostFacts, String> {
    /// Whether a value is a JSON object, read without keeping it.
    struct IsObject(bool);
    impl<'de> serde::Deserialize<'de> for IsObject {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<IsObject, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = IsObject;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("any JSON value")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut m: A,
                ) -> Result<IsObject, A::Error> {
                    while m
                        .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                        .is_some()
                    {}
                    Ok(IsObject(true))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut s: A,
                ) -> Result<IsObject, A::Error> {
                    while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                    Ok(IsObject(false))
                }
                fn visit_bool<E>(self, _: bool) -> Result<IsObject, E> {
                    Ok(IsObject(false))
                }
                fn visit_i64<E>(self, _: i64) -> Result<IsObject, E> {
                    Ok(IsObject(false))
                }
                fn visit_u64<E>(self, _: u64) -> Result<IsObject, E> {
                    Ok(IsObject(false))
                }
                fn visit_f64<E>(self, _: f64) -> Result<IsObject, E> {
                    Ok(IsObject(false))
                }
                fn visit_str<E>(self, _: &str) -> Result<IsObject, E> {
                    Ok(IsObject(false))
                }
                fn visit_unit<E>(self) -> Result<IsObject, E> {
                    Ok(IsObject(false))
                }
            }
            d.deserialize_any(V)
        }
    }
    #[derive(serde::Deserialize)]
    struct Facts {
        #[serde(default)]
        packages: serde_json::Value,
        #[serde(default)]
        subagents: Option<IsObject>,
    }
    let bytes = match crate::fs::read::read(path, Kind::Settings) {
        Ok(b) => b,
        Err(ReadError::NotFound) => return Ok(HostFacts::default()),
        Err(e) => return Err(format!("it {e}")),
    };
    // Not an object (pi reads `settings.packages` of whatever it parsed): no
    // packages. (serde would read a struct from an array too.)
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return serde_json::from_slice::<serde::de::IgnoredAny>(&bytes)
            .map(|_| HostFacts::default())
            .map_err(|e| format!("it is not valid JSON: {e}"));
    }
    let doc: Facts =
        serde_json::from_slice(&bytes).map_err(|e| format!("it is not valid JSON: {e}"))?;
    Ok(HostFacts {
        packages: package_sources(&serde_json::json!({ "packages": doc.packages })),
        subagents_object: doc.subagents.is_some_and(|o| o.0),
    })
}

/// Read an optional settings file. `Ok(None)` when it does not exist; `Err` says why
/// it cannot be used (not a regular file, too large, not JSON).
pub(crate) fn read_json(path: &Path) -> Result<Option<serde_json::Value>, String> {
    match crate::fs::read::read(path, Kind::Settings) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("not valid JSON ({e})")),
        Err(ReadError::NotFound) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// [`read_json`] for a file that may hold `//` and `/* */` comments and trailing
/// commas (OpenCode's `opencode.jsonc`): they are blanked before parsing.
pub(crate) fn read_jsonc(path: &Path) -> Result<Option<serde_json::Value>, String> {
    match crate::fs::read::read(path, Kind::Settings) {
        Ok(bytes) => serde_json::from_slice(&strip_jsonc(&bytes))
            .map(Some)
            .map_err(|e| format!("not valid JSON with comments ({e})")),
        Err(ReadError::NotFound) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// `text` with its comments turned into spaces and every comma that only white
/// space and comments separate from a closing `]` or `}` dropped: one pass,
/// strings left alone.
fn strip_jsonc(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    // Where a comma was written that a closing bracket may still cancel.
    let mut pending_comma: Option<usize> = None;
    while i < text.len() {
        let c = text[i];
        if in_string {
            out.push(c);
            if c == b'\\' && i + 1 < text.len() {
                out.push(text[i + 1]);
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match (c, text.get(i + 1)) {
            (b'/', Some(b'/')) => {
                while i < text.len() && text[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                out.extend_from_slice(b"  ");
                i += 2;
                while i < text.len() && !(text[i] == b'*' && text.get(i + 1) == Some(&b'/')) {
                    out.push(if text[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
                out.extend_from_slice(b"  ");
                i += 2;
                continue;
            }
            (b'"', _) => {
                in_string = true;
                pending_comma = None;
            }
            (b',', _) => pending_comma = Some(out.len()),
            (b']' | b'}', _) => {
                if let Some(at) = pending_comma.take() {
                    out[at] = b' ';
                }
            }
            (c, _) if c.is_ascii_whitespace() => {}
            _ => pending_comma = None,
        }
        out.push(c);
        i += 1;
    }
    out.truncate(out.len().min(text.len()));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn jsonc_comments_and_trailing_commas() {
        let text = br#"{
  // a comment, "with a quote"
  "model": "a/b", /* block
  comment */ "s": "http://x//y",
  "agent": {"r": {"model": "c/d",},},
}"#;
        let v: serde_json::Value = serde_json::from_slice(&super::strip_jsonc(text)).unwrap();
        assert_eq!(v["model"], "a/b");
        assert_eq!(v["s"], "http://x//y");
        assert_eq!(v["agent"]["r"]["model"], "c/d");
        // Unterminated comments and strings end the text; nothing panics.
        for bad in [&b"{/* x"[..], b"\"abc", b"//", b"/", b"[1,"] {
            let _ = super::strip_jsonc(bad);
        }
    }

    use super::*;

    #[test]
    fn settings_values() {
        let pi = PiDefaults::from_json(&serde_json::json!(
            {"defaultProvider": "mock", "defaultModel": "m", "defaultThinkingLevel": 3}
        ));
        assert_eq!(pi.provider.as_deref(), Some("mock"));
        assert_eq!(pi.thinking, None);
        assert_eq!(
            pi_settings_paths(None, Path::new("/w")),
            [PathBuf::from("/w/.pi/settings.json")]
        );
    }
}
