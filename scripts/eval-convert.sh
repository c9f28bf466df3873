#!/usr/bin/env bash
# Convert the corpus's Claude Code files to each pi host and check the result three
# ways: pwk convert's own in-memory lint, a separate `pwk lint --host <target>` of each
# written file, and — for the hosts the host oracle runs (tests/oracle/driver.mjs:
# tintinweb 0.14.1, nicobailon 0.67.0) — the real host's loader: every converted role
# must load, under the name Claude Code gave it, with exactly the mapped tools (plus the
# tools the host itself injects) and the model line as written.
#
#   scripts/eval-convert.sh CORPUS [PWK] [ORACLE]
#
# CORPUS is laid out like the shared corpus (SOURCES.tsv with `intended_host`; rows with
# `claude-code` are used). The files are copied into a temporary project's
# `.claude/agents/` (so `--from` is detected from the directory, as a user would have
# it), never into this repository. PWK defaults to target/debug/pwk; ORACLE to
# $PWK_TEST_ORACLE, else .host-test/bin/oracle; without an oracle the real-host check is
# reported as not run.
set -euo pipefail
corpus=${1:?usage: scripts/eval-convert.sh CORPUS [PWK] [ORACLE]}
here="$(cd "$(dirname "$0")/.." && pwd)"
pwk=${2:-"$here/target/debug/pwk"}
oracle=${3:-${PWK_TEST_ORACLE:-"$here/.host-test/bin/oracle"}}
[ -f "$corpus/SOURCES.tsv" ] || { echo "eval-convert: no SOURCES.tsv in $corpus" >&2; exit 2; }
[ -x "$pwk" ] || { echo "eval-convert: no pwk binary at $pwk (cargo build)" >&2; exit 2; }
exec python3 - "$corpus" "$pwk" "$oracle" "$here" <<'PY'
import csv, json, os, shutil, subprocess, sys, tempfile

corpus, pwk, oracle, here = sys.argv[1:5]
rows = [r for r in csv.DictReader(open(os.path.join(corpus, "SOURCES.tsv"), encoding="utf-8"),
                                  delimiter="\t", quoting=csv.QUOTE_NONE)
        if r.get("intended_host") == "claude-code"]
have_oracle = os.access(oracle, os.X_OK)
# (target for pwk, oracle host or None, the profile file/version whose tool facts apply)
# The `+map` rows pass --model-map for Claude Code's aliases, so every role keeps a model.
MAP = ["--model-map", "sonnet=anthropic/claude-sonnet-4-5", "--model-map", "opus=anthropic/claude-opus-4-1"]
TARGETS = [("tintinweb@0.14", "tintinweb@0.14.1", ("tintinweb", 0), []),
           ("tintinweb@0.14", "tintinweb@0.14.1", ("tintinweb", 0), MAP),
           ("tintinweb", None, None, []),
           ("nicobailon@0.67", "nicobailon@0.67.0", ("nicobailon", 0), []),
           ("nicobailon@0.67", "nicobailon@0.67.0", ("nicobailon", 0), MAP),
           ("nicobailon", None, None, []),
           ("herdr", None, None, []),
           ("herdr", None, None, MAP)]

def profile_tools(host, index):
    doc = json.load(open(os.path.join(here, "schemas/hosts", host + ".json")))
    t = doc["versions"][index]["tools"]  # versions[0] is complete (later ones are patches)
    return t["default"], set(t.get("injected", []))

def frontmatter_value(text, key):
    lines = text.split("\n")
    for line in lines[1:]:
        if line.strip() in ("---", "..."):
            return None
        if line.startswith(key + ":"):
            return line[len(key) + 1:].strip()
    return None

tmp = tempfile.mkdtemp(prefix="pwk-eval-convert-")
failures = []
print(f"{len(rows)} Claude Code files from {corpus}\n")
print(f"{'target':<20}{'files':>6}{'lint ok':>9}{'relint ok':>11}{'loaded':>8}{'tools ok':>10}"
      f"{'dropped':>9}{'decide':>8}  dropped/decided keys")
try:
    for n, (target, ohost, tools_of, extra) in enumerate(TARGETS):
        label = target + (" +map" if extra else "")
        root = os.path.join(tmp, str(n))
        agents = os.path.join(root, ".claude", "agents")
        os.makedirs(agents)
        os.makedirs(os.path.join(root, ".git"))
        for r in rows:
            shutil.copyfile(os.path.join(corpus, r["file"]), os.path.join(agents, os.path.basename(r["path"])))
        p = subprocess.run([pwk, "convert", "--to", target, ".claude/agents", "--out", ".pi/agents",
                            "--format", "json"] + extra, cwd=root, capture_output=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        if p.returncode not in (0, 1):
            failures.append(f"{target}: pwk convert exit {p.returncode}: {p.stderr.decode()[:300]}")
            continue
        doc = json.loads(p.stdout)
        files = doc["files"]
        lint_ok = sum(1 for f in files if f["lint_clean"])
        for f in files:
            if not f["lint_clean"]:
                failures.append(f"{target}: {f['source']}: converted file fails lint: {f['lint']}")
        # An independent lint of what was written, by the CLI, for the target host.
        relint_ok = 0
        for f in files:
            q = subprocess.run([pwk, "lint", "--host", target, "--format", "json", f["path"]], cwd=root,
                               capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
            d = json.loads(q.stdout)
            if q.returncode == 0 and not any(x["severity"] == "error" for x in d["diagnostics"]):
                relint_ok += 1
            else:
                failures.append(f"{target}: {f['path']}: pwk lint --host {target} exit {q.returncode}")
        keys = {}
        for f in files:
            for i in f["items"]:
                if i["outcome"] != "converted":
                    k = i["key"].split(":")[0] if i["key"].startswith("tools:") else i["key"]
                    k = i["key"] if i["key"].startswith("tools:") else k
                    keys[(i["outcome"], k)] = keys.get((i["outcome"], k), 0) + 1
        loaded = tools_ok = "-"
        if ohost and have_oracle:
            o = subprocess.run([oracle, "--host", ohost, "--project", root], capture_output=True,
                               timeout=120, stdin=subprocess.DEVNULL)
            od = json.loads(o.stdout)
            by_file = {x["file"]: x for x in od["files"]}
            default, injected = profile_tools(*tools_of)
            loaded = tools_ok = 0
            for f in files:
                x = by_file.get(f["path"])
                text = open(os.path.join(root, f["path"]), encoding="utf-8").read()
                if not x or x["outcome"] != "loaded":
                    failures.append(f"{ohost}: {f['path']}: {x and x['outcome']}: {x and x.get('message')}")
                    continue
                want_id = f["file_name"][:-3]
                if x["identity"] != want_id:
                    failures.append(f"{ohost}: {f['path']}: identity {x['identity']!r}, want {want_id!r}")
                    continue
                loaded += 1
                listed = frontmatter_value(text, "tools")
                want = set(t.strip() for t in listed.split(",")) if listed else set(default)
                got = set(x["tools"] or [])
                model = frontmatter_value(text, "model")
                if want <= got and got - want <= injected and (x.get("model") or None) == model:
                    tools_ok += 1
                else:
                    failures.append(f"{ohost}: {f['path']}: tools {sorted(got)} model {x.get('model')!r}, "
                                    f"want {sorted(want)} (+{sorted(injected)}) model {model!r}")
        elif ohost:
            loaded = tools_ok = "no oracle"
        dropped = sum(v for (o, _), v in keys.items() if o == "dropped")
        decide = sum(v for (o, _), v in keys.items() if o == "decision")
        summary = ", ".join(f"{k} {v}{'D' if o == 'dropped' else '?'}" for (o, k), v in sorted(keys.items()))
        print(f"{label:<20}{len(files):>6}{lint_ok:>9}{relint_ok:>11}{loaded!s:>8}{tools_ok!s:>10}"
              f"{dropped:>9}{decide:>8}  {summary}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("\nD = dropped (the target has no counterpart), ? = needs a decision (e.g. an unmapped model alias:"
      " the model line is left out and the host uses its default)")
if not have_oracle:
    print(f"real-host check not run: no oracle at {oracle} (scripts/provision-hosts.sh)")
if failures:
    print(f"\n{len(failures)} failure(s):")
    for f in failures:
        print("  " + f)
    sys.exit(1)
PY
