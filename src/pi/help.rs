//! What a pi accepts, from its own `pi --help` (a bounded capture; pi 0.73.1 prints
//! it on stderr, 1.6 on stdout: both are read). Features are detected from the
//! options listed, never from a version string. The answer is cached per program
//! (its path and the file's identity and modification time) for the life of the
//! process.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long `pi --help` may take.
pub(crate) const HELP_LIMIT: Duration = Duration::from_secs(30);

/// The long options a `pi --help` lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HelpOptions {
    pub options: Vec<String>,
}

impl HelpOptions {
    /// Every `--word` of a help text, in order, once each.
    pub(crate) fn parse(text: &str) -> HelpOptions {
        let mut options: Vec<String> = Vec::new();
        for word in
            text.split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[' || c == ']')
        {
            if word.starts_with("--")
                && word.len() > 2
                && word[2..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !options.iter().any(|w| w == word)
            {
                options.push(word.to_string());
            }
        }
        HelpOptions { options }
    }

    /// Whether `option` (e.g. `--no-mcp`) is listed.
    pub(crate) fn lists(&self, option: &str) -> bool {
        self.options.iter().any(|o| o == option)
    }
}

type Key = (PathBuf, u64, u64, u64, i64, i64);

fn key(program: &Path) -> Option<Key> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(program).ok()?;
    Some((
        program.to_path_buf(),
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
    ))
}

fn cache() -> &'static Mutex<HashMap<Key, Arc<HelpOptions>>> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<Key, Arc<HelpOptions>>>> =
        std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The options `program --help` lists (asked once per program per process; callers
/// that ask at the same time wait for the one probe). The output is used whatever
/// the exit status; an error only when it could not be captured at all. `stop`:
/// give up (the run was aborted).
pub(crate) fn options(
    program: &Path,
    cwd: &Path,
    env: &[(String, String)],
    stop: &dyn Fn() -> bool,
) -> Result<Arc<HelpOptions>, super::CaptureError> {
    static PROBING: Mutex<()> = Mutex::new(());
    let key = key(program);
    let cached = || {
        key.as_ref().and_then(|k| {
            cache()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(k)
                .cloned()
        })
    };
    if let Some(hit) = cached() {
        return Ok(hit);
    }
    let _one = PROBING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(hit) = cached() {
        return Ok(hit);
    }
    let text =
        super::process::capture_until(program, &["--help"], cwd, env, HELP_LIMIT, stop)?.text;
    let opts = Arc::new(HelpOptions::parse(&text));
    if let Some(k) = key {
        cache()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(k, Arc::clone(&opts));
    }
    Ok(opts)
}

/// Forget what was learnt about `program` (it rejected an option its help listed).
pub(crate) fn forget(program: &Path) {
    cache()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|k, _| k.0 != program);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_come_from_both_generations_help() {
        let h = HelpOptions::parse(
            "  --tools, -t <tools>   Comma-separated\n  --no-mcp   Disable MCP\n  [--session=<path>]\n  --no-mcp again",
        );
        assert_eq!(h.options, ["--tools", "--no-mcp", "--session"]);
        assert!(h.lists("--no-mcp"));
        assert!(!h.lists("--no"));
    }

    #[test]
    fn the_answer_is_cached_per_program() {
        let dir = tempfile::tempdir().unwrap();
        let prog = dir.path().join("fake-pi");
        let count = dir.path().join("count");
        std::fs::write(
            &prog,
            format!(
                "#!/bin/sh\necho x >> {}\necho '  --no-mcp   Disable MCP'\n",
                count.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
        for _ in 0..3 {
            assert!(
                options(&prog, dir.path(), &[], &|| false)
                    .unwrap()
                    .lists("--no-mcp")
            );
        }
        assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 1);
        forget(&prog);
        assert!(
            options(&prog, dir.path(), &[], &|| false)
                .unwrap()
                .lists("--no-mcp")
        );
        assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 2);
    }
}
