"""Copilot CLI: facts measured by running it (offline, tests/oracle/cli-hosts.mjs).

Its agent loader is native code (`prebuilds/*/runtime.node` inside the binary's
packed app), so its keys are not read from text: they are measured. One agent names
every candidate key; the CLI warns `unknown fields ignored: …` for each key it does
not read, so a candidate it does not name is one it reads. Only candidates are
judged (`keys.candidates`): a key the CLI added since is found by adding it here.

  keys      which candidate keys it reads;
  required  which keys drop the agent when missing (`… is malformed: <key>: Required`);
  dirs      whether a file in a subdirectory of .github/agents/ loads, and whether a
            plain `*.md` (not `*.agent.md`) does.
"""

import os
import re

from common import Projects, cli_oracle, fail, frontmatter_file, package_version, sha256

BIN = "@github/copilot-linux-x64/copilot"

# (key, a value of the type the documentation gives it)
CANDIDATES = [
    ("name", "keys"), ("description", "Every candidate key"), ("tools", "['read']"),
    ("model", "claude-sonnet-4.5"), ("mcp-servers", "{}"), ("infer", "true"),
    ("disable-model-invocation", "false"), ("user-invocable", "true"), ("metadata", "{owner: me}"),
    ("target", "vscode"), ("argument-hint", "a file"), ("handoffs", "[]"), ("skills", "[]"),
    ("hooks", "{}"), ("color", "red"), ("permissionMode", "plan"), ("maxTurns", "3"), ("mode", "agent"),
    ("temperature", "0.2"), ("version", "1"), ("disallowedTools", "[]"), ("effort", "low"),
]


def extract(hosts_root, measure_cli=True):
    nm = os.path.join(hosts_root, "cli", "copilot", "node_modules")
    binary = os.path.join(nm, BIN)
    if not os.path.isfile(binary):
        fail(f"copilot: no binary at {binary} (run scripts/provision-hosts.sh)")
    version = package_version(os.path.join(nm, "@github", "copilot"))
    facts, not_extracted = {}, {}
    if not measure_cli:
        not_extracted["everything"] = "Copilot CLI's facts are measured, not read (--static)"
    else:
        fm = "\n".join(f"{k}: {v}" for k, v in CANDIDATES)
        with Projects() as ps:
            p = ps.new({
                ".github/agents/keys.agent.md": frontmatter_file(fm),
                ".github/agents/no-description.agent.md": frontmatter_file("name: no-description"),
                ".github/agents/no-name.agent.md": frontmatter_file("description: No name"),
                ".github/agents/sub/nested.agent.md": frontmatter_file("name: nested\ndescription: In a subdirectory"),
                ".github/agents/plain.md": frontmatter_file("name: plain\ndescription: A plain .md file"),
            })
            doc = cli_oracle("copilot", [p], hosts_root)[0]
        if doc["fatal"]:
            fail(f"copilot: {doc['fatal']}")
        ignored = set()
        required = set()
        for m in doc["messages"]:
            if "keys.agent.md: unknown field" in m:
                ignored |= {k.strip() for k in m.split("ignored:", 1)[1].split(",")}
            r = re.search(r"is malformed: (\w[\w-]*): Required", m)
            if r:
                required.add(r.group(1))
        names = {a["name"] for a in doc["agents"]}
        if "keys" not in names:
            fail(f"copilot: the agent with every candidate key did not load: {doc['messages']}")
        cite = "the real CLI on one agent with every candidate key (`unknown fields ignored: …`)"
        facts["keys"] = {"read": sorted(k for k, _ in CANDIDATES if k not in ignored),
                         "candidates": sorted(k for k, _ in CANDIDATES), "cite": cite}
        facts["required"] = {"keys": sorted(required),
                             "cite": "the real CLI on an agent without `description` and one without `name`"}
        facts["dirs"] = [{"path": ".github/agents", "recursive": "nested" in names, "plain_md": "plain" in names,
                          "cite": "the real CLI on .github/agents/sub/nested.agent.md and .github/agents/plain.md"}]
    return {
        "host": "copilot",
        "version": version,
        "artifact": {"package": "@github/copilot-linux-x64", "file": "copilot", "sha256": sha256(binary)},
        "facts": facts,
        "not_extracted": {**not_extracted,
                          "tools": "the names a role may list are not validated at load and what the child gets is "
                                   "not visible offline",
                          "keys.values": "values are not measured"},
    }
