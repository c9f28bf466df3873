#!/usr/bin/env bash
# Lint a corpus of real role files, each for the host it was written for, and print
# per host: files, files failing (exit 1), errors and warnings by rule.
#
#   scripts/eval-corpus.sh DIR [PWK] [--verbose]
#
# DIR is laid out like the shared corpus: `SOURCES.tsv` (tab-separated, with a header:
# file, repo, path, commit, category, intended_host) and each file at DIR/<file>.
# `intended_host` is a host pwk knows (`tintinweb`, `nicobailon@0.67`, …); `unknown`
# means the portable profile. Each file is copied alone into a temporary project at
# its original path (so directory and file-name rules see what the host sees) and
# linted from that project's root; a Claude Code file is put in `.claude/agents/` and
# linted with the host `--host auto` detects there. PWK defaults to target/release/pwk.
# The corpus is measurement data: read it from where it is, never copy it into the
# project.
set -euo pipefail
dir=${1:?usage: scripts/eval-corpus.sh DIR [PWK] [--verbose]}
pwk=${2:-"$(cd "$(dirname "$0")/.." && pwd)/target/release/pwk"}
verbose=${3:-}
[ -f "$dir/SOURCES.tsv" ] || { echo "eval-corpus: no SOURCES.tsv in $dir" >&2; exit 2; }
[ -x "$pwk" ] || { echo "eval-corpus: no pwk binary at $pwk (cargo build --release)" >&2; exit 2; }
exec python3 - "$dir" "$pwk" "$verbose" <<'PY'
import collections, csv, json, os, shutil, subprocess, sys, tempfile

corpus, pwk, verbose = sys.argv[1], sys.argv[2], sys.argv[3] == "--verbose"
rows = list(csv.DictReader(open(os.path.join(corpus, "SOURCES.tsv"), encoding="utf-8"),
                           delimiter="\t", quoting=csv.QUOTE_NONE))
per = collections.defaultdict(lambda: {"files": 0, "failing": 0, "crashes": 0,
                                       "error": collections.Counter(), "warning": collections.Counter()})
tmp = tempfile.mkdtemp(prefix="pwk-eval-")
try:
    for n, r in enumerate(rows):
        host = r.get("intended_host") or "unknown"
        host = "pwk" if host == "unknown" else host
        rel = r["path"]
        args = ["--host", host]
        if host.split("@")[0] == "claude-code":
            # Where Claude Code reads it (the corpus keeps each collection's own layout:
            # `agents/`, `categories/…/`, a plugin's `agents/`), linted with the profile
            # `--host auto` detects from that directory.
            rel = os.path.join(".claude", "agents", os.path.basename(rel))
            args = []
        root = os.path.join(tmp, str(n))
        dest = os.path.join(root, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(corpus, r["file"]), dest)
        os.makedirs(os.path.join(root, ".git"))  # the project root, as in the real repository
        s = per[host]
        s["files"] += 1
        p = subprocess.run([pwk, "lint", "--format", "json", *args, rel], cwd=root,
                           capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        if p.returncode == 2 and b"unknown host" in p.stderr:
            s["no_profile"] = True
            continue
        try:
            doc = json.loads(p.stdout)
            assert p.returncode in (0, 1) and b"panicked" not in p.stderr
        except Exception:
            s["crashes"] += 1
            print(f"CRASH {r['file']}: exit {p.returncode}: {p.stderr.decode(errors='replace')[:300]}")
            continue
        if not args and not str(doc.get("host", {}).get("profile", "")).startswith(host):
            s["crashes"] += 1
            print(f"WRONG HOST {r['file']}: detected {doc.get('host')}, want {host}")
            continue
        if p.returncode == 1:
            s["failing"] += 1
        for d in doc["diagnostics"]:
            s[d["severity"]][d["rule"]] += 1
            if verbose or (d["severity"] == "error"):
                print(f"  {host:<14} {r['file']}:{d['line']}:{d['column']}: {d['severity']}[{d['rule']}] {d['message']}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print()
print(f"{'host':<16}{'files':>6}{'failing':>9}{'errors':>8}{'warnings':>10}  by rule")
for host in sorted(per):
    s = per[host]
    rules = ", ".join(f"{k} {v}E" for k, v in sorted(s["error"].items()))
    warns = ", ".join(f"{k} {v}W" for k, v in sorted(s["warning"].items()))
    print(f"{host:<16}{s['files']:>6}{s['failing']:>9}{sum(s['error'].values()):>8}{sum(s['warning'].values()):>10}  "
          + "; ".join(x for x in (rules, warns) if x))
    if s.get("no_profile"):
        print(f"{'':<16}pwk has no profile for this host: not linted")
    if s["crashes"]:
        print(f"{'':<16}crashes: {s['crashes']}")
PY
