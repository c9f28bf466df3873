#!/usr/bin/env python3
"""compare.py [--profile HOST@V] [EXTRACTION.json ...] — does pwk's profile say what the
host's artifact says?

Compares each extraction (default: every schemas/extracted/*.json) with the profile
whose `applies` range holds its version (or with `--profile HOST@V`: a drift check) (schemas/hosts/<host>.json, resolved through
its version patches), fact by fact, and prints each disagreement:

  claude-code@2.1.332 vs profile claude-code@2.1
    ✗ keys: the host reads `omitClaudeMd`, the profile does not list it (claude@340806052 …)

Exit 0 when every extracted fact agrees, 1 when one does not (tests/cli/host_extract.rs
runs this), 2 on a usage error. A fact an extraction does not carry is not compared:
such facts keep their citation and confidence in the profile.
"""

import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import EXTRACTED, ROOT, profile_for, profiles  # noqa: E402

ROLE = None


def role_schema():
    global ROLE
    if ROLE is None:
        with open(os.path.join(ROOT, "schemas", "role.schema.json")) as f:
            ROLE = json.load(f)
    return ROLE


def key_schema(profile, key):
    fact = profile["keys"].get(key)
    if fact is None:
        return None
    s = fact.get("schema", {})
    if s == "role":
        s = role_schema()["properties"].get(key, {})
    return s


def branches(schema):
    """The schema and its anyOf/oneOf branches, flattened."""
    out = [schema]
    for k in ("anyOf", "oneOf"):
        for b in schema.get(k, []):
            out += branches(b)
    return out


def types_of(schema):
    t = set()
    for b in branches(schema):
        v = b.get("type")
        if isinstance(v, str):
            t.add(v)
        elif isinstance(v, list):
            t |= set(v)
    return t


def enum_of(schema):
    e = set()
    for b in branches(schema):
        for v in b.get("enum", []):
            if isinstance(v, str):
                e.add(v)
        if isinstance(b.get("const"), str):
            e.add(b["const"])
    return e


def valid(schema, value):
    """A small JSON Schema (2020-12) check: the keywords pwk's profiles use."""
    if schema is True or schema == {}:
        return True
    if schema is False:
        return False
    if "anyOf" in schema and not any(valid(b, value) for b in schema["anyOf"]):
        return False
    if "oneOf" in schema and sum(valid(b, value) for b in schema["oneOf"]) != 1:
        return False
    t = schema.get("type")
    if t is not None:
        ts = [t] if isinstance(t, str) else t
        kind = ("null" if value is None else "boolean" if isinstance(value, bool) else
                "integer" if isinstance(value, int) else "number" if isinstance(value, float) else
                "string" if isinstance(value, str) else "array" if isinstance(value, list) else "object")
        if not (kind in ts or (kind == "integer" and "number" in ts)):
            return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return False
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return False
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return False
        if "items" in schema and not all(valid(schema["items"], v) for v in value):
            return False
    if isinstance(value, dict):
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            return False
        if any(r not in value for r in schema.get("required", [])):
            return False
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                if not valid(props[k], v):
                    return False
            elif "additionalProperties" in schema and not valid(schema["additionalProperties"], v):
                return False
    return True


SAMPLE_STRINGS = ["", "x", "yellow", "#FF5733", "#fff", "primary", "my-agent", "My Agent", "snake_name",
                  "a:b", "-lead", "low", "worktree", "remote", "inherit", "1h"]


def samples(v):
    # A host that takes integers may read them out of text too (Claude Code's
    # parseInt): such strings are judged by the probes, not here.
    strings = [x for x in SAMPLE_STRINGS if not (v.get("integer") and x[:1].isdigit())]
    out = strings + list(v.get("enum", [])) + list(v.get("aliases", {}))
    if v.get("integer") or "integer" in v.get("types", []) or "number" in v.get("types", []):
        m = v.get("minimum", 1)
        out += [1, 5, m, m + 1, 100000] + ([m - 1] if "minimum" in v else [])
    seen, uniq = set(), []
    for x in out:
        if json.dumps(x) not in seen:
            seen.add(json.dumps(x))
            uniq.append(x)
    return uniq


def host_accepts(v, x):
    """Whether the host takes `x` for a key its extraction describes as `v`."""
    if isinstance(x, bool):
        return bool(v.get("boolean")) or "boolean" in v.get("types", [])
    if isinstance(x, int):
        if not (v.get("integer") or {"integer", "number"} & set(v.get("types", []))):
            return False
        return x >= v.get("minimum", x)
    if isinstance(x, str):
        if v.get("types") and "string" not in v["types"]:
            return False
        if not v.get("types") and "enum" not in v and "pattern" not in v:
            return False  # an integer-only key (maxTurns)
        if len(x) < v.get("minLength", 0):
            return False
        if "enum" in v or "pattern" in v:
            return x in v.get("enum", []) or x in v.get("aliases", {}) or (
                "pattern" in v and re.search(v["pattern"], x) is not None)
        return True
    return False


def scalar_schema(schema):
    """The schema as it applies to a scalar value (object/array keywords dropped)."""
    return schema


def compare(doc, profile):
    """Disagreements between one extraction and one resolved profile: [str]."""
    out = []
    facts = doc["facts"]
    label = f"{doc['host']}@{profile['version']}"

    def say(what, cite=""):
        out.append(f"{what}" + (f" [{cite}]" if cite else ""))

    # keys
    if "keys" in facts:
        k = facts["keys"]
        read = set(k["read"])
        listed = set(profile["keys"])
        scope = set(k.get("candidates", [])) or (read | listed)
        for key in sorted((read - listed) & scope):
            say(f"keys: the host reads `{key}`, {label} does not list it", k["cite"])
        for key in sorted((listed - read) & scope):
            say(f"keys: {label} lists `{key}`, the host does not read it", k["cite"])
    if "refused" in facts:
        r = facts["refused"]
        for key in sorted(set(r["keys"]) - set(profile.get("rejected", {}))):
            say(f"rejected: the host refuses a role with `{key}`, {label} does not say so", r["cite"])
    # required
    if "required" in facts:
        r = facts["required"]
        want, have = set(r["keys"]), {x["key"] for x in profile.get("required", [])
                                       if not x.get("kinds") or facts.get("variants", {}).get("default") in x["kinds"]}
        for key in sorted(want - have):
            say(f"required: the host drops a role without `{key}`, {label} does not require it", r["cite"])
        for key in sorted(have - want):
            say(f"required: {label} requires `{key}`, the host does not", r["cite"])
    # variants (Gemini's local and remote agents)
    if "variants" in facts:
        v = facts["variants"]
        pv = profile.get("variants")
        if not pv:
            say(f"variants: the host reads `{v['key']}` agents of kinds {sorted(v['values'])}, {label} has no variants")
        else:
            if pv.get("key") != v["key"] or pv.get("default") != v["default"]:
                say(f"variants: the host tells kinds apart by `{v['key']}` (default {v['default']}), {label} by "
                    f"`{pv.get('key')}` (default {pv.get('default')})")
            for kind, kv in v["values"].items():
                keys_of = {key for key, f in profile["keys"].items() if not f.get("kinds") or kind in f["kinds"]}
                for key in sorted(set(kv["keys"]) - keys_of):
                    say(f"variants: a {kind} agent may have `{key}`, {label} does not allow it there", kv["cite"])
                for key in sorted(keys_of - set(kv["keys"])):
                    say(f"variants: {label} allows `{key}` in a {kind} agent, the host refuses it there", kv["cite"])
                req = {x["key"] for x in profile.get("required", []) if not x.get("kinds") or kind in x["kinds"]}
                if req != set(kv["required"]):
                    say(f"variants: a {kind} agent requires {sorted(kv['required'])}, {label} says {sorted(req)}",
                        kv["cite"])
                one_of = sorted(sorted(g["keys"]) for g in pv.get("one_of", []) if kind in g.get("kinds", [kind]))
                if one_of != sorted(kv.get("one_of", [])):
                    say(f"variants: a {kind} agent needs one of {kv.get('one_of', [])}, {label} says {one_of}",
                        kv["cite"])
    # values
    for key, v in facts.get("values", {}).items():
        if key == "cite" or "unresolved" in v or "message" in v:
            continue
        cite = facts["values"].get("cite", "")
        schema = key_schema(profile, key)
        if schema is None:
            continue  # reported under keys
        if "types" in v:
            want = set(v["types"])
            have = types_of(schema)
            if want and have and want != have:
                say(f"values: the host takes `{key}` as {sorted(want)}, {label} as {sorted(have)}", cite)
        # Values tried on the real host.
        for probe in v.get("probed", []):
            x, ok = probe["value"], probe["accepted"]
            if valid(schema, x) != ok:
                say(f"values: `{key}: {json.dumps(x)}` {'loads as written' if ok else 'is refused'} by the host, "
                    f"{label}'s schema {'refuses' if ok else 'accepts'} it", cite)
        # What the host accepts, tried on samples: its enum values and aliases, an
        # integer where it takes one, and common near misses.
        if any(f in v for f in ("enum", "pattern", "integer", "minimum", "minLength")):
            disagree = []
            for sample in samples(v):
                if host_accepts(v, sample) != valid(scalar_schema(schema), sample):
                    disagree.append(sample)
            if disagree:
                take = [x for x in disagree if host_accepts(v, x)]
                refuse = [x for x in disagree if not host_accepts(v, x)]
                say(f"values: `{key}`: " + "; ".join(filter(None, [
                    f"the host accepts {json.dumps(take)}, {label} does not" if take else "",
                    f"the host refuses {json.dumps(refuse)}, {label} accepts them" if refuse else ""])), cite)
        if v.get("boolean") and "boolean" not in types_of(schema):
            say(f"values: the host reads `{key}` as a boolean, {label} does not", cite)
        if "items" in v:
            items = schema.get("items", {})
            if v["items"] and set(v["items"]) != types_of(items):
                say(f"values: the host's `{key}` holds {v['items']}, {label} {sorted(types_of(items))}", cite)
    # drops: values that make the host drop the role
    for key, d in facts.get("drops", {}).items():
        fact = profile["keys"].get(key)
        schema = key_schema(profile, key)
        if fact is None:
            continue
        if not fact.get("on_invalid"):
            say(f"drops: the host drops a role whose `{key}` is invalid, {label} does not say so (`on_invalid`)",
                d["cite"])
        for label_, value in d.get("samples", {}).items():
            ok = label_ in d["valid"]
            if valid(schema, value) != ok:
                say(f"drops: `{key}` {label_} ({json.dumps(value)}) {'loads' if ok else 'drops the role'}, "
                    f"{label}'s schema {'refuses' if ok else 'accepts'} it", d["cite"])
    # parsed values (nicobailon: JSON.parse, parseYaml)
    if "parsed" in facts:
        p = facts["parsed"]
        for key, how in p["keys"].items():
            fact = profile["keys"].get(key)
            if fact is not None and fact.get("parsed_as") != how:
                say(f"parsed: the host parses `{key}` as {how.upper()} (a value that does not parse drops the role), "
                    f"{label} says {fact.get('parsed_as')}", p["cite"])
    # aliases between keys (OpenCode `maxSteps` read as `steps`)
    if "aliases" in facts:
        a = facts["aliases"]
        for alias, target in a.get("keys", {}).items():
            fa, ft = profile["keys"].get(alias), profile["keys"].get(target)
            if fa and ft and fa.get("setting") != ft.get("setting"):
                say(f"aliases: the host reads `{alias}` as `{target}`, {label} gives them different settings", a["cite"])
    # tools
    if "tools" in facts:
        t = facts["tools"]
        pt = profile["tools"]
        builtins = set(pt["builtins"])
        aliases = dict(pt.get("aliases", {}))
        dropped = set(pt.get("dropped", {}).get("names", []))
        if "subagent" in t:  # Claude Code: measured grants
            want, w_alias, w_drop = set(t["subagent"]), t.get("renamed", {}), set(t["dropped"])
        else:  # Gemini: the names it validates, less those never registered
            w_alias = t.get("aliases", {})
            w_drop = set(t.get("never_registered", []))
            want = set(t["names"]) - w_drop - set(w_alias)
        for n in sorted(want - builtins):
            say(f"tools: a subagent can be given `{n}`, {label} does not know it", t["cite"])
        for n in sorted(builtins - want):
            say(f"tools: {label} lists `{n}`, the host never gives it to a subagent", t["cite"])
        if w_alias != aliases:
            say(f"tools: the host reads {w_alias} as other tools, {label} says {aliases}", t["cite"])
        for n in sorted(w_drop - dropped):
            say(f"tools: the host drops `{n}` (a subagent never gets it), {label} does not say so", t["cite"])
        for n in sorted(dropped - w_drop):
            say(f"tools: {label} says the host drops `{n}`, it does not", t["cite"])
    # models
    if "models" in facts:
        m = facts["models"]
        pm = profile.get("models", {})
        for field in ("aliases", "inherit", "rewritten"):
            if field in m and set(m[field]) != set(pm.get(field, [])):
                say(f"models: the host's {field} are {m[field]}, {label} says {pm.get(field, [])}", m["cite"])
    # dirs
    pdirs = profile["discovery"]["dirs"]
    for d in facts.get("dirs", []):
        if d["path"] == "*":
            for pd in pdirs:
                if pd.get("recursive", False) != d["recursive"]:
                    say(f"dirs: the host reads {pd['path']} {'recursively' if d['recursive'] else 'without descending'}, "
                        f"{label} says otherwise", d["cite"])
            continue
        match = [pd for pd in pdirs if pd["path"] == d["path"]]
        if not match:
            say(f"dirs: the host reads {d['path']}, {label} does not list it", d["cite"])
            continue
        if match[0].get("recursive", False) != d["recursive"]:
            say(f"dirs: the host reads {d['path']} {'recursively' if d['recursive'] else 'without descending'}, "
                f"{label} says {'recursive' if match[0].get('recursive') else 'not recursive'}", d["cite"])
        if d.get("skip_prefix") and not any(e.get("prefix") == d["skip_prefix"] for e in profile["discovery"].get("exclude", [])):
            say(f"dirs: the host skips files starting with `{d['skip_prefix']}`, {label} does not say so", d["cite"])
    return out


def report(docs, against=None):
    """Print each extraction's disagreements with its profile (or with the profile
    version `against`, `gemini@0.61`); 1 when there is one."""
    bad = 0
    for doc in docs:
        profile = profile_for(doc["host"], doc["version"])
        if against:
            host, _, version = against.partition("@")
            found = [p for p in profiles(host) if p["version"] == version] if host == doc["host"] else []
            if not found:
                print(f"compare: no profile {against} for {doc['host']}", file=sys.stderr)
                return 2
            profile = found[0]
        head = f"{doc['host']}@{doc['version']}"
        if profile is None:
            print(f"{head}: no profile applies to this version (add one to schemas/hosts/{doc['host']}.json)")
            bad += 1
            continue
        diffs = compare(doc, profile)
        print(f"{head} vs profile {doc['host']}@{profile['version']}: "
              + ("agrees" if not diffs else f"{len(diffs)} disagreement(s)"))
        for d in diffs:
            print(f"  ✗ {d}")
        bad += bool(diffs)
    return 1 if bad else 0


def main():
    args = sys.argv[1:]
    against = None
    if "--profile" in args:
        i = args.index("--profile")
        against = args[i + 1]
        del args[i : i + 2]
    paths = args or sorted(glob.glob(os.path.join(EXTRACTED, "*.json")))
    if not paths:
        print("compare: no extractions", file=sys.stderr)
        sys.exit(2)
    docs = []
    for p in paths:
        with open(p) as f:
            docs.append(json.load(f))
    sys.exit(report(docs, against))


if __name__ == "__main__":
    main()
