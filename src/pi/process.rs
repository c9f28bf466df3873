//! Process plumbing for pi: SIGTERM → grace → SIGKILL for a process group, a
//! bounded head+tail capture of a stream, and short bounded commands ([`capture`]:
//! `pi --help`, `pi --list-models`). The one place pwk captures a process's output.
//! Every child is started through [`super::children::spawn`] (its own process group,
//! registered, stopped on every exit path).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The process-group primitives, used here and by [`super::children`].
pub(crate) use super::group::{Signal, kill_group_and_wait, signal_group};

/// Time between SIGTERM and SIGKILL for pi's process group.
pub(crate) const KILL_GRACE: Duration = Duration::from_secs(3);
/// How much of a captured stream is kept: the first and the last bytes.
const HEAD: usize = 16 << 10;
const TAIL: usize = 48 << 10;

/// Stops one process group: SIGTERM once, SIGKILL [`KILL_GRACE`] later. Call
/// [`GroupStopper::tick`] from the wait loop.
#[derive(Debug)]
pub(crate) struct GroupStopper {
    pgid: u32,
    term_at: Option<Instant>,
    kill_sent: bool,
}

impl GroupStopper {
    pub(crate) fn new(pgid: u32) -> GroupStopper {
        GroupStopper {
            pgid,
            term_at: None,
            kill_sent: false,
        }
    }

    /// SIGTERM to the group (only the first call signals).
    pub(crate) fn stop(&mut self) {
        if self.term_at.is_none() {
            signal_group(self.pgid, Signal::TERM);
            self.term_at = Some(Instant::now());
        }
    }

    /// SIGKILL once the grace after [`GroupStopper::stop`] is over.
    pub(crate) fn tick(&mut self) {
        if let Some(t) = self.term_at
            && !self.kill_sent
            && t.elapsed() >= KILL_GRACE
        {
            self.kill();
        }
    }

    /// SIGKILL now (once).
    pub(crate) fn kill(&mut self) {
        if !self.kill_sent {
            signal_group(self.pgid, Signal::KILL);
            self.kill_sent = true;
        }
    }

    /// SIGKILL whatever is left of the group (tool children), e.g. after pi exited.
    pub(crate) fn sweep(&self) {
        signal_group(self.pgid, Signal::KILL);
    }
}

/// The first and last bytes of a stream.
#[derive(Debug, Default)]
pub(crate) struct BoundedCapture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: u64,
}

impl BoundedCapture {
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        if self.head.len() < HEAD {
            let take = (HEAD - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend(bytes);
        while self.tail.len() > TAIL {
            let excess = self.tail.len() - TAIL;
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    pub(crate) fn into_string(self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!(
                "\n[… {} bytes of stderr not kept …]\n",
                self.dropped
            ));
        }
        let tail: Vec<u8> = self.tail.into_iter().collect();
        s.push_str(&String::from_utf8_lossy(&tail));
        s
    }

    /// Drain `r` on its own thread; the kept text arrives on the channel at EOF.
    pub(crate) fn spawn(r: impl Read + Send + 'static, name: &str) -> mpsc::Receiver<String> {
        let (tx, rx) = mpsc::channel();
        let _ = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let mut cap = BoundedCapture::default();
                read_chunks(r, |b| cap.push(b));
                let _ = tx.send(cap.into_string());
            });
        rx
    }
}

/// Read `r` to EOF (or an error), handing each chunk to `on_chunk`.
pub(crate) fn read_chunks(mut r: impl Read, mut on_chunk: impl FnMut(&[u8])) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => on_chunk(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
}

/// `3 s` or `1500 ms`.
pub(crate) fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// What a short command printed (stdout and stderr joined by a newline) and how it ended.
#[derive(Debug)]
pub(crate) struct Captured {
    pub status: ExitStatus,
    pub text: String,
}

impl Captured {
    /// The text, when the command succeeded.
    pub(crate) fn success(self) -> Result<String, CaptureError> {
        if self.status.success() {
            Ok(self.text)
        } else {
            Err(CaptureError::Failed {
                status: self.status,
                last_line: self
                    .text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .trim()
                    .to_string(),
            })
        }
    }
}

/// Why a short command gave no usable output.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CaptureError {
    #[error("could not be started ({}): {source}", .program.display())]
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("did not finish within {} and was stopped", human_duration(*.limit))]
    TimedOut { limit: Duration },
    #[error("was stopped: {}", super::children::received(*.0))]
    Interrupted(i32),
    #[error("was stopped: the run was aborted")]
    Stopped,
    #[error("failed ({status}): {last_line}")]
    Failed {
        status: ExitStatus,
        last_line: String,
    },
}

/// Waiting for a stream of a finished (or killed) command: at most this long (a
/// process outside the group may hold it open).
const STREAM_GRACE: Duration = Duration::from_secs(2);

/// Run a short command (`pi --help`, `pi --list-models`) in its own process group,
/// registered with [`super::children`], stdin from `/dev/null`, and capture stdout
/// and stderr (each bounded to its head and tail). The group is killed after `limit`,
/// when pwk receives a signal, and on every way out of this function (the
/// registration's drop); every wait is bounded.
pub(crate) fn capture(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
) -> Result<Captured, CaptureError> {
    capture_until(program, args, cwd, env, limit, &|| false)
}

/// [`capture`], also stopped (as [`CaptureError::Stopped`]) once `stop` says so.
pub(crate) fn capture_until(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<Captured, CaptureError> {
    let mut tracked = super::children::spawn(
        Command::new(program)
            .args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|source| CaptureError::Spawn {
        program: program.to_path_buf(),
        source,
    })?;
    let child = &mut tracked.child;
    let stopper = GroupStopper::new(child.id());
    let streams: Vec<mpsc::Receiver<String>> = [
        child
            .stdout
            .take()
            .map(|s| BoundedCapture::spawn(s, "pi-capture-out")),
        child
            .stderr
            .take()
            .map(|s| BoundedCapture::spawn(s, "pi-capture-err")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(sig) = super::children::signal_received() {
            stopper.sweep();
            return Err(CaptureError::Interrupted(sig));
        }
        if stop() {
            stopper.sweep();
            return Err(CaptureError::Stopped);
        }
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => break None,
        }
    };
    stopper.sweep();
    // Stopped by pwk's exit path: the process ends in a moment; report nothing.
    super::children::park_if_exiting();
    let status = match status {
        Some(st) => st,
        None => return Err(CaptureError::TimedOut { limit }),
    };
    let until = Instant::now() + STREAM_GRACE;
    let text: Vec<String> = streams
        .into_iter()
        .filter_map(|rx| {
            rx.recv_timeout(until.saturating_duration_since(Instant::now()))
                .ok()
        })
        .collect();
    Ok(Captured {
        status,
        text: text.join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_capture_keeps_head_and_tail() {
        let mut c = BoundedCapture::default();
        c.push(&vec![b'h'; HEAD]);
        c.push(&[b'x'; 100]);
        c.push(&vec![b't'; TAIL]);
        let s = c.into_string();
        assert!(s.starts_with('h'));
        assert!(s.ends_with('t'));
        assert!(s.contains("[… 100 bytes of stderr not kept …]"));
    }

    #[test]
    fn capture_reports_status_and_both_streams() {
        let c = capture(
            Path::new("/bin/sh"),
            &["-c", "echo out; echo err >&2; exit 3"],
            Path::new("/"),
            &[],
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(c.status.code(), Some(3));
        assert!(
            c.text.contains("out") && c.text.contains("err"),
            "{}",
            c.text
        );
        match c.success() {
            Err(CaptureError::Failed { last_line, .. }) => assert_eq!(last_line, "err"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn capture_is_bounded_in_time() {
        let e = capture(
            Path::new("/bin/sh"),
            &["-c", "sleep 30"],
            Path::new("/"),
            &[],
            Duration::from_millis(200),
        )
        .unwrap_err();
        assert!(matches!(e, CaptureError::TimedOut { .. }), "{e}");
    }
}
