#!/usr/bin/env node
// The host oracle: loads a real subagent host's OWN agent loader from its installed npm
// package (scripts/provision-hosts.sh puts them in .host-test/) and prints, as one JSON
// document, what that host made of every role file in a project directory.
//
//   oracle --host tintinweb@0.14.1|nicobailon@0.67.0|pi-example@1.6.0|pi@0.73.1|pi@1.6.0
//          --project DIR [--agent-dir DIR] [--any-version]
//   oracle --host … [--agent-dir DIR] PROJECT...
//   node pi-hosts.mjs --host tintinweb@X.Y.Z|nicobailon@X.Y.Z|pi-example@X.Y.Z --any-version
//          --package DIR --pi DIR --cache DIR PROJECT...
//
// The third form is `pwk verify`'s (src/verify/ embeds this file): the extension's
// installed package directory (`--package`; for pi-example, the directory holding the
// example extension's agents.ts: a project's vendored `.pi/extensions/subagent/` or
// the pi package's `examples/extensions/subagent/`), the pi 1.6 package it loads with
// (`--pi`), and where jiti caches what it transpiled (`--cache`), wherever they are.
// pi-example's version is the version of the pi that loads it.
//
// The second form runs the host on each project in turn in this one process (node and
// pi's bundle start once: the tests' fixture sweeps pass hundreds of projects) and
// prints one JSON array, a document per project, in order. Each project gets what a
// run of the first form gets: its own temp HOME, TMPDIR and agent dir, cwd, watchdog
// and a fresh import of the host's modules (jiti, moduleCache: false), so nothing a
// host keeps in module state carries over from one project to the next.
//
// The launcher .host-test/bin/oracle runs this file with Node 22 and adds
// `--hosts-root <.host-test>`. No network, no LLM, no user configuration: HOME, TMPDIR
// and (unless --agent-dir is given) PI_CODING_AGENT_DIR point at fresh temp dirs, cwd is
// the project, PI_OFFLINE=1, and a watchdog ends the run after 60 s.
//
// Module resolution is pi 1.6's own: the npm `pi` binary is dist/bundle/cli.js, a
// "bundled Node" build, so extensions are loaded through jiti with pi's VIRTUAL_MODULES
// (dist/core/extensions/loader.js: `usesEmbeddedModules ? { virtualModules, tryNative:
// false }`): `@earendil-works/pi-coding-agent` is the bundle's own export object. The
// driver builds exactly that jiti (pi's jiti 2.7.0, moduleCache: false).
//
// `--write-settings KIND` instead runs the host's own settings writer in the project
// (what `pwk lint`'s host detection reads) and prints {"host","version","written":[…]}:
// KIND `own` for tintinweb@0.14.1 (`/agents` → Settings: src/settings.ts saveSettings)
// and nicobailon@0.67.0 (a project agent override: src/agents/agents.ts
// saveBuiltinAgentOverride); for pi@1.6.0 `package:<source>` (`pi install -l`:
// DefaultPackageManager.addSourceToSettings, local) or `example-extension` (its
// examples/extensions/subagent/{index.ts,agents.ts} copied into .pi/extensions/subagent/,
// as its README installs it).
//
// Output: {"host","version","project","agent_dir","files":[{file, outcome, message,
// identity, tools, model, thinking, max_turns, prompt_mode, config, details}], ...}.
// `outcome` is "loaded" (the host registers the role), "skipped" (it does not; `message`
// says why, with the host's own error text when it has one), "refuses-start" (this
// file makes pi fail to start with the host loaded) or "fails-calls" (pi starts, but
// every call of the host's tool that reads the roles fails over this file). Paths are relative to the project;
// files in the agent dir are reported as "<agent-dir>/…".

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const WATCHDOG_MS = 60_000;
const MAX_FILES = 5_000;
const HOSTS = ["tintinweb@0.14.1", "nicobailon@0.67.0", "pi-example@1.6.0", "pi@0.73.1", "pi@1.6.0"];

function usage(msg) {
  process.stderr.write(`oracle: ${msg}\nusage: oracle --host ${HOSTS.join("|")} (--project DIR | PROJECT...) [--agent-dir DIR]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const out = { projects: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const take = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--host") out.host = take();
    else if (a === "--project") out.project = take();
    else if (a === "--agent-dir") out.agentDir = take();
    else if (a === "--hosts-root") out.hostsRoot = take();
    else if (a === "--package") out.package = take();
    else if (a === "--pi") out.pi = take();
    else if (a === "--cache") out.cache = take();
    else if (a === "--any-version") out.anyVersion = true;
    else if (a === "--write-settings") out.writeSettings = take();
    else if (a.startsWith("-")) usage(`unknown argument ${a}`);
    else out.projects.push(a);
  }
  // scripts/host-drift.sh runs a version the provisioning does not pin, installed the
  // same way into a scratch hosts root: any x.y.z of a host whose loader this file drives.
  const other = out.anyVersion && /^(tintinweb|nicobailon|pi-example)@\d+\.\d+\.\d+$/.test(out.host ?? "");
  if (!out.host || !(HOSTS.includes(out.host) || other)) usage(`--host must be one of ${HOSTS.join(", ")}`);
  if (!out.project && out.projects.length === 0) usage("--project DIR or PROJECT... is required");
  if (out.project && out.projects.length > 0) usage("--project DIR and PROJECT... do not go together");
  if (!out.hostsRoot && !(out.package && out.pi && out.cache)) {
    usage("--hosts-root (or --package, --pi and --cache) is required (run through .host-test/bin/oracle)");
  }
  // Relative to the directory the oracle was started in (each project chdirs).
  out.projects = out.projects.map((p) => path.resolve(p));
  if (out.agentDir) out.agentDir = path.resolve(out.agentDir);
  return out;
}

const args = parseArgs(process.argv.slice(2));
const hostsRoot = args.hostsRoot ? path.resolve(args.hostsRoot) : null;
/** The extension's package directory: `--package`, else its provisioned place. */
const packageDir = (name, rel) => (args.package ? path.resolve(args.package) : path.join(hostsRoot, name, "node_modules", rel));
for (const k of Object.keys(process.env)) {
  if (k.startsWith("PI_") || k.startsWith("PWK_")) delete process.env[k];
}

// ---------------------------------------------------------------------------
// Isolation: everything a host may read or write goes to temp dirs made for the
// project being run ([`enter`]), removed when it is done ([`leave`]).
// The temp dir the oracle was started with (each project sets TMPDIR to its own).
const baseTmp = os.tmpdir();
let project;
let agentDir;
let scratch;
let watchdog;

function enter(dir) {
  project = fs.realpathSync(path.resolve(dir));
  if (!fs.statSync(project).isDirectory()) usage(`project ${project} is not a directory`);
  scratch = fs.mkdtempSync(path.join(baseTmp, "pwk-oracle-"));
  const home = path.join(scratch, "home");
  const tmp = path.join(scratch, "tmp");
  fs.mkdirSync(home);
  fs.mkdirSync(tmp);
  if (args.agentDir) {
    agentDir = fs.realpathSync(path.resolve(args.agentDir));
  } else {
    agentDir = path.join(scratch, "agent");
    fs.mkdirSync(agentDir);
  }
  process.env.HOME = home;
  process.env.USERPROFILE = home;
  process.env.TMPDIR = tmp;
  process.env.PI_CODING_AGENT_DIR = agentDir;
  // nicobailon: no `npm root -g` scan of the machine's global packages (agents.ts:474-476).
  process.env.PI_OFFLINE = "1";
  process.chdir(project);
  watchdog = setTimeout(() => {
    process.stderr.write(`oracle: gave up after ${WATCHDOG_MS / 1000} s on ${project}\n`);
    leave();
    process.exit(3);
  }, WATCHDOG_MS);
  watchdog.unref();
}

function leave() {
  clearTimeout(watchdog);
  try {
    fs.rmSync(scratch, { recursive: true, force: true });
  } catch {
    // best effort
  }
}

// Host console output goes to stderr (stdout is the JSON document) and is kept.
const hostConsole = [];
for (const level of ["log", "info", "warn", "error", "debug"]) {
  console[level] = (...a) => {
    const line = a.map((x) => (typeof x === "string" ? x : safeStringify(x))).join(" ");
    hostConsole.push({ level, text: line });
    process.stderr.write(`[host ${level}] ${line}\n`);
  };
}

// ---------------------------------------------------------------------------
// Helpers.

function safeStringify(v) {
  try {
    return JSON.stringify(jsonSafe(v));
  } catch {
    return String(v);
  }
}

/** A JSON-safe deep copy: non-finite numbers and bigints become strings, functions are
 * dropped, Dates become ISO strings, Maps/Sets become objects/arrays, cycles are cut. */
function jsonSafe(v, seen = new WeakSet()) {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "undefined" || typeof v === "function" || typeof v === "symbol") return undefined;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? String(v) : v.toISOString();
  if (typeof v === "object") {
    if (seen.has(v)) return "[Circular]";
    seen.add(v);
    let out;
    if (Array.isArray(v) || v instanceof Set) {
      out = [...v].map((x) => {
        const y = jsonSafe(x, seen);
        return y === undefined ? null : y;
      });
    } else {
      const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
      out = {};
      for (const [k, x] of entries) {
        const y = jsonSafe(x, seen);
        if (y !== undefined) out[String(k)] = y;
      }
    }
    seen.delete(v);
    return out;
  }
  return String(v);
}

const errText = (e) => (e instanceof Error ? e.message : String(e));

/** Every *.md file under `root` (recursive, sorted, no node_modules/.git, bounded). */
function listMarkdown(root) {
  const out = [];
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (out.length >= MAX_FILES) return;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== ".git") walk(p);
      } else if (e.name.endsWith(".md") && (e.isFile() || e.isSymbolicLink())) {
        out.push(p);
      }
    }
  };
  walk(root);
  return out;
}

/** All role-file candidates: *.md under the project and under the agent dir's agents/
 * (symlinked directories are not walked), plus every file the host itself read (which
 * covers roles behind a symlinked directory). */
function candidateFiles(hostRead = []) {
  const files = listMarkdown(project);
  const agentsDir = path.join(agentDir, "agents");
  if (!isInside(project, agentsDir)) files.push(...listMarkdown(agentsDir));
  return [...new Set([...files, ...hostRead].map((f) => path.resolve(f)))];
}

function isInside(root, p) {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function display(p) {
  if (isInside(project, p)) return path.relative(project, p).split(path.sep).join("/");
  if (isInside(agentDir, p)) return `<agent-dir>/${path.relative(agentDir, p).split(path.sep).join("/")}`;
  return p;
}

function entry(file, fields) {
  return {
    file: display(file),
    outcome: fields.outcome,
    message: fields.message ?? null,
    identity: fields.identity ?? null,
    tools: fields.tools ?? null,
    model: fields.model ?? null,
    thinking: fields.thinking ?? null,
    max_turns: fields.max_turns ?? null,
    prompt_mode: fields.prompt_mode ?? null,
    config: fields.config === undefined ? null : jsonSafe(fields.config),
    ...(fields.details ? { details: jsonSafe(fields.details) } : {}),
  };
}

/** pi 1.6's extension loader, as the npm (bundled Node) build runs it. */
async function pi16Loader(hostDir) {
  const pkgDir = args.pi ? path.resolve(args.pi) : path.join(hostDir, "node_modules", "@earendil-works", "pi-coding-agent");
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  const chunks = path.join(pkgDir, "dist", "bundle", "chunks");
  const vmFile = fs.readdirSync(chunks).find((f) => /^virtual-modules-[A-Za-z0-9]+\.js$/.test(f));
  if (!vmFile) throw new Error(`no virtual-modules chunk in ${chunks}`);
  const { VIRTUAL_MODULES } = await import(pathToFileURL(path.join(chunks, vmFile)).href);
  // pi's jiti-static-loader does `createRequire(import.meta.url)("jiti")` from its chunk.
  const { createJiti } = createRequire(path.join(chunks, vmFile))("jiti");
  const jiti = createJiti(pathToFileURL(path.join(chunks, vmFile)).href, {
    moduleCache: false,
    virtualModules: VIRTUAL_MODULES,
    tryNative: false,
    // Only where transpiled files are cached (pi leaves jiti's default, os.tmpdir()).
    fsCache: args.cache ? path.resolve(args.cache) : path.join(hostsRoot, "cache", "jiti"),
  });
  return { jiti, pi: VIRTUAL_MODULES["@earendil-works/pi-coding-agent"], piVersion: pkg.version };
}

function packageVersion(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
}

// ---------------------------------------------------------------------------
// pi@0.73.1 / pi@1.6.0: pi's exported parseFrontmatter on every *.md file.

async function runPi(version) {
  let parseFrontmatter;
  let actual;
  if (version === "1.6.0") {
    const { pi, piVersion } = await pi16Loader(path.join(hostsRoot, "tintinweb"));
    parseFrontmatter = pi.parseFrontmatter; // dist/utils/frontmatter.js:18 (bundled)
    actual = piVersion;
  } else {
    // pi 0.73.1 is an unbundled build: its loader aliases `@mariozechner/pi-coding-agent`
    // to dist/index.js, which re-exports parseFrontmatter from dist/utils/frontmatter.js:17.
    const pkgDir = path.join(hostsRoot, "pi073", "node_modules", "@mariozechner", "pi-coding-agent");
    ({ parseFrontmatter } = await import(pathToFileURL(path.join(pkgDir, "dist", "index.js")).href));
    actual = packageVersion(pkgDir);
  }
  const files = [];
  for (const file of candidateFiles()) {
    let content;
    try {
      content = fs.readFileSync(file, "utf8");
    } catch (e) {
      files.push(entry(file, { outcome: "skipped", message: `unreadable: ${errText(e)}` }));
      continue;
    }
    try {
      const { frontmatter, body } = parseFrontmatter(content);
      files.push(entry(file, { outcome: "loaded", config: frontmatter, details: { body_chars: body.length } }));
    } catch (e) {
      files.push(entry(file, { outcome: "skipped", message: errText(e), details: { error: e?.name ?? null } }));
    }
  }
  return { actual, files };
}

// ---------------------------------------------------------------------------
// tintinweb @tintinweb/pi-subagents 0.14.1.

async function runTintinweb() {
  const hostDir = hostsRoot && path.join(hostsRoot, "tintinweb");
  const src = path.join(packageDir("tintinweb", "@tintinweb/pi-subagents"), "src");
  const { jiti, pi } = await pi16Loader(hostDir);
  const customAgents = await jiti.import(path.join(src, "custom-agents.ts"));
  const agentTypes = await jiti.import(path.join(src, "agent-types.ts"));
  const runner = await jiti.import(path.join(src, "agent-runner.ts"));

  // The directories loadCustomAgents reads, lowest priority first
  // (custom-agents.ts:24-31): *.md directly inside each, no recursion.
  const dirs = [
    path.join(pi.getAgentDir(), "agents"),
    path.join(project, ".agents", "agents"),
    path.join(project, ".pi", "agents"),
  ];
  const readByHost = new Map(); // file -> stem, in load order
  for (const dir of dirs) {
    let names;
    try {
      names = fs.readdirSync(dir).filter((f) => f.endsWith(".md"));
    } catch {
      continue;
    }
    for (const f of names) readByHost.set(path.join(dir, f), path.basename(f, ".md"));
  }

  // The extension's factory calls reloadCustomAgents() -> loadCustomAgents(process.cwd())
  // at load time (index.ts:284-290), outside any try: a throw there fails pi's start.
  let agents;
  let startError;
  try {
    agents = customAgents.loadCustomAgents(process.cwd());
  } catch (e) {
    startError = e;
  }
  const files = [];
  if (startError) {
    // Which file threw: the same parseFrontmatter the host calls (custom-agents.ts:56),
    // in the host's load order.
    let culprit;
    for (const [file] of readByHost) {
      try {
        pi.parseFrontmatter(fs.readFileSync(file, "utf8"));
      } catch (e) {
        culprit = { file, message: errText(e) };
        break;
      }
    }
    for (const file of candidateFiles([...readByHost.keys()])) {
      if (culprit && file === culprit.file) {
        files.push(entry(file, {
          outcome: "refuses-start",
          message: `loadCustomAgents threw at extension load, so pi does not start: ${culprit.message}`,
          identity: readByHost.get(file),
        }));
      } else {
        files.push(entry(file, {
          outcome: "skipped",
          message: culprit
            ? `not loaded: pi does not start because ${display(culprit.file)} cannot be parsed`
            : `not loaded: loadCustomAgents threw: ${errText(startError)}`,
        }));
      }
    }
    return { files, startError: errText(startError) };
  }

  agentTypes.registerAgents(agents); // index.ts:286
  const winners = new Map(); // stem -> file (a later directory overwrites, custom-agents.ts:29-31)
  for (const [file, stem] of readByHost) winners.set(stem, file);

  for (const file of candidateFiles([...readByHost.keys()])) {
    const stem = readByHost.get(file);
    if (stem === undefined) {
      files.push(entry(file, {
        outcome: "skipped",
        message: "not read: tintinweb reads only *.md directly in <agent-dir>/agents/, ./.agents/agents/ and ./.pi/agents/",
      }));
      continue;
    }
    if (winners.get(stem) !== file) {
      files.push(entry(file, {
        outcome: "skipped",
        message: `shadowed: ${display(winners.get(stem))} registers the same name \`${stem}\``,
        identity: stem,
      }));
      continue;
    }
    const config = agents.get(stem);
    if (!config) {
      // readFileSync failed (a directory named *.md, permissions): silently skipped.
      files.push(entry(file, { outcome: "skipped", message: "unreadable: the host skips it silently (custom-agents.ts:50-54)" }));
      continue;
    }
    files.push(entry(file, tintinwebRole(stem, config, agentTypes, runner)));
  }
  return { files };
}

function tintinwebRole(stem, config, agentTypes, runner) {
  const messages = [];
  // What runAgent hands createAgentSession as `tools` (agent-runner.ts:447-676).
  let toolNames = agentTypes.getToolNamesForType(stem); // host function
  // Replicated: persistent-memory tool additions, agent-runner.ts:450-466.
  if (config.memory) {
    const existing = new Set(toolNames);
    const denied = config.disallowedTools ? new Set(config.disallowedTools) : undefined;
    const has = (n) => existing.has(n) && !denied?.has(n);
    const extra = has("write") || has("edit")
      ? agentTypes.getMemoryToolNames(existing)
      : agentTypes.getReadOnlyMemoryToolNames(existing);
    if (extra.length > 0) toolNames = [...toolNames, ...extra];
  }
  // Replicated: the allowlist filter, agent-runner.ts:636-676 (extension tools are not
  // enumerated: the oracle loads no extensions; `ext:` selectors are in config).
  const excluded = Object.values(runner.SUBAGENT_TOOL_NAMES); // agent-runner.ts:42
  const disallowed = config.disallowedTools ? new Set(config.disallowedTools) : undefined;
  const allowed = toolNames.filter((t) => !excluded.includes(t) && !disallowed?.has(t));
  // pi registers only the names it knows; the host reports the rest as tools-error
  // (agent-runner.ts:558-572).
  const known = new Set(agentTypes.BUILTIN_TOOL_NAMES);
  const unknown = (config.builtinToolNames ?? []).filter((n) => !known.has(n));
  for (const n of unknown) messages.push(`tools-error:tool "${n}" requested by agent "${stem}" is not a known built-in`);
  if (config.enabled === false) {
    messages.push("enabled: false: not advertised, but a call by this name still resolves and runs (with all built-in tools: getToolNamesForType ignores a disabled config)");
  }
  const tools = allowed.filter((t) => known.has(t));
  return {
    outcome: "loaded",
    message: messages.length ? messages.join("; ") : null,
    identity: stem,
    tools,
    model: config.model ?? null,
    thinking: config.thinking ?? null,
    // agent-runner.ts:723, without a tool-call max_turns: config, else the settings
    // default (unset: unlimited -> null).
    max_turns: runner.normalizeMaxTurns(config.maxTurns ?? runner.getDefaultMaxTurns()) ?? null,
    prompt_mode: config.promptMode,
    config,
    details: { requested_tools: allowed, grace_turns: runner.getGraceTurns() },
  };
}

// ---------------------------------------------------------------------------
// pi's example subagent extension (examples/extensions/subagent in pi's package, which
// a project vendors into .pi/extensions/subagent/): its own agents.ts, on pi 1.6.

/** The directory holding the example extension's agents.ts: `--package`, else the
 * provisioned pi 1.6's examples/extensions/subagent. */
const exampleDir = () =>
  packageDir("tintinweb", path.join("@earendil-works", "pi-coding-agent", "examples", "extensions", "subagent"));

async function runPiExample() {
  const hostDir = hostsRoot && path.join(hostsRoot, "tintinweb");
  const { jiti, pi, piVersion } = await pi16Loader(hostDir);
  const agentsMod = await jiti.import(path.join(exampleDir(), "agents.ts"));

  // The directories discoverAgents reads with agentScope "both" (index.ts: what a call
  // that asks for project roles passes): <agent dir>/agents and the nearest .pi/agents
  // above the cwd (agents.ts: findNearestProjectAgentsDir), their own *.md files only,
  // user roles first, so a project role replaces a user role of the same name.
  const userDir = path.join(pi.getAgentDir(), "agents");
  const readByHost = []; // files in the order the host reads them
  const readDir = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.endsWith(".md") && (e.isFile() || e.isSymbolicLink())) readByHost.push(path.join(dir, e.name));
    }
  };
  let discovery;
  let startError;
  try {
    discovery = agentsMod.discoverAgents(process.cwd(), "both");
  } catch (e) {
    startError = e;
  }
  readDir(userDir);
  const projectDir = discovery?.projectAgentsDir ?? findUp(process.cwd(), path.join(".pi", "agents"));
  if (projectDir) readDir(projectDir);
  const notRead =
    "not read: pi's example extension reads only *.md directly in <agent-dir>/agents/ and the nearest .pi/agents/ (with agentScope \"both\" or \"project\")";

  const files = [];
  if (startError) {
    // parseFrontmatter has no try around it (agents.ts: loadAgentsFromDir): one file it
    // cannot parse fails every call that reads the roles. Which one: the same
    // parseFrontmatter, in the host's read order.
    let culprit;
    for (const file of readByHost) {
      try {
        pi.parseFrontmatter(fs.readFileSync(file, "utf8"));
      } catch (e) {
        culprit = { file, message: errText(e) };
        break;
      }
    }
    for (const file of candidateFiles(readByHost)) {
      if (culprit && file === culprit.file) {
        files.push(entry(file, {
          outcome: "fails-calls",
          message: `discoverAgents threw, so every \`subagent\` call that reads project roles fails: ${culprit.message}`,
        }));
      } else {
        files.push(entry(file, {
          outcome: "skipped",
          message: !readByHost.includes(file)
            ? notRead
            : culprit
              ? `not loaded: every call fails because ${display(culprit.file)} cannot be parsed`
              : `not loaded: discoverAgents threw: ${errText(startError)}`,
        }));
      }
    }
    return { files, startError: errText(startError), actual: piVersion };
  }

  const byFile = new Map(discovery.agents.map((a) => [path.resolve(a.filePath), a]));
  const byName = new Map(discovery.agents.map((a) => [a.name, a]));
  // What the child gets: `pi --tools <the role's tools>` (index.ts: runSingleAgent), which
  // starts it with the built-ins it knows of those; no `tools`: pi's default tools.
  const builtins = new Set([...pi.createCodingTools("."), ...pi.createReadOnlyTools(".")].map((t) => t.name));
  const piDefaultTools = pi.createCodingTools(".").map((t) => t.name);
  for (const file of candidateFiles(readByHost)) {
    const abs = path.resolve(file);
    if (!readByHost.includes(file)) {
      files.push(entry(file, { outcome: "skipped", message: notRead }));
      continue;
    }
    const agent = byFile.get(abs);
    if (!agent) {
      let fm = {};
      try {
        fm = pi.parseFrontmatter(fs.readFileSync(file, "utf8")).frontmatter ?? {};
      } catch {
        // unreadable: the host skips it silently too (agents.ts: loadAgentsFromDir)
      }
      if (typeof fm.name !== "string" || typeof fm.description !== "string") {
        files.push(entry(file, {
          outcome: "skipped",
          message: `no \`${typeof fm.name !== "string" ? "name" : "description"}\` string: skipped silently (agents.ts: loadAgentsFromDir)`,
        }));
        continue;
      }
      const winner = byName.get(fm.name);
      files.push(entry(file, {
        outcome: "skipped",
        message: winner
          ? `shadowed: ${display(winner.filePath)} registers the same name \`${winner.name}\``
          : "not registered",
        identity: fm.name,
      }));
      continue;
    }
    let tools = piDefaultTools;
    const messages = [];
    if (agent.tools) {
      if (agent.tools.some((t) => t.includes("*") || t.startsWith("+") || t.startsWith("-"))) {
        tools = null;
        messages.push(`tools ${agent.tools.join(",")}: a pattern or modifier pi resolves at start`);
      } else {
        tools = agent.tools.filter((t) => builtins.has(t));
        const unknown = agent.tools.filter((t) => !builtins.has(t));
        if (unknown.length > 0) messages.push(`pi starts the child without the unknown tools ${unknown.join(", ")}`);
      }
    } else {
      messages.push("no tools: pi's default tools");
    }
    files.push(entry(file, {
      outcome: "loaded",
      message: messages.join("; ") || null,
      identity: agent.name,
      tools,
      model: agent.model ?? null,
      config: { name: agent.name, description: agent.description, tools: agent.tools ?? null, model: agent.model ?? null, source: agent.source },
      details: { requested_tools: agent.tools ?? null, body_chars: agent.systemPrompt.length },
    }));
  }
  return { files, actual: piVersion };
}

/** The nearest `rel` directory at or above `dir`. */
function findUp(dir, rel) {
  for (let d = dir; ; d = path.dirname(d)) {
    const p = path.join(d, rel);
    try {
      if (fs.statSync(p).isDirectory()) return p;
    } catch {
      // not here
    }
    if (path.dirname(d) === d) return null;
  }
}

// ---------------------------------------------------------------------------
// nicobailon pi-subagents 0.67.0.

async function runNicobailon() {
  const hostDir = hostsRoot && path.join(hostsRoot, "nicobailon");
  const src = path.join(packageDir("nicobailon", "pi-subagents"), "src");
  const { jiti, pi } = await pi16Loader(hostDir);
  const agentsMod = await jiti.import(path.join(src, "agents", "agents.ts"));
  const frontmatterMod = await jiti.import(path.join(src, "agents", "frontmatter.ts"));
  const preflight = await jiti.import(path.join(src, "api", "preflight.ts"));

  // The host's discovery, scope "both" as the subagent tool uses by default
  // (agent-scope.ts: resolveExecutionAgentScope -> "both").
  const snapshot = agentsMod.discoverAgentSnapshot(project, "both", undefined, { includeChains: true });
  const effective = snapshot.effective;
  const all = snapshot.all;
  const winnerByFile = new Map(effective.agents.map((a) => [path.resolve(a.filePath), a]));
  const winnerByName = new Map(effective.agents.map((a) => [a.name, a]));
  const allByFile = new Map(
    [...all.builtin, ...all.package, ...all.user, ...all.project].map((a) => [path.resolve(a.filePath), a]),
  );
  const diagByFile = new Map((effective.agentDiagnostics ?? []).map((d) => [path.resolve(d.filePath), d]));
  const chainByFile = new Map(all.chains.map((c) => [path.resolve(c.filePath), c]));
  const chainDiagByFile = new Map((all.chainDiagnostics ?? []).map((d) => [path.resolve(d.filePath), d]));
  // The role candidates of every directory the discovery consulted (agents.ts:1781).
  const readByHost = new Set();
  for (const dir of effective.directories) {
    if (dir.source === "builtin") continue;
    for (const f of agentsMod.inspectAgentDefinitionDirectory(dir.path).files) readByHost.add(path.resolve(f));
  }

  // Replicated: the default (background) launch passes the parent's built-in tools as
  // hostAvailableBuiltins (async-execution.ts:966, getHostBuiltinToolNames): pi 1.6's
  // built-ins, derived from pi's own tool factories as tintinweb does.
  const hostBuiltins = [...new Set([...pi.createCodingTools("."), ...pi.createReadOnlyTools(".")].map((t) => t.name))];
  const piDefaultTools = pi.createCodingTools(".").map((t) => t.name);

  const files = [];
  for (const file of candidateFiles([...readByHost])) {
    const abs = path.resolve(file);
    if (file.endsWith(".chain.md")) {
      const chain = chainByFile.get(abs);
      const diag = chainDiagByFile.get(abs);
      files.push(entry(file, {
        outcome: "skipped",
        message: chain
          ? `not a role: read as the chain \`${chain.name}\``
          : diag
            ? `not a role (*.chain.md is a chain definition); the chain is invalid: ${diag.error}`
            : "not a role: *.chain.md files are chain definitions (agents.ts:1826)",
        identity: chain?.name,
      }));
      continue;
    }
    if (!readByHost.has(abs)) {
      files.push(entry(file, {
        outcome: "skipped",
        message: "not read: nicobailon reads <agent-dir>/agents/**, ~/.agents/**, <project root>/.agents/** (not .agents/skills/) and <project root>/.pi/agents/**",
      }));
      continue;
    }
    const diag = diagByFile.get(abs);
    if (diag) {
      files.push(entry(file, {
        outcome: "skipped",
        message: `invalid configuration (a call answers "Agent '${diag.runtimeName ?? diag.name ?? "?"}' has invalid configuration: …"): ${diag.error}`,
        identity: diag.runtimeName ?? diag.name,
      }));
      continue;
    }
    const winner = winnerByFile.get(abs);
    if (!winner) {
      const loaded = allByFile.get(abs);
      if (loaded?.disabled) {
        files.push(entry(file, { outcome: "skipped", message: "disabled by settings", identity: loaded.name, config: loaded }));
        continue;
      }
      let fm = {};
      try {
        fm = frontmatterMod.parseFrontmatter(fs.readFileSync(file, "utf8")).frontmatter;
      } catch {
        // unreadable: the host skips it silently too (agents.ts:1945-1949)
      }
      if (!fm.name || !fm.description) {
        files.push(entry(file, {
          outcome: "skipped",
          message: `no \`${!fm.name ? "name" : "description"}\`: skipped silently (agents.ts:1977)`,
        }));
        continue;
      }
      const other = winnerByName.get(fm.name) ?? loaded;
      files.push(entry(file, {
        outcome: "skipped",
        message: other && path.resolve(other.filePath) !== abs
          ? `shadowed: ${display(other.filePath)} registers the same name \`${other.name}\``
          : "not registered (shadowed or filtered by the host's merge)",
        identity: fm.name,
      }));
      continue;
    }
    files.push(entry(file, await nicobailonRole(winner, preflight, hostBuiltins, piDefaultTools)));
  }
  return { files };
}

async function nicobailonRole(agent, preflight, hostBuiltins, piDefaultTools) {
  // The host's own launch preflight (src/api/preflight.ts:264, package export
  // "./preflight"): discovery, intercom bridge, model/thinking, tool plan.
  // orchestratorTarget: execution always has one (the parent session's name or id,
  // subagent-executor.ts:1856), which activates the default "always" intercom bridge.
  const result = await preflight.resolveSubagentLaunchContract({
    agent: agent.name,
    cwd: project,
    orchestratorTarget: "oracle-parent",
    hostAvailableBuiltins: hostBuiltins,
  });
  const base = {
    identity: agent.name,
    model: agent.model ?? null,
    thinking: agent.thinking === undefined ? null : agent.thinking,
    max_turns: null, // nicobailon has no turn bound (toolBudget / timeoutMs instead)
    prompt_mode: agent.systemPromptMode,
    config: agent,
  };
  if (!result.ok) {
    return {
      ...base,
      outcome: "loaded",
      message: `launch refused (${result.code}): ${result.message}`,
      details: { launch: { ok: false, code: result.code, diagnostics: result.diagnostics } },
    };
  }
  const c = result.contract;
  let tools;
  let toolsNote;
  if (c.tools.explicitAllowlist) {
    tools = c.tools.effectiveAllowlist; // child-launch.ts:300: the session's `tools`
  } else {
    // Replicated (measured, docs: hosts-observed.md section 3): without an allowlist the
    // child session gets pi's default tools (read, bash, edit, write) plus the tools the
    // host's child runtime registers: bg_wait (waitTool, enabled by default) and
    // contact_supervisor (the intercom bridge).
    tools = [...piDefaultTools, "bg_wait", ...(c.intercomBridge.active ? ["contact_supervisor"] : [])];
    toolsNote = "no tools allow-list: pi's default tools plus the host's bg_wait and contact_supervisor";
  }
  const warnings = c.diagnostics.filter((d) => d.severity !== "host-required").map((d) => d.message);
  // The plan's own non-fatal warning is not part of the contract; its substance is
  // (replicated wording, child-tool-plan.ts:547-556): names the host has no tool for.
  const omitted = c.tools.requestedBuiltin.filter((t) => !c.tools.declaredBuiltin.includes(t));
  if (omitted.length > 0) {
    warnings.push(`Agent '${agent.name}': host runtime tool availability omitted [${omitted.join(", ")}]`);
  }
  return {
    ...base,
    outcome: "loaded",
    message: [...warnings, ...(toolsNote ? [toolsNote] : [])].join("; ") || null,
    tools,
    details: {
      aliases: agent.aliases ?? [],
      launch_model: c.model ?? null,
      launch_thinking: c.thinking ?? null,
      tool_budget: agent.toolBudget ?? null,
      timeout_ms: agent.defaultTimeoutMs ?? null,
      tool_plan: c.tools,
      intercom_bridge: c.intercomBridge,
      skills: c.skills,
      diagnostics: c.diagnostics,
    },
  };
}

// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// --write-settings: the host's own writer, in the project.

/** Every file under the project, with its bytes (to say what a writer wrote). */
function snapshotFiles(root) {
  const out = new Map();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(p, fs.readFileSync(p));
    }
  };
  walk(root);
  return out;
}

async function writeSettings(name, kind) {
  const before = snapshotFiles(project);
  if (name === "tintinweb" && kind === "own") {
    const hostDir = path.join(hostsRoot, "tintinweb");
    const { jiti } = await pi16Loader(hostDir);
    const settings = await jiti.import(
      path.join(hostDir, "node_modules", "@tintinweb", "pi-subagents", "src", "settings.ts"),
    );
    if (!settings.saveSettings({ maxConcurrent: 2, defaultJoinMode: "smart" }, project)) {
      throw new Error("tintinweb's saveSettings failed");
    }
  } else if (name === "nicobailon" && kind === "own") {
    const hostDir = path.join(hostsRoot, "nicobailon");
    const { jiti } = await pi16Loader(hostDir);
    const agents = await jiti.import(path.join(hostDir, "node_modules", "pi-subagents", "src", "agents", "agents.ts"));
    agents.saveBuiltinAgentOverride(project, "scout", "project", { model: "anthropic/claude-haiku-4-5" });
  } else if (name === "pi" && kind.startsWith("package:")) {
    const { pi } = await pi16Loader(path.join(hostsRoot, "tintinweb"));
    const settingsManager = pi.SettingsManager.create(project, agentDir);
    const pm = new pi.DefaultPackageManager({ cwd: project, agentDir, settingsManager });
    pm.addSourceToSettings(kind.slice("package:".length), { local: true });
    await settingsManager.flush();
  } else if (name === "pi" && kind === "example-extension") {
    const from = exampleDir();
    const to = path.join(project, ".pi", "extensions", "subagent");
    fs.mkdirSync(to, { recursive: true });
    for (const f of ["index.ts", "agents.ts"]) fs.copyFileSync(path.join(from, f), path.join(to, f));
  } else {
    usage(`--write-settings ${kind} is not a writer of ${name}`);
  }
  const after = snapshotFiles(project);
  const written = [...after.entries()]
    .filter(([p, bytes]) => !before.has(p) || !before.get(p).equals(bytes))
    .map(([p]) => display(p))
    .sort();
  return { written };
}

async function runOne(dir) {
  enter(dir);
  try {
    return await runProject();
  } finally {
    leave();
  }
}

async function main() {
  if (args.project) return JSON.stringify(await runOne(args.project));
  const docs = [];
  for (const dir of args.projects) docs.push(await runOne(dir));
  return JSON.stringify(docs);
}

async function runProject() {
  const [name, version] = args.host.split("@");
  if (args.writeSettings !== undefined) {
    const { written } = await writeSettings(name, args.writeSettings);
    return { host: name, version, project, written };
  }
  let result;
  let actual = version;
  if (name === "pi") {
    const r = await runPi(version);
    actual = r.actual;
    result = r;
  } else if (name === "tintinweb") {
    actual = packageVersion(packageDir("tintinweb", "@tintinweb/pi-subagents"));
    result = await runTintinweb();
  } else if (name === "pi-example") {
    // Not a package of its own: its version is the loading pi's.
    result = await runPiExample();
    actual = result.actual;
  } else {
    actual = packageVersion(packageDir("nicobailon", "pi-subagents"));
    result = await runNicobailon();
  }
  if (actual !== version) throw new Error(`installed ${name} is ${actual}, not ${version}: run scripts/provision-hosts.sh`);
  result.files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const doc = {
    host: name,
    version: actual,
    project,
    agent_dir: args.agentDir ? agentDir : null,
    ...(result.startError ? { refuses_start: result.startError } : {}),
    files: result.files,
    host_console: hostConsole.splice(0),
  };
  return doc;
}

main().then(
  (json) => {
    process.stdout.write(json + "\n", () => process.exit(0));
  },
  (e) => {
    process.stderr.write(`oracle: ${e?.stack ?? e}\n`);
    process.exit(1);
  },
);
