"""Gemini CLI: facts read in its npm bundle (bundle/*.js, not minified).

  keys, required, values  the agent loader's zod schemas (packages/core/src/agents/
            agentLoader.ts): `localAgentSchema` and the remote ones, each `.strict()`,
            joined in `markdownFrontmatterSchema` (a union: a file is one kind or the
            other, told apart by `kind`);
  tools     the names a role may list (`ALL_BUILTIN_TOOL_NAMES` and the legacy aliases
            `isValidToolName` accepts) and the ones the main tool registry ever
            registers (`createToolRegistry`'s `maybeRegister(<Tool class>, …)`): a
            sub-agent's tools come from that registry, so a valid name that is never
            registered never reaches it;
  models    the model ids `resolveModel` rewrites to another id;
  dirs      `loadAgentsFromDirectory`: the files directly in the directory (no
            recursion), `.md`, not starting with `_`.
"""

import glob
import os
import re

from common import fail, js_matching, js_object_entries, package_version, sha256

PKG = "@google/gemini-cli"


def _bundle(nm):
    """The bundle chunk holding the agent loader (the biggest, if several)."""
    found = []
    for p in glob.glob(os.path.join(nm, PKG, "bundle", "*.js")):
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if "var localAgentSchema = " in text:
            found.append((len(text), p, text))
    if not found:
        fail("gemini: no bundle file holds the agent loader (`localAgentSchema`)")
    found.sort()
    return found[-1][1], found[-1][2]


def _line(text, at):
    return text.count("\n", 0, at) + 1


def _var(text, name):
    m = re.search(r"\bvar " + re.escape(name) + r" = ", text)
    return m.end() if m else None


def _string_const(text, name):
    m = re.search(r"\bvar " + re.escape(name) + r' = "([^"]*)";', text)
    return m.group(1) if m else None


def _zod(text, expr):
    """What a zod expression accepts: {types, enum, minimum, minLength, optional}."""
    expr = expr.strip()
    out = {"optional": ".optional()" in expr or ".default(" in expr}
    if re.match(r"[A-Za-z_$][\w$]*(\.|$)", expr) and not expr.startswith("external_exports"):
        base = re.match(r"[A-Za-z_$][\w$]*", expr).group(0)
        at = _var(text, base)
        if at is None:
            fail(f"gemini: cannot resolve {base}")
        end = text.find(";\n", at)
        inner = _zod(text, text[at:end])
        inner["optional"] = out["optional"] or inner["optional"]
        return inner
    head = re.match(r"external_exports\.(\w+)\(", expr)
    if not head:
        fail(f"gemini: unreadable zod expression {expr[:80]!r}")
    kind = head.group(1)
    args_end = js_matching(expr, head.end() - 1)
    args = expr[head.end() : args_end - 1]
    chain = expr[args_end:]
    if kind == "string":
        out["types"] = ["string"]
        if (m := re.search(r"\.min\((\d+)", chain)):
            out["minLength"] = int(m.group(1))
        if ".url()" in chain:
            out["format"] = "url"
        if (m := re.search(r"\.regex\((/(?:[^/\\]|\\.)+/)", chain)):
            out["pattern"] = m.group(1)[1:-1]
    elif kind == "number":
        if ".int()" in chain:
            out["types"] = ["integer"]
        else:
            out["types"] = ["number"]
        if ".positive()" in chain:
            out["minimum"] = 1 if ".int()" in chain else 0
    elif kind == "boolean":
        out["types"] = ["boolean"]
    elif kind == "array":
        out["types"] = ["array"]
        item = _zod(text, args.split(".refine(")[0] + (")" if ".refine(" in args and args.split(".refine(")[0].count("(") > args.split(".refine(")[0].count(")") else ""))
        out["items"] = item.get("types")
    elif kind in ("record", "object", "discriminatedUnion"):
        out["types"] = ["object"]
    elif kind == "literal":
        out["types"] = ["string"]
        out["enum"] = [args.strip().strip('"')]
    elif kind == "enum":
        out["types"] = ["string"]
        out["enum"] = re.findall(r'"([^"]*)"', args)
    elif kind == "undefined":
        out["types"] = []
        out["absent"] = True
    else:
        fail(f"gemini: zod {kind} not understood")
    return out


def _object(text, name):
    """The entries of a `z.object({...})` var, following `.extend` to its base."""
    at = _var(text, name)
    if at is None:
        fail(f"gemini: no {name}")
    m = re.match(r"(\w+)\.extend\(\{", text[at:])
    entries = []
    if m:
        entries += _object(text, m.group(1))[0]
        brace = at + m.end() - 1
    else:
        brace = text.find("{", at)
    own = js_object_entries(text, brace)
    end = js_matching(text, brace)
    tail = text[end : text.find(";\n", end)]
    for k, v in own:
        entries = [(a, b) for a, b in entries if a != k] + [(k, v)]
    return entries, ".strict()" in tail, _line(text, at)


def extract(hosts_root, measure_cli=True):
    nm = os.path.join(hosts_root, "cli", "gemini", "node_modules")
    if not os.path.isdir(os.path.join(nm, PKG)):
        fail(f"gemini: not installed under {nm} (run scripts/provision-hosts.sh)")
    version = package_version(os.path.join(nm, PKG))
    path, text = _bundle(nm)
    rel = os.path.relpath(path, os.path.join(nm, PKG))
    cite = lambda at, what: f"{PKG}@{version} {rel}:{at} ({what})"  # noqa: E731

    variants = {}
    union_at = text.find("var markdownFrontmatterSchema = ")
    members = re.findall(r"\w+", text[text.find("[", union_at) : text.find("]", union_at)])
    values = {}
    for member in members:
        entries, strict, line = _object(text, member)
        keys, required = [], []
        kind_value = None
        for k, v in entries:
            z = _zod(text, v)
            if z.get("absent"):
                continue
            keys.append(k)
            if not z["optional"]:
                required.append(k)
            if k == "kind":
                kind_value = z["enum"][0]
            z.pop("optional")
            prev = values.get(k)
            if prev and prev != z:
                z = {"types": sorted(set(prev.get("types", [])) | set(z.get("types", [])))} | (
                    {"enum": sorted(set(prev.get("enum", [])) | set(z.get("enum", [])))} if "enum" in z else {})
            values[k] = z
        v = variants.setdefault(kind_value, {"keys": set(), "required": None, "one_of": [], "strict": strict,
                                             "cite": cite(line, member)})
        v["keys"] |= set(keys)
        req = set(required) - {"kind"}
        if v["required"] is None:
            v["required"] = req
        else:
            # Union members of one kind: a key required by one and not the other
            # (agent_card_url / agent_card_json) is one of several.
            diff = (v["required"] ^ req)
            if diff:
                v["one_of"].append(sorted(diff))
            v["required"] &= req
        v["cite"] = v["cite"] if member in v["cite"] else v["cite"] + f", {member}"
    keys_all = sorted(set().union(*[v["keys"] for v in variants.values()]))
    kind_default = "local" if '.literal("local").optional().default("local")' in text else None

    # tools
    at = _var(text, "ALL_BUILTIN_TOOL_NAMES")
    arr = text[text.find("[", at) : js_matching(text, text.find("[", at))]
    names = []
    for ident in re.findall(r"[A-Z_][A-Z0-9_]*|\"[^\"]+\"", arr[1:-1]):
        names.append(ident.strip('"') if ident.startswith('"') else _string_const(text, ident))
    if None in names:
        fail("gemini: a tool name constant is not resolved")
    at_alias = _var(text, "TOOL_LEGACY_ALIASES")
    alias_obj = js_object_entries(text, text.find("{", at_alias))
    aliases = {k: _string_const(text, v) for k, v in alias_obj}
    # A name whose tool class (`static Name = <const>`) is never constructed never
    # reaches a registry, so no sub-agent gets it.
    consts = {}
    for c in re.finditer(r"(?:var (\w+) = class(?: \w+)?|class (\w+)) extends \w*Tool\w* \{", text):
        cls = c.group(1) or c.group(2)
        body = text[c.end() - 1 : js_matching(text, c.end() - 1)]
        n = re.search(r"static Name = ([A-Z_][A-Z0-9_]*);", body)
        if n:
            consts.setdefault(_string_const(text, n.group(1)), set()).add(cls)
    registered, never = [], []
    for n in names:
        classes = consts.get(n)
        if not classes:
            continue
        if any(re.search(r"new " + re.escape(cls) + r"\(", text) for cls in classes):
            registered.append(n)
        else:
            never.append(n)
    never.sort()
    reg_at = text.find("async createToolRegistry() {")

    # models: `resolveModel`'s case labels that resolve to another id.
    rm = text.find("function resolveModel(")
    body = text[rm : js_matching(text, text.find("{", rm))]
    rewritten = []
    promotable = ""
    for fn in ("isPromotableFlashModel", "isPromotableFlashLiteModel"):
        f = text.find(f"function {fn}(")
        if f >= 0:
            promotable += text[f : js_matching(text, text.find("{", f))]
    for lbl in re.findall(r"case (\w+):", body) + re.findall(r"model === (\w+)", promotable):
        v = _string_const(text, lbl)
        if v and v.startswith("gemini-"):
            rewritten.append(v)

    # dirs
    lf = text.find("async function loadAgentsFromDirectory(")
    body = text[lf : js_matching(text, text.find("{", lf))]
    recursive = "recursive: true" in body or "withFileTypes: true, recursive" in body
    skip_prefix = re.search(r'!entry\.name\.startsWith\("([^"]+)"\)', body)
    suffix = re.search(r'entry\.name\.endsWith\("([^"]+)"\)', body)
    agents_dir = re.search(r'getProjectAgentsDir\(\) \{\s*return path\d*\.join\(this\.getGeminiDir\(\), "(\w+)"\)', text)
    gem_dir = _string_const(text, "GEMINI_DIR")

    local = variants.get("local") or fail("gemini: no local agent schema")
    facts = {
        "keys": {"read": keys_all, "cite": cite(_line(text, union_at), "markdownFrontmatterSchema: the union of the agent schemas")},
        "required": {"keys": sorted(local["required"]), "cite": local["cite"]},
        "variants": {
            "key": "kind",
            "default": kind_default,
            "values": {k: {"keys": sorted(v["keys"]), "required": sorted(v["required"]),
                           **({"one_of": v["one_of"]} if v["one_of"] else {}), "strict": v["strict"], "cite": v["cite"]}
                       for k, v in sorted(variants.items())},
        },
        "values": dict(sorted(values.items()), cite=cite(_line(text, union_at), "the zod types of the agent schemas")),
        "tools": {
            "names": sorted(set(names) | set(aliases)),
            "aliases": aliases,
            "registered": sorted(set(registered)),
            "never_registered": never,
            "cite": cite(_line(text, at), "ALL_BUILTIN_TOOL_NAMES, TOOL_LEGACY_ALIASES; a tool class never "
                         "constructed is never registered"),
        },
        "models": {"rewritten": sorted(set(rewritten)), "cite": cite(_line(text, rm), "resolveModel's cases and the ids it promotes to the latest flash")},
        "dirs": [{
            "path": f"{gem_dir}/{agents_dir.group(1) if agents_dir else 'agents'}",
            "recursive": recursive,
            "suffix": suffix.group(1) if suffix else None,
            "skip_prefix": skip_prefix.group(1) if skip_prefix else None,
            "cite": cite(_line(text, lf), "loadAgentsFromDirectory"),
        }],
    }
    return {
        "host": "gemini",
        "version": version,
        "artifact": {"package": PKG, "file": rel, "sha256": sha256(path)},
        "facts": facts,
        "not_extracted": {
            "tools.conditional": "tools registered only behind a setting (plan mode, the tracker, write_todos) "
                                 "count as registered",
            "models.rewrites": "which id a rewritten model becomes depends on the account's access (preview, "
                               "latest flash)",
        },
    }
