#!/usr/bin/env python3
"""Claude Code's own verdict on generated deny rules, for pwk's reading of them.

    scripts/host-extract/deny_rules.py --write   # rewrite the table
    scripts/host-extract/deny_rules.py --check   # exit 1 when the table is not current

Runs the validator that Claude Code 2.1.332's settings loader puts every permission
rule through (`Jpe`, with the functions it calls: `bD` the rule's shape, `ro` its
tool name and content, `gr` an MCP name, `zd` the escape check, `pXt` each tool's
own check), cut out of the provisioned binary (scripts/provision-hosts.sh) and run
with Node on rules generated over tool names, specifier shapes and the characters
the grammar turns on. Writes fixtures/deny-rules/claude-code@2.1.332.json:
`[{"rule", "drops"}]`, `drops` the host's reason for dropping the rule, or null when
it keeps it. The unit test `deny_rules_as_claude_code_reads_them` holds
`host::effective::settings::read_rule` to every row.

The names are the 2.1.332 bundle's (minified); another build needs them found again.
"""

import json
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, fail, host_test, node22  # noqa: E402

BIN = "@anthropic-ai/claude-code-linux-x64/claude"
VERSION = "2.1.332"
OUT = os.path.join(ROOT, "fixtures", "deny-rules", f"claude-code@{VERSION}.json")


def grab(s, start):
    """The text of the function or object literal starting at `start`, through the
    brace that closes its first `{` (strings, template literals and regex literals
    skipped)."""
    j = s.index("{", start)
    depth, instr, esc, templates = 0, None, False, []
    while True:
        c = s[j]
        if instr:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif instr == "`" and c == "$" and s[j + 1] == "{":
                templates.append(depth)
                depth += 1
                instr = None
                j += 2
                continue
            elif c == instr:
                instr = None
        elif c in "\"'`":
            instr = c
        elif c == "/" and s[j - 1] in "(,=:[!&|?{};":
            k, cls = j + 1, False
            while True:
                d = s[k]
                if d == "\\":
                    k += 2
                    continue
                if d == "[":
                    cls = True
                elif d == "]":
                    cls = False
                elif d == "/" and not cls:
                    break
                k += 1
            j = k + 1
            continue
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if templates and depth == templates[-1]:
                templates.pop()
                instr = "`"
                j += 1
                continue
            if depth == 0:
                return s[start : j + 1]
        j += 1


def harness(s):
    """The validator and what it calls, as one Node script reading rules (JSON) on
    stdin and printing each one's reason to drop it, or null."""
    shape = s.index('function bD(e){if(typeof e==="string"')
    check = s.index("function Jpe(e,n){")

    def fn(name, near):
        at = [m.start() for m in re.finditer(r"function " + re.escape(name) + r"\(", s)]
        if not at:
            fail(f"{name} is not in the binary")
        return grab(s, min(at, key=lambda o: abs(o - near)))

    parts = ['const Rm="mcp__";', "function ce(){return false}", "const d={};"]
    k = s.index("jKo={Task:")
    parts.append("const " + s[k : s.index("}", k) + 1] + ";")
    parts += [fn(n, shape) for n in ["A", "b", "FT", "Jl", "VKo", "Nba", "Hba", "bD", "ro", "g", "An"]]
    parts.append(fn("gr", check))
    parts.append(grab(s, s.index("var pXt={")) + ";")
    parts += [fn(n, check) for n in ["En", "xs", "Ts", "Is", "Ds"]]
    nd = s.index("var Nd=")
    parts.append(s[nd : s.index(";", nd) + 1])
    parts.append(fn("zd", check))
    hd = s.index("var Hd=", nd)
    parts.append(s[hd : s.index(";function", hd) + 1])
    parts += [fn(n, check) for n in ["Ms", "Mt", "Ud", "cXt", "Fqs", "Jpe"]]
    # Only for allow rules, and a suggestion's spelling: neither decides a deny rule.
    parts.append("function nZn(){return null}")
    parts.append("function Rs(e){return String(e)}")
    parts.append(
        'const rules=JSON.parse(require("fs").readFileSync(0,"utf8"));'
        'process.stdout.write(JSON.stringify(rules.map(r=>{const v=Jpe(r,"deny");'
        "return v.valid?null:v.error})));"
    )
    return "\n".join(parts)


def rules():
    """Tool names (the checked ones, others, old, MCP, lower-case, spaced) times
    specifier shapes, and random contents over the grammar's characters."""
    names = ["Bash", "Read", "Write", "Edit", "Glob", "NotebookEdit", "NotebookRead", "Cd",
             "WebFetch", "WebSearch", "Grep", "Task", "Agent", "mcp__srv", "mcp__srv__tool",
             "mcp__*", "bash", "my_tool", "", " Bash", "Bash ", "Bash\\"]
    pieces = ["a", "b", "(", ")", "\\", "*", ":", "?", " ", "/", ".", "domain:", "http",
              "://", ":*", "\\(", "\\)", "\\\\", "src", "npm"]
    contents = ["", "*", ":*", "x", "domain:example.com", "https://example.com", "example.com",
                "a*", "a?b", "src:*", "npm:*", "a\\(b(c", "a\\(b\\)", "\\(x", "(x)", "a)(b",
                "\\\\(", "x\\"]
    rnd = random.Random(20261205)
    for _ in range(160):
        contents.append("".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 6))))
    out = []
    for n in names:
        out.append(n)
        for c in contents:
            out.append(f"{n}({c})")
    for _ in range(300):
        out.append("".join(rnd.choice(pieces + ["Bash", "Read", "WebFetch"]) for _ in range(rnd.randint(1, 7))))
    seen, rows = set(), []
    for r in out:
        if r not in seen:
            seen.add(r)
            rows.append(r)
    return rows


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    path = os.path.join(host_test(), "cli", "claude-code", "node_modules", BIN)
    if not os.path.exists(path):
        fail(f"{path} is missing: run scripts/provision-hosts.sh")
    with open(path, "rb") as f:
        s = f.read().decode("latin-1")
    if f'"{VERSION}"' not in s and VERSION not in s[:10_000_000]:
        fail(f"{path} is not Claude Code {VERSION}")
    script = harness(s)
    rs = rules()
    r = subprocess.run([node22(), "-e", script], input=json.dumps(rs), capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the validator did not run: {r.stderr.strip()[-800:]}")
    verdicts = json.loads(r.stdout)
    table = [{"rule": rule, "drops": why} for rule, why in zip(rs, verdicts)]
    text = json.dumps(table, indent=0, ensure_ascii=False) + "\n"
    if mode == "--write":
        os.makedirs(os.path.dirname(OUT), exist_ok=True)
        with open(OUT, "w") as f:
            f.write(text)
        kept = sum(1 for t in table if t["drops"] is None)
        print(f"deny-rules: {len(table)} rules ({kept} kept) -> {os.path.relpath(OUT, ROOT)}")
    elif mode == "--check":
        current = open(OUT).read() if os.path.exists(OUT) else ""
        if current != text:
            print(f"deny-rules: {os.path.relpath(OUT, ROOT)} is not current (--write)", file=sys.stderr)
            sys.exit(1)
        print(f"deny-rules: {os.path.relpath(OUT, ROOT)} is current")
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
