//! The one supervisor of a pi process, whatever its transport.
//!
//! [`supervise`] spawns pi in its own process group, feeds its stdin from a writer
//! thread (the prompt, and for RPC the commands that follow), reads stdout on a
//! reader thread (framed events, or raw text), drains stderr (bounded head and tail),
//! and runs the checks every ~25 ms: the wall-clock timeout, the stall watchdog (no
//! output while no tool runs, once pi has printed something), pwk's signal flag, and
//! the turn budget. Any of them sends SIGTERM to the group, then SIGKILL after
//! [`KILL_GRACE`].
//!
//! Every wait is bounded: once pi has exited, a reader still blocked (a process
//! outside pi's group — a `setsid` daemon — holds stdout open) is abandoned after
//! [`READER_GRACE`], or at once when pwk receives a signal, and what it had parsed so
//! far is kept. pi's process group is killed and waited for before returning, so no
//! tool child outlives the run; and a process that left the group (a `setsid`
//! daemon, re-parented to pwk as a child subreaper, `crate::pi::children`) is
//! stopped too: while pi's stdout stays open past its exit when this is the only
//! run, and before returning when the last run ends ([`Supervised::escaped`]).
//!
//! Another thread steers or aborts a run through its [`Remote`] (`Spawn::remote`):
//! the loop delivers queued steer messages to the transport ([`Transport::steer`];
//! only RPC can) and stops the group for [`StopReason::Aborted`] on its next check.
//!
//! What differs between transports is the small [`Transport`] trait:
//! `transport::json` (prompt on stdin, then EOF) and `transport::rpc` (`--mode rpc`
//! commands, steering at the turn budget).

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use super::budget::{Budget, BudgetHit};
pub(crate) use super::process::KILL_GRACE;
use super::process::{
    self, Activity, BoundedCapture, GroupStopper, interrupted, read_chunks, read_chunks_sized,
};
use super::stream::{Line, LineFramer, StreamState};
use super::types::Progress;
use crate::pi::children::{self, Sweep};

/// After pi exited, how long its stdout may stay open before pwk stops reading it
/// (pi's group is SIGKILLed after [`GROUP_SWEEP_AFTER`]; what is left then is a
/// process outside the group).
pub(crate) const READER_GRACE: Duration = Duration::from_secs(5);
/// After pi exited with stdout still open: SIGKILL what is left of its group.
const GROUP_SWEEP_AFTER: Duration = Duration::from_secs(2);
/// How long to wait for pi's group to be gone after the run.
const GROUP_GONE_WAIT: Duration = Duration::from_secs(2);
/// How long to wait for the stderr capture after pi exited.
const STDERR_WAIT: Duration = Duration::from_secs(2);
/// The size asked for pi's stdout pipe, and the event reader's buffer.
const STREAM_PIPE: usize = 1 << 20;
/// Text mode: the most stdout kept as the answer.
const TEXT_MODE_CAP: usize = 16 << 20;

/// How stdout is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// LF-framed JSON events, parsed into a [`StreamState`].
    Events,
    /// Raw text (pi's `--print` mode), kept up to 16 MiB.
    Text,
}

/// Something the supervisor hands the transport.
#[derive(Debug)]
pub(crate) enum Event<N> {
    Progress(Progress),
    /// `agent_end`; `failed`: the last model call failed (pi may retry it).
    AgentEnd {
        failed: bool,
    },
    /// A transport-specific line ([`Transport::sniff`]).
    Note(N),
}

/// Why the supervisor stopped pi's process group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StopReason {
    Timeout(Duration),
    Stall(Duration),
    /// The turn budget (the value reported) was exhausted.
    TurnBudget(u32),
    Signal(i32),
    /// [`Remote::abort`] was called (a client asked to abort the task).
    Aborted,
    /// The run's spend budget was crossed.
    Budget(BudgetHit),
}

/// A handle that other threads use to steer or abort supervised runs: one per task
/// (several runs may share one, e.g. the roles of one review). Cheap to share in an
/// `Arc`; every method is non-blocking.
#[derive(Debug, Default)]
pub struct Remote {
    state: Mutex<RemoteState>,
}

#[derive(Debug, Default)]
struct RemoteState {
    aborted: bool,
    steers: Vec<String>,
    delivered: u32,
    /// Process groups of the runs being supervised now.
    groups: Vec<u32>,
}

impl Remote {
    fn lock(&self) -> std::sync::MutexGuard<'_, RemoteState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stop every run supervised with this handle (now and later): process-group
    /// SIGTERM → grace → SIGKILL, reason [`StopReason::Aborted`].
    pub fn abort(&self) {
        self.lock().aborted = true;
    }

    pub fn aborted(&self) -> bool {
        self.lock().aborted
    }

    /// Queue a message for the running pi; the supervisor hands it to the transport
    /// on its next check ([`Transport::steer`]).
    pub fn steer(&self, message: impl Into<String>) {
        self.lock().steers.push(message.into());
    }

    /// How many steer messages a transport has sent to pi.
    pub fn steers_delivered(&self) -> u32 {
        self.lock().delivered
    }

    /// The process groups (= leader pids) of the runs being supervised now.
    pub fn groups(&self) -> Vec<u32> {
        self.lock().groups.clone()
    }

    fn take_steers(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().steers)
    }

    fn delivered(&self) {
        self.lock().delivered += 1;
    }

    fn attach(&self, pgid: u32) {
        self.lock().groups.push(pgid);
    }

    fn detach(&self, pgid: u32) {
        self.lock().groups.retain(|g| *g != pgid);
    }
}

/// What a transport may do from its callbacks.
#[derive(Debug, Default)]
pub(crate) struct Control {
    stdin: Option<mpsc::Sender<Vec<u8>>>,
    stop: Option<StopReason>,
}

impl Control {
    /// Write a line (or any bytes) to pi's stdin; ignored once stdin is closed.
    pub(crate) fn send(&mut self, bytes: impl Into<Vec<u8>>) {
        if let Some(tx) = &self.stdin {
            let _ = tx.send(bytes.into());
        }
    }

    /// Close pi's stdin (RPC pi shuts down at EOF).
    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Stop pi's process group for `why` (the first reason wins).
    pub(crate) fn stop(&mut self, why: StopReason) {
        self.stop.get_or_insert(why);
    }
}

/// The part of a run that depends on how pwk talks to pi.
pub(crate) trait Transport {
    /// A transport-specific fact found in a stdout line (sniffed on the reader thread).
    type Note: Send + 'static;

    fn reading(&self) -> Reading {
        Reading::Events
    }
    /// What pi's stdin receives first; `None`: stdin is `/dev/null`.
    fn initial_input(&mut self) -> Option<Vec<u8>>;
    /// Keep stdin open after the initial input (RPC: more commands follow).
    fn keep_stdin_open(&self) -> bool {
        false
    }
    /// Recognise a transport-specific line (runs on the reader thread).
    fn sniff(line: &[u8]) -> Option<Self::Note>;
    /// React to an event (on the supervisor thread).
    fn on_event(&mut self, _ev: &Event<Self::Note>, _ctl: &mut Control) {}
    /// Called on every check (~25 ms).
    fn on_tick(&mut self, _ctl: &mut Control) {}
    /// The stall watchdog is paused (e.g. while waiting for pi's own retry).
    fn stall_paused(&self) -> bool {
        false
    }
    /// Send a steer message to the running pi; `false`: this transport cannot (the
    /// message is dropped and stays queued nowhere).
    fn steer(&mut self, _message: &str, _ctl: &mut Control) -> bool {
        false
    }
}

/// The turn budget the supervisor enforces: pi is stopped once turn `stop_after + 1`
/// starts; `budget` is the number reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TurnLimit {
    pub budget: u32,
    pub stop_after: u32,
}

/// The limits of one run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Limits {
    /// Wall clock, counted from `start`.
    pub timeout: Option<Duration>,
    pub stall: Option<Duration>,
    pub turns: Option<TurnLimit>,
    /// Tokens and cost summed from the stream; wall clock counted from `start`.
    pub budget: Budget,
}

/// What to launch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spawn<'a> {
    pub program: &'a Path,
    pub args: &'a [String],
    pub cwd: &'a Path,
    pub env: &'a [(String, String)],
    /// Steering and abort from other threads.
    pub remote: Option<&'a Remote>,
}

/// Why stdout was not read to EOF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Abandoned {
    /// pi exited and something outside its group kept stdout open past [`READER_GRACE`].
    AfterExit,
    /// pwk received this signal while pi had exited and stdout was still open.
    OnSignal(i32),
}

/// Everything one supervised run produced.
#[derive(Debug, Default)]
pub(crate) struct Supervised {
    /// The events parsed (when stdout was abandoned: what was parsed until then).
    pub state: StreamState,
    /// [`Reading::Text`]: what pi printed.
    pub text_output: Option<String>,
    /// The kept part of pi's stderr.
    pub stderr: String,
    pub status: Option<ExitStatus>,
    pub stopped: Option<StopReason>,
    pub spawn_error: Option<std::io::Error>,
    pub stdout_abandoned: Option<Abandoned>,
    /// pi's process group was still there after the final SIGKILL and wait.
    pub group_left: bool,
    /// Processes that had left pi's process group and were stopped (or are left).
    pub escaped: crate::pi::children::Escaped,
}

#[derive(Default)]
struct ReaderOut {
    state: StreamState,
    text: Vec<u8>,
    text_total: u64,
}

/// Run pi once under supervision. Never panics on pi's behaviour.
pub(crate) fn supervise<T: Transport>(
    spawn: Spawn<'_>,
    transport: &mut T,
    limits: Limits,
    start: Instant,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Supervised {
    let flag = interrupted();
    let initial = transport.initial_input();
    let mut cmd = Command::new(spawn.program);
    cmd.args(spawn.args)
        .current_dir(spawn.cwd)
        .envs(spawn.env.iter().map(|(k, v)| (k, v)))
        .stdin(if initial.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let run = children::begin_run();
    run.tag(&mut cmd);
    let mut tracked = match children::spawn(&mut cmd) {
        Ok(c) => c,
        Err(e) => {
            return Supervised {
                spawn_error: Some(e),
                escaped: run.end(Sweep::default()),
                ..Supervised::default()
            };
        }
    };
    let child = &mut tracked.child;
    let pgid = child.id();
    let mut ctl = Control::default();
    if let Some(r) = spawn.remote {
        r.attach(pgid);
    }

    // stdin: a writer thread fed by a channel (a large prompt fills the pipe before pi
    // reads it); dropping the sender closes stdin.
    if let (Some(mut stdin), Some(first)) = (child.stdin.take(), initial) {
        let (tx, rx) = mpsc::channel::<Vec<u8>>();
        let _ = tx.send(first);
        let _ = std::thread::Builder::new()
            .name("pi-stdin".into())
            .spawn(move || {
                for bytes in rx {
                    if stdin
                        .write_all(&bytes)
                        .and_then(|()| stdin.flush())
                        .is_err()
                    {
                        break;
                    }
                }
            });
        if transport.keep_stdin_open() {
            ctl.stdin = Some(tx);
        }
    }

    let stderr_rx = child
        .stderr
        .take()
        .map(|err| BoundedCapture::spawn(err, "pi-stderr"));

    let activity = Arc::new(Activity::default());
    let out = Arc::new(Mutex::new(ReaderOut::default()));
    let (ev_tx, ev_rx) = mpsc::channel::<Event<T::Note>>();
    let reading = transport.reading();
    let reader = child.stdout.take().and_then(|stdout| {
        let activity = Arc::clone(&activity);
        let out = Arc::clone(&out);
        std::thread::Builder::new()
            .name("pi-stdout".into())
            .spawn(move || read_stdout::<T>(stdout, reading, &activity, &out, &ev_tx, start))
            .ok()
    });

    let mut stopper = GroupStopper::new(pgid);
    let mut exited: Option<(ExitStatus, Instant)> = None;
    let mut reader_done = reader.is_none();
    let mut abandoned = None;
    let mut sweep = run.sweep();
    loop {
        match ev_rx.recv_timeout(Duration::from_millis(25)) {
            Ok(ev) => {
                if let Event::Progress(Progress::TurnStarted(n)) = &ev
                    && let Some(limit) = limits.turns
                    && *n > limit.stop_after
                {
                    ctl.stop(StopReason::TurnBudget(limit.budget));
                }
                if ctl.stop.is_none() {
                    if let Event::Progress(p) = &ev {
                        progress(p);
                    }
                    transport.on_event(&ev, &mut ctl);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // stdout is at EOF; pi is about to exit: poll briefly instead of spinning.
                if reader_done {
                    std::thread::sleep(Duration::from_millis(1));
                }
                reader_done = true;
                ctl.close_stdin();
            }
        }
        transport.on_tick(&mut ctl);
        if let Some(r) = spawn.remote
            && exited.is_none()
        {
            if r.aborted() {
                ctl.stop(StopReason::Aborted);
            } else if ctl.stop.is_none() {
                for message in r.take_steers() {
                    if transport.steer(&message, &mut ctl) {
                        r.delivered();
                    }
                }
            }
        }
        if exited.is_none()
            && let Ok(Some(st)) = child.try_wait()
        {
            exited = Some((st, Instant::now()));
        }
        if ctl.stop.is_none() && exited.is_none() {
            let sig = flag.load(Ordering::Relaxed);
            if sig != 0 {
                ctl.stop(StopReason::Signal(sig as i32));
            } else if let Some(hit) = limits
                .budget
                .crossed(activity.tokens(), activity.cost())
                .or_else(|| {
                    let (tokens, cost) = activity.unknown();
                    limits.budget.unenforceable(tokens, cost)
                })
            {
                ctl.stop(StopReason::Budget(hit));
            } else if let Some(w) = limits.budget.wall()
                && start.elapsed() >= w
            {
                ctl.stop(StopReason::Budget(BudgetHit::Wall { max: w.as_secs() }));
            } else if let Some(t) = limits.timeout
                && start.elapsed() >= t
            {
                ctl.stop(StopReason::Timeout(t));
            } else if let Some(stall) = limits.stall
                && !transport.stall_paused()
                && activity.stalled(start, stall)
            {
                ctl.stop(StopReason::Stall(stall));
            }
        }
        if exited.is_none() {
            if ctl.stop.is_some() {
                stopper.stop();
            }
            stopper.tick();
        }
        if reader_done && exited.is_some() {
            break;
        }
        // pi exited but something still holds stdout open: sweep the group, then stop
        // reading (at once when pwk is asked to end).
        if let Some((_, at)) = exited
            && !reader_done
        {
            let sig = flag.load(Ordering::Relaxed);
            if sig != 0 {
                abandoned = Some(Abandoned::OnSignal(sig as i32));
                break;
            }
            if at.elapsed() >= GROUP_SWEEP_AFTER {
                stopper.kill();
                // What holds stdout now left pi's group: stop what carries this
                // run's tag.
                sweep.tick();
            }
            if at.elapsed() >= READER_GRACE {
                abandoned = Some(Abandoned::AfterExit);
                break;
            }
        }
    }
    drop(ctl.stdin.take());
    let status = match exited {
        Some((st, _)) => Some(st),
        None => child.wait().ok(),
    };
    // No tool child survives the run: SIGKILL the group and wait until it is gone
    // (pi's status is taken: its group's zombies are reaped while waiting).
    let group_left = !process::kill_reap_group_and_wait(pgid, GROUP_GONE_WAIT);
    if let Some(r) = spawn.remote {
        r.detach(pgid);
    }
    let (state, text_output) = match reader {
        Some(h) if abandoned.is_none() => {
            let _ = h.join();
            take_output(&out, reading)
        }
        _ => take_output(&out, reading),
    };
    let stderr = stderr_rx
        .and_then(|rx| rx.recv_timeout(STDERR_WAIT).ok())
        .unwrap_or_default();
    reap(child);
    drop(tracked);
    let escaped = run.end(sweep);
    Supervised {
        state,
        text_output,
        stderr,
        status,
        stopped: ctl.stop,
        spawn_error: None,
        stdout_abandoned: abandoned,
        group_left,
        escaped,
    }
}

fn reap(child: &mut Child) {
    let _ = child.try_wait();
}

/// The reader's results so far (all of them once it finished).
fn take_output(out: &Mutex<ReaderOut>, reading: Reading) -> (StreamState, Option<String>) {
    let mut g = out.lock().unwrap_or_else(|e| e.into_inner());
    let state = std::mem::take(&mut g.state);
    let text = match reading {
        Reading::Events => None,
        Reading::Text => {
            let mut s = String::from_utf8_lossy(&g.text).into_owned();
            if g.text_total > g.text.len() as u64 {
                s.push_str("\n[pwk: output cut at 16 MiB]");
            }
            Some(s)
        }
    };
    (state, text)
}

fn read_stdout<T: Transport>(
    stdout: std::process::ChildStdout,
    reading: Reading,
    activity: &Activity,
    out: &Mutex<ReaderOut>,
    ev_tx: &mpsc::Sender<Event<T::Note>>,
    start: Instant,
) {
    match reading {
        Reading::Events => {
            let mut framer = LineFramer::default();
            let on_line = |line: Line<'_>, state: &mut StreamState| {
                if let Line::Complete(bytes) = &line
                    && let Some(n) = T::sniff(bytes)
                {
                    let _ = ev_tx.send(Event::Note(n));
                }
                let before_end = state.saw_agent_end;
                state.feed(line, &mut |p| {
                    let _ = ev_tx.send(Event::Progress(p));
                });
                if state.saw_agent_end && !before_end {
                    let failed = state.final_message.as_ref().is_none_or(|m| {
                        matches!(m.stop_reason.as_deref(), Some("error" | "aborted"))
                    });
                    let _ = ev_tx.send(Event::AgentEnd { failed });
                }
            };
            // pi's event stream can be hundreds of MB: a larger pipe (the kernel's
            // default maximum, 1 MiB) and reads to match mean fewer wake-ups per MB
            // for pi and for this thread. Refused (an unusual limit): the default.
            let _ = rustix::pipe::fcntl_setpipe_size(&stdout, STREAM_PIPE);
            read_chunks_sized(stdout, STREAM_PIPE, |chunk| {
                activity.output(start);
                let mut g = out.lock().unwrap_or_else(|e| e.into_inner());
                let state = &mut g.state;
                framer.push(chunk, &mut |line| on_line(line, state));
                activity.set_tools_in_flight(state.tools_in_flight);
                if let Some(u) = &state.usage {
                    activity.set_usage(state.budget_tokens, u.cost);
                }
                let gaps = &state.unknown_usage;
                activity.set_unknown(gaps.tokens > 0, gaps.cost > 0);
            });
            let mut g = out.lock().unwrap_or_else(|e| e.into_inner());
            let state = &mut g.state;
            framer.finish(&mut |line| on_line(line, state));
        }
        Reading::Text => read_chunks(stdout, |chunk| {
            activity.output(start);
            let mut g = out.lock().unwrap_or_else(|e| e.into_inner());
            g.text_total += chunk.len() as u64;
            let room = TEXT_MODE_CAP.saturating_sub(g.text.len());
            g.text.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }),
    }
}
