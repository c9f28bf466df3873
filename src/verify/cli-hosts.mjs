#!/usr/bin/env node
// The CLI host oracle: runs a REAL agent CLI (Claude Code, Copilot CLI, OpenCode, Gemini
// CLI; installed, pinned, by scripts/provision-hosts.sh into .host-test/cli/) on project
// directories and prints, as one JSON array (one document per project, in order), which
// agents the CLI loaded and what it made of them.
//
//   cli-oracle --host claude-code|copilot|opencode|gemini PROJECT...
//   node cli-hosts.mjs --host HOST --bin PROGRAM [--version V] PROJECT...
//
// The launcher .host-test/bin/cli-oracle runs this file with Node 22 and adds
// `--hosts-root <.host-test>`. `pwk verify` (src/verify/) embeds this file and runs it
// with `--bin`: the host's own program wherever it is installed (a `.js` file is run
// with this Node), its version as pwk found it. No network but 127.0.0.1: model calls go to a mock served
// by this process (Claude Code, Gemini) or to a closed port (Copilot); OpenCode is asked
// with its own offline subcommands. HOME and the XDG dirs are fresh temp dirs per run.
// The methods are the ones measured in ../shared/reference/host-loaders.md (section 1).
//
// Each document: {"host","version","project","fatal","agents":[{name, description,
// tools, tools_deferred, model, error}], "messages":[...], "all_tools":[...]}.
//   fatal    the CLI refused to start because of the project's agent files (OpenCode's
//            "Configuration is invalid"), with its text; else null.
//   agents   the custom agents the host loaded (built-ins left out). `tools` is the list
//            the child gets (Claude Code: from the spawned subagent's API request; "*"
//            when it is the whole main-thread set), null when not known; `tools_deferred`
//            (Claude Code) the tools the child may load through ToolSearch; `error` is the
//            host's refusal to spawn it (Claude Code), else null.
//   messages the host's warnings and errors about agent files, verbatim.
// Projects run two at a time; each run has a watchdog.

import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const RUN_TIMEOUT_MS = 90_000;
const HOSTS = {
  "claude-code": { version: "2.1.332", run: runClaude },
  copilot: { version: "1.0.102", run: runCopilot },
  opencode: { version: "1.18.33", run: runOpencode },
  gemini: { version: "0.61.0", run: runGemini },
};

function usage(msg) {
  process.stderr.write(`cli-oracle: ${msg}\nusage: cli-oracle --host ${Object.keys(HOSTS).join("|")} PROJECT...\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let host, hostsRoot, binArg, versionArg;
const projects = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--host") host = argv[++i];
  else if (argv[i] === "--hosts-root") hostsRoot = argv[++i];
  else if (argv[i] === "--bin") binArg = argv[++i];
  else if (argv[i] === "--version") versionArg = argv[++i];
  else if (argv[i].startsWith("--")) usage(`unknown argument ${argv[i]}`);
  else projects.push(fs.realpathSync(path.resolve(argv[i])));
}
if (!HOSTS[host]) usage(`--host must be one of ${Object.keys(HOSTS).join(", ")}`);
if (!hostsRoot && !binArg) usage("--hosts-root or --bin is required (run through .host-test/bin/cli-oracle)");
const cli = hostsRoot ? path.join(path.resolve(hostsRoot), "cli", host, "node_modules") : null;
/** The host's program: `--bin`, else its file in the provisioned install. */
const program = (rel) => (binArg ? path.resolve(binArg) : path.join(cli, rel));
/** The command that runs `file` (a `.js` file runs with this Node). */
const command = (file, args) => (file.endsWith(".js") || file.endsWith(".mjs") ? [process.execPath, [file, ...args]] : [file, args]);

// ---------------------------------------------------------------------------
// Plumbing.

function scratchDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `pwk-cli-oracle-${host}-`));
  for (const sub of ["home", "tmp", ".config", ".local/share", ".cache", ".local/state"]) {
    fs.mkdirSync(path.join(d, sub), { recursive: true });
  }
  return d;
}

/** A clean environment: PATH and locale only, plus `extra`. */
function cleanEnv(scratch, extra) {
  const env = { PATH: process.env.PATH, LANG: "C.UTF-8", TERM: "dumb", NO_COLOR: "1" };
  Object.assign(env, {
    HOME: path.join(scratch, "home"),
    TMPDIR: path.join(scratch, "tmp"),
    XDG_CONFIG_HOME: path.join(scratch, ".config"),
    XDG_DATA_HOME: path.join(scratch, ".local/share"),
    XDG_CACHE_HOME: path.join(scratch, ".cache"),
    XDG_STATE_HOME: path.join(scratch, ".local/state"),
  });
  return Object.assign(env, extra);
}

/**
 * Run a command; resolves {code, stdout, stderr}. `until(stdoutSoFar)` true ends the
 * run early (the answer is in). Killed (the whole process group) after the timeout.
 */
function runCmd(cmd, args, { cwd, env, until, timeout = RUN_TIMEOUT_MS }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "", stderr = "", done = false;
    const kill = () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    };
    const timer = setTimeout(() => {
      stderr += `\n[cli-oracle: killed after ${timeout} ms]`;
      kill();
    }, timeout);
    child.stdout.on("data", (d) => {
      stdout += d;
      if (until && !done && until(stdout)) {
        done = true;
        kill();
      }
    });
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: done ? 0 : code, stdout, stderr, early: done });
    });
  });
}

function jsonLines(text) {
  const out = [];
  for (const line of text.split("\n")) {
    try {
      out.push(JSON.parse(line));
    } catch {}
  }
  return out;
}

/** A loopback HTTP server answering with `handle(req, body) -> {status, type, body}`. */
async function mockServer(handle) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      let reply;
      try {
        reply = await handle(req, Buffer.concat(chunks).toString("utf8"));
      } catch (e) {
        reply = { status: 500, type: "text/plain", body: String(e) };
      }
      res.writeHead(reply.status ?? 200, { "content-type": reply.type ?? "application/json" });
      res.end(reply.body);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

function gitInit(dir) {
  if (!fs.existsSync(path.join(dir, ".git"))) fs.mkdirSync(path.join(dir, ".git"));
}

// ---------------------------------------------------------------------------
// Claude Code 2.1.332: `-p` with stream-json; the init event lists the agents that
// loaded; the mock answers the main request with one `Agent` tool_use per custom agent,
// and each spawned subagent's own request shows its model and tools.

// A stand-in for the tools this build defers behind ToolSearch, not a tool.
const DEFERRED = "DeferredToolPlaceholder";
const CLAUDE_BUILTIN = new Set(["claude", "Explore", "general-purpose", "Plan", "statusline-setup"]);

function anthropicReply(content, stop, stream, model) {
  const msg = {
    id: "msg_mock", type: "message", role: "assistant", model, content, stop_reason: stop,
    stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!stream) return { body: JSON.stringify(msg) };
  const ev = (t, d) => `event: ${t}\ndata: ${JSON.stringify(d)}\n\n`;
  let s = ev("message_start", { type: "message_start", message: { ...msg, content: [], stop_reason: null } });
  content.forEach((b, index) => {
    if (b.type === "text") {
      s += ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      s += ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } });
    } else {
      s += ev("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      s += ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    s += ev("content_block_stop", { type: "content_block_stop", index });
  });
  s += ev("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  s += ev("message_stop", { type: "message_stop" });
  return { type: "text/event-stream", body: s };
}

function textOf(content) {
  if (typeof content === "string") return content;
  return (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

async function runClaude(project) {
  const scratch = scratchDir();
  gitInit(project);
  let resolveInit;
  const initAgents = new Promise((r) => (resolveInit = r));
  const state = { mainModel: null, listing: null, sub: {}, results: {}, ids: {} };
  const { server, url } = await mockServer(async (req, raw) => {
    if (req.method !== "POST") return { status: 404, body: '{"type":"error","error":{"type":"not_found_error","message":"mock"}}' };
    if (req.url.includes("count_tokens")) return { body: '{"input_tokens":10}' };
    const body = JSON.parse(raw || "{}");
    if (process.env.PWK_CLI_ORACLE_DUMP) fs.appendFileSync(process.env.PWK_CLI_ORACLE_DUMP, `${raw}\n`);
    const system = (body.system ?? []).map((b) => (typeof b === "string" ? b : b.text ?? ""));
    const users = (body.messages ?? []).filter((m) => m.role === "user");
    const text = users.map((m) => textOf(m.content)).join("\n");
    const results = users.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result");
    const sub = /SUBPROBE (\S+)/.exec(text);
    if (sub) {
      // Tools this build defers behind ToolSearch are named in a system block of the
      // child's request; the child can load each of them.
      const deferred = /deferred tools are now available via ToolSearch[^\n]*:\n([\s\S]*?)(?:\n\n|$)/.exec(
        JSON.stringify(body).replace(/\\n/g, "\n"),
      );
      state.sub[state.ids[sub[1]]] = {
        model: body.model,
        tools: (body.tools ?? []).map((t) => t.name),
        deferred: deferred ? deferred[1].split("\n").map((t) => t.trim()).filter((t) => /^[A-Za-z_][\w-]*$/.test(t)) : [],
      };
      return anthropicReply([{ type: "text", text: "ok" }], "end_turn", body.stream, body.model);
    }
    if (text.includes("PWK-PROBE-ALL")) {
      state.mainModel ??= body.model;
      state.mainTools ??= (body.tools ?? []).map((t) => t.name);
      const m = /Available agent types for the Agent tool:\n([\s\S]*?)\n\nWhen you launch multiple agents/.exec(
        (body.messages ?? []).map((m) => textOf(m.content)).join("\n"),
      );
      if (m) state.listing ??= m[1];
      for (const r of results) {
        const c = typeof r.content === "string" ? r.content : textOf(r.content);
        state.results[r.tool_use_id] = { text: c, error: r.is_error === true };
      }
      if (results.length === 0) {
        // general-purpose (`Tools: *`) is spawned too: its tools are what "every
        // tool" is in this run.
        const custom = (await initAgents).filter((a) => !CLAUDE_BUILTIN.has(a));
        if (custom.length) custom.push("general-purpose");
        if (custom.length) {
          const uses = custom.map((name, i) => {
            const tag = `a${i}`;
            state.ids[tag] = name;
            return {
              type: "tool_use", id: `toolu_pwk_${tag}`, name: "Agent",
              input: { description: "probe", prompt: `SUBPROBE ${tag} say ok`, subagent_type: name, run_in_background: false },
            };
          });
          return anthropicReply(uses, "tool_use", body.stream, body.model);
        }
      }
    }
    return anthropicReply([{ type: "text", text: "ok" }], "end_turn", body.stream, body.model);
  });
  const [bin, pre] = command(program("@anthropic-ai/claude-code-linux-x64/claude"), []);
  const env = cleanEnv(scratch, {
    ANTHROPIC_API_KEY: "dummy", ANTHROPIC_BASE_URL: url, DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_ERROR_REPORTING: "1",
  });
  const debug = path.join(scratch, "debug.log");
  let init = null;
  const r = await runCmd(
    bin,
    [...pre, "-p", "PWK-PROBE-ALL", "--output-format", "stream-json", "--verbose", "--debug-file", debug],
    {
      cwd: project, env,
      until: (out) => {
        if (!init) {
          init = jsonLines(out).find((e) => e.type === "system" && e.subtype === "init") ?? null;
          if (init) resolveInit(init.agents ?? []);
        }
        return jsonLines(out).some((e) => e.type === "result");
      },
    },
  );
  if (!init) resolveInit([]);
  server.close();
  const log = fs.existsSync(debug) ? fs.readFileSync(debug, "utf8") : "";
  const messages = log
    .split("\n")
    .filter((l) => /frontmatter|Agent file|failed to parse|Failed to parse agent|Invalid "name"|would be spawned/i.test(l))
    .map((l) => l.replace(/^\S+ /, "").slice(0, 600));
  const allTools = init?.tools ?? [];
  const agents = (init?.agents ?? [])
    .filter((a) => !CLAUDE_BUILTIN.has(a))
    .map((name) => {
      const tag = Object.keys(state.ids).find((t) => state.ids[t] === name);
      const sub = state.sub[name];
      const result = tag ? state.results[`toolu_pwk_${tag}`] : undefined;
      let tools = null;
      if (sub) {
        const all = new Set(state.sub["general-purpose"]?.tools ?? []);
        const mine = sub.tools.filter((t) => t !== DEFERRED);
        tools = all.size && mine.length === all.size - (all.has(DEFERRED) ? 1 : 0) && mine.every((t) => all.has(t)) ? ["*"] : mine;
      }
      return {
        name,
        description: listingDescription(state.listing, name),
        tools,
        // What the child can load through ToolSearch besides `tools` (null: not spawned).
        tools_deferred: sub ? sub.deferred : null,
        model: sub?.model ?? null,
        error: !sub && result ? result.text.slice(0, 400) : null,
      };
    });
  fs.rmSync(scratch, { recursive: true, force: true });
  return {
    fatal: init ? null : `no init event (exit ${r.code}): ${r.stderr.slice(0, 400)}`,
    agents, messages, all_tools: allTools, main_model: state.mainModel,
  };
}

/** `- <name>: <description> (Tools: …)` from the Agent tool's listing. */
function listingDescription(listing, name) {
  if (!listing) return null;
  const lines = `\n${listing}`;
  const start = lines.indexOf(`\n- ${name}: `);
  if (start < 0) return null;
  let rest = lines.slice(start + name.length + 5);
  const next = rest.search(/\n- [^\n:]{1,80}: /);
  if (next >= 0) rest = rest.slice(0, next);
  const tools = rest.lastIndexOf(" (Tools: ");
  return (tools >= 0 ? rest.slice(0, tools) : rest).trim();
}

// ---------------------------------------------------------------------------
// Copilot CLI 1.0.102: BYOK offline mode against a closed port; the
// `session.custom_agents_updated` event lists the agents, their warnings and errors.

async function runCopilot(project) {
  const scratch = scratchDir();
  gitInit(project);
  const [bin, pre] = command(program("@github/copilot-linux-x64/copilot"), []);
  const env = cleanEnv(scratch, {
    COPILOT_OFFLINE: "true", COPILOT_PROVIDER_BASE_URL: "http://127.0.0.1:9", COPILOT_PROVIDER_TYPE: "anthropic",
    COPILOT_PROVIDER_API_KEY: "dummy", COPILOT_MODEL: "claude-sonnet-4.5", COPILOT_AUTO_UPDATE: "false",
  });
  const event = (out) => jsonLines(out).find((e) => e.type === "session.custom_agents_updated");
  const r = await runCmd(
    bin,
    [...pre, "-p", "hi", "--output-format", "json", "--allow-all-tools", "--trust-folder", "--no-auto-update"],
    { cwd: project, env, until: (out) => event(out) !== undefined },
  );
  fs.rmSync(scratch, { recursive: true, force: true });
  const ev = event(r.stdout);
  if (!ev) return { fatal: `no custom_agents_updated event (exit ${r.code}): ${r.stderr.slice(0, 400)}`, agents: [], messages: [] };
  const d = ev.data ?? {};
  return {
    fatal: null,
    agents: (d.agents ?? []).map((a) => ({
      // Copilot keeps the names as written (it does not resolve them at load):
      // what the child gets is not in the event.
      name: a.name, id: a.id, description: a.description ?? null, tools: null, declared_tools: a.tools ?? null,
      model: a.model ?? null, error: null,
    })),
    messages: [...(d.warnings ?? []), ...(d.errors ?? [])].map((m) => (typeof m === "string" ? m : JSON.stringify(m))),
  };
}

// ---------------------------------------------------------------------------
// OpenCode 1.18.33: `opencode debug config` prints the resolved configuration, the
// agents read from agent files included (keyed by file stem, with the `name` the host
// uses); a schema error in any agent file makes it (and every command) exit 1 with
// "Configuration is invalid".

async function runOpencode(project) {
  gitInit(project);
  const scratch = scratchDir();
  const env = cleanEnv(scratch, {
    OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  });
  const r = await runCmd(...command(program("opencode-linux-x64/bin/opencode"), ["debug", "config", "--pure"]), { cwd: project, env });
  fs.rmSync(scratch, { recursive: true, force: true });
  let config = null;
  try {
    config = JSON.parse(r.stdout.slice(r.stdout.indexOf("{")));
  } catch {}
  if (r.code !== 0 || !config) {
    const text = `${r.stdout}\n${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, "").trim();
    return { fatal: text.slice(0, 1200) || `exit ${r.code}`, agents: [], messages: [] };
  }
  const agents = Object.entries(config.agent ?? {}).map(([key, a]) => ({
    name: a.name ?? key,
    key,
    mode: a.mode ?? null,
    description: a.description ?? null,
    tools: null,
    model: a.model ?? null,
    error: null,
    prompt: typeof a.prompt === "string" ? a.prompt.slice(0, 200) : null,
  }));
  return { fatal: null, agents, messages: [] };
}

// ---------------------------------------------------------------------------
// Gemini CLI 0.61.0: headless `-p` against the mock Gemini API with project agents
// pre-acknowledged; the first request's systemInstruction lists the sub-agents,
// rejections go to stderr.

const GEMINI_BUILTIN = new Set(["codebase_investigator", "cli_help", "generalist"]);

async function runGemini(project) {
  const scratch = scratchDir();
  gitInit(project);
  const home = path.join(scratch, "home");
  fs.mkdirSync(path.join(home, ".gemini/acknowledgments"), { recursive: true });
  fs.writeFileSync(
    path.join(home, ".gemini/settings.json"),
    // No usage statistics (Clearcut, at play.googleapis.com) and no telemetry: nothing
    // but the loopback mock is called (pwk verify's strace test checks it).
    JSON.stringify({
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    }),
  );
  // The acknowledgement is keyed by agent name: every plausible name of every file
  // (its stem and the first `name:` line) is acknowledged with the file's hash, so
  // only the loader decides.
  const acks = {};
  const dir = path.join(project, ".gemini/agents");
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const p = path.join(dir, f);
    if (!f.endsWith(".md") || !fs.statSync(p).isFile()) continue;
    const text = fs.readFileSync(p).toString("utf8");
    const hash = crypto.createHash("sha256").update(text).digest("hex");
    acks[f.slice(0, -3)] = hash;
    const m = /^name:[ \t]*["']?([^"'\r\n]*?)["']?[ \t]*\r?$/m.exec(text);
    if (m) acks[m[1]] = hash;
  }
  fs.writeFileSync(path.join(home, ".gemini/acknowledgments/agents.json"), JSON.stringify({ [project]: acks }));
  let instruction = null;
  const { server, url } = await mockServer(async (req, raw) => {
    if (req.method !== "POST") return { status: 404, body: "{}" };
    if (req.url.includes("countTokens")) return { body: '{"totalTokens":10}' };
    const body = JSON.parse(raw || "{}");
    const s = body.systemInstruction?.parts?.[0]?.text ?? "";
    if (instruction === null && s.includes("sub-agents are available")) instruction = s;
    const resp = {
      candidates: [{ content: { parts: [{ text: "ok" }], role: "model" }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 }, modelVersion: "gemini-mock",
    };
    if (req.url.includes("stream")) return { type: "text/event-stream", body: `data: ${JSON.stringify(resp)}\r\n\r\n` };
    return { body: JSON.stringify(resp) };
  });
  const env = cleanEnv(scratch, { GEMINI_API_KEY: "dummy", GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_NO_RELAUNCH: "true" });
  const r = await runCmd(
    ...command(program("@google/gemini-cli/bundle/gemini.js"), ["-p", "hi", "--skip-trust", "-m", "gemini-2.5-flash", "-o", "stream-json"]),
    { cwd: project, env },
  );
  server.close();
  fs.rmSync(scratch, { recursive: true, force: true });
  const agents = [];
  const m = instruction && /The following sub-agents are available:\n\n([\s\S]*?)\n\n/.exec(instruction);
  for (const line of m ? m[1].split("\n") : []) {
    if (!line.startsWith("- ")) continue;
    const [name, ...rest] = line.slice(2).split(" -> ");
    if (!GEMINI_BUILTIN.has(name)) agents.push({ name, description: rest.join(" -> "), tools: null, model: null, error: null });
  }
  const messages = r.stderr.split("\n").filter((l) => /Agent loading error|agent/i.test(l) && l.length < 2000).map((l) => l.slice(0, 600));
  return { fatal: instruction === null ? `no model request (exit ${r.code}): ${r.stderr.slice(0, 400)}` : null, agents, messages };
}

// ---------------------------------------------------------------------------

async function main() {
  const docs = new Array(projects.length);
  let next = 0;
  const worker = async () => {
    while (next < projects.length) {
      const i = next++;
      const doc = await HOSTS[host].run(projects[i]);
      docs[i] = { host, version: versionArg ?? HOSTS[host].version, project: projects[i], ...doc };
    }
  };
  await Promise.all([worker(), worker()]);
  process.stdout.write(`${JSON.stringify(docs, null, 1)}\n`);
}

main().catch((e) => {
  process.stderr.write(`cli-oracle: ${e.stack ?? e}\n`);
  process.exit(1);
});
