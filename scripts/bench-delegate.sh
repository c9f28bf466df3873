#!/usr/bin/env bash
# Benchmarks for `pwk delegate` (release build of examples/delegate_bench.rs).
#   1. the event parser on a generated pi 0.73.1-shaped stream WITH the quadratic
#      message_update snapshots (default 1 GiB): MB/s and peak RSS, next to a
#      baseline that only splits the same bytes on LF (same run, same pipe), and
#      the same parse with the usage accounting left out (its cost: the ratio);
#      targets: >= 300 MB/s, <= 32 MiB peak RSS;
#   2. run_pi's own overhead over a bare launch of the same program with the same
#      arguments against the fake LLM server (interleaved pairs; min, median, mean),
#      with the scripted fake pi and with both real pi generations; target <= 20 ms.
# Usage: scripts/bench-delegate.sh [BYTES] [RUNS]     (needs .pi-test/ for part 2)
set -euo pipefail
cd "$(dirname "$0")/.."
bytes=${1:-1073741824}
runs=${2:-10}
cargo build --release --example delegate_bench >&2
bin=target/release/examples/delegate_bench

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
