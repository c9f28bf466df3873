#!/usr/bin/env python3
"""Write N role files (~700 bytes each) into DIR for the lint benchmarks.

Every 20th file is invalid, in turn: an unknown key, a bad enum, a missing
description, a quoted number. Used by scripts/bench-lint.sh and
scripts/callgrind-lint.sh, so both measure the same corpus.

    scripts/gen-roles.py N DIR
"""
import os
import sys

n, out = int(sys.argv[1]), sys.argv[2]
os.makedirs(out, exist_ok=True)
body = ("You review the diff you are given and report each problem with file:line, "
        "what is wrong, and why it matters. Stay read-only; do not propose rewrites.\n\n"
        "## Output\n\n- One finding per bullet.\n- Say `No findings.` when there are none.\n"
        "- Quote the line you mean; never guess at code you have not read.\n"
        "- Keep each finding to two sentences: the problem, then why it matters.\n")
for i in range(n):
    name = f"role-{i:05d}"
    keys = [f"name: {name}",
            f"description: Reviews changes for problem class {i % 97}; reads the diff and the code around it, reports findings with file:line. Read-only reporter.",
            "tools: read, grep, find, ls",
            "systemPromptMode: replace",
            f"max_turns: {20 + i % 20}",
            "thinking: low",
            "# model: <fast-tier> — set yours via pwk setup"]
    if i % 20 == 19:
        kind = (i // 20) % 4
        if kind == 0:
            keys[2] = "tols: read, grep, find, ls"
        elif kind == 1:
            keys[5] = "thinking: med"
        elif kind == 2:
            del keys[1]
        else:
            keys[4] = 'max_turns: "20"'
    with open(os.path.join(out, name + ".md"), "w") as f:
        f.write("---\n" + "\n".join(keys) + "\n---\n# " + name + "\n\n" + body)
