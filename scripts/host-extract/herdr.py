"""herdr (pi-herdr-agents): facts read in its git source (it is not on a package
registry, so there is nothing to provision: give the repository with --source, a work
tree or a bare clone; its HEAD is read).

  keys      the `getFrontmatterValue(frontmatter, "<key>")` calls of
            pi-extension/subagents/index.ts (a line reader: `<key>:` at the start of a
            line), and the keys it reads only to refuse the role
            (`getFrontmatterValue(match[1], "<key>")` in the legacy diagnostic);
  dirs      `addDirectory(join(…), …)`, read by `listMarkdownFiles` (the directory's
            own `*.md` files, no recursion).
"""

import json
import os
import re
import subprocess

from common import fail, js_matching

PATH = "pi-extension/subagents/index.ts"


def _git(source, *args):
    gitdir = source if os.path.isfile(os.path.join(source, "HEAD")) else os.path.join(source, ".git")
    r = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"herdr: git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def extract(source):
    if not source:
        fail("herdr: give its repository with --source (it is on no package registry)")
    commit = _git(source, "rev-parse", "HEAD").strip()
    text = _git(source, "show", f"HEAD:{PATH}")
    version = json.loads(_git(source, "show", "HEAD:package.json"))["version"]
    line = lambda at: text.count("\n", 0, at) + 1  # noqa: E731
    cite = lambda at, what: f"giuseppecrj/pi-herdr-agents@{commit[:7]} {PATH}:{line(at)} ({what})"  # noqa: E731
    calls = list(re.finditer(r"getFrontmatterValue\(\s*([\w\[\]]+),\s*\"([^\"]+)\"", text))
    if not calls:
        fail("herdr: no getFrontmatterValue calls")
    read = sorted({m.group(2) for m in calls if m.group(1) == "frontmatter"})
    refused = sorted({m.group(2) for m in calls if m.group(1) != "frontmatter"} - set(read))
    dirs = []
    for m in re.finditer(r"addDirectory\(join\((getAgentConfigDir\(\)|process\.cwd\(\))((?:,\s*\"[^\"]+\")+)\)", text):
        base = {"getAgentConfigDir()": "{agent_dir}", "process.cwd()": ""}[m.group(1)]
        segs = re.findall(r"\"([^\"]+)\"", m.group(2))
        dirs.append("/".join(([base] if base else []) + segs))
    lm = re.search(r"function listMarkdownFiles\(", text)
    body = text[lm.start() : js_matching(text, text.find("{", lm.end()))] if lm else ""
    recursive = "listMarkdownFiles(" in body[20:] or "recursive" in body
    return {
        "host": "herdr",
        "version": version,
        "artifact": {"repository": "giuseppecrj/pi-herdr-agents", "commit": commit, "file": PATH},
        "facts": {
            "keys": {"read": read, "cite": cite(calls[0].start(), "getFrontmatterValue(frontmatter, …)")},
            "refused": {"keys": refused, "cite": cite(next(m for m in calls if m.group(1) != "frontmatter").start(),
                                                      "read only to refuse the role") if refused else ""},
            "dirs": [{"path": d, "recursive": recursive,
                      "cite": cite(lm.start() if lm else 0, "listMarkdownFiles: the directory's own *.md files")}
                     for d in dirs],
        },
        "not_extracted": {
            "required": "herdr names a role after its file when `name` is absent; nothing is required",
        },
    }
