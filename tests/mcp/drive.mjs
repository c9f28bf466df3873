// Drives `pwk mcp` with the official MCP TypeScript SDK client (stdio transport).
//
//   node tests/mcp/drive.mjs SCENARIO
//
// Environment: PWK_TEST_MCP_CLIENT (the folder scripts/provision-mcp.sh installed
// the SDK into), PWK_BIN (the pwk binary), MCP_CWD (the server's directory),
// MCP_ARGS (JSON: the scenario's inputs). The server inherits this process's
// environment (pi and the fake LLM are configured there by the Rust test).
// Prints one JSON document per line: {"event": …} lines while running (the Rust
// test reads them), and a final {"transcript": …, "result": …}.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";

const sdkRoot = process.env.PWK_TEST_MCP_CLIENT;
if (!sdkRoot) {
  console.error("PWK_TEST_MCP_CLIENT is not set (run scripts/provision-mcp.sh)");
  process.exit(3);
}
const require = createRequire(path.join(sdkRoot, "package.json"));
const load = async (spec) => import(pathToFileURL(require.resolve(spec)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");

const scenario = process.argv[2];
const args = JSON.parse(process.env.MCP_ARGS || "{}");
const transcript = [];
const emit = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const tStart = Date.now();
const transport = new StdioClientTransport({
  command: process.env.PWK_BIN,
  args: ["mcp", ...(args.serverArgs || [])],
  cwd: process.env.MCP_CWD,
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: "pwk-test-client", version: "1.0.0" });
await client.connect(transport);
// What arrived, in the order it arrived: the SDK hands a notification to its
// handler a microtask after reading it but a response at once, so under load a
// progress notification read in one chunk with its call's response reaches no
// handler. The wire order says what the server sent before it answered.
const wire = [];
const onmessage = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method === "notifications/progress") {
    // As the SDK hands it to `onprogress`: without the token.
    const { progressToken, ...params } = message.params;
    wire.push({ progress: params });
  }
  else if (message.id !== undefined && message.method === undefined) wire.push({ response: message.id });
  onmessage?.(message, extra);
};
emit({ event: "connected", serverPid: transport.pid, server: client.getServerVersion(),
  protocolVersion: transport._protocolVersion ?? null });

async function call(name, a, opts) {
  const res = await client.callTool({ name, arguments: a }, undefined, opts);
  transcript.push({ call: name, arguments: a, result: res.structuredContent ?? res.content, isError: res.isError ?? false });
  return res;
}
const sc = (res) => res.structuredContent;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function pollUntil(task, pred, limitMs = 60000) {
  const states = [];
  const t0 = Date.now();
  for (;;) {
    const st = sc(await client.callTool({ name: "task_status", arguments: { task } }));
    if (states[states.length - 1] !== st.state) states.push(st.state);
    if (pred(st)) return { st, states };
    if (Date.now() - t0 > limitMs) throw new Error(`timeout waiting on ${task}: ${JSON.stringify(st)}`);
    await sleep(50);
  }
}

let result;
switch (scenario) {
  case "basic": {
    const tools = await client.listTools();
    const lintText = sc(await call("lint", { text: args.badRole, path: ".pi/agents/bad.md", host: "pwk" }));
    const lintPaths = sc(await call("lint", { paths: [".pi/agents"], host: "pwk" }));
    const explain = sc(await call("explain_rule", { id: lintText.diagnostics[0]?.rule ?? "missing-description" }));
    const unknownRule = await call("explain_rule", { id: "no-such-rule" });
    const roles = sc(await call("list_roles", {}));
    const show = sc(await call("show_role", { name: args.roleName }));
    const resources = await client.listResources();
    const schema = await client.readResource({ uri: "pwk://schema/role" });
    const role = await client.readResource({ uri: `pwk://roles/${args.roleName}` });
    const caps = sc(await call("capabilities", {}));
    const cov = sc(await call("coverage", { required: ["a", "b"], outcomes: [{ role: "a", status: "completed", report: "ok" }] }));
    const refused = sc(await call("delegate_start", { taskId: "x", cwd: "relative/dir", objective: "" }));
    result = {
      tools: tools.tools.map((t) => ({ name: t.name, hasInput: !!t.inputSchema, hasOutput: !!t.outputSchema })),
      lintText, lintPaths, explain, unknownRule: { isError: unknownRule.isError, text: unknownRule.content?.[0]?.text },
      roles: roles.roles.map((r) => r.name), show: { name: show.name, path: show.path },
      resources: resources.resources.map((r) => r.uri),
      schemaIsJson: (() => { try { JSON.parse(schema.contents[0].text); return true; } catch { return false; } })(),
      roleText: role.contents[0].text, caps, cov, refused,
    };
    break;
  }
  case "roles": {
    // list_roles, show_role of each args.names, the role resources and the text of
    // each args.read URI.
    const roles = sc(await call("list_roles", {}));
    const shown = [];
    for (const name of args.names) shown.push(sc(await call("show_role", { name })));
    const resources = (await client.listResources()).resources
      .filter((r) => r.uri.startsWith("pwk://roles/"))
      .map((r) => ({ uri: r.uri, name: r.name, title: r.title ?? null }));
    const texts = {};
    for (const uri of args.read) texts[uri] = (await client.readResource({ uri })).contents[0].text;
    result = { roles, shown, resources, texts };
    break;
  }
  case "calls": {
    // args.calls: [{name, arguments}]; the structured result of each, in order.
    result = [];
    for (const c of args.calls) {
      const res = await call(c.name, c.arguments);
      result.push({ isError: res.isError ?? false, value: res.structuredContent ?? res.content });
    }
    break;
  }
  case "delegate": {
    const start = sc(await call("delegate_start", args.request));
    const { st, states } = await pollUntil(start.task, (s) => !["starting", "running"].includes(s.state), 120000);
    const wait = sc(await call("task_wait", { task: start.task, timeoutMs: 1000 }));
    const res = sc(await call("task_result", { task: start.task }));
    result = { start, states, final: st, wait, result: res.result };
    break;
  }
  case "steer": {
    const start = sc(await call("delegate_start", args.request));
    const { st: running } = await pollUntil(start.task, (s) => s.state === "running" && s.turns >= 1 && s.processGroups.length > 0);
    const steer = sc(await call("task_steer", { task: start.task, message: args.message }));
    const wait = sc(await call("task_wait", { task: start.task, timeoutMs: 90000 }));
    const res = sc(await call("task_result", { task: start.task }));
    result = { start, running, steer, wait, result: res.result };
    break;
  }
  case "abort": {
    const start = sc(await call("delegate_start", args.request));
    const { st: running } = await pollUntil(start.task, (s) => s.state === "running" && s.turns >= 1 && s.processGroups.length > 0);
    const abort = sc(await call("task_abort", { task: start.task }));
    result = { start, running, abort };
    break;
  }
  case "stall": {
    const start = sc(await call("delegate_start", args.request));
    const wait = sc(await call("task_wait", { task: start.task, timeoutMs: 90000 }));
    const res = sc(await call("task_result", { task: start.task }));
    result = { start, wait, result: res.result };
    break;
  }
  case "review": {
    const progress = [];
    const from = wire.length;
    const res = await call("review", args.review, {
      onprogress: (p) => progress.push(p),
      timeout: 300000,
      resetTimeoutOnProgress: true,
    });
    // The progress the server sent before its response (one call in flight).
    const after = wire.slice(from);
    const answered = after.findIndex((m) => m.response !== undefined);
    const sent = after.slice(0, answered < 0 ? after.length : answered)
      .filter((m) => m.progress).map((m) => m.progress);
    result = { review: sc(res), isError: res.isError ?? false, content: res.structuredContent ? null : res.content, progress, progressSent: sent };
    break;
  }
  case "killed": {
    const start = sc(await call("delegate_start", args.request));
    const { st: running } = await pollUntil(start.task, (s) => s.state === "running" && s.turns >= 1 && s.processGroups.length > 0);
    emit({ event: "running", serverPid: transport.pid, status: running });
    // Wait to be killed by the test.
    await new Promise(() => {});
    break;
  }
  case "continue": {
    const start = sc(await call("delegate_start", args.request));
    const first = sc(await call("task_wait", { task: start.task, timeoutMs: 90000 }));
    const firstResult = sc(await call("task_result", { task: start.task })).result;
    const follow = { taskId: args.request.taskId, cwd: args.request.cwd, objective: args.followUp,
      sessionFile: firstResult.sessionFile, timeoutMs: 90000 };
    const cont = sc(await call("task_continue", follow));
    const second = cont.task ? sc(await call("task_wait", { task: cont.task, timeoutMs: 90000 })) : null;
    const secondResult = cont.task ? sc(await call("task_result", { task: cont.task })).result : null;
    const mismatch = sc(await call("task_continue", { ...follow, provider: "mock", model: "other-model" }));
    const wrongTool = await call("task_continue", { ...follow, action: "delegate" });
    result = { first, firstResult, cont, second, secondResult, mismatch,
      wrongTool: { isError: wrongTool.isError, text: wrongTool.content?.[0]?.text } };
    break;
  }
  case "cap": {
    const a = sc(await call("delegate_start", args.requests[0]));
    const b = sc(await call("delegate_start", args.requests[1]));
    await pollUntil(a.task, (s) => s.state === "running" && s.processGroups.length > 0);
    const bWhileARuns = sc(await call("task_status", { task: b.task }));
    const aStillRunning = sc(await call("task_status", { task: a.task }));
    const wa = sc(await call("task_wait", { task: a.task, timeoutMs: 90000 }));
    const wb = sc(await call("task_wait", { task: b.task, timeoutMs: 90000 }));
    result = { bWhileARuns, aStillRunning, wa, wb };
    break;
  }
  case "cancel-review": {
    const controller = new AbortController();
    let running = 0;
    const outcome = await client.callTool({ name: "review", arguments: args.review }, undefined, {
      signal: controller.signal,
      timeout: 300000,
      onprogress: (p) => {
        // Once a role's first model call is under way (turn 1), cancel the call.
        if (/ running \(turn 1/.test(p.message ?? "") && ++running === 1) setTimeout(() => controller.abort("test cancels"), 1000);
      },
    }).then((r) => ({ resolved: true, r }), (e) => ({ resolved: false, error: String(e) }));
    emit({ event: "cancelled", outcome });
    // Give the server time to stop the roles, then report (the test checks processes).
    await sleep(args.afterMs ?? 0);
    result = { outcome };
    break;
  }
  case "bench": {
    // N concurrent delegate_start tasks through this one server (started with the
    // client, as a host starts it), then wait for all; the server's own peak RSS.
    const t0 = tStart;
    const starts = await Promise.all(args.requests.map((r) => client.callTool({ name: "delegate_start", arguments: r })));
    const ids = starts.map((s) => sc(s).task);
    const finals = await Promise.all(ids.map(async (task) => {
      for (;;) {
        const w = sc(await client.callTool({ name: "task_wait", arguments: { task, timeoutMs: 30000 } }));
        if (w.finished) return w.status.state;
      }
    }));
    const wallMs = Date.now() - t0;
    const { readFileSync } = await import("node:fs");
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${transport.pid}/status`, "utf8"));
    result = { wallMs, states: finals, serverPeakRssKib: hwm ? Number(hwm[1]) : null };
    break;
  }
  default:
    console.error(`unknown scenario ${scenario}`);
    process.exit(3);
}
emit({ transcript, result });
await client.close();
