#!/usr/bin/env python3
"""Driver for scripts/bench-lsp.sh: times `pwk lsp` as an editor would use it.

    scripts/bench-lsp.py PWK WORKDIR CHANGES

- one 200-line role: the median time from writing a `didChange` to reading the
  `publishDiagnostics` for that version, over CHANGES changes;
- a workspace of 1,000 roles (scripts/gen-roles.py), every one open: the same
  median for a change to one of them (the cross-file `duplicate-name` index covers
  all 1,000), and the server's RSS (VmRSS) with the 1,000 open;
- baselines in the same run: `pwk lint FILE` for the 200-line role and `pwk lint`
  over the 1,000 roles (median wall time of the process), so the ratios say what
  the server saves over re-running the CLI.
"""
import json
import os
import statistics
import subprocess
import sys
import time

pwk, work, changes = sys.argv[1], sys.argv[2], int(sys.argv[3])
here = os.path.dirname(os.path.abspath(__file__))


class Client:
    def __init__(self, root):
        env = dict(os.environ, HOME=os.path.join(root, "home"))
        os.makedirs(env["HOME"], exist_ok=True)
        self.p = subprocess.Popen([pwk, "lsp"], cwd=root, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.id = 0

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("bench-lsp: the server closed stdout")
            line = line.strip()
            if not line:
                break
            k, v = line.decode().split(": ", 1)
            if k.lower() == "content-length":
                length = int(v)
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == self.id and "method" not in m:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_published(self, uri, version):
        while True:
            m = self.read()
            if (m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == uri and m["params"].get("version") == version):
                return m

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.p.wait(timeout=30)


def uri(path):
    return "file://" + path


def start(root):
    c = Client(root)
    c.request("initialize", {"processId": None, "rootUri": uri(root), "capabilities": {}})
    c.notify("initialized", {})
    return c


def open_doc(c, path, text):
    c.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri(path), "languageId": "markdown", "version": 1, "text": text}})


def change_latencies(c, path, text, line_of_turns, n, first_version):
    """Replace the `max_turns` value n times; ms from write to publish."""
    out = []
    line = text.split("\n")[line_of_turns]
    col = line.index(":") + 2
    for i in range(n):
        v = first_version + i
        value = str(20 + (i % 2))
        t0 = time.perf_counter()
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri(path), "version": v},
            "contentChanges": [{"range": {"start": {"line": line_of_turns, "character": col},
                                          "end": {"line": line_of_turns, "character": len(line)}},
                                "text": value}]})
        c.wait_published(uri(path), v)
        out.append((time.perf_counter() - t0) * 1000)
        line = line[:col] + value
    return out


def wall_ms(args, cwd):
    t0 = time.perf_counter()
    subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, HOME=os.path.join(cwd, "home")))
    return (time.perf_counter() - t0) * 1000


def role_200_lines():
    keys = ["name: big", "description: Reviews a change and reports findings with file:line.",
            "tools: read, grep, find, ls", "max_turns: 20", "thinking: low", "x-owner: bench"]
    body = ["# Big", ""] + [f"- Step {i}: read the code around the change and say what is wrong, precisely."
                              for i in range(200 - len(keys) - 4)]
    return "---\n" + "\n".join(keys) + "\n---\n" + "\n".join(body) + "\n"


med = statistics.median

# One 200-line role.
one = os.path.join(work, "one")
os.makedirs(os.path.join(one, ".pi/agents"), exist_ok=True)
text = role_200_lines()
assert text.count("\n") == 200, text.count("\n")
big = os.path.join(one, ".pi/agents/big.md")
with open(big, "w") as f:
    f.write(text)
c = start(one)
open_doc(c, big, text)
c.wait_published(uri(big), 1)
turns_line = text.split("\n").index("max_turns: 20")
lat_one = change_latencies(c, big, text, turns_line, changes, 2)
c.close()
lint_one = [wall_ms([pwk, "lint", "--format", "json", ".pi/agents/big.md"], one) for _ in range(max(11, changes // 5))]

# 1,000 roles, every one open.
many = os.path.join(work, "many")
agents = os.path.join(many, ".pi/agents")
subprocess.run([sys.executable, os.path.join(here, "gen-roles.py"), "1000", agents], check=True)
files = sorted(os.path.join(agents, f) for f in os.listdir(agents) if f.endswith(".md"))
c = start(many)
rss_before = c.rss_kib()
texts = {}
for p in files:
    with open(p) as f:
        texts[p] = f.read()
    open_doc(c, p, texts[p])
for p in files:
    c.wait_published(uri(p), 1)
rss_open = c.rss_kib()
target = files[0]
t_lines = texts[target].split("\n")
turns = next(i for i, l in enumerate(t_lines) if l.startswith("max_turns:"))
lat_many = change_latencies(c, target, texts[target], turns, changes, 2)
rss_after = c.rss_kib()
c.close()
lint_many = [wall_ms([pwk, "lint", "--format", "json"], many) for _ in range(max(5, changes // 20))]

print(f"pwk lsp, didChange -> publishDiagnostics (median of {changes} changes), baseline in the same run:")
print(f"  200-line role:     lsp {med(lat_one):7.3f} ms   `pwk lint FILE` {med(lint_one):7.3f} ms   ratio {med(lat_one) / med(lint_one):.3f}   (target <= 2 ms)")
print(f"  1,000-role space:  lsp {med(lat_many):7.3f} ms   `pwk lint` (1,000 files) {med(lint_many):7.3f} ms   ratio {med(lat_many) / med(lint_many):.3f}   (target <= 20 ms)")
print(f"  p90: 200-line {statistics.quantiles(lat_one, n=10)[-1]:.3f} ms, 1,000-role {statistics.quantiles(lat_many, n=10)[-1]:.3f} ms")
print(f"pwk lsp RSS: {rss_before / 1024:.1f} MiB after initialize, {rss_open / 1024:.1f} MiB with 1,000 roles open, "
      f"{rss_after / 1024:.1f} MiB after the changes (target <= 50 MiB)")
