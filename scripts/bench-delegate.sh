#!/usr/bin/env bash
# Benchmarks for `pwk delegate` (release builds of pwk and examples/delegate_bench.rs).
#   1. the event parser on a generated pi 0.73.1-shaped stream WITH the quadratic
#      message_update snapshots (default 1 GiB): MB/s and peak RSS, next to a
#      baseline that only splits the same bytes on LF (same run, same pipe), and
#      the same parse with the usage accounting left out (its cost: the ratio);
#      targets: >= 300 MB/s, <= 32 MiB peak RSS;
#   2. the stream through the pwk binary: `pwk delegate` reading a 200 MB stream from a
#      fake pi (`cat FILE`) against the pipe floor `cat FILE | cat` (same file, same
#      run, alternating, median of STREAM_RUNS pairs): the wall ratio (target <= 1.3),
#      the CPU both spent, and pwk's peak RSS for 200 MB and 2 GB (target <= 16 MiB);
#   3. run_pi's own overhead over a bare launch of the same program with the same
#      arguments against the fake LLM server (interleaved pairs; min, median, mean),
#      with the scripted fake pi and with both real pi generations; target <= 20 ms;
#   4. the `pwk delegate` binary on a read-only task against the same pi launch
#      started bare, with both real pi generations at the fake LLM, alternating, pwk's
#      cache cold and warm: pwk's overhead with pi's own lifetime subtracted (median of
#      paired runs; target <= 25 ms warm) and pi processes started per task (target:
#      exactly 1 warm).
# Usage: scripts/bench-delegate.sh [BYTES] [RUNS]     (needs .pi-test/ for parts 3-4)
# Env: STREAM_RUNS (default 9), BIG_BYTES (the RSS-only stream, default 2000000000).
set -euo pipefail
cd "$(dirname "$0")/.."
bytes=${1:-1073741824}
runs=${2:-10}
cargo build --release --example delegate_bench --bin pwk >&2
bin=target/release/examples/delegate_bench
pwk=$PWD/target/release/pwk
echo "== machine: $(uptime)"

echo "== parser: $bytes bytes of pi 0.73.1-shaped JSONL"
baseline=$("$bin" gen "$bytes" | "$bin" lines)
parser=$("$bin" gen "$bytes" | "$bin" parse)
nousage=$("$bin" gen "$bytes" | "$bin" parse-no-usage)
echo "baseline (LF split only): $baseline"
echo "pwk parser, no usage:     $nousage"
echo "pwk parser:               $parser"
b=$(sed -E 's/.*mb_per_s=([0-9.]+).*/\1/' <<<"$baseline")
p=$(sed -E 's/.*mb_per_s=([0-9.]+).*/\1/' <<<"$parser")
rss=$(sed -E 's/.*peak_rss_kib=([0-9]+).*/\1/' <<<"$parser")
n=$(sed -E 's/.*mb_per_s=([0-9.]+).*/\1/' <<<"$nousage")
awk -v n="$n" -v p="$p" 'BEGIN {
  printf "usage accounting: %.0f MB/s with, %.0f MB/s without (ratio %.3f)\n", p, n, p / n }'
awk -v b="$b" -v p="$p" -v r="$rss" 'BEGIN {
  printf "parser/baseline throughput ratio: %.2f\n", p / b;
  printf "parser: %.0f MB/s (target >= 300: %s), peak RSS %.1f MiB (target <= 32: %s)\n",
    p, (p >= 300 ? "ok" : "MISSED"), r / 1024, (r / 1024 <= 32 ? "ok" : "MISSED") }'

echo "== stream through pwk delegate vs the pipe floor (cat FILE | cat), ${STREAM_RUNS:-9} alternating pairs"
tmp=$(mktemp -d /tmp/pwk-bench-stream.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$bin" gen 200000000 >"$tmp/s200.jsonl"
mkdir -p "$tmp/work" "$tmp/agent" "$tmp/cache"
fake_pi() { # a pi that prints FILE, or a stream generated on the fly
  printf '#!/bin/sh\ncase "$1" in --help) echo "  --no-mcp"; exit 0;; esac\nexec %s\n' "$1" >"$tmp/pi"
  chmod +x "$tmp/pi"
}
printf '{"action":"delegate","taskId":"s","cwd":"%s","objective":"Summarise the README","scope":["README.md"],"constraints":[],"acceptance":["a summary"],"profile":"readonly"}' \
  "$tmp/work" >"$tmp/req.json"
# Each prints: wall seconds (from date, ns), user and system CPU seconds, peak RSS KiB.
through_pwk() {
  local t0 t1
  t0=$(date +%s%N)
  PWK_PI_BIN="$tmp/pi" PI_CODING_AGENT_DIR="$tmp/agent" PWK_CACHE_DIR="$tmp/cache" HOME="$tmp" \
    /usr/bin/time -o "$tmp/t" -f "%U %S %M" "$pwk" delegate <"$tmp/req.json" >"$tmp/out.json" 2>/dev/null
  t1=$(date +%s%N)
  grep -q '"status": "completed"' "$tmp/out.json" || { echo "pwk did not complete:" >&2; head -c 600 "$tmp/out.json" >&2; exit 1; }
  echo "$(( (t1 - t0) / 1000 ))e-6 $(cat "$tmp/t")"
}
floor() {
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -o "$tmp/t" -f "%U %S %M" sh -c "cat '$tmp/s200.jsonl' | cat >/dev/null"
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000 ))e-6 $(cat "$tmp/t")"
}
fake_pi "cat '$tmp/s200.jsonl'"
through_pwk >/dev/null # warm: the page cache, pwk's cache entry
: >"$tmp/pairs"
for i in $(seq "${STREAM_RUNS:-9}"); do
  if [ $((i % 2)) -eq 0 ]; then f=$(floor); p=$(through_pwk); else p=$(through_pwk); f=$(floor); fi
  echo "$f $p" >>"$tmp/pairs"
done
awk '{ fw[NR]=$1; fc[NR]=$2+$3; pw[NR]=$5; pc[NR]=$6+$7; r[NR]=$5/$1; rss[NR]=$8 }
  function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
  END { n = NR; mf = med(fw, n); mp = med(pw, n); mr = med(r, n)
    printf "floor median wall %.3f s (CPU %.3f s), pwk median wall %.3f s (CPU %.3f s)\n", mf, med(fc, n), mp, med(pc, n)
    printf "stream/floor wall ratio: %.2f (median of the medians), %.2f (median of paired ratios); target <= 1.3: %s\n", mp / mf, mr, (mr <= 1.3 ? "ok" : "MISSED")
    printf "pwk peak RSS, 200 MB stream: %.1f MiB (target <= 16: %s)\n", med(rss, n) / 1024, (med(rss, n) / 1024 <= 16 ? "ok" : "MISSED") }' "$tmp/pairs"
big=${BIG_BYTES:-2000000000}
fake_pi "'$PWD/$bin' gen $big"
read -r w u s m <<<"$(through_pwk)"
awk -v b="$big" -v w="$w" -v m="$m" 'BEGIN { printf "pwk peak RSS, %.1f GB stream (generated on the fly): %.1f MiB in %.1f s (target <= 16: %s)\n", b / 1e9, m / 1024, w, (m / 1024 <= 16 ? "ok" : "MISSED") }'

# pi itself varies by hundreds of ms per start on a busy machine, which hides a few ms of
# overhead; the scripted fake pi (python, ~30 ms) gives the precise number.
echo "== run_pi overhead vs bare canned stream (sh + cat, $((runs * 10)) pairs)"
"$bin" overhead canned $((runs * 10))
echo "== run_pi overhead vs bare scripted fake pi (tests/cli/support/fake_pi.py, $((runs * 5)) pairs)"
FAKE_PI_MODE=ok "$bin" overhead "$PWD/tests/cli/support/fake_pi.py" $((runs * 5))

for gen in pi16 pi073; do
  pi=".pi-test/bin/$gen"
  if [ -x "$pi" ]; then
    echo "== run_pi overhead vs bare $gen ($runs interleaved pairs)"
    "$bin" overhead "$PWD/$pi" "$runs"
  else
    echo "== $gen not provisioned (./scripts/provision-pi.sh); overhead not measured"
  fi
done

for gen in pi073 pi16; do
  pi=".pi-test/bin/$gen"
  if [ -x "$pi" ]; then
    echo "== pwk delegate (binary) vs bare $gen, read-only task, $runs alternating pairs, cache cold then warm"
    "$bin" delegate "$pwk" "$PWD/$pi" "$runs"
  else
    echo "== $gen not provisioned (./scripts/provision-pi.sh); pwk delegate overhead not measured"
  fi
done
echo "== machine after: $(uptime)"
