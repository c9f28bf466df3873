//! The server loop, on the worker thread ([`super::worker`]): messages handled in
//! the order they arrive. `shutdown`, `exit` and `$/cancelRequest` are answered by
//! the protocol thread at once, however long the work here takes; a request
//! cancelled before the worker reaches it is not computed.
//!
//! Before handling anything the loop takes every message already waiting, so a
//! burst of `didChange` costs one lint. Diagnostics are published once the queue
//! is empty; a request that needs them (code actions) brings them up to date first.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lt;
use serde_json::Value;

use super::document::{Document, Open, to_lsp};
use super::position::Encoding;
use super::uri;
use super::worker::{Inbox, Outbox};
use super::workspace::{Setup, Workspace};
use super::{ServeError, actions, complete, info, models::ModelCache};
use crate::fs::read::MAX_ROLE_FILE_BYTES;
use crate::lint::NameSite;

pub(crate) struct Server {
    pub enc: Encoding,
    pub ws: Workspace,
    pub docs: BTreeMap<String, Open>,
    pub models: ModelCache,
    pi: Option<PathBuf>,
    /// The client takes snippets in completions.
    snippets: bool,
    /// Cross-file findings must be recomputed before publishing.
    cross_dirty: bool,
    /// The configuration error last shown to the user.
    config_reported: Option<String>,
    /// The note about linked role directories last shown to the user.
    linked_reported: Option<String>,
    /// Buffers whose single-file findings are stale.
    dirty: std::collections::BTreeSet<String>,
    /// Buffers whose findings may differ from what was last published.
    unpublished: std::collections::BTreeSet<String>,
    watch_dynamic: bool,
    next_id: i32,
}

/// Start-up options from the command line (the client can override the host).
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub cwd: PathBuf,
    /// `cwd` is the project root whatever the client says (`--dir`).
    pub root_fixed: bool,
    pub home: Option<PathBuf>,
    pub agent_dir: Option<PathBuf>,
    /// `--host`; `None`: the project's `pwk.toml`, else detected.
    pub host: Option<crate::host::HostChoice>,
    /// `--config FILE` (absolute).
    pub config: Option<PathBuf>,
    /// The pi program, when one was found (for model ids).
    pub pi: Option<PathBuf>,
}

/// Serve one client on `conn` until `exit`.
///
/// Until a valid `initialize` arrives, other requests are answered
/// `ServerNotInitialized` and notifications dropped; an `initialize` whose params
/// pwk cannot use (a bad `initializationOptions.host`, …) is answered with an
/// `InvalidParams` error and the server waits for another one.
pub(crate) fn serve(conn: &Connection, opts: Options) -> Result<(), ServeError> {
    let outbox = Arc::new(Outbox::new(conn));
    let conn_out = &*outbox;
    let mut server = loop {
        let msg = conn.receiver.recv().map_err(|_| ServeError::Disconnected)?;
        match msg {
            Message::Request(req) if req.method == "initialize" => {
                match Server::initialize(req.params, &opts) {
                    Ok((server, result)) => {
                        send(conn_out, Response::new_ok(req.id, result).into())?;
                        break server;
                    }
                    Err(message) => send(
                        conn_out,
                        Response::new_err(
                            req.id,
                            ErrorCode::InvalidParams as i32,
                            crate::text::escape_line(&message).into_owned(),
                        )
                        .into(),
                    )?,
                }
            }
            Message::Request(req) => send(
                conn_out,
                Response::new_err(
                    req.id,
                    ErrorCode::ServerNotInitialized as i32,
                    "the server is not initialized: send `initialize` first".into(),
                )
                .into(),
            )?,
            Message::Notification(n) if n.method == "exit" => {
                return Err(ServeError::ExitWithoutShutdown);
            }
            Message::Notification(_) | Message::Response(_) => {}
        }
    };
    super::worker::protocol(conn, Arc::clone(&outbox), move |outbox, inbox| {
        // The worker's end: an error here is a closed connection (`exit` came).
        let _ = server.run(&outbox, inbox);
    })
}

impl Server {
    /// The server an `initialize` request sets up, and the result to answer it
    /// with; `Err`: why its params cannot be used.
    fn initialize(params: Value, opts: &Options) -> Result<(Server, Value), String> {
        let params: lt::InitializeParams =
            serde_json::from_value(params).map_err(|e| format!("bad initialize params: {e}"))?;
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_deref());
        let enc = Encoding::negotiate(offered);
        let root = match opts.root_fixed {
            true => opts.cwd.clone(),
            false => workspace_root(&params).unwrap_or_else(|| opts.cwd.clone()),
        };
        let init = params.initialization_options.clone().unwrap_or(Value::Null);
        let host = match init.get("host") {
            None | Some(Value::Null) => opts.host.clone(),
            Some(Value::String(h)) => {
                Some(h.parse().map_err(|e: crate::host::HostError| {
                    format!("initializationOptions.host: {e}")
                })?)
            }
            Some(other) => {
                return Err(format!(
                    "initializationOptions.host must be a host name (a string), found {other}"
                ));
            }
        };
        let watch_dynamic = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        let snippets = params
            .capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false);
        let ws = Workspace::new(Setup {
            root,
            home: opts.home.clone(),
            agent_dir: opts.agent_dir.clone(),
            host,
            config: opts.config.clone(),
        });
        let result = serde_json::json!({
            "capabilities": capabilities(enc),
            "serverInfo": {"name": "pwk", "version": env!("CARGO_PKG_VERSION")},
        });
        let server = Server {
            enc,
            ws,
            docs: BTreeMap::new(),
            models: ModelCache::default(),
            pi: opts.pi.clone(),
            snippets,
            cross_dirty: false,
            config_reported: None,
            linked_reported: None,
            dirty: Default::default(),
            unpublished: Default::default(),
            watch_dynamic,
            next_id: 0,
        };
        Ok((server, result))
    }
}

fn workspace_root(params: &lt::InitializeParams) -> Option<PathBuf> {
    if let Some(f) = params.workspace_folders.as_ref().and_then(|f| f.first()) {
        return uri::to_path(&f.uri);
    }
    #[allow(deprecated)]
    params.root_uri.as_ref().and_then(uri::to_path)
}

fn capabilities(enc: Encoding) -> lt::ServerCapabilities {
    use lt::*;
    ServerCapabilities {
        position_encoding: Some(enc.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(true),
                })),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), ",".into(), "-".into()]),
            ..Default::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::new(actions::FIX_ALL),
            ]),
            ..Default::default()
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        ..Default::default()
    }
}

impl Server {
    fn run(&mut self, conn: &Outbox, incoming: Inbox) -> Result<(), ServeError> {
        let mut queue: VecDeque<Message> = VecDeque::new();
        loop {
            if queue.is_empty() {
                match incoming.recv() {
                    Ok(m) => queue.push_back(m),
                    Err(_) => return Err(ServeError::Disconnected),
                }
            }
            drain(&incoming, &mut queue);
            while let Some(msg) = queue.pop_front() {
                if conn.is_shut_down() {
                    // `shutdown` was answered: no more work. The requests still
                    // queued are refused, not computed.
                    drain(&incoming, &mut queue);
                    for m in std::iter::once(msg).chain(queue.drain(..)) {
                        if let Message::Request(req) = m {
                            conn.reply(Response::new_err(
                                req.id,
                                ErrorCode::InvalidRequest as i32,
                                "the server is shutting down".into(),
                            ))?;
                        }
                    }
                    return Ok(());
                }
                match msg {
                    Message::Request(req) => {
                        // A cancellation the protocol thread answered meanwhile.
                        if !conn.is_pending(&req.id) {
                            continue;
                        }
                        let resp = self.request(conn, req);
                        conn.reply(resp)?;
                    }
                    Message::Notification(n) => self.notification(conn, n)?,
                    Message::Response(_) => {}
                }
                // A burst of edits that came meanwhile costs one lint.
                drain(&incoming, &mut queue);
            }
            self.publish(conn)?;
        }
    }

    /// Answer one request; a handler that panics answers an internal error and the
    /// server goes on.
    fn request(&mut self, conn: &Outbox, req: Request) -> Response {
        let id = req.id.clone();
        let method = req.method.clone();
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.dispatch(conn, req)));
        match outcome {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err(resp)) => resp,
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("pwk: internal error while answering {method}"),
            ),
        }
    }

    fn dispatch(&mut self, conn: &Outbox, req: Request) -> Result<Value, Response> {
        let id = req.id.clone();
        let bad = |e: serde_json::Error| {
            Response::new_err(
                id.clone(),
                ErrorCode::InvalidParams as i32,
                format!("invalid params: {e}"),
            )
        };
        let json = |v: Result<Value, serde_json::Error>| v.map_err(bad);
        match req.method.as_str() {
            "initialize" => Err(Response::new_err(
                id,
                ErrorCode::InvalidRequest as i32,
                "the server is already initialized".into(),
            )),
            "textDocument/hover" => {
                let p: lt::HoverParams = serde_json::from_value(req.params).map_err(bad)?;
                let pos = p.text_document_position_params;
                let out = self
                    .owned(&pos.text_document.uri)
                    .and_then(|o| info::hover(&self.ws, o, pos.position, self.enc));
                json(serde_json::to_value(out))
            }
            "textDocument/completion" => {
                let p: lt::CompletionParams = serde_json::from_value(req.params).map_err(bad)?;
                let pos = p.text_document_position;
                let Some(o) = self.owned(&pos.text_document.uri) else {
                    return Ok(Value::Null);
                };
                let r = complete::Request {
                    ws: &self.ws,
                    models: &self.models,
                    pi: self.pi.as_deref(),
                    snippets: self.snippets,
                };
                let out = complete::complete(&r, o, pos.position, self.enc);
                json(serde_json::to_value(out))
            }
            "textDocument/codeAction" => {
                let p: lt::CodeActionParams = serde_json::from_value(req.params).map_err(bad)?;
                self.refresh(conn).map_err(|_| {
                    Response::new_err(id.clone(), ErrorCode::InternalError as i32, "io".into())
                })?;
                let Some(o) = self.owned(&p.text_document.uri) else {
                    return Ok(Value::Array(Vec::new()));
                };
                json(serde_json::to_value(actions::code_actions(
                    o,
                    p.range,
                    p.context.only.as_deref(),
                    self.enc,
                )))
            }
            "textDocument/documentSymbol" => {
                let p: lt::DocumentSymbolParams =
                    serde_json::from_value(req.params).map_err(bad)?;
                let out = self
                    .owned(&p.text_document.uri)
                    .map(|o| info::symbols(o, self.enc));
                json(serde_json::to_value(out))
            }
            "textDocument/definition" => {
                let p: lt::GotoDefinitionParams =
                    serde_json::from_value(req.params).map_err(bad)?;
                let uri = p.text_document_position_params.text_document.uri;
                let out = self
                    .owned(&uri)
                    .map(|o| info::definition(&self.ws, o, self.enc));
                json(serde_json::to_value(out))
            }
            _ => Err(Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("pwk lsp does not handle {}", req.method),
            )),
        }
    }

    /// The open buffer at `uri`, when pwk serves it and it is within the size cap
    /// of a role file (over it, diagnostics say `file-too-large` and every request
    /// gets an empty answer, so no request parses a huge buffer).
    fn owned(&self, uri: &lt::Uri) -> Option<&Open> {
        self.docs
            .get(uri.as_str())
            .filter(|o| o.owned && o.doc.text.len() as u64 <= MAX_ROLE_FILE_BYTES)
    }

    fn notification(&mut self, conn: &Outbox, n: Notification) -> Result<(), ServeError> {
        let method = n.method.clone();
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.notify(conn, n)));
        match outcome {
            Ok(r) => r,
            Err(_) => {
                crate::display::eprintln_safe(&format!(
                    "pwk lsp: internal error while handling {method}; the server goes on"
                ));
                Ok(())
            }
        }
    }

    fn notify(&mut self, conn: &Outbox, n: Notification) -> Result<(), ServeError> {
        match n.method.as_str() {
            "initialized" => {
                if self.watch_dynamic {
                    self.register_watchers(conn)?;
                }
                self.report_config(conn)?;
            }
            "textDocument/didOpen" => {
                let Ok(p) = serde_json::from_value::<lt::DidOpenTextDocumentParams>(n.params)
                else {
                    return Ok(());
                };
                let d = p.text_document;
                let path = uri::to_path(&d.uri);
                let owned = match &path {
                    Some(p) => self.ws.owns(p, &d.text),
                    None => false,
                };
                let doc = Document::new(d.uri.clone(), path.unwrap_or_default(), d.version, d.text);
                let key = d.uri.as_str().to_string();
                self.docs.insert(
                    key.clone(),
                    Open {
                        doc,
                        owned,
                        single: None,
                        name: None,
                        cross: Vec::new(),
                        published: None,
                    },
                );
                self.dirty.insert(key);
                self.cross_dirty = true;
            }
            "textDocument/didChange" => {
                let Ok(p) = serde_json::from_value::<lt::DidChangeTextDocumentParams>(n.params)
                else {
                    return Ok(());
                };
                let enc = self.enc;
                let uri = p.text_document.uri.as_str();
                if let Some(o) = self.docs.get_mut(uri) {
                    o.doc.apply(p.text_document.version, p.content_changes, enc);
                    // A `---` typed on the first line makes a Markdown file a role.
                    o.owned = self.ws.owns(&o.doc.path, &o.doc.text);
                    self.stale(uri);
                }
            }
            "textDocument/didSave" => {
                let Ok(p) = serde_json::from_value::<lt::DidSaveTextDocumentParams>(n.params)
                else {
                    return Ok(());
                };
                let uri = p.text_document.uri.as_str();
                if let Some(o) = self.docs.get_mut(uri) {
                    if let Some(text) = p.text {
                        let version = o.doc.version;
                        o.doc = Document::new(o.doc.uri.clone(), o.doc.path.clone(), version, text);
                    }
                    let path = o.doc.path.clone();
                    self.stale(uri);
                    self.cross_dirty = true;
                    self.ws.file_changed(&path);
                }
            }
            "textDocument/didClose" => {
                let Ok(p) = serde_json::from_value::<lt::DidCloseTextDocumentParams>(n.params)
                else {
                    return Ok(());
                };
                if let Some(o) = self.docs.remove(p.text_document.uri.as_str()) {
                    if o.published.is_some_and(|(_, d)| !d.is_empty()) {
                        publish(conn, o.doc.uri, Vec::new(), None)?;
                    }
                    self.cross_dirty = true;
                }
            }
            "workspace/didChangeWatchedFiles" => {
                let Ok(p) = serde_json::from_value::<lt::DidChangeWatchedFilesParams>(n.params)
                else {
                    return Ok(());
                };
                self.files_changed(p.changes.iter().filter_map(|c| uri::to_path(&c.uri)));
            }
            _ => {}
        }
        Ok(())
    }

    /// Files changed on disk: the cross-file set follows; a changed host
    /// configuration (pi's settings, which the detection reads) re-resolves the
    /// host profile and re-checks every buffer.
    pub(crate) fn files_changed(&mut self, paths: impl Iterator<Item = PathBuf>) {
        let mut reconfigure = false;
        for path in paths {
            if is_configuration(&path) {
                reconfigure = true;
            } else {
                self.ws.file_changed(&path);
            }
        }
        if reconfigure {
            self.ws = Workspace::new(self.ws.setup.clone());
            self.config_reported = None;
            for (uri, o) in self.docs.iter_mut() {
                o.owned = self.ws.owns(&o.doc.path, &o.doc.text);
                o.single = None;
                self.dirty.insert(uri.clone());
            }
        }
        self.cross_dirty = true;
    }

    fn register_watchers(&mut self, conn: &Outbox) -> Result<(), ServeError> {
        let watchers: Vec<lt::FileSystemWatcher> = ["**/*.md", "**/settings.json", "**/pwk.toml"]
            .into_iter()
            .map(|g| lt::FileSystemWatcher {
                glob_pattern: lt::GlobPattern::String(g.into()),
                kind: None,
            })
            .collect();
        let reg = lt::Registration {
            id: "pwk-watch".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: Some(serde_json::json!({ "watchers": watchers })),
        };
        self.next_id += 1;
        let req = Request::new(
            RequestId::from(format!("pwk-{}", self.next_id)),
            "client/registerCapability".into(),
            lt::RegistrationParams {
                registrations: vec![reg],
            },
        );
        send(conn, req.into())
    }

    /// A buffer's text changed: its findings are stale.
    fn stale(&mut self, uri: &str) {
        if let Some(o) = self.docs.get_mut(uri) {
            o.single = None;
            self.dirty.insert(uri.to_string());
        }
    }

    /// Say once, as a message the editor shows, why the configuration is not
    /// used.
    fn report_config(&mut self, conn: &Outbox) -> Result<(), ServeError> {
        // Role directories reached through a link: said once, as a warning.
        let linked = self.ws.linked_note();
        if linked != self.linked_reported {
            self.linked_reported = linked.clone();
            if let Some(message) = linked {
                send(
                    conn,
                    Notification::new(
                        "window/showMessage".into(),
                        lt::ShowMessageParams {
                            typ: lt::MessageType::WARNING,
                            message,
                        },
                    )
                    .into(),
                )?;
            }
        }
        if self.ws.config_error.is_none() || self.ws.config_error == self.config_reported {
            return Ok(());
        }
        self.config_reported = self.ws.config_error.clone();
        let message = format!(
            "pwk: the configuration is not used: {}; fix it and save (the defaults apply meanwhile)",
            self.ws.config_error.as_deref().unwrap_or_default()
        );
        send(
            conn,
            Notification::new(
                "window/showMessage".into(),
                lt::ShowMessageParams {
                    typ: lt::MessageType::ERROR,
                    message,
                },
            )
            .into(),
        )
    }

    /// Bring the stale buffers' findings up to date, and the cross-file findings
    /// when a name site changed; what changed is published next.
    fn refresh(&mut self, _conn: &Outbox) -> Result<(), ServeError> {
        for uri in std::mem::take(&mut self.dirty) {
            let Some(o) = self.docs.get_mut(&uri) else {
                continue;
            };
            if o.single.is_some() {
                continue;
            }
            let (diagnostics, name) = if o.owned {
                let checked = self.ws.check(&o.doc.path, &o.doc.text);
                (checked.diagnostics, checked.name)
            } else {
                (Vec::new(), None)
            };
            // A name that moved or changed changes the cross-file findings.
            let site = |n: &Option<NameSite>| n.as_ref().map(|n| (n.name.clone(), n.span.clone()));
            if site(&o.name) != site(&name) && self.ws.in_cross_set(&o.doc.path) {
                self.cross_dirty = true;
            }
            o.single = Some(diagnostics);
            o.name = name;
            self.unpublished.insert(uri);
        }
        if self.cross_dirty {
            let open: BTreeMap<&Path, Option<&NameSite>> = self
                .docs
                .values()
                .filter(|o| o.owned)
                .map(|o| (o.doc.path.as_path(), o.name.as_ref()))
                .collect();
            let mut cross = self.ws.cross_file(&open);
            for (uri, o) in self.docs.iter_mut() {
                let now = if o.owned {
                    cross.remove(&o.doc.path).unwrap_or_default()
                } else {
                    Vec::new()
                };
                if now != o.cross {
                    o.cross = now;
                    self.unpublished.insert(uri.clone());
                }
            }
            self.cross_dirty = false;
        }
        Ok(())
    }

    /// Publish the findings of every buffer whose findings or version changed.
    fn publish(&mut self, conn: &Outbox) -> Result<(), ServeError> {
        self.refresh(conn)?;
        self.report_config(conn)?;
        let enc = self.enc;
        for uri in std::mem::take(&mut self.unpublished) {
            let Some(o) = self.docs.get_mut(&uri) else {
                continue;
            };
            let diags: Vec<lt::Diagnostic> = o
                .diagnostics()
                .into_iter()
                .map(|d| to_lsp(&o.doc, d, enc))
                .collect();
            let version = o.doc.version;
            if o.published
                .as_ref()
                .is_some_and(|(v, p)| *v == version && *p == diags)
            {
                continue;
            }
            if !o.owned && o.published.is_none() && diags.is_empty() {
                // A buffer pwk does not serve: nothing to say, ever.
                o.published = Some((version, diags));
                continue;
            }
            publish(conn, o.doc.uri.clone(), diags.clone(), Some(version))?;
            o.published = Some((version, diags));
        }
        Ok(())
    }
}

/// Move every message already waiting into `queue`.
fn drain(incoming: &Inbox, queue: &mut VecDeque<Message>) {
    while let Ok(m) = incoming.try_recv() {
        queue.push_back(m);
    }
}

/// pi's settings (host detection reads them) and pwk's configuration.
fn is_configuration(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "settings.json" || n == "pwk.toml")
}

fn send(conn: &Outbox, msg: Message) -> Result<(), ServeError> {
    conn.send(msg)
}

fn publish(
    conn: &Outbox,
    uri: lt::Uri,
    diagnostics: Vec<lt::Diagnostic>,
    version: Option<i32>,
) -> Result<(), ServeError> {
    let params = lt::PublishDiagnosticsParams {
        uri,
        diagnostics,
        version,
    };
    send(
        conn,
        Notification::new("textDocument/publishDiagnostics".into(), params).into(),
    )
}
