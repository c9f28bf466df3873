"""The pi subagent hosts: facts read in their loader's TypeScript source, as npm ships it.

  tintinweb   @tintinweb/pi-subagents src/custom-agents.ts (`loadFromDir`): the `fm.<key>`
              it reads, the directories it joins, and that it lists a directory's
              `*.md` files without descending;
  nicobailon  pi-subagents src/agents/agent-serializer.ts `KNOWN_FIELDS` (every other key
              lands in `extraFields` and is never applied), src/agents/agents.ts
              (`loadAgentsFromDefinitionFiles`): the keys it requires, the keys whose
              value it parses as JSON or YAML (a value that does not parse drops the
              agent), and whether directories are read recursively;
  pi-example  @earendil-works/pi-coding-agent examples/extensions/subagent/agents.ts
              (`loadAgentsFromDir`, `discoverAgents`).
"""

import os
import re

from common import fail, js_matching, package_version

SOURCES = {
    "tintinweb": ("tintinweb", "@tintinweb/pi-subagents", "src/custom-agents.ts"),
    "nicobailon": ("nicobailon", "pi-subagents", "src/agents/agents.ts"),
    "pi-example": ("tintinweb", "@earendil-works/pi-coding-agent", "examples/extensions/subagent/agents.ts"),
}


def _read(path):
    if not os.path.isfile(path):
        fail(f"no {path} (run scripts/provision-hosts.sh)")
    with open(path, encoding="utf-8") as f:
        return f.read()


def _function(text, name):
    """(offset, source) of `function name(…)…{…}`: the body is the first `{` that ends
    its line after the parameters (a TypeScript return type may hold braces too)."""
    m = re.search(r"\bfunction " + re.escape(name) + r"\b(?:<[^>]*>)?\(", text)
    if not m:
        fail(f"no function {name}")
    after = js_matching(text, m.end() - 1)
    body = re.compile(r"\{\r?\n").search(text, after)
    if not body:
        fail(f"no body for function {name}")
    return m.start(), text[m.start() : js_matching(text, body.start())]


def _line(text, at):
    return text.count("\n", 0, at) + 1


def _keys(body, var):
    keys = set(re.findall(r"\b" + var + r"\.([A-Za-z_$][\w$]*)", body))
    keys |= set(re.findall(r"\b" + var + r"\[\"([^\"]+)\"\]", body))
    return sorted(keys)


def _joined_dirs(text):
    """`join(cwd, ".pi", "agents")`, `path.join(getAgentDir(), "agents")` → pwk's spelling."""
    out = []
    for base, parts in re.findall(r"join\((cwd|getAgentDir\(\)|currentDir),\s*((?:(?:\"[^\"]*\"|CONFIG_DIR_NAME),?\s*)+)\)", text):
        segs = [("{config_dir}" if p == "CONFIG_DIR_NAME" else p.strip('"')) for p in re.findall(r"\"[^\"]*\"|CONFIG_DIR_NAME", parts)]
        prefix = "{agent_dir}/" if base == "getAgentDir()" else ""
        out.append(prefix + "/".join(segs))
    return out


def extract(host, hosts_root):
    where, pkg, rel = SOURCES[host]
    pkg_dir = os.path.join(hosts_root, where, "node_modules", pkg)
    version = package_version(pkg_dir)
    path = os.path.join(pkg_dir, rel)
    text = _read(path)
    cite = lambda at, what: f"{pkg}@{version} {rel}:{_line(text, at)} ({what})"  # noqa: E731
    facts, not_extracted = {}, {}
    if host == "tintinweb":
        at, body = _function(text, "loadFromDir")
        facts["keys"] = {"read": _keys(body, "fm"), "cite": cite(at, "loadFromDir: the `fm.<key>` it reads")}
        facts["required"] = {"keys": [], "cite": cite(at, "loadFromDir: the file name when `name` is absent, "
                                                        "`description` defaults to the name")}
        lat, load = _function(text, "loadCustomAgents")
        recursive = "recursive" in body or "isDirectory" in body
        facts["dirs"] = [{"path": d, "recursive": recursive, "cite": cite(lat, "loadCustomAgents; loadFromDir lists "
                                                                          "the directory's *.md files")}
                         for d in _joined_dirs(load)]
    elif host == "nicobailon":
        ser = _read(os.path.join(pkg_dir, "src/agents/agent-serializer.ts"))
        m = re.search(r"export const KNOWN_FIELDS = new Set\(\[([^\]]*)\]\)", ser)
        if not m:
            fail("nicobailon: no KNOWN_FIELDS")
        known = sorted(re.findall(r"\"([^\"]+)\"", m.group(1)))
        facts["keys"] = {"read": known, "cite": f"{pkg}@{version} src/agents/agent-serializer.ts:"
                         f"{_line(ser, m.start())} (KNOWN_FIELDS: every other key is kept as an extra field, never applied)"}
        at, body = _function(text, "loadAgentsFromDefinitionFiles")
        req = re.search(r"if \((!frontmatter\.\w+(?: \|\| !frontmatter\.\w+)*)\)", body)
        facts["required"] = {"keys": sorted(re.findall(r"frontmatter\.(\w+)", req.group(1))) if req else [],
                             "cite": cite(at, "loadAgentsFromDefinitionFiles: a file without them is skipped")}
        # Keys whose value is parsed: JSON.parse(frontmatter.k), a helper of
        # frontmatter.k that parses, or a variable set from frontmatter.k and parsed.
        parsed = {}
        for k in re.findall(r"JSON\.parse\(frontmatter\.(\w+)", body):
            parsed[k] = "json"
        for helper, k in re.findall(r"(\w+)\(frontmatter\.(\w+)", body):
            if re.search(r"\bfunction " + re.escape(helper) + r"\b", text):
                hb = _function(text, helper)[1]
                if "JSON.parse(" in hb:
                    parsed.setdefault(k, "json")
                elif "parseYaml(" in hb:
                    parsed.setdefault(k, "yaml")
        for var, src in re.findall(r"const (\w+) = (frontmatter\.\w+(?: \?\? frontmatter\.\w+)*);", body):
            kind = "json" if re.search(r"JSON\.parse\(" + var, body) else "yaml" if re.search(r"parseYaml\(" + var, body) else None
            if kind:
                for k in re.findall(r"frontmatter\.(\w+)", src):
                    parsed.setdefault(k, kind)
        facts["parsed"] = {"keys": dict(sorted(parsed.items())),
                           "cite": cite(at, "loadAgentsFromDefinitionFiles: a value that does not parse throws, and "
                                            "the agent is reported as a diagnostic instead of loaded")}
        iat, inspect = _function(text, "inspectAgentDefinitionDirectory")
        facts["dirs"] = [{"path": "*", "recursive": "isDirectory" in inspect and ("stack" in inspect or "queue" in inspect
                                                                                  or "push(" in inspect),
                          "cite": cite(iat, "inspectAgentDefinitionDirectory: descends into sub-directories")}]
        not_extracted["dirs.paths"] = "the directories come from settings, packages and legacy roots assembled " \
                                      "over several functions; only whether they are read recursively is extracted"
    else:  # pi-example
        at, body = _function(text, "loadAgentsFromDir")
        facts["keys"] = {"read": _keys(body, "frontmatter"), "cite": cite(at, "loadAgentsFromDir")}
        req = re.findall(r"typeof frontmatter\.(\w+) !== \"string\"", body)
        facts["required"] = {"keys": sorted(set(req)), "cite": cite(at, "loadAgentsFromDir: skipped unless a string")}
        dat, disc = _function(text, "discoverAgents")
        _, near = _function(text, "findNearestProjectAgentsDir")
        dirs = [d.replace("{config_dir}", ".pi") for d in _joined_dirs(disc + near)]
        recursive = "recursive" in body or "isDirectory()" in body and "loadAgentsFromDir(" in body.split("{", 1)[1]
        facts["dirs"] = [{"path": d, "recursive": recursive, "cite": cite(dat, "discoverAgents; loadAgentsFromDir "
                                                                     "takes the directory's own *.md files")}
                         for d in dirs]
        not_extracted["dirs.config_dir"] = "CONFIG_DIR_NAME is pi's `.pi` (not read from pi's source here)"
    return {
        "host": host,
        "version": version,
        "artifact": {"package": pkg, "file": rel},
        "facts": facts,
        "not_extracted": not_extracted,
    }
