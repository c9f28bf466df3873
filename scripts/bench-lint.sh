#!/usr/bin/env bash
# Benchmark `pwk lint` against `cat` over the same role files, in one run.
#
#   scripts/bench-lint.sh            # builds --release if needed
#   RUNS=9 scripts/bench-lint.sh     # more repetitions (the median is reported)
#
# Generates 1,000 and 10,000 role files (~700 bytes each, every 20th invalid:
# unknown key, bad enum, missing description, quoted number in turn), then prints
# the median wall time of `pwk lint DIR` and of `cat DIR/*.md > /dev/null`, their
# ratio, the 10k/1k scaling ratio, and the latency of linting one file.
# Targets: pwk/cat <= 1.0 at 10k, 10k/1k <= 11, one file <= 3 ms.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pwk=${PWK_BIN:-$root/target/release/pwk}
runs=${RUNS:-7}
if [[ -z ${PWK_BIN:-} ]]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pwk-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

generate() { # generate N DIR
  python3 - "$1" "$2" <<'PY'
import os, sys
n, out = int(sys.argv[1]), sys.argv[2]
os.makedirs(out, exist_ok=True)
body = ("You review the diff you are given and report each problem with file:line, "
        "what is wrong, and why it matters. Stay read-only; do not propose rewrites.\n\n"
        "## Output\n\n- One finding per bullet.\n- Say `No findings.` when there are none.\n")
for i in range(n):
    name = f"role-{i:05d}"
    keys = [f"name: {name}",
            f"description: Reviews changes for problem class {i % 97}: reads the diff and the code around it, reports findings with file:line. Read-only reporter.",
            "tools: read, grep, find, ls",
            "systemPromptMode: replace",
            f"max_turns: {20 + i % 20}",
            "thinking: low",
            "# model: <fast-tier> — set yours via pwk setup"]
    if i % 20 == 19:
        kind = (i // 20) % 4
        if kind == 0: keys[2] = "tols: read, grep, find, ls"
        elif kind == 1: keys[5] = "thinking: med"
        elif kind == 2: del keys[1]
        else: keys[4] = 'max_turns: "20"'
    with open(os.path.join(out, name + ".md"), "w") as f:
        f.write("---\n" + "\n".join(keys) + "\n---\n# " + name + "\n\n" + body)
PY
}

now_ns() { date +%s%N; }

# median_ms RUNS CMD... : run CMD RUNS times (after one warm-up), print the median in ms.
median_ms() {
  local n=$1; shift
  "$@" >/dev/null 2>&1 || true
  local times=()
  for ((r = 0; r < n; r++)); do
    local t0 t1
    t0=$(now_ns)
    "$@" >/dev/null 2>&1 || true
    t1=$(now_ns)
    times+=($(((t1 - t0) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f\n", a[int((NR+1)/2)]/1000}'
}

cat_all() { cat "$1"/*.md >/dev/null; }

generate 1000 "$work/1k"
generate 10000 "$work/10k"
bytes=$(du -sb "$work/10k" | cut -f1)
errors=$("$pwk" lint --format json "$work/10k" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["summary"]["errors"], "errors in", d["files"], "files")' || true)

pwk_1k=$(median_ms "$runs" "$pwk" lint "$work/1k")
cat_1k=$(median_ms "$runs" cat_all "$work/1k")
pwk_10k=$(median_ms "$runs" "$pwk" lint "$work/10k")
cat_10k=$(median_ms "$runs" cat_all "$work/10k")
one=$(median_ms $((runs * 3)) "$pwk" lint "$work/1k/role-00000.md")
true_ms=$(median_ms $((runs * 3)) /bin/true)

echo "pwk lint benchmark ($(nproc) cores, median of $runs runs; 10k corpus: $((bytes / 1000)) kB, $errors)"
awk -v p1="$pwk_1k" -v c1="$cat_1k" -v p10="$pwk_10k" -v c10="$cat_10k" -v one="$one" -v t="$true_ms" 'BEGIN {
  printf "  %-8s %10s %10s %10s\n", "files", "pwk ms", "cat ms", "pwk/cat"
  printf "  %-8s %10.2f %10.2f %10.2f\n", "1,000", p1, c1, p1 / c1
  printf "  %-8s %10.2f %10.2f %10.2f\n", "10,000", p10, c10, p10 / c10
  printf "  scaling 10k/1k: pwk %.2f, cat %.2f (target <= 11)\n", p10 / p1, c10 / c1
  printf "  one file: %.2f ms (process spawn alone, /bin/true: %.2f ms; target <= 3 ms)\n", one, t
}'
