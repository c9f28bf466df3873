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
        if kind == 0: keys[2] = "tols: read, grep, find, ls"
        elif kind == 1: keys[5] = "thinking: med"
        elif kind == 2: del keys[1]
        else: keys[4] = 'max_turns: "20"'
    with open(os.path.join(out, name + ".md"), "w") as f:
        f.write("---\n" + "\n".join(keys) + "\n---\n# " + name + "\n\n" + body)
PY
}

# measure RUNS CMD... : run CMD RUNS times (after one warm-up); print the median wall
# time and the median CPU time (user + sys, all threads) in ms.
measure() {
  local n=$1; shift
  "$@" >/dev/null 2>&1 || true
  local walls=() cpus=() out
  local TIMEFORMAT='%R %U %S'
  for ((r = 0; r < n; r++)); do
    out=$( { time "$@" >/dev/null 2>&1 || true; } 2>&1 )
    read -r real user sys <<<"$out"
    walls+=("$real")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')")
  done
  local wall cpu
  wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]*1000}')
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]*1000}')
  echo "$wall $cpu"
}

cat_all() { cat "$1"/*.md >/dev/null; }

generate 1000 "$work/1k"
generate 10000 "$work/10k"
bytes=$(du -sb "$work/10k" | cut -f1)
errors=$("$pwk" lint --format json "$work/10k" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["summary"]["errors"], "errors in", d["files"], "files")' || true)

read -r pwk_1k pwk_1k_cpu < <(measure "$runs" "$pwk" lint "$work/1k")
read -r cat_1k cat_1k_cpu < <(measure "$runs" cat_all "$work/1k")
read -r pwk_10k pwk_10k_cpu < <(measure "$runs" "$pwk" lint "$work/10k")
read -r cat_10k cat_10k_cpu < <(measure "$runs" cat_all "$work/10k")
read -r one one_cpu < <(measure $((runs * 3)) "$pwk" lint "$work/1k/role-00000.md")
read -r true_ms true_cpu < <(measure $((runs * 3)) /bin/true)

echo "pwk lint benchmark ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), median of $runs runs; 10k corpus: $((bytes / 10000)) bytes/file, $errors)"
awk -v p1="$pwk_1k" -v c1="$cat_1k" -v p10="$pwk_10k" -v c10="$cat_10k" \
    -v p1c="$pwk_1k_cpu" -v c1c="$cat_1k_cpu" -v p10c="$pwk_10k_cpu" -v c10c="$cat_10k_cpu" \
    -v one="$one" -v onec="$one_cpu" -v t="$true_ms" -v tc="$true_cpu" 'BEGIN {
  printf "  %-8s %10s %10s %8s   %12s %12s\n", "files", "pwk ms", "cat ms", "pwk/cat", "pwk cpu ms", "cat cpu ms"
  printf "  %-8s %10.2f %10.2f %8.2f   %12.2f %12.2f\n", "1,000", p1, c1, p1 / c1, p1c, c1c
  printf "  %-8s %10.2f %10.2f %8.2f   %12.2f %12.2f\n", "10,000", p10, c10, p10 / c10, p10c, c10c
  printf "  scaling 10k/1k (wall): pwk %.2f, cat %.2f (target <= 11)\n", p10 / p1, c10 / c1
  printf "  one file: %.2f ms wall, %.2f ms cpu (/bin/true: %.2f ms wall, %.2f ms cpu; target <= 3 ms)\n", one, onec, t, tc
}'
