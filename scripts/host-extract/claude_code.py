"""Claude Code: facts read in its native binary and measured by running it.

Read in the binary (the Bun bundle's JavaScript, located by strings that describe the
thing itself, never by minified names):
  keys      the agent frontmatter's zod object (the one whose `name` is described
            "Agent identifier. Required"): the keys the loader reads and its own
            unknown-key warning checks against (`Object.keys(<it>.shape)`);
  required  the agent validator's `Missing required "<key>" field` messages;
  models    the alias array (`…"opusplan"…]` tested by `<arr>.includes(e)`), and the
            `toLowerCase()==="inherit"` token of the agent builder;
  values    permissionMode's alias (`e==="manual"?"default":e`).
Measured with the real CLI (tests/oracle/cli-hosts.mjs, offline):
  values    each checked key's accepted values, from the loader's own debug message for
            an invalid value (`Valid options: …`, `Must be a positive integer`, …);
  drops     which `hooks` shapes make the loader drop the agent;
  tools     the session's tools (the init event), and for every candidate name which
            ones a subagent that lists it is given (directly or through ToolSearch);
  dirs      whether a file in a subdirectory of .claude/agents/ loads.
"""

import json
import mmap
import os
import re

from common import (Projects, chunks, cli_oracle, fail, frontmatter_file, js_matching,
                    js_object_entries, package_version, sha256)

BIN = "@anthropic-ai/claude-code-linux-x64/claude"

# Tool names a role may write that this build might not have: names older builds or
# the documentation use. The session's own tools are added to these.
CANDIDATE_TOOLS = [
    "Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "EnterPlanMode",
    "ExitPlanMode", "Glob", "Grep", "KillShell", "LS", "LSP", "MultiEdit",
    "NotebookEdit", "NotebookRead", "PowerShell", "Read", "Search", "SlashCommand",
    "Task", "TaskCreate", "TaskGet", "TaskList", "TaskOutput", "TaskUpdate", "TodoWrite",
    "WebFetch", "WebSearch", "Write",
]


def _find_all(m, needle):
    out, i = [], m.find(needle)
    while i >= 0:
        out.append(i)
        i = m.find(needle, i + 1)
    return out


def _window(m, at, before, after):
    start = max(0, at - before)
    return start, m[start : at + after].decode("utf-8", "replace")


def read_binary(path):
    facts, cites = {}, {}
    name = os.path.basename(path)
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        # keys: the zod object of the agent frontmatter.
        keys = None
        for at in _find_all(m, b'Agent identifier. Required'):
            start, text = _window(m, at, 400, 20000)
            rel = at - start
            obj = text.rfind("({name:", 0, rel)
            if obj < 0:
                continue
            try:
                entries = js_object_entries(text, obj + 1)
            except (ValueError, IndexError):
                continue
            keys = [k for k, _ in entries if k != "..."]
            cites["keys"] = f"{name}@{start + obj + 1} (the agent frontmatter's zod object: `name` \"Agent identifier. Required\")"
            break
        if not keys:
            fail("claude-code: the agent frontmatter schema is not in the binary")
        facts["keys"] = keys

        # required: the validator's messages, around the `:` rule of agent names.
        at = m.find(b'(reserved for plugin namespacing)\')')
        if at < 0:
            fail("claude-code: the agent validator is not in the binary")
        start, text = _window(m, at, 1500, 1500)
        req = re.findall(r'Missing required \\?"(\w+)\\?" field in frontmatter', text)
        facts["required"] = sorted(set(req))
        cites["required"] = f"{name}@{start} (the agent validator: `Missing required \"<key>\" field in frontmatter`)"

        # models: the alias array, tested by `.includes(e)`.
        aliases = None
        for mm in re.finditer(rb'(\w+)=(\[(?:"[^"\n]{1,40}",?){2,20}\])', m):
            arr = mm.group(2).decode()
            if '"opusplan"' not in arr:
                continue
            after = m[mm.end() : mm.end() + 300]
            if re.search(rb'return ' + re.escape(mm.group(1)) + rb'\.includes\(e\)', after):
                aliases = re.findall(r'"([^"]*)"', arr)
                cites["models"] = f"{name}@{mm.start()} (the alias array a model is tested against)"
                break
        if aliases is None:
            fail("claude-code: the model alias array is not in the binary")
        # The agent builder: `model` lower-cased against its inherit token.
        at = m.find(b"has invalid isolation value '${")
        if at < 0:
            fail("claude-code: the agent builder is not in the binary")
        start, text = _window(m, at, 4000, 6000)
        inherit = re.findall(r'toLowerCase\(\)==="(\w+)"\?"\1"', text)
        facts["models"] = {"aliases": aliases, "inherit": sorted(set(inherit))}
        cites["inherit"] = f"{name}@{start} (the agent builder: `model` compared lower-cased)"
        # permissionMode's alias.
        alias = re.search(rb'="(\w+)";function \w+\(e\)\{return e==="\1"\?"(\w+)":e\}', m)
        facts["permission_aliases"] = {alias.group(1).decode(): alias.group(2).decode()} if alias else {}
        if alias:
            cites["permission_aliases"] = f"{name}@{alias.start()} (a permission mode read as another)"
        # tools: the map of a tool's old names to the tool it is now, the one that
        # holds `Task:"Agent"` (a role's `tools` entry and a permission rule's tool
        # name are read through it).
        renames = re.search(rb'\{((?:\w+:"\w+",)*Task:"Agent"(?:,\w+:"\w+")*)\}', m)
        if not renames:
            fail("claude-code: the tool rename map (`Task:\"Agent\"`) is not in the binary")
        facts["tool_renames"] = dict(
            (k.decode(), v.decode()) for k, v in re.findall(rb'(\w+):"(\w+)"', renames.group(1)))
        cites["tool_renames"] = f"{name}@{renames.start()} (the map of old tool names, `Task:\"Agent\"`)"
    return facts, cites


# ---------------------------------------------------------------------------
# Measured.

ENUM_PROBE = """name: bad-values
description: An invalid value for every checked key
effort: not-an-effort
permissionMode: not-a-mode
memory: not-a-scope
isolation: not-an-isolation
maxTurns: not-a-number
autoCompactWindow: 5
background: not-a-boolean
"""

# Values tried one by one (one agent each): accepted unless the loader's debug log
# says `has invalid <key>` for that file.
VALUE_PROBES = {
    "effort": ["med", 0, -1, 5, 1.5, "5"],
    "permissionMode": ["manual", "Plan"],
    "isolation": ["remote", "Worktree"],
    "memory": ["User"],
    "maxTurns": [0, 1, "3"],
    "autoCompactWindow": [99999, 100000],
    "background": ["true", "yes"],
}

# `hooks` shapes: (label, the value as JSON); each is written as YAML (JSON is YAML).
HOOK_SHAPES = [
    ("empty-list", []),
    ("string", "echo hi"),
    ("flat", {"PreToolUse": [{"matcher": "Bash", "type": "command", "command": "echo hi"}]}),
    ("flat-event", {"PreToolUse": {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}}),
    ("nested", {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}]}),
    ("nested-no-matcher", {"Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}),
    ("unknown-event", {"NotAnEvent": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}),
    ("empty-map", {}),
]


def _loaded(doc):
    return {a["name"] for a in doc["agents"]}


def measure(hosts_root, candidates):
    facts, cites = {}, {}
    with Projects() as ps:
        values_p = ps.new({
            ".claude/agents/bad-values.md": frontmatter_file(ENUM_PROBE),
            ".claude/agents/sub/nested-role.md": frontmatter_file("name: nested-role\ndescription: In a subdirectory"),
            ".claude/agents/sub/deeper/deep-role.md": frontmatter_file("name: deep-role\ndescription: Two levels down"),
            ".claude/agents/top-role.md": frontmatter_file("name: top-role\ndescription: Directly in the directory"),
        })
        hooks_p = ps.new({
            f".claude/agents/hooks-{label}.md": frontmatter_file(
                f"name: hooks-{label}\ndescription: hooks {label}\nhooks: {json.dumps(value)}")
            for label, value in HOOK_SHAPES
        })
        probes, probe_files = {}, {}
        for key, tries in VALUE_PROBES.items():
            for i, value in enumerate(tries):
                tag = f"v-{key.lower()}-{i}"
                probes[tag] = (key, value)
                probe_files[f".claude/agents/{tag}.md"] = frontmatter_file(
                    f"name: {tag}\ndescription: probe {key}\n{key}: {json.dumps(value)}")
        probe_p = ps.new(probe_files)
        docs = cli_oracle("claude-code", [values_p, hooks_p, probe_p], hosts_root)
        session = docs[0]["all_tools"]
        # values, from the loader's debug messages.
        values = {}
        for msg in docs[0]["messages"]:
            m = re.search(r"has invalid (\w+)(?: value)? '[^']*'\. (.*)$", msg)
            if not m:
                continue
            key, rest = m.group(1), m.group(2).rstrip(".")
            v = {}
            if rest.startswith("Valid options: "):
                opts = rest[len("Valid options: "):]
                if opts.endswith(" or an integer"):
                    opts = opts[: -len(" or an integer")]
                    v["integer"] = True
                v["enum"] = [o.strip() for o in opts.split(",") if o.strip()]
            elif rest == "Must be a positive integer":
                v.update(integer=True, minimum=1)
            elif (n := re.match(r"Must be an integer of at least (\d+)", rest)):
                v.update(integer=True, minimum=int(n.group(1)))
            elif rest.startswith("Must be 'true', 'false'"):
                v["boolean"] = True
            else:
                v["message"] = rest
            values[key] = v
        for tag, (key, value) in probes.items():
            refused = any(f"/{tag}.md has invalid {key}" in m for m in docs[2]["messages"])
            values.setdefault(key, {}).setdefault("probed", []).append({"value": value, "accepted": not refused})
        facts["values"] = values
        cites["values"] = "debug log of the real CLI for one agent with an invalid value per key (`has invalid <key> …`)"
        loaded = _loaded(docs[0])
        facts["dirs"] = [{
            "path": ".claude/agents",
            "recursive": {"nested-role", "deep-role"} <= loaded,
            "loads_top": "top-role" in loaded,
        }]
        cites["dirs"] = "the real CLI on .claude/agents/{top-role,sub/nested-role,sub/deeper/deep-role}.md"
        hooks_loaded = _loaded(docs[1])
        facts["hooks"] = {label: f"hooks-{label}" in hooks_loaded for label, _ in HOOK_SHAPES}
        cites["hooks"] = "the real CLI on one agent per `hooks` shape (listed or dropped)"

        # tools: each candidate next to Read, 15 agents per project (the CLI runs at
        # most 20 subagents at once).
        names = sorted(set(candidates) | set(session) - {"Read"})
        projects, tags = [], {}
        # And one that lists every name but Write: tools given only next to others
        # (ToolSearch, with tools to defer) show there (without Write it is not the
        # whole set, which the oracle reports as `*`).
        projects.append(ps.new({".claude/agents/t-every.md": frontmatter_file(
            "name: t-every\ndescription: probe every name\ntools: Read, "
            + ", ".join(n for n in names if n != "Write"))}))
        for group in chunks(names, 15):
            files = {}
            for t in group:
                tag = "t-" + re.sub(r"[^a-z0-9]+", "-", t.lower())
                tags[tag] = t
                files[f".claude/agents/{tag}.md"] = frontmatter_file(f"name: {tag}\ndescription: probe {t}\ntools: Read, {t}")
            projects.append(ps.new(files))
        granted, renamed, dropped = [], {}, []
        every = set()
        for doc in cli_oracle("claude-code", projects, hosts_root):
            for a in doc["agents"]:
                if a["name"] == "t-every":
                    every = set(a["tools"] or []) | set(a.get("tools_deferred") or [])
                t = tags.get(a["name"])
                if t is None:
                    continue
                if a["tools"] is None:
                    fail(f"claude-code: the probe for {t} was not spawned: {a['error']}")
                got = set(a["tools"]) | set(a.get("tools_deferred") or [])
                got.discard("DeferredToolPlaceholder")
                extra = got - {"Read", "ToolSearch"}
                if t in got:
                    granted.append(t)
                elif len(extra) == 1:
                    renamed[t] = extra.pop()
                else:
                    dropped.append(t)
        if "*" in every:
            fail("claude-code: the probe listing every name got the whole set (`*`); the oracle cannot tell them apart")
        # Given only next to others: granted after all.
        for t in [t for t in dropped if t in every]:
            dropped.remove(t)
            granted.append(t)
        granted.sort()
        facts["tools"] = {
            "session": sorted(session),
            "subagent": sorted(granted),
            "renamed": dict(sorted(renamed.items())),
            "dropped": sorted(dropped),
        }
        cites["tools"] = ("the real CLI: the init event's tools (session), and one subagent per candidate name "
                          "with `tools: Read, <name>` (what its own request carries, or lists as deferred)")
    return facts, cites


def extract(hosts_root, measure_cli=True):
    nm = os.path.join(hosts_root, "cli", "claude-code", "node_modules")
    binary = os.path.join(nm, BIN)
    if not os.path.isfile(binary):
        fail(f"claude-code: no binary at {binary} (run scripts/provision-hosts.sh)")
    version = package_version(os.path.join(nm, "@anthropic-ai", "claude-code"))
    static, cites = read_binary(binary)
    facts = {
        "keys": {"read": sorted(static["keys"]), "cite": cites["keys"]},
        "required": {"keys": static["required"], "cite": cites["required"]},
        "models": dict(static["models"], cite=cites["models"] + "; " + cites["inherit"]),
    }
    not_extracted = {
        "keys.types": "the binary's agent schema types every key loosely (string | number | boolean | null); "
                      "the loader checks values one by one (measured under `values`)",
    }
    if measure_cli:
        # Every old name the binary maps is asked too: the CLI confirms the rename.
        candidates = sorted(set(CANDIDATE_TOOLS) | set(static["tool_renames"]))
        measured, mcites = measure(hosts_root, candidates)
        values = measured["values"]
        if static["permission_aliases"] and "permissionMode" in values:
            values["permissionMode"]["aliases"] = static["permission_aliases"]
        facts["values"] = dict(sorted(values.items()), cite=mcites["values"] + (
            "; " + cites["permission_aliases"] if "permission_aliases" in cites else ""))
        facts["drops"] = {"hooks": {
            "invalid": sorted(k for k, ok in measured["hooks"].items() if not ok),
            "valid": sorted(k for k, ok in measured["hooks"].items() if ok),
            "samples": dict(HOOK_SHAPES),
            "cite": mcites["hooks"],
        }}
        facts["tools"] = dict(measured["tools"], cite=mcites["tools"])
        facts["tools"]["renames_in_binary"] = static["tool_renames"]
        facts["tools"]["cite"] += "; renames_in_binary: " + cites["tool_renames"]
        facts["dirs"] = [dict(d, cite=mcites["dirs"]) for d in measured["dirs"]]
    else:
        not_extracted["measured"] = "not measured (--static)"
    return {
        "host": "claude-code",
        "version": version,
        "artifact": {"package": "@anthropic-ai/claude-code-linux-x64", "file": "claude", "sha256": sha256(binary)},
        "facts": facts,
        "not_extracted": not_extracted,
    }
