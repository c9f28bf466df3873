//! The MCP side: rmcp's [`ServerHandler`] over the tools, resources, progress
//! notifications and cancellation. Blocking work (pi runs, file walks) runs on
//! threads, never on the protocol's runtime.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

use super::tasks::Registry;
use super::tools::{self, Answer, Place};
use crate::delegate::supervise::Remote;

/// The default `task_wait` timeout.
const DEFAULT_WAIT: Duration = Duration::from_secs(30);
/// Between the last progress notification of a call and its response.
const LAST_PROGRESS_GAP: Duration = Duration::from_millis(50);
/// How long `task_steer` waits to see the message handed to pi.
const STEER_WAIT: Duration = Duration::from_secs(2);

/// One server: its directory and its tasks.
#[derive(Clone)]
pub(crate) struct Server {
    pub cwd: PathBuf,
    /// `--config FILE`.
    pub config: Option<PathBuf>,
    pub registry: Arc<Registry>,
    tools: Arc<Vec<Tool>>,
}

impl Server {
    pub(crate) fn new(cwd: PathBuf, config: Option<PathBuf>, registry: Arc<Registry>) -> Server {
        let tools = tools::specs()
            .into_iter()
            .map(|s| {
                let obj = |v: Value| match v {
                    Value::Object(m) => Arc::new(m),
                    _ => Arc::new(Map::new()),
                };
                let h = s.hints;
                Tool::new(s.name, s.description, obj(s.input))
                    .with_raw_output_schema(obj(s.output))
                    .with_annotations(
                        rmcp::model::ToolAnnotations::new()
                            .read_only(h.read_only)
                            .destructive(h.destructive)
                            .idempotent(h.idempotent)
                            .open_world(h.open_world),
                    )
            })
            .collect();
        Server {
            cwd,
            config,
            registry,
            tools: Arc::new(tools),
        }
    }

    fn place(&self) -> Place<'_> {
        Place {
            cwd: &self.cwd,
            config: self.config.as_deref(),
            registry: &self.registry,
        }
    }

    /// Run a quick, blocking tool off the protocol's thread.
    async fn blocking(&self, f: impl FnOnce(&Place<'_>) -> Answer + Send + 'static) -> Answer {
        let me = self.clone();
        tokio::task::spawn_blocking(move || f(&me.place()))
            .await
            .unwrap_or_else(|e| Err(format!("pwk: internal error in the tool: {e}")))
    }

    async fn dispatch(
        &self,
        name: &str,
        args: Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Answer, McpError> {
        Ok(match name {
            "lint" => self.blocking(move |p| tools::lint(p, &args)).await,
            "rules" => tools::rules(),
            "explain_rule" => tools::explain_rule(&args),
            "list_roles" => self.blocking(move |p| tools::list_roles(p, &args)).await,
            "show_role" => self.blocking(move |p| tools::show_role(p, &args)).await,
            "delegate_start" => tools::start(&self.place(), &args, "delegate"),
            "task_continue" => tools::start(&self.place(), &args, "continue"),
            "task_status" => tools::task_status(&self.place(), &args),
            "task_result" => tools::task_result(&self.place(), &args),
            "task_wait" => self.task_wait(&args, context).await,
            "task_steer" => self.task_steer(&args).await,
            "task_abort" => self.task_abort(&args).await,
            "review" => match tools::review_call(&self.place(), &args) {
                Ok(call) => self.provider_run(call, context).await,
                Err(e) => Err(e),
            },
            "recon" => match tools::recon_call(&self.place(), &args) {
                Ok(call) => self.provider_run(call, context).await,
                Err(e) => Err(e),
            },
            "coverage" => tools::coverage(&args),
            "capabilities" => tools::capabilities(),
            other => {
                return Err(McpError::invalid_params(
                    format!("no tool named `{other}`; tools/list lists them"),
                    None,
                ));
            }
        })
    }

    async fn task_wait(
        &self,
        args: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Answer {
        let task = tools::find(&self.place(), args)?;
        let wait = tools::u64_arg(args, "timeoutMs")?
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_WAIT);
        let finished = tokio::select! {
            r = tokio::time::timeout(wait, task.finished()) => r.is_ok(),
            () = context.ct.cancelled() => false,
        };
        Ok(json!({"finished": finished, "status": task.status()}))
    }

    async fn task_steer(&self, args: &Map<String, Value>) -> Answer {
        let task = tools::find(&self.place(), args)?;
        let message = tools::steer_message(args)?.to_string();
        let state = task.state();
        if state != super::tasks::State::Running || task.remote.groups().is_empty() {
            return Err(format!(
                "task {} is not running pi now (state {}); steer a running task",
                task.id,
                serde_json::to_value(state).unwrap_or_default()
            ));
        }
        let before = task.remote.steers_delivered();
        task.remote.steer(message);
        let deadline = tokio::time::Instant::now() + STEER_WAIT;
        while task.remote.steers_delivered() == before && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(json!({"delivered": task.remote.steers_delivered() > before, "status": task.status()}))
    }

    async fn task_abort(&self, args: &Map<String, Value>) -> Answer {
        let task = tools::find(&self.place(), args)?;
        task.remote.abort();
        // SIGTERM, the kill grace, SIGKILL and the group's wait all fit in this.
        let limit = crate::delegate::supervise::KILL_GRACE + Duration::from_secs(10);
        let _ = tokio::time::timeout(limit, task.finished()).await;
        Ok(json!({"status": task.status(), "result": task.result()}))
    }

    /// `review` / `recon`: the provider run on a thread, progress notifications per
    /// role state change, and cancellation aborting every role's pi.
    async fn provider_run(
        &self,
        call: tools::ProviderCall,
        context: &RequestContext<RoleServer>,
    ) -> Answer {
        let remote = Arc::new(Remote::default());
        self.registry.track(&remote);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
        let env = self.registry.env().clone();
        let r = Arc::clone(&remote);
        let total = call.request.roles.len() as f64;
        let mut work = tokio::task::spawn_blocking(move || {
            let catalog = crate::provider::mapping::DiscoverCatalog::new(&call.request.cwd, &env);
            let models = crate::provider::pi::LazyModels::new(&env, &call.request.cwd);
            let executor = crate::provider::pi::PiExecutor {
                env: &env,
                rpc: call.settings.steer,
                remote: Some(r),
            };
            let out = crate::provider::run(
                &call.request,
                &call.settings,
                &catalog,
                &models,
                &executor,
                &|p| {
                    let state = match &p.state {
                        crate::provider::execute::RoleState::Queued => "queued".to_string(),
                        crate::provider::execute::RoleState::Running => "running".to_string(),
                        crate::provider::execute::RoleState::Done(s) => s.name().to_string(),
                    };
                    let _ = tx.send(json!({"role": p.role.name(), "state": state,
                        "turns": p.turns, "toolCalls": p.tool_calls,
                        "done": matches!(p.state, crate::provider::execute::RoleState::Done(_))}));
                },
            );
            serde_json::to_value(&out).map_err(|e| e.to_string())
        });
        let token = context.meta.get_progress_token();
        let mut done_roles = 0.0;
        let mut step = 0.0;
        let mut cancelled = false;
        loop {
            tokio::select! {
                res = &mut work => {
                    // Forward what is left, then answer.
                    while let Ok(p) = rx.try_recv() {
                        self.progress(context, token.as_ref(), &p, &mut done_roles, &mut step, total).await;
                    }
                    if token.is_some() && step > 0.0 {
                        // The TypeScript SDK handles a notification a tick after it reads
                        // it but a response at once (dropping the call's progress
                        // handler): a notification written just before the response
                        // would be lost. Give it that tick.
                        tokio::time::sleep(LAST_PROGRESS_GAP).await;
                    }
                    let mut out = res.unwrap_or_else(|e| Err(format!("pwk: internal error in the run: {e}")))?;
                    if cancelled {
                        out["cancelled"] = json!(true);
                    }
                    return Ok(out);
                }
                Some(p) = rx.recv() => {
                    self.progress(context, token.as_ref(), &p, &mut done_roles, &mut step, total).await;
                }
                () = context.ct.cancelled(), if !cancelled => {
                    cancelled = true;
                    remote.abort();
                }
            }
        }
    }

    async fn progress(
        &self,
        context: &RequestContext<RoleServer>,
        token: Option<&rmcp::model::ProgressToken>,
        p: &Value,
        done_roles: &mut f64,
        step: &mut f64,
        total: f64,
    ) {
        let Some(token) = token else { return };
        if p["done"] == json!(true) {
            *done_roles += 1.0;
        }
        // Progress must increase with every notification.
        *step += 1.0;
        let message = format!(
            "{} {} (turn {}, {} tool calls; {} of {} roles done)",
            p["role"].as_str().unwrap_or_default(),
            p["state"].as_str().unwrap_or_default(),
            p["turns"],
            p["toolCalls"],
            done_roles,
            total
        );
        let param = ProgressNotificationParam::new(token.clone(), *step).with_message(message);
        let _ = context.peer.notify_progress(param).await;
    }

    /// The roles `pwk list` shows for this project (its pwk.toml's host, and each
    /// host whose own directory exists): (URI, name, path, description). A name
    /// is `pwk://roles/NAME` under the first host that has it (the project's host
    /// first); another host's role of the same name is `pwk://roles/NAME?host=HOST`.
    fn role_resources(&self) -> Vec<(String, String, String, Option<String>)> {
        let Ok(views) = super::tools::project_roles(
            &self.cwd,
            self.config.as_deref(),
            self.registry.env(),
            None,
        ) else {
            return Vec::new();
        };
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let mut out = Vec::new();
        for d in &views {
            for r in &d.roles {
                let uri = if seen.insert(r.name.as_str()) {
                    format!("{ROLE_PREFIX}{}", r.name)
                } else {
                    format!("{ROLE_PREFIX}{}{HOST_QUERY}{}", r.name, d.host.as_str())
                };
                out.push((
                    uri,
                    r.name.clone(),
                    r.path.display(&self.cwd),
                    r.role.description.clone(),
                ));
            }
        }
        out
    }
}

/// The URI of the role schema resource.
pub(crate) const SCHEMA_URI: &str = "pwk://schema/role";
/// The URI prefix of role resources.
pub(crate) const ROLE_PREFIX: &str = "pwk://roles/";
/// What follows a role's name in its URI when another host's role has that name.
const HOST_QUERY: &str = "?host=";

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("pwk", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "pwk: lint agent role files for the host that reads them, list and show roles as a host resolves them, \
and run delegated work on the real pi CLI with pwk's guarantees (validation before launch, never a replay, \
classified errors, stall watchdog, process-group kill, read-only reviewers, coverage). \
delegate_start returns a task id; use task_status / task_wait / task_result, task_steer and task_abort.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        let answer = self.dispatch(&request.name, args, &context).await?;
        Ok(match answer {
            Ok(value) => CallToolResult::structured(value),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(format!(
                "pwk {}: {message}",
                request.name
            ))]),
        }
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let me = self.clone();
        let roles = tokio::task::spawn_blocking(move || me.role_resources())
            .await
            .unwrap_or_default();
        let mut items = vec![
            Resource::new(SCHEMA_URI, "role schema")
                .with_description(
                    "The JSON Schema of a role file's frontmatter (portable pwk profile)",
                )
                .with_mime_type("application/schema+json"),
        ];
        for (uri, name, path, description) in roles {
            let mut r = Resource::new(uri, name)
                .with_mime_type("text/markdown")
                .with_title(path);
            if let Some(d) = description {
                r = r.with_description(d);
            }
            items.push(r);
        }
        Ok(ListResourcesResult::with_all_items(items))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.clone();
        if uri == SCHEMA_URI {
            return Ok(ReadResourceResult::new(vec![
                ResourceContents::text(crate::role::schema::ROLE_SCHEMA, uri)
                    .with_mime_type("application/schema+json"),
            ])
            .into());
        }
        let Some(rest) = uri.strip_prefix(ROLE_PREFIX) else {
            return Err(McpError::resource_not_found(
                format!("no resource {uri}; pwk serves {SCHEMA_URI} and {ROLE_PREFIX}<name>"),
                None,
            ));
        };
        // `NAME?host=HOST`: that host's role (a known host id after the last `?host=`).
        let (name, host) = match rest.rsplit_once(HOST_QUERY) {
            Some((name, h)) if crate::host::HostId::from_name(h).is_some() => {
                (name.to_string(), crate::host::HostId::from_name(h))
            }
            _ => (rest.to_string(), None),
        };
        let me = self.clone();
        let text = tokio::task::spawn_blocking(move || {
            let views =
                super::tools::project_roles(&me.cwd, me.config.as_deref(), me.registry.env(), None)
                    .ok()?;
            views
                .iter()
                .filter(|d| host.is_none_or(|h| d.host.host == h))
                .find_map(|d| d.find(&name))
                .map(|r| r.doc.text.clone())
        })
        .await
        .ok()
        .flatten();
        match text {
            Some(t) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(t, uri).with_mime_type("text/markdown"),
            ])
            .into()),
            None => Err(McpError::resource_not_found(
                format!(
                    "no role named {} (list_roles lists them)",
                    crate::text::escape_line(&uri)
                ),
                None,
            )),
        }
    }
}
