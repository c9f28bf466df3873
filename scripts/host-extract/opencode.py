"""OpenCode: facts read in its native binary (a Bun bundle; the JavaScript is in it
as text).

  keys      the set of agent keys its config decoder keeps (every other key goes into
            `options`), found next to the agent schema (the Effect `Struct` whose
            `maxSteps` is described "@deprecated Use 'steps' field instead.");
  values    that `Struct`'s member types (`D.String`, `D.Finite`, `D.Boolean`,
            `D.Record`, `D.Literals`, …);
  aliases   keys the decoder reads as another (`A=_.steps??_.maxSteps`), and the
            `tools` map it turns into `permission` rules;
  dirs      the agent file glob of the config directories (`{agent,agents}/**/*.md`).
"""

import mmap
import os
import re

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


def extract(hosts_root, measure_cli=True):
    nm = os.path.join(hosts_root, "cli", "opencode", "node_modules")
    binary = os.path.join(nm, BIN)
    if not os.path.isfile(binary):
        fail(f"opencode: no binary at {binary} (run scripts/provision-hosts.sh)")
    import json
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
        },
        "not_extracted": {
            "values.unresolved": "members typed by an imported schema (steps, permission) are not followed",
        },
    }
