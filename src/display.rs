//! How pwk shows things on a terminal, for every layer: a path as the user typed
//! it (relative to the current directory), and the only writers to stdout and
//! stderr (a closed pipe is not an error). A leaf: the command layer's
//! [`crate::context::Context`] and the servers (`lsp`, `mcp`) both use it.

use std::io::Write;
use std::path::Path;

/// `path` relative to `cwd` when it lies under it, else as given.
pub(crate) fn display_path(cwd: &Path, path: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// Whether this process has written anything to stdout through [`write_stdout`].
static WROTE_STDOUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a command has printed anything on stdout yet (the fatal path prints a
/// JSON error document only when the command printed no document).
pub(crate) fn wrote_stdout() -> bool {
    WROTE_STDOUT.load(std::sync::atomic::Ordering::SeqCst)
}

/// Write bytes to stdout. A closed pipe (e.g. `pwk lint | head`) is not an error.
pub(crate) fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    if !bytes.is_empty() {
        WROTE_STDOUT.store(true, std::sync::atomic::Ordering::SeqCst);
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Write a string plus newline to stderr, ignoring a closed pipe.
pub(crate) fn eprintln_safe(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}
