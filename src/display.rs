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

/// Write a string plus newline to stderr, ignoring a closed pipe: in one `write`,
/// so that another process writing to the same stderr (a hook runner's other
/// hooks, a parallel job) cannot land between a line and its end (up to the
/// pipe's atomic size, 4 KiB).
pub(crate) fn eprintln_safe(text: &str) {
    let _ = write_line(&mut std::io::stderr().lock(), text);
}

/// `text` and a newline, handed to `w` in one `write_all` (stderr is unbuffered:
/// `writeln!` hands it each piece of the format on its own).
fn write_line(w: &mut impl Write, text: &str) -> std::io::Result<()> {
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    w.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    /// Each `write` a writer is handed, as it was handed.
    #[derive(Default)]
    struct Calls(Vec<Vec<u8>>);

    impl std::io::Write for Calls {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A line reaches stderr in one write, its newline with it, whatever it holds
    /// (`writeln!` would hand the text and the newline over apart).
    #[test]
    fn a_line_is_one_write() {
        for text in [
            "",
            "pwk: warning: x",
            "a{b}c",
            "ünïcode ✓",
            &"x".repeat(5000),
        ] {
            let mut w = Calls::default();
            super::write_line(&mut w, text).unwrap();
            assert_eq!(w.0, vec![format!("{text}\n").into_bytes()], "{text:.20}");
        }
    }
}
