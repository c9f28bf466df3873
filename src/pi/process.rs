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
pub(crate) use super::group::{Signal, kill_reap_group_and_wait, signal_group};

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
#[derive(Debug)]
pub(crate) struct BoundedCapture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: u64,
    keep: Keep,
}

/// How much of a stream a [`BoundedCapture`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Keep {
    pub head: usize,
    pub tail: usize,
}

impl Keep {
    /// The first 16 KiB and the last 48 KiB (stderr, `pi --help`).
    pub(crate) const HEAD_AND_TAIL: Keep = Keep {
        head: HEAD,
        tail: TAIL,
    };

    /// Everything up to `max` bytes; what comes after is only counted.
    pub(crate) const fn whole(max: usize) -> Keep {
        Keep { head: max, tail: 0 }
    }
}

impl Default for BoundedCapture {
    fn default() -> Self {
        BoundedCapture::new(Keep::HEAD_AND_TAIL)
    }
}

impl BoundedCapture {
    pub(crate) fn new(keep: Keep) -> BoundedCapture {
        BoundedCapture {
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            dropped: 0,
            keep,
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        if self.head.len() < self.keep.head {
            let take = (self.keep.head - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend(bytes);
        while self.tail.len() > self.keep.tail {
            let excess = self.tail.len() - self.keep.tail;
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    pub(crate) fn into_string(self) -> String {
        self.into_parts().0
    }

    /// The kept text, and how many bytes between head and tail were not kept.
    pub(crate) fn into_parts(self) -> (String, u64) {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!(
                "\n[… {} bytes of stderr not kept …]\n",
                self.dropped
            ));
        }
        let tail: Vec<u8> = self.tail.into_iter().collect();
        s.push_str(&String::from_utf8_lossy(&tail));
        (s, self.dropped)
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

    /// [`BoundedCapture::spawn`] keeping `keep`; the text and the bytes not kept.
    fn spawn_keeping(
        r: impl Read + Send + 'static,
        name: &str,
        keep: Keep,
    ) -> mpsc::Receiver<(String, u64)> {
        let (tx, rx) = mpsc::channel();
        let _ = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let mut cap = BoundedCapture::new(keep);
                read_chunks(r, |b| cap.push(b));
                let _ = tx.send(cap.into_parts());
            });
        rx
    }
}

/// Read `r` to EOF (or an error), handing each chunk to `on_chunk`.
pub(crate) fn read_chunks(r: impl Read, on_chunk: impl FnMut(&[u8])) {
    read_chunks_sized(r, 64 << 10, on_chunk)
}

/// [`read_chunks`] with a read buffer of `size` bytes.
pub(crate) fn read_chunks_sized(mut r: impl Read, size: usize, mut on_chunk: impl FnMut(&[u8])) {
    let mut buf = vec![0u8; size];
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
    /// Bytes the capture did not keep (between a stream's head and tail, or past
    /// [`capture_whole`]'s limit).
    pub dropped: u64,
    /// A stream was still open when pwk stopped waiting for it.
    pub held_open: bool,
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
    #[error("printed more than {} bytes; pwk does not use output it could not read whole", .limit)]
    TooLong { limit: usize },
    #[error(
        "exited, but a process it started kept its output open; pwk does not use output it could not read whole"
    )]
    HeldOpen,
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
/// registration's drop), and what escaped the group (a `setsid` daemon) is stopped
/// as after a run; every wait is bounded.
pub(crate) fn capture(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
) -> Result<Captured, CaptureError> {
    capture_until(program, args, cwd, env, limit, &|| false)
}

/// [`capture`] of a listing that is only good whole (`pi --list-models`): each
/// stream is kept up to `max` bytes, and more than that is [`CaptureError::TooLong`]
/// (a stream still held open after the command exited, [`CaptureError::HeldOpen`])
/// rather than a listing cut in the middle.
pub(crate) fn capture_whole(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
    max: usize,
) -> Result<Captured, CaptureError> {
    let c = capture_keeping(
        Command::new(program),
        args,
        cwd,
        env,
        limit,
        &|| false,
        Keep::whole(max),
    );
    whole(c, max)
}

/// A capture that is only good whole: held open or cut is an error.
fn whole(c: Result<Captured, CaptureError>, max: usize) -> Result<Captured, CaptureError> {
    let c = c?;
    if c.held_open {
        Err(CaptureError::HeldOpen)
    } else if c.dropped > 0 {
        Err(CaptureError::TooLong { limit: max })
    } else {
        Ok(c)
    }
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
    capture_keeping(
        Command::new(program),
        args,
        cwd,
        env,
        limit,
        stop,
        Keep::HEAD_AND_TAIL,
    )
}

/// [`capture_whole`] with only `env` for an environment (nothing of pwk's own is
/// passed on but the run tag, [`super::children::RUN_TAG_VAR`]): `pwk verify`'s
/// driver, which must not see the user's keys.
pub(crate) fn capture_whole_clean(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
    max: usize,
) -> Result<Captured, CaptureError> {
    let mut cmd = Command::new(program);
    cmd.env_clear();
    let c = capture_keeping(cmd, args, cwd, env, limit, &|| false, Keep::whole(max));
    whole(c, max)
}

fn capture_keeping(
    mut cmd: Command,
    args: &[&str],
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
    stop: &dyn Fn() -> bool,
    keep: Keep,
) -> Result<Captured, CaptureError> {
    let program = PathBuf::from(cmd.get_program());
    // The same descendant reaping as a run: while the capture lasts pwk is a child
    // subreaper, so a daemon that double-forked out of the command's group comes back
    // to pwk and is stopped (SIGTERM, grace, SIGKILL) before the capture returns,
    // whichever way it ends.
    let run = super::children::begin_run();
    let mut sweep = run.sweep();
    run.tag(&mut cmd);
    let out = capture_in_run(
        cmd.args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v))),
        limit,
        stop,
        keep,
        // What holds a stream open now left the group: stop what carries this
        // capture's tag.
        &mut || {
            sweep.tick();
        },
    );
    run.end(sweep);
    out.map_err(|e| match e {
        CaptureError::Spawn { source, .. } => CaptureError::Spawn { program, source },
        e => e,
    })
}

fn capture_in_run(
    cmd: &mut Command,
    limit: Duration,
    stop: &dyn Fn() -> bool,
    keep: Keep,
    sweep: &mut dyn FnMut(),
) -> Result<Captured, CaptureError> {
    let mut tracked = super::children::spawn(
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|source| CaptureError::Spawn {
        program: PathBuf::new(),
        source,
    })?;
    let child = &mut tracked.child;
    let stopper = GroupStopper::new(child.id());
    let streams: Vec<mpsc::Receiver<(String, u64)>> = [
        child
            .stdout
            .take()
            .map(|s| BoundedCapture::spawn_keeping(s, "pi-capture-out", keep)),
        child
            .stderr
            .take()
            .map(|s| BoundedCapture::spawn_keeping(s, "pi-capture-err", keep)),
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
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
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
    let (mut dropped, mut held_open) = (0, false);
    let mut text: Vec<String> = Vec::new();
    for rx in streams {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left.min(Duration::from_millis(20))) {
                Ok((t, d)) => {
                    text.push(t);
                    dropped += d;
                    break;
                }
                Err(mpsc::RecvTimeoutError::Timeout) if !left.is_zero() => sweep(),
                // Still open (held by a process outside the group that outlived the
                // sweep): what it printed is not known whole.
                Err(_) => {
                    held_open = true;
                    break;
                }
            }
        }
    }
    Ok(Captured {
        status,
        text: text.join("\n"),
        dropped,
        held_open,
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
