#!/usr/bin/env python3
"""Growth by shape: every input shape x every host profile x every front end that
reads one role file, timed at n and 4n. A cost that grows faster than the input
shows as a ratio well over 4, whichever rule, renderer or command has the loop.

    scripts/bench-shapes.py                 # release build (builds it if needed); about 10 min
    PWK_BIN=target/debug/pwk scripts/bench-shapes.py
    scripts/bench-shapes.py flow_items crlf # only these shapes
    scripts/bench-shapes.py files           # only the many-files table
    SCALE=0.25 scripts/bench-shapes.py      # smaller sizes (quicker, noisier)

The growth tests (tests/cli/growth.rs) count pwk's own work deterministically, but
only where a counter is charged; this benchmark times the whole process (CPU time,
user + system), so it sees a loop no counter covers, in third-party code too. It
found the quadratic `--fix` (a fix with an edit per line), `convert` (commented
keys), `comment-in-value` (flow items) and language-server (findings on one long
line) costs of docs/src/perf.md, step 38.

Each shape is one role file whose largest size stays under pwk's 1 MiB cap; n is
the largest power-of-two multiple of 1,000 for which 8n would (so 4n fits).
Prints, per shape, the worst ratio over the hosts (`lint --format json --host H`)
and over the front ends (a Claude Code project: `show`, `show --format json`,
`list`, `convert --to` three hosts, `lint --fix --unsafe-fixes`, an editor session
with `pwk lsp` and a `lint` call to `pwk mcp`, the servers' own CPU time), and flags a ratio
over 6 whose 4n run took over 0.1 s. Then, with no shape named, the same over a
project of 2,000 and 8,000 role files (lint, list, show, convert of the directory,
`--fix`). Exits 1 when one is flagged.
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PWK = os.environ.get("PWK_BIN") or os.path.join(ROOT, "target", "release", "pwk")
SCALE = float(os.environ.get("SCALE", "1"))
HOSTS = ["pwk", "tintinweb", "nicobailon", "herdr", "claude-code", "gemini", "copilot",
         "opencode", "pi-example"]


def fm(keys, body="Body.\n"):
    return "---\n" + keys + "---\n" + body


def joined(fmt, n, sep=", "):
    return sep.join(fmt.format(i=i) for i in range(n))


def lines(fmt, n):
    return "".join(fmt.format(i=i) for i in range(n))


HEAD = "name: a\ndescription: d\n"

# Each shape: n -> the file's text. Named after what grows.
SHAPES = {
    "flow_items": lambda n: fm(HEAD + "tools: [" + joined("t{i}", n, ",") + "]\n"),
    "flow_items_same": lambda n: fm(HEAD + "tools: [" + ",".join(["read"] * n) + "]\n"),
    "flow_frontmatter": lambda n: "---\n{name: a, description: d, " + joined("k{i}: v", n) + "}\n---\nB\n",
    "block_items": lambda n: fm(HEAD + "tools:\n" + lines("  - t{i}\n", n)),
    "block_items_commented": lambda n: fm(HEAD + "tools:\n" + lines("  - t{i} #c\n", n)),
    "keys_commented": lambda n: fm(HEAD + lines("k{i}: v #c{i}\n", n)),
    "keys_own_line_comments": lambda n: fm(HEAD + lines("# about {i}\nk{i}: v\n", n)),
    "continuation_lines": lambda n: fm("name: a\ndescription: first\n" + lines("  more{i}\n", n)),
    "hashes_in_description": lambda n: fm("name: a\ndescription: " + " ".join(["#x"] * n) + "\n"),
    "tools_string_same": lambda n: fm(HEAD + "tools: " + ", ".join(["read"] * n) + "\n"),
    "tools_string_unknown": lambda n: fm(HEAD + "tools: " + joined("T{i}", n) + "\n"),
    "tools_specifiers": lambda n: fm(HEAD + "tools: " + joined("Bash(git {i} *)", n) + "\n"),
    "tools_mcp": lambda n: fm(HEAD + "tools: " + joined("mcp__s{i}__t{i}", n) + "\n"),
    "tools_extension": lambda n: fm(HEAD + "tools: " + joined("ext:t{i}", n) + "\n"),
    "deny_tools": lambda n: fm(HEAD + "tools: read\ndisallowedTools: " + joined("T{i}", n) + "\n"),
    "skills": lambda n: fm(HEAD + "skills: " + joined("s{i}", n) + "\n"),
    "mcp_servers": lambda n: fm(HEAD + "mcpServers:\n" + lines("  - s{i}\n", n)),
    "permission_patterns": lambda n: fm(HEAD + "permission:\n  bash:\n" + lines('    "git {i} *": allow\n', n)),
    "tools_map": lambda n: fm(HEAD + "tools:\n" + lines("  t{i}: true\n", n)),
    "json_value_members": lambda n: fm(HEAD + "toolBudget: {" + joined("k{i}: {i}", n) + "}\n"),
    "suppressions": lambda n: fm(HEAD + lines("u{i}: v # pwk: ignore[unknown-key]\n", n)),
    "file_suppressions": lambda n: fm(HEAD + lines("# pwk: ignore-file[r{i}]\n", n)),
    "near_miss_keys": lambda n: fm(HEAD + lines("toolz{i}: v\n", n)),
    "repeated_key": lambda n: fm(HEAD + lines("description: d{i}\n", n)),
    "repeated_tools_key": lambda n: fm(HEAD + "".join(["tools: read\n"] * n)),
    "maps_in_a_list": lambda n: fm(HEAD + "x:\n" + lines("  - {{a{i}: b}}\n", n)),
    "crlf_lines": lambda n: fm("name: a\r\ndescription: d\r\n" + lines("k{i}: v\r\n", n)).replace("---\n", "---\r\n"),
    "mixed_line_ends": lambda n: fm(HEAD + "".join(f"k{i}: v\r\n" if i % 2 else f"k{i}: v\n" for i in range(n))),
    "lone_carriage_returns": lambda n: fm(HEAD + "x: 1\r" * n + "\n"),
    "lone_cr_in_body": lambda n: fm(HEAD, "a\rb " * n),
    "invisible_characters": lambda n: fm("name: a\ndescription: d" + "\u200b" * n + "\n"),
    "invisible_in_body": lambda n: fm(HEAD, "x\u200by " * n + "\n"),
    "bidi_overrides": lambda n: fm("name: a\ndescription: d" + "\u202e" * n + "\n"),
    "body_lines": lambda n: fm(HEAD, "line\n" * n),
    "body_fences": lambda n: fm(HEAD, "---\n" * n),
    "long_value": lambda n: fm(HEAD + "model: " + "x" * n + "\n"),
    "long_name": lambda n: fm("name: " + "a" * n + "\ndescription: d\n"),
    "deep_indent": lambda n: fm(HEAD + "x:\n" + " " * n + "y: 1\n"),
    "escapes": lambda n: fm('name: a\ndescription: "' + "\\u0041" * n + '"\n'),
    "block_scalar_hashes": lambda n: fm("name: a\ndescription: |\n" + lines("  l{i} #x\n", n)),
    "folded_blank_lines": lambda n: fm("name: a\ndescription: >\n" + lines("  l{i}\n\n", n)),
}

FRONT_ENDS = {
    "show": ["show", "a"],
    "show-json": ["show", "a", "--format", "json"],
    "list": ["list"],
    "convert-tintinweb": ["convert", "--to", "tintinweb", "--out", "out", ".claude/agents/a.md"],
    "convert-opencode": ["convert", "--to", "opencode", "--out", "out", ".claude/agents/a.md"],
    "convert-gemini": ["convert", "--to", "gemini", "--out", "out", ".claude/agents/a.md"],
    "fix": ["lint", "--fix", "--unsafe-fixes", ".claude/agents/a.md"],
    # Servers, spoken to as a client would (their CPU time, read from /proc).
    "lsp": "lsp",
    "mcp": "mcp",
}


def server_cpu(pid):
    """CPU seconds a running process has used (user + system)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def lsp_session(cwd, path, text):
    """An editor session: open the role, a code action over all of it, hover,
    completion and symbols, an edit; the server's CPU time for it."""
    p = subprocess.Popen([PWK, "lsp"], cwd=cwd, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ids = iter(range(1, 1 << 30))

    def send(msg):
        body = json.dumps(msg).encode()
        p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        p.stdin.flush()

    def read():
        length = None
        while True:
            line = p.stdout.readline().strip()
            if not line:
                break
            k, v = line.decode().split(": ", 1)
            if k.lower() == "content-length":
                length = int(v)
        return json.loads(p.stdout.read(length))

    def request(method, params):
        i = next(ids)
        send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = read()
            if m.get("id") == i and "method" not in m:
                return m

    def published(version):
        while True:
            m = read()
            if m.get("method") == "textDocument/publishDiagnostics" and \
                    m["params"].get("version") in (version, None):
                return

    uri = "file://" + path
    doc = {"uri": uri}
    request("initialize", {"processId": None, "rootUri": "file://" + cwd, "capabilities": {}})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    start = server_cpu(p.pid)
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": text}}})
    published(1)
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": text.count("\n"), "character": 0}}
    request("textDocument/codeAction", {"textDocument": doc, "range": whole, "context": {"diagnostics": []}})
    for line in (1, 2, 3):
        at = {"textDocument": doc, "position": {"line": line, "character": 3}}
        request("textDocument/hover", at)
        request("textDocument/completion", at)
    request("textDocument/documentSymbol", {"textDocument": doc})
    edit = {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": "x"}
    send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [edit]}})
    published(2)
    used = server_cpu(p.pid) - start
    request("shutdown", None)
    send({"jsonrpc": "2.0", "method": "exit", "params": None})
    p.wait(timeout=30)
    return used


def mcp_session(cwd, path, text):
    """One `lint` tool call with the role's text; the server's CPU time for it."""
    p = subprocess.Popen([PWK, "mcp"], cwd=cwd, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(msg):
        p.stdin.write(json.dumps(msg).encode() + b"\n")
        p.stdin.flush()

    def until(i):
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == i:
                return m

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    until(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    start = server_cpu(p.pid)
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "lint", "arguments": {"text": text, "path": os.path.relpath(path, cwd)}}})
    until(2)
    used = server_cpu(p.pid) - start
    p.stdin.close()
    p.wait(timeout=30)
    return used


def cpu(args, cwd):
    """CPU seconds (user + system) of one run of pwk."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([PWK] + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def project(text, d):
    """A Claude Code project holding the role (rewritten: `--fix` and convert write)."""
    shutil.rmtree(d, ignore_errors=True)
    for sub in (".git", ".claude/agents", "out"):
        os.makedirs(os.path.join(d, sub))
    with open(os.path.join(d, ".claude/agents/a.md"), "w", newline="") as f:
        f.write(text)


def size_for(shape):
    n = 1000
    while len(shape(int(n * 8 * SCALE))) < 900_000 and n < 200_000:
        n *= 2
    return max(1, int(n * SCALE))


def worst(cases, run):
    """The worst (ratio, case, small s, large s) over `cases`; `run(case, size)`."""
    out = None
    for case in cases:
        small = min(run(case, 0) for _ in range(2))
        large = run(case, 1)
        # A flag is measured twice more, the small size too (a busy moment is
        # not a quadratic).
        if large > 0.1 and large > 6 * small:
            small = min(small, run(case, 0))
            large = min(large, run(case, 1), run(case, 1))
        ratio = large / max(small, 0.005)
        if out is None or ratio > out[0]:
            out = (ratio, case, small, large)
    return out


# Many files: each command over a Claude Code project of n and 4n roles (the
# generator's ~700-byte pi roles, every 20th with an error), the same files for each.
MANY = {
    "lint": ["lint", "--format", "json"],
    "lint-human": ["lint"],
    "list": ["list", "--format", "json"],
    "show": ["show", "role-00001"],
    "convert": ["convert", "--to", "tintinweb", "--out", "out", ".claude/agents"],
    "fix": ["lint", "--fix"],
}


def many_files(work):
    """The worst ratio over MANY, for 2,000 and 8,000 files (scaled)."""
    n = max(10, int(2000 * SCALE))
    dirs = []
    for i, count in enumerate((n, 4 * n)):
        d = os.path.join(work, f"many{i}")
        os.makedirs(os.path.join(d, ".git"))
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-roles.py"), str(count),
                        os.path.join(d, ".claude", "agents")], check=True, stdout=subprocess.DEVNULL)
        dirs.append(d)

    def run(name, i):
        d = dirs[i]
        shutil.rmtree(os.path.join(d, "out"), ignore_errors=True)
        os.makedirs(os.path.join(d, "out"))
        if name == "fix":
            # The same files each time: --fix rewrites them.
            shutil.copytree(os.path.join(d, ".claude"), os.path.join(d, "fixing"), dirs_exist_ok=True)
            used = cpu(MANY[name], d)
            shutil.rmtree(os.path.join(d, ".claude"))
            os.rename(os.path.join(d, "fixing"), os.path.join(d, ".claude"))
            return used
        return cpu(MANY[name], d)

    return n, worst(MANY, run)


def main():
    if not os.environ.get("PWK_BIN") and not os.path.exists(PWK):
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    only = sys.argv[1:]
    files_only = only == ["files"]
    unknown = [s for s in only if s not in SHAPES and not files_only]
    if unknown:
        sys.exit(f"unknown shapes: {', '.join(unknown)} (known: {', '.join(SHAPES)})")
    work = tempfile.mkdtemp(prefix="pwk-shapes.")
    flagged = []
    print(f"{'shape':24} {'n':>7}  {'worst host (lint)':40}  {'worst front end':46}")
    try:
        for name, shape in SHAPES.items():
            if only and name not in only:
                continue
            n = size_for(shape)
            texts = [shape(n), shape(4 * n)]
            files = []
            for i, text in enumerate(texts):
                path = os.path.join(work, f"{name}-{i}.md")
                with open(path, "w", newline="") as f:
                    f.write(text)
                files.append(path)
            by_host = worst(HOSTS, lambda h, i: cpu(["lint", "--format", "json", "--host", h, files[i]], work))

            def front(fe, i):
                d = os.path.join(work, f"p{i}")
                project(texts[i], d)
                role = os.path.join(d, ".claude/agents/a.md")
                if fe == "lsp":
                    return lsp_session(d, role, texts[i])
                if fe == "mcp":
                    return mcp_session(d, role, texts[i])
                return cpu(FRONT_ENDS[fe], d)

            by_front = worst(FRONT_ENDS, front)
            cells = []
            for ratio, case, small, large in (by_host, by_front):
                bad = ratio > 6 and large > 0.1
                if bad:
                    flagged.append(f"{name} x {case}: {small:.3f} s -> {large:.3f} s ({ratio:.1f}x)")
                cells.append(f"{case:17} {small:.3f}->{large:.3f} s {ratio:5.1f}x{' !' if bad else '  '}")
            print(f"{name:24} {n:>7}  {cells[0]:40}  {cells[1]:46}", flush=True)
        if not only or files_only:
            n, (ratio, case, small, large) = many_files(work)
            bad = ratio > 6 and large > 0.1
            if bad:
                flagged.append(f"many files x {case}: {small:.3f} s -> {large:.3f} s ({ratio:.1f}x)")
            cell = f"{case:17} {small:.3f}->{large:.3f} s {ratio:5.1f}x{' !' if bad else '  '}"
            print(f"{'files (n roles)':24} {n:>7}  {'':40}  {cell:46}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ratio: CPU time at 4n over n (linear: about 4); '!' over 6 with the 4n run over 0.1 s")
    if flagged:
        print("faster than the input:\n  " + "\n  ".join(flagged))
        sys.exit(1)


if __name__ == "__main__":
    main()
