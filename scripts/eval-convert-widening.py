#!/usr/bin/env python3
"""Convert every Claude Code and OpenCode file of a corpus to every other host and
count, per target: converted (exit 0), not written or needing a decision (exit 1,
with the reason convert gives), and widened: the output's tools, as `pwk show` works
them out under the target, reach a capability the source's do not (under its own
host), or reach it with fewer limits.

    scripts/eval-convert-widening.py CORPUS [PWK]

The shared corpus holds no OpenCode file, so OpenCode's permission forms are added
as written here (SHAPES: its tools map and permission ruleset, one each), in a
temporary directory.

CORPUS is laid out like the shared corpus (SOURCES.tsv, `intended_host`). Each file is
converted where it lies (`pwk convert --from HOST FILE --out DIR`, never copied into
this repository); `pwk show` needs a project, so the source is staged in a temporary
one. The comparison maps each host's tool names onto pi's built-ins and a few shared
words (webfetch, websearch, task, todo) with its own table, independent of pwk's; a
name it does not know is reported, never counted as fine. Exit 1 when anything widened.
"""
import collections
import fnmatch
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

corpus = sys.argv[1]
SHAPES = {
    "no-write": 'tools:\n  write: false\n',
    "no-write-no-bash": 'tools:\n  write: false\n  bash: false\n',
    "edit-deny": 'permission:\n  edit: deny\n',
    "edit-bash-deny": 'permission:\n  edit: deny\n  bash: deny\n',
    "read-only-star": 'tools:\n  "*": false\n  read: true\n  grep: true\n',
    "perm-star-deny": 'permission:\n  "*": deny\n  read: allow\n',
    "bash-ask": 'permission:\n  bash: ask\n',
    "edit-ask": 'permission:\n  edit: ask\n  bash: ask\n',
    "bash-ask-deny-push": 'permission:\n  bash:\n    "*": ask\n    "git push*": deny\n',
    "bash-git-only": 'permission:\n  bash:\n    "*": deny\n    "git *": allow\n',
    "bash-no-rm": 'permission:\n  bash:\n    "rm *": deny\n',
    "web-off": 'tools:\n  "web*": false\n',
    "deny-word": 'permission: deny\n',
    "mixed": 'tools:\n  bash: false\npermission:\n  edit: ask\n  webfetch: deny\n',
}
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pwk = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "target/debug/pwk")

SOURCES = {"claude-code": ".claude/agents", "opencode": ".opencode/agents"}
TARGETS = {
    "claude-code": ".claude/agents",
    "opencode": ".opencode/agents",
    "gemini": ".gemini/agents",
    "copilot": ".github/agents",
    "tintinweb": ".pi/agents",
    "nicobailon": ".pi/agents",
    "herdr": ".pi/agents",
    "pi-example": ".pi/agents",
    "subagents-lite": ".pi/agents",
}
# Each host's tool names → capabilities (pi's built-ins and shared words).
CAPS = {
    "read": ["read"], "grep": ["grep"], "find": ["find"], "ls": ["ls"], "bash": ["bash"],
    "edit": ["edit"], "write": ["write"],
    "Read": ["read"], "Grep": ["grep"], "Glob": ["find"], "LS": ["ls"], "Bash": ["bash"],
    "Edit": ["edit"], "MultiEdit": ["edit"], "Write": ["write"], "NotebookEdit": ["edit"],
    "NotebookRead": ["read"], "WebFetch": ["webfetch"], "WebSearch": ["websearch"],
    "Agent": ["task"], "Task": ["task"], "TodoWrite": ["todo"],
    "glob": ["find"], "list": ["ls"], "patch": ["patch"], "multiedit": ["edit"],
    "webfetch": ["webfetch"], "websearch": ["websearch"], "task": ["task"],
    "todowrite": ["todo"], "todoread": ["todo"],
    "read_file": ["read"], "read_many_files": ["read"], "grep_search": ["grep"],
    "search_file_content": ["grep"], "list_directory": ["ls"],
    "run_shell_command": ["bash"], "replace": ["edit"], "write_file": ["write"],
    "web_fetch": ["webfetch"], "google_web_search": ["websearch"],
    "write_todos": ["todo"], "save_memory": ["memory"],
    "search": ["grep", "find"], "execute": ["bash"], "shell": ["bash"],
    "agent": ["task"], "web": ["webfetch", "websearch"], "todo": ["todo"],
}
# A shell can do what every other pi built-in does.
UNDER_SHELL = {"read", "grep", "find", "ls", "edit", "write"}


def profile_tools(host):
    doc = json.load(open(os.path.join(here, "schemas/hosts", host + ".json"), encoding="utf-8"))
    return [v.get("tools") or {} for v in doc["versions"]]


def injected(host):
    """The tools a host hands every child whatever the role says (its profile's
    `injected`): not the conversion's doing."""
    return {t for v in profile_tools(host) for t in v.get("injected", [])}


def host_default_own(host):
    """The host's own tools that come with its default list (nicobailon's `bg_wait`):
    pwk counts them as the host's, like the injected ones; reported on their own."""
    return {t for v in profile_tools(host) for t in v.get("provided", [])
            if t in v.get("default", [])}


def run(args, cwd):
    return subprocess.run(args, cwd=cwd, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def reach(project, host, name):
    """(caps → limit words or None, open, unknown names) as `pwk show` says."""
    p = run([pwk, "show", "--host", host, "--dir", project, name, "--format", "json"], project)
    if p.returncode != 0:
        return None
    tools = json.loads(p.stdout)["runtime"]["tools"]
    # What an open role is denied, by name as written: a deny-list's entries, an
    # OpenCode ruleset's `X: deny` (its `edit` governs write too; `*` wildcards).
    denied = set()
    for entry in list(tools.get("deny_tools") or []) + [
            d.rsplit(": ", 1)[0] for d in tools.get("declared") or [] if d.endswith(": deny")]:
        entry = entry.split("(")[0]
        names = [n for n in CAPS if fnmatch.fnmatchcase(n, entry)] if "*" in entry else [entry]
        for n in names:
            denied.update(CAPS.get(n, []))
            if host == "opencode" and n == "edit":
                denied.add("write")
    limits = {}
    for lim in tools.get("limits", []):
        limits.setdefault(lim["tool"], []).append(lim["calls"])
    caps, unknown = {}, []
    for t in tools["effective"]:
        if t not in CAPS:
            unknown.append(t)
            continue
        for c in CAPS[t]:
            lim = limits.get(t)
            # Full access to a capability wins over a limited name for it.
            caps[c] = None if (c in caps and caps[c] is None) else (tuple(lim) if lim else None)
    return caps, tools.get("open"), unknown, denied


def role_name(path):
    """The role's `name` line, else its file stem (what each host falls back to)."""
    text = open(path, encoding="utf-8", errors="replace").read().split("\n")
    for line in text[1:]:
        if line.strip() == "---":
            break
        if line.startswith("name:"):
            return line[5:].strip().strip("'\"")
    return os.path.basename(path).removesuffix(".md").removesuffix(".agent")


def widened(src, out, source, target):
    """What `out` may do that `src` may not, in words (empty: nothing)."""
    (scaps, sopen, _, sdenied), (ocaps, oopen, ounknown, _) = src, out
    shell = "bash" in scaps and scaps["bash"] is None
    # A source open to every other tool still lacks the tools it denies.
    denied = sdenied - set(scaps) if sopen else set()
    found = [f"{c} (taken away on {source})" for c in sorted(denied & set(ocaps))
             if not (shell and c in UNDER_SHELL)]
    if oopen and not sopen:
        found.append(f"every other tool of the session ({oopen})")
    for c, lim in ocaps.items():
        if c not in scaps:
            if not sopen and not (shell and c in UNDER_SHELL):
                found.append(c)
        elif scaps[c] is not None and lim is None:
            found.append(f"{c} on every call (source: {', '.join(scaps[c])})")
    own = [u for u in ounknown if not sopen and u in host_default_own(target)]
    found += [f"unmapped tool `{u}`" for u in ounknown
              if not sopen and u not in injected(target) and u not in own]
    return found, own


def self_check():
    """The comparison can fail: what convert wrote before it compared grants (N3: an
    OpenCode role with `write` and `bash` off became a tintinweb role with every
    built-in; N4: Claude Code's plan mode dropped) must count as widened."""
    cases = [
        ("opencode", ".opencode/agents", "---\ndescription: d\ntools:\n  write: false\n  bash: false\n---\nB\n",
         "tintinweb", ".pi/agents", "---\nname: r\ndescription: d\n---\nB\n"),
        ("claude-code", ".claude/agents", "---\nname: r\ndescription: d\ntools: Read, Bash\npermissionMode: plan\n---\nB\n",
         "tintinweb", ".pi/agents", "---\nname: r\ndescription: d\ntools: read, bash\n---\nB\n"),
    ]
    tmp = tempfile.mkdtemp(prefix="pwk-eval-widening-check-")
    try:
        for n, (sh, sd, stext, th, td, ttext) in enumerate(cases):
            got = []
            for host, d, text, side in ((sh, sd, stext, "s"), (th, td, ttext, "t")):
                proj = os.path.join(tmp, f"{n}{side}")
                os.makedirs(os.path.join(proj, ".git"))
                os.makedirs(os.path.join(proj, d))
                open(os.path.join(proj, d, "r.md"), "w").write(text)
                got.append(reach(proj, host, "r"))
            assert None not in got, f"self-check {n}: pwk show failed"
            assert widened(got[0], got[1], sh, th)[0], f"self-check {n}: a widened output not seen"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


self_check()
rows = [r for r in csv.DictReader(open(os.path.join(corpus, "SOURCES.tsv"), encoding="utf-8"),
                                  delimiter="\t", quoting=csv.QUOTE_NONE)
        if r.get("intended_host") in SOURCES]
tmp = tempfile.mkdtemp(prefix="pwk-eval-widening-")
os.makedirs(os.path.join(tmp, "shapes"))
for name, fm in SHAPES.items():
    path = os.path.join(tmp, "shapes", name + ".md")
    open(path, "w", encoding="utf-8").write(f"---\ndescription: {name}\nmode: subagent\n{fm}---\nDo the task.\n")
    rows.append({"file": path, "intended_host": "opencode"})
stats = collections.defaultdict(collections.Counter)
reasons = collections.defaultdict(collections.Counter)
widenings = []
host_own = []
try:
    for i, r in enumerate(rows):
        src_host = r["intended_host"]
        src_file = os.path.join(corpus, r["file"])
        stage = os.path.join(tmp, f"s{i}")
        os.makedirs(os.path.join(stage, ".git"))
        os.makedirs(os.path.join(stage, SOURCES[src_host]))
        shutil.copyfile(src_file, os.path.join(stage, SOURCES[src_host], os.path.basename(src_file)))
        for target, tdir in TARGETS.items():
            if target == src_host:
                continue
            proj = os.path.join(tmp, f"t{i}-{target}")
            os.makedirs(os.path.join(proj, ".git"))
            p = run([pwk, "convert", "--from", src_host, "--to", target, src_file,
                     "--out", os.path.join(proj, tdir), "--format", "json"], proj)
            key = f"{src_host} → {target}"
            if p.returncode not in (0, 1):
                stats[key]["crashed"] += 1
                reasons[key][f"exit {p.returncode}: {p.stderr.decode()[:120]}"] += 1
                continue
            doc = json.loads(p.stdout)
            if doc["errors"] or not doc["files"]:
                stats[key]["refused"] += 1
                reasons[key]["not converted: " + "; ".join(doc["errors"])[:100]] += 1
                continue
            f = doc["files"][0]
            if p.returncode == 0:
                stats[key]["converted"] += 1
            else:
                stats[key]["refused"] += 1
                why = [it["key"] for it in f["items"] if it["outcome"] == "decision"]
                reason = ("widens: not written" if f["widens"] else
                          "decide about tools: " + ", ".join(sorted(set(why))) if f["limits"] else
                          "still fails lint" if not f["lint_clean"] else
                          f"write: {f['write_error']}")
                reasons[key][reason] += 1
            if not f["written"] or f["write_error"]:
                continue
            name = role_name(src_file)
            out_name = role_name(os.path.join(proj, f["path"]))
            src = reach(stage, src_host, name) if name else None
            out = reach(proj, target, out_name)
            if src is None or out is None:
                stats[key]["not shown"] += 1
                reasons[key][f"not shown ({'source' if src is None else 'output'}): {r['file']}"] += 1
                continue
            w, own = widened(src, out, src_host, target)
            if own:
                stats[key]["host own"] += 1
                host_own.append(f"{r['file']} {key}: the output's child also has {', '.join(own)}")
            if w:
                stats[key]["widened"] += 1
                widenings.append(f"{r['file']} {key}: {', '.join(w)}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(rows)} files ({', '.join(f'{n} {h}' for h, n in collections.Counter(r['intended_host'] for r in rows).items())}) × {len(TARGETS) - 1} targets\n")
print(f"{'pair':<30}{'converted':>10}{'refused':>9}{'widened':>9}{'not shown':>11}{'crashed':>9}{'host own':>10}")
total = collections.Counter()
for key in sorted(stats):
    s = stats[key]
    total.update(s)
    print(f"{key:<30}{s['converted']:>10}{s['refused']:>9}{s['widened']:>9}{s['not shown']:>11}{s['crashed']:>9}{s['host own']:>10}")
print(f"{'total':<30}{total['converted']:>10}{total['refused']:>9}{total['widened']:>9}{total['not shown']:>11}{total['crashed']:>9}{total['host own']:>10}")
print("\nwhy refused (exit 1), or not compared:")
agg = collections.Counter()
for key, c in reasons.items():
    for why, n in c.items():
        agg[f"{key.split(' → ')[1]}: {why}"] += n
for why, n in sorted(agg.items(), key=lambda x: -x[1]):
    print(f"  {n:>3}  {why}")
if host_own:
    print("\nthe target host's own tools (with its default list; pwk counts them as the host's):")
    for w in host_own:
        print("  " + w)
if widenings:
    print("\nwidened:")
    for w in widenings:
        print("  " + w)
sys.exit(1 if widenings or total["crashed"] else 0)
