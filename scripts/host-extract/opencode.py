"""OpenCode: facts read in its native binary (a Bun bundle; the JavaScript is in it
as text).

  keys      the set of agent keys its config decoder keeps (every other key goes into
            `options`), found next to the agent schema (the Effect `Struct` whose
            `maxSteps` is described "@deprecated Use 'steps' field instead.");
  values    that `Struct`'s member types (`D.String`, `D.Finite`, `D.Boolean`,
            `D.Record`, `D.Literals`, …);
  aliases   keys the decoder reads as another (`A=_.steps??_.maxSteps`), and the
            `tools` map it turns into `permission` rules;
  dirs      the agent file glob of the config directories (`{agent,agents}/**/*.md`);
  tools     measured with the real CLI (offline, no model): `opencode debug agent` on one
            `mode: subagent` agent without `tools` prints the tools map the agent gets —
            its keys are the built-in tools, `true` the ones a subagent is given (`invalid`,
            the handler of a malformed tool call, is no tool a role can name).
"""

import json
import mmap
import os
import re
import subprocess
import tempfile

from common import fail, js_matching, js_object_entries, js_string_array, sha256

BIN = "opencode-linux-x64/bin/opencode"


def _effect_type(expr, local):
    """What an Effect Schema expression accepts: {types, enum, pattern}."""
    e = expr.strip()
    # `….annotate({…})` documents; it does not change what is accepted.
    while (a := e.rfind(".annotate(")) > 0 and js_matching(e, a + len(".annotate")) == len(e):
        e = e[:a]
    m = re.match(r"\w+\.optional\((.*)\)$", e, re.S)
    if m:
        e = m.group(1).strip()
    if re.fullmatch(r"\w+\.String", e):
        return {"types": ["string"]}
    if re.fullmatch(r"\w+\.(Finite|Number)", e):
        return {"types": ["number"]}
    if re.fullmatch(r"\w+\.Boolean", e):
        return {"types": ["boolean"]}
    if re.match(r"\w+\.Record\(", e):
        inner = re.match(r"\w+\.Record\(\w+\.String,\s*(\w+\.\w+)\)", e)
        vt = _effect_type(inner.group(1), local).get("types") if inner else None
        return {"types": ["object"], **({"values": vt} if vt else {})}
    if (lm := re.match(r"\w+\.Literals\((\[.*?\])\)", e)):
        return {"types": ["string"], "enum": js_string_array(lm.group(1))}
    if re.fullmatch(r"\w+", e) and e in local:
        return _effect_type(local[e], local)
    if (um := re.match(r"\w+\.Union\(\[(.*)\]\)$", e, re.S)):
        out = {"types": []}
        for part in re.split(r",(?=\w+\.)", um.group(1)):
            t = _effect_type(part, local)
            for x in t.get("types", []):
                if x not in out["types"]:
                    out["types"].append(x)
            if "enum" in t:
                out.setdefault("enum", []).extend(t["enum"])
            if (pm := re.search(r"isPattern\(/(.*?)/\)", part)):
                out["pattern"] = pm.group(1)
        return out
    return {"unresolved": e}


def _debug_agent_tools(binary):
    """The tools map `opencode debug agent` prints for a `mode: subagent` agent
    without `tools`, in a scratch project and home (nothing of the user's read)."""
    with tempfile.TemporaryDirectory(prefix="pwk-opencode-") as d:
        project, home = os.path.join(d, "project"), os.path.join(d, "home")
        os.makedirs(os.path.join(project, ".opencode", "agents"))
        os.makedirs(home)
        with open(os.path.join(project, ".opencode", "agents", "probe.md"), "w") as f:
            f.write("---\ndescription: Probe\nmode: subagent\n---\nBody.\n")
        subprocess.run(["git", "init", "-q", project], check=True)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".data"),
               "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_STATE_HOME": os.path.join(home, ".state"),
               "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
               "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1"}
        r = subprocess.run([binary, "debug", "agent", "probe", "--pure"], cwd=project, env=env,
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            fail(f"opencode: `debug agent` exited {r.returncode}: {r.stderr.strip()[-400:]}")
        doc = json.loads(r.stdout[r.stdout.index("{"):])
    tools = doc.get("tools")
    if not isinstance(tools, dict) or not tools:
        fail("opencode: `debug agent` printed no tools map")
    tools.pop("invalid", None)
    return tools


def extract(hosts_root, measure_cli=True):
    nm = os.path.join(hosts_root, "cli", "opencode", "node_modules")
    binary = os.path.join(nm, BIN)
    if not os.path.isfile(binary):
        fail(f"opencode: no binary at {binary} (run scripts/provision-hosts.sh)")
    version = json.load(open(os.path.join(nm, "opencode-ai", "package.json")))["version"]
    with open(binary, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        at = m.find(b"maxSteps:D.optional(")
        anchor = m.find(b"@deprecated Use 'steps' field instead.")
        if anchor < 0:
            fail("opencode: the agent schema is not in the binary")
        start = m.rfind(b"// @bun", 0, anchor)
        chunk = m[start : anchor + 20000].decode("utf-8", "replace")
    rel = anchor - start
    # The Struct: the nearest `Struct({` before the anchor that encloses it.
    s = chunk.rfind("StructWithRest(", 0, rel)
    brace = chunk.find("{", s)
    entries = js_object_entries(chunk, brace)
    # Local definitions the members use (`mH=D.Union([...])`).
    local = {}
    for name in {v.strip() for _, v in entries} | {re.sub(r"^\w+\.optional\((\w+)\).*", r"\1", v) for _, v in entries}:
        if re.fullmatch(r"\w+", name):
            d = re.search(r"[,;{ ]" + re.escape(name) + r"=(\w+\.Union\(\[.*?\]\))[,;]", chunk[: brace])
            if d:
                local[name] = d.group(1)
    values = {}
    for k, v in entries:
        t = _effect_type(v, local)
        if "unresolved" in t:
            t = {"unresolved": t["unresolved"][:60]}
        values[k] = t
    end = js_matching(chunk, brace)
    tail = chunk[end : end + 4000]
    ks = re.search(r"new Set\((\[[^\]]*\])\)", tail)
    if not ks:
        fail("opencode: the set of agent keys is not next to the schema")
    keys = js_string_array(ks.group(1))
    # The decoder that follows: `A=_.steps??_.maxSteps` and the tools map.
    dec = tail[ks.end() : ks.end() + 1500]
    aliases = {}
    for _, a, b in re.findall(r"(\w+)\.(\w+)\?\?\1\.(\w+)", dec):
        aliases[b] = a
    tools_to_permission = bool(re.search(r"\.tools\?\?\{\}\)\)\{let \w+=\w+\?\"allow\":\"deny\"", dec))
    with open(binary, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        g = re.search(rb'scan\("(\{agent,agents\}[^"]*)"', m)
        glob_at = g.start() if g else -1
        glob = g.group(1).decode() if g else None
    dirs = []
    if glob:
        names = re.match(r"\{([^}]*)\}/(.*)", glob)
        for d in names.group(1).split(","):
            dirs.append({"path": f".opencode/{d}", "recursive": "**" in names.group(2), "glob": glob,
                         "cite": f"opencode@{glob_at} (the agent files of a config directory)"})
    cite = f"opencode@{start + brace} (the agent config schema; its keys at +{end - brace + ks.start()})"
    facts_tools, not_extracted = {}, {}
    if measure_cli:
        tools = _debug_agent_tools(binary)
        facts_tools = {"tools": {
            "subagent": sorted(t for t, on in tools.items() if on),
            "dropped": [],
            "denied": sorted(t for t, on in tools.items() if not on),
            "cite": "the real CLI: `opencode debug agent probe --pure` on a `mode: subagent` agent without "
                    "`tools` (its tools map; `invalid`, the malformed-call handler, left out)",
        }}
    else:
        not_extracted["tools"] = "measured with the real CLI, not read (--static)"
    return {
        "host": "opencode",
        "version": version,
        "artifact": {"package": "opencode-linux-x64", "file": "bin/opencode", "sha256": sha256(binary)},
        "facts": {
            "keys": {"read": sorted(keys), "cite": cite},
            "required": {"keys": [], "cite": cite + ": every member is optional"},
            "values": dict(sorted(values.items()), cite=cite),
            "aliases": {"keys": aliases, "tools_to_permission": tools_to_permission,
                        "cite": f"opencode@{start + end + ks.end()} (the decoder after the schema)"},
            "dirs": dirs,
            **facts_tools,
        },
        "not_extracted": {
            **not_extracted,
            "values.unresolved": "members typed by an imported schema (steps, permission) are not followed",
        },
    }
