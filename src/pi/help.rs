//! What a pi accepts, from its own `pi --help` (a bounded capture; pi 0.73.1 prints
//! it on stderr, 1.6 on stdout: both are read). Features are detected from the
//! options listed, never from a version string. The answer is kept per binary (its
//! resolved path and the file's identity and modification time): in memory for the
//! life of the process, and on disk in pwk's cache directory ([`super::cache`]), so
//! a pi binary is asked once, not once per pwk run.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::cache::Identity;
use crate::env::CacheDir;

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

fn memory() -> &'static Mutex<HashMap<Identity, Arc<HelpOptions>>> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<Identity, Arc<HelpOptions>>>> =
        std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// How `pi --help` may be asked.
#[derive(Clone, Copy)]
pub(crate) struct Ask<'a> {
    pub cwd: &'a Path,
    /// Variables set for pi on top of the inherited environment.
    pub env: &'a [(String, String)],
    /// pwk's cache directory (`None`: nothing on disk, only this process's memory).
    pub cache: Option<&'a CacheDir>,
    /// The longest the probe may take (at most [`HELP_LIMIT`]; the caller's remaining
    /// time budget when it has one).
    pub limit: Duration,
    /// Give up (the run was aborted).
    pub stop: &'a dyn Fn() -> bool,
}

/// Where an answer came from (for the benchmark and the tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// This process had asked already.
    Memory,
    /// pwk's cache directory had a valid entry for this very binary.
    Disk,
    /// `pi --help` was run.
    Probe,
}

/// The options `program --help` lists: from this process's memory, else pwk's
/// on-disk cache (an entry for this very binary, [`super::cache`]), else by running
/// `pi --help` once (callers that ask at the same time wait for the one probe) and
/// writing the answer to both. The output is used whatever the exit status, but kept
/// only from a `pi --help` that succeeded and whose output was read whole; an error
/// only when it could not be captured at all.
pub(crate) fn options(
    program: &Path,
    ask: &Ask<'_>,
) -> Result<Arc<HelpOptions>, super::CaptureError> {
    options_from(program, ask).map(|(o, _)| o)
}

/// [`options`], and where the answer came from.
pub(crate) fn options_from(
    program: &Path,
    ask: &Ask<'_>,
) -> Result<(Arc<HelpOptions>, Source), super::CaptureError> {
    static PROBING: Mutex<()> = Mutex::new(());
    let id = Identity::of(program);
    let cached = || {
        id.as_ref().and_then(|k| {
            memory()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(k)
                .cloned()
        })
    };
    if let Some(hit) = cached() {
        return Ok((hit, Source::Memory));
    }
    let _one = PROBING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(hit) = cached() {
        return Ok((hit, Source::Memory));
    }
    let remember = |opts: HelpOptions| {
        let opts = Arc::new(opts);
        if let Some(k) = &id {
            memory()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(k.clone(), Arc::clone(&opts));
        }
        opts
    };
    if let (Some(dir), Some(k)) = (ask.cache, &id)
        && let Some(options) = super::cache::load(dir, k)
    {
        return Ok((remember(HelpOptions { options }), Source::Disk));
    }
    let c = super::process::capture_until(
        program,
        &["--help"],
        ask.cwd,
        ask.env,
        ask.limit.min(HELP_LIMIT),
        ask.stop,
    )?;
    let opts = HelpOptions::parse(&c.text);
    if c.held_open || !c.status.success() {
        // Not known whole, or pi failed: used for this run, remembered nowhere.
        return Ok((Arc::new(opts), Source::Probe));
    }
    if let (Some(dir), Some(k)) = (ask.cache, &id) {
        // An unwritable cache costs the probe once per process (the memory map),
        // never an error.
        let _ = super::cache::store(dir, k, &opts.options);
    }
    Ok((remember(opts), Source::Probe))
}

/// Forget what was learnt about `program`, in memory and on disk (it rejected an
/// option its help listed: pi was replaced behind a wrapper script).
pub(crate) fn forget(program: &Path, cache: Option<&CacheDir>) {
    let resolved = std::fs::canonicalize(program)
        .ok()
        .and_then(|p| p.into_os_string().into_string().ok());
    memory()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|k, _| Some(&k.path) != resolved.as_ref());
    if let (Some(dir), Some(r)) = (cache, &resolved) {
        super::cache::remove(dir, r);
    }
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

    fn counting_pi(dir: &Path, help: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let prog = dir.join("fake-pi");
        let count = dir.join("count");
        std::fs::write(
            &prog,
            format!(
                "#!/bin/sh\necho x >> '{}'\necho '{help}'\n",
                count.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
        (prog, count)
    }

    fn probes(count: &Path) -> usize {
        std::fs::read_to_string(count).map_or(0, |s| s.lines().count())
    }

    fn ask<'a>(cwd: &'a Path, cache: Option<&'a CacheDir>) -> Ask<'a> {
        Ask {
            cwd,
            env: &[],
            cache,
            limit: HELP_LIMIT,
            stop: &|| false,
        }
    }

    /// A new process: only what is on disk is known about `prog` (the memory map
    /// is shared by the tests running in parallel: only `prog`'s entry goes).
    fn new_process(prog: &Path) {
        forget(prog, None);
    }

    #[test]
    fn the_answer_is_cached_per_program() {
        let dir = tempfile::tempdir().unwrap();
        let (prog, count) = counting_pi(dir.path(), "  --no-mcp   Disable MCP");
        for _ in 0..3 {
            assert!(
                options(&prog, &ask(dir.path(), None))
                    .unwrap()
                    .lists("--no-mcp")
            );
        }
        assert_eq!(probes(&count), 1);
        forget(&prog, None);
        assert!(
            options(&prog, &ask(dir.path(), None))
                .unwrap()
                .lists("--no-mcp")
        );
        assert_eq!(probes(&count), 2);
    }

    /// Learnt once per binary across processes; a binary replaced at the same path
    /// (new content) is asked again and its entry rewritten.
    #[test]
    fn the_disk_cache_is_per_binary_and_a_replaced_binary_is_asked_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir {
            base: dir.path().join("xdg"),
            sub: Some("pwk"),
        };
        let (prog, count) = counting_pi(dir.path(), "  --no-mcp   Disable MCP");
        let (o, src) = options_from(&prog, &ask(dir.path(), Some(&cache))).unwrap();
        assert!(o.lists("--no-mcp") && src == Source::Probe);
        new_process(&prog);
        let (o, src) = options_from(&prog, &ask(dir.path(), Some(&cache))).unwrap();
        assert!(o.lists("--no-mcp"), "{o:?}");
        assert_eq!((src, probes(&count)), (Source::Disk, 1));
        // Replaced in place: another identity (size, inode and time all differ).
        let tmp = dir.path().join("new-pi");
        std::fs::write(
            &tmp,
            format!(
                "#!/bin/sh\necho x >> '{}'\necho '  --tools  Allow-list (a newer pi)'\n",
                count.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&tmp, &prog).unwrap();
        new_process(&prog);
        let (o, src) = options_from(&prog, &ask(dir.path(), Some(&cache))).unwrap();
        assert_eq!((src, probes(&count)), (Source::Probe, 2));
        assert!(!o.lists("--no-mcp") && o.lists("--tools"), "{o:?}");
        new_process(&prog);
        let (_, src) = options_from(&prog, &ask(dir.path(), Some(&cache))).unwrap();
        assert_eq!(
            (src, probes(&count)),
            (Source::Disk, 2),
            "the entry was rewritten"
        );
        // What pi rejected is forgotten on disk too.
        forget(&prog, Some(&cache));
        let (_, src) = options_from(&prog, &ask(dir.path(), Some(&cache))).unwrap();
        assert_eq!((src, probes(&count)), (Source::Probe, 3));
    }
}
