//! The task registry of one `pwk mcp` server: every delegated task (and every
//! review or recon run) the server started, its state, and its [`Remote`] (steer,
//! abort). Tasks run on their own threads through [`crate::delegate::task`] and the
//! one supervisor; at most `max_tasks` delegated tasks run at once (the others wait
//! in `starting`, and start in the order they were started). The write lock of `pwk delegate` serialises writing tasks in one
//! cwd across tasks, as across processes.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::delegate::Progress;
use crate::delegate::supervise::{Remote, StopReason};
use crate::delegate::task::{DelegateResult, How, delegate_with};
use crate::env::Env;

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum State {
    /// Accepted, waiting for a slot (the concurrency cap) or the write lock.
    Starting,
    Running,
    Completed,
    /// Failed, or blocked (the worker needs a decision): see the result.
    Failed,
    TimedOut,
    /// The stall watchdog stopped pi (no output while no tool ran).
    Stalled,
    Aborted,
}

impl State {
    /// The state a finished task's result document puts it in.
    fn of_result(r: &DelegateResult) -> State {
        match (r.status, r.stopped) {
            ("completed", _) => State::Completed,
            ("aborted", _) | (_, Some(StopReason::Aborted)) => State::Aborted,
            (_, Some(StopReason::Stall(_))) => State::Stalled,
            ("timed_out", _) => State::TimedOut,
            _ => State::Failed,
        }
    }
}

#[derive(Debug)]
struct Inner {
    state: State,
    turns: u32,
    tool_calls: u32,
    last_tool: Option<String>,
    result: Option<Value>,
    ended: Option<Duration>,
}

/// One task.
#[derive(Debug)]
pub(crate) struct Task {
    pub id: String,
    /// The request's own `taskId`.
    pub request_task_id: Option<String>,
    pub remote: Arc<Remote>,
    started: Instant,
    inner: Mutex<Inner>,
    done: tokio::sync::watch::Sender<bool>,
}

/// What `task_status` reports.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Status {
    pub task: String,
    pub request_task_id: Option<String>,
    pub state: State,
    pub turns: u32,
    pub tool_calls: u32,
    pub last_tool: Option<String>,
    pub elapsed_ms: u64,
    /// The process groups of the pi processes running for this task now.
    pub process_groups: Vec<u32>,
    pub steers_delivered: u32,
}

impl Task {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn state(&self) -> State {
        self.lock().state
    }

    pub(crate) fn status(&self) -> Status {
        let g = self.lock();
        Status {
            task: self.id.clone(),
            request_task_id: self.request_task_id.clone(),
            state: g.state,
            turns: g.turns,
            tool_calls: g.tool_calls,
            last_tool: g.last_tool.clone(),
            elapsed_ms: g
                .ended
                .unwrap_or_else(|| self.started.elapsed())
                .as_millis() as u64,
            process_groups: self.remote.groups(),
            steers_delivered: self.remote.steers_delivered(),
        }
    }

    /// The result document (`pwk delegate`'s), once the task has ended.
    pub(crate) fn result(&self) -> Option<Value> {
        self.lock().result.clone()
    }

    /// Resolves once the task has ended.
    pub(crate) async fn finished(&self) {
        let mut rx = self.done.subscribe();
        let _ = rx.wait_for(|d| *d).await;
    }

    fn progress(&self, p: &Progress) {
        let mut g = self.lock();
        match p {
            Progress::TurnStarted(n) => g.turns = *n,
            Progress::ToolCall { name } => {
                g.tool_calls += 1;
                g.last_tool = Some(name.clone());
            }
            _ => {}
        }
    }

    fn set_state(&self, state: State) {
        self.lock().state = state;
    }

    fn finish(&self, state: State, result: Value) {
        {
            let mut g = self.lock();
            g.state = state;
            g.result = Some(result);
            g.ended = Some(self.started.elapsed());
        }
        self.done.send_replace(true);
    }
}

/// The concurrency cap: counted slots, handed out in the order tasks were started.
#[derive(Debug)]
struct Slots {
    state: Mutex<SlotState>,
    cv: Condvar,
}

#[derive(Debug)]
struct SlotState {
    free: usize,
    /// Tickets of the tasks waiting for a slot, oldest first.
    queue: VecDeque<u64>,
    next_ticket: u64,
}

impl Slots {
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A place in the queue (taken when the task is started, so order is kept).
    fn ticket(&self) -> u64 {
        let mut g = self.lock();
        let t = g.next_ticket;
        g.next_ticket += 1;
        g.queue.push_back(t);
        t
    }

    /// Wait for this ticket's turn and a free slot; `None` when `remote` was aborted
    /// while waiting (the ticket leaves the queue).
    fn take(&self, ticket: u64, remote: &Remote) -> Option<SlotGuard<'_>> {
        let mut g = self.lock();
        loop {
            if remote.aborted() {
                g.queue.retain(|t| *t != ticket);
                self.cv.notify_all();
                return None;
            }
            if g.free > 0 && g.queue.front() == Some(&ticket) {
                g.queue.pop_front();
                g.free -= 1;
                self.cv.notify_all();
                return Some(SlotGuard(self));
            }
            g = self
                .cv
                .wait_timeout(g, Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

struct SlotGuard<'a>(&'a Slots);

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        self.0.lock().free += 1;
        self.0.cv.notify_all();
    }
}

/// Every task of one server.
#[derive(Debug)]
pub(crate) struct Registry {
    env: Env,
    tasks: Mutex<HashMap<String, Arc<Task>>>,
    /// Remotes of runs that are not tasks (review, recon), for [`Registry::abort_all`].
    others: Mutex<Vec<Arc<Remote>>>,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
    slots: Arc<Slots>,
    next: AtomicU64,
    default_budget: crate::delegate::Budget,
}

impl Registry {
    pub(crate) fn new(env: Env, max_tasks: usize) -> Registry {
        Registry {
            env,
            tasks: Mutex::new(HashMap::new()),
            others: Mutex::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
            slots: Arc::new(Slots {
                state: Mutex::new(SlotState {
                    free: max_tasks.max(1),
                    queue: VecDeque::new(),
                    next_ticket: 0,
                }),
                cv: Condvar::new(),
            }),
            next: AtomicU64::new(1),
            default_budget: crate::delegate::Budget::default(),
        }
    }

    /// Every task's (and every `review` / `recon` role's) limits where its request
    /// sets none: `[delegate] budget` of the server's project.
    pub(crate) fn with_default_budget(mut self, budget: crate::delegate::Budget) -> Registry {
        self.default_budget = budget;
        self
    }

    pub(crate) fn default_budget(&self) -> crate::delegate::Budget {
        self.default_budget
    }

    pub(crate) fn env(&self) -> &Env {
        &self.env
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Task>> {
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    pub(crate) fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect();
        ids.sort_by_key(|id| id.trim_start_matches("t").parse::<u64>().unwrap_or(0));
        ids
    }

    /// Start a validated request as a task (over RPC, so it can be steered).
    pub(crate) fn start(self: &Arc<Self>, map: Map<String, Value>) -> Arc<Task> {
        let id = format!("t{}", self.next.fetch_add(1, Ordering::Relaxed));
        let (done, _) = tokio::sync::watch::channel(false);
        let task = Arc::new(Task {
            id: id.clone(),
            request_task_id: map
                .get("taskId")
                .and_then(Value::as_str)
                .map(str::to_string),
            remote: Arc::new(Remote::default()),
            started: Instant::now(),
            inner: Mutex::new(Inner {
                state: State::Starting,
                turns: 0,
                tool_calls: 0,
                last_tool: None,
                result: None,
                ended: None,
            }),
            done,
        });
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), Arc::clone(&task));
        let ticket = self.slots.ticket();
        let me = Arc::clone(self);
        let t = Arc::clone(&task);
        let handle = std::thread::Builder::new()
            .name(format!("pwk-task-{id}"))
            .spawn(move || me.run(&t, ticket, &map));
        match handle {
            Ok(h) => {
                let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
                threads.retain(|t| !t.is_finished());
                threads.push(h);
            }
            Err(e) => {
                self.slots.lock().queue.retain(|t| *t != ticket);
                self.slots.cv.notify_all();
                task.finish(
                    State::Failed,
                    serde_json::json!({"status": "failed", "error": {"code": "PI_FAILED",
                    "message": format!("pwk could not start a thread for the task: {e}")}}),
                );
            }
        }
        task
    }

    fn run(&self, task: &Task, ticket: u64, map: &Map<String, Value>) {
        let Some(_slot) = self.slots.take(ticket, &task.remote) else {
            let mut r = DelegateResult::blank(Some(map));
            r.status = "aborted";
            r.error = Some(crate::delegate::RunError::new(
                crate::delegate::ErrorCode::Aborted,
                "the task was aborted before it started; pi was never run",
            ));
            task.finish(State::Aborted, to_value(&r));
            return;
        };
        task.set_state(State::Running);
        let progress = |p: &Progress, _label: &str| task.progress(p);
        let mut on_wait = |_: &str, _: &std::path::Path| {};
        let how = How {
            dry_run: false,
            check_only: false,
            rpc: true,
            remote: Some(Arc::clone(&task.remote)),
            progress: &progress,
            on_wait: &mut on_wait,
            default_budget: self.default_budget,
        };
        let result = delegate_with(map, how, &self.env);
        task.finish(State::of_result(&result), to_value(&result));
    }

    /// Keep `remote` so that [`Registry::abort_all`] stops its runs too.
    pub(crate) fn track(&self, remote: &Arc<Remote>) {
        let mut others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        others.retain(|r| Arc::strong_count(r) > 1);
        others.push(Arc::clone(remote));
    }

    /// Abort every task and run, and wait (bounded) for their threads: every pi
    /// process group the server started is gone when this returns.
    pub(crate) fn abort_all(&self, wait: Duration) {
        let tasks: Vec<Arc<Task>> = self
            .tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for t in &tasks {
            t.remote.abort();
        }
        for r in self.others.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            r.abort();
        }
        let deadline = Instant::now() + wait;
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for h in threads {
            while !h.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if h.is_finished() {
                let _ = h.join();
            }
        }
        // Runs that are not tasks (review, recon) end on their own blocking threads.
        while Instant::now() < deadline
            && self
                .others
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .any(|r| !r.groups().is_empty())
        {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn to_value(r: &DelegateResult) -> Value {
    serde_json::to_value(r).unwrap_or(Value::Null)
}
