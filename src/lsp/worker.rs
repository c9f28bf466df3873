//! The protocol thread and the worker: long work never delays `shutdown`, `exit`
//! or `$/cancelRequest`.
//!
//! The thread that reads the client's messages ([`protocol`]) answers those three
//! itself, at once, and hands everything else to the worker thread, which owns the
//! [`Server`](super::server) state and does the linting. Every response goes
//! through one [`Outbox`]: a request is answered exactly once — by the worker, or
//! by the protocol thread when the client cancels it first (the worker's late
//! answer is then dropped, and a request still queued is not computed at all).
//! After `shutdown` the worker stops taking work; at `exit` the outbox lets go of
//! the connection, so the process ends without waiting for work in progress.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use lsp_server::{Connection, ErrorCode, Message, RequestId, Response};
use serde_json::Value;

use super::ServeError;

/// Where every message to the client goes, from either thread.
type Sender = Box<dyn Fn(Message) -> bool + Send>;

pub(crate) struct Outbox {
    /// The connection's sender (`false`: the connection is gone).
    sender: Mutex<Option<Sender>>,
    /// Requests handed to the worker and not answered yet.
    pending: Mutex<HashSet<RequestId>>,
    shutdown: AtomicBool,
}

impl Outbox {
    pub(super) fn new(conn: &Connection) -> Outbox {
        Outbox {
            sender: Mutex::new(Some({
                let s = conn.sender.clone();
                Box::new(move |m| s.send(m).is_ok()) as Sender
            })),
            pending: Mutex::new(HashSet::new()),
            shutdown: AtomicBool::new(false),
        }
    }

    /// Send a notification or a request to the client (after `exit`: nothing).
    pub(super) fn send(&self, msg: Message) -> Result<(), ServeError> {
        match &*self.sender.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(s) if s(msg) => Ok(()),
            Some(_) => Err(ServeError::Disconnected),
            None => Ok(()),
        }
    }

    /// Answer a request the worker was given, unless it was answered already
    /// (cancelled).
    pub(super) fn reply(&self, resp: Response) -> Result<(), ServeError> {
        if self.take(&resp.id) {
            self.send(resp.into())
        } else {
            Ok(())
        }
    }

    /// Whether `id` still waits for its answer (not cancelled meanwhile).
    pub(super) fn is_pending(&self, id: &RequestId) -> bool {
        self.pending().contains(id)
    }

    /// Whether `shutdown` was answered: the worker takes no more work.
    pub(super) fn is_shut_down(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn take(&self, id: &RequestId) -> bool {
        self.pending().remove(id)
    }

    /// Let go of the connection: later sends are dropped.
    fn close(&self) {
        self.sender.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// What the worker is handed: the client's messages, less those the protocol
/// thread answers.
pub(crate) type Inbox = mpsc::Receiver<Message>;

/// Read the client's messages until `exit`, answering `shutdown`, `exit` and
/// `$/cancelRequest` here and handing the rest to `work` (run on its own thread).
pub(crate) fn protocol<W>(conn: &Connection, outbox: Arc<Outbox>, work: W) -> Result<(), ServeError>
where
    W: FnOnce(Arc<Outbox>, Inbox) + Send + 'static,
{
    let (tx, inbox) = mpsc::channel();
    let worker_outbox = Arc::clone(&outbox);
    std::thread::Builder::new()
        .name("pwk-lsp-worker".into())
        .spawn(move || work(worker_outbox, inbox))
        .map_err(|e| ServeError::Protocol(format!("cannot start a thread: {e}")))?;
    let result = loop {
        let Ok(msg) = conn.receiver.recv() else {
            break Err(ServeError::Disconnected);
        };
        match msg {
            Message::Request(req) if outbox.is_shut_down() => {
                outbox.send(
                    Response::new_err(
                        req.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is shutting down".into(),
                    )
                    .into(),
                )?;
            }
            Message::Request(req) if req.method == "shutdown" => {
                outbox.shutdown.store(true, Ordering::SeqCst);
                outbox.send(Response::new_ok(req.id, Value::Null).into())?;
            }
            Message::Request(req) => {
                outbox.pending().insert(req.id.clone());
                if tx.send(Message::Request(req)).is_err() {
                    break Err(ServeError::Protocol("the worker thread stopped".into()));
                }
            }
            Message::Notification(n) if n.method == "exit" => {
                break if outbox.is_shut_down() {
                    Ok(())
                } else {
                    Err(ServeError::ExitWithoutShutdown)
                };
            }
            Message::Notification(n) if n.method == "$/cancelRequest" => {
                if let Ok(c) = serde_json::from_value::<lsp_types::CancelParams>(n.params) {
                    let id = match c.id {
                        lsp_types::NumberOrString::Number(n) => RequestId::from(n),
                        lsp_types::NumberOrString::String(s) => RequestId::from(s),
                    };
                    outbox.reply(Response::new_err(
                        id,
                        ErrorCode::RequestCanceled as i32,
                        "cancelled".into(),
                    ))?;
                }
            }
            other => {
                // A worker that stopped (after `shutdown`) needs nothing more.
                let _ = tx.send(other);
            }
        }
    };
    outbox.close();
    result
}
