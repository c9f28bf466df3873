#!/usr/bin/env bash
# bench-review.sh — wall time of one 4-role `pwk review` (parallel, cap 4) against
# four sequential `pwk delegate` runs doing the same work, on the same loopback fake
# LLM (reference mock_llm.py, text mode, optional per-reply delay), same pi binary.
#
# Usage: scripts/bench-review.sh [PI_BIN] [ROUNDS]
#   PI_BIN  default .pi-test/bin/pi16 (run it again with .pi-test/bin/pi073)
#   ROUNDS  default 3; each round times both sides once, alternating which goes first
# Env:  PWK (default target/debug/pwk, built if missing), MOCK_DELAY (seconds the fake
#       LLM waits before answering, default 0: pure pi start-up cost), MOCK_PY.
#
# Prints per-round times and the ratio sequential/parallel (target: >= 1.8 on 2 cores).
# Loopback only; the temp dir and the mock (by its PID) are cleaned up on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
PI_BIN=$(realpath "${1:-.pi-test/bin/pi16}")
ROUNDS=${2:-3}
PWK=$(realpath -m "${PWK:-target/debug/pwk}")
MOCK_PY=${MOCK_PY:-/work/shared/reference/pi-samples/mock_llm.py}
MOCK_DELAY=${MOCK_DELAY:-0}
[ -x "$PWK" ] || cargo build --quiet
[ -x "$PI_BIN" ] || { echo "no pi at $PI_BIN (run scripts/provision-pi.sh)" >&2; exit 2; }
[ -f "$MOCK_PY" ] || { echo "no fake LLM at $MOCK_PY (set MOCK_PY)" >&2; exit 2; }

TMP=$(mktemp -d /tmp/pwk-bench-review.XXXXXX)
MOCK_PID=
cleanup() { [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

mkdir -p "$TMP/agent" "$TMP/repo/src" "$TMP/home"
python3 "$MOCK_PY" --port 0 --port-file "$TMP/port" --mode text \
  --text "No findings. Checked src/lib.rs:1" --chunk-delay "$MOCK_DELAY" \
  --max-requests 100000 --lifetime 3600 >/dev/null 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$TMP/port")
cat >"$TMP/agent/models.json" <<EOF
{"providers":{"mock":{"baseUrl":"http://127.0.0.1:$PORT/v1","api":"openai-completions","apiKey":"mock-key","models":[{"id":"mock-model"}]}}}
EOF
echo '{"defaultProvider":"mock","defaultModel":"mock-model","retry":{"enabled":false,"provider":{"maxRetries":0,"timeoutMs":30000}}}' >"$TMP/agent/settings.json"
echo 'pub fn answer() -> u32 { 42 }' >"$TMP/repo/src/lib.rs"
mkdir -p "$TMP/repo/.git"
printf '## Requirement 1\nanswer() returns 42.\n\nChanged files: src/lib.rs\n' >"$TMP/packet.md"

export PI_CODING_AGENT_DIR="$TMP/agent" PI_OFFLINE=1 HOME="$TMP/home" PWK_PI_BIN="$PI_BIN" \
  NODE_COMPILE_CACHE="$TMP/node-cache"
unset OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY || true

now() { date +%s.%N; }
parallel_review() {
  (cd "$TMP/repo" && "$PWK" review --roles spec,tracing,smell,hazard --packet "$TMP/packet.md" \
    --format json >"$TMP/review.json" 2>/dev/null) || true
}
sequential_delegate() {
  for role in spec tracing smell hazard; do
    printf '{"action":"delegate","taskId":"bench-%s","objective":"Review src/lib.rs as the %s reviewer and report findings with file:line.","cwd":"%s","scope":["src/lib.rs"],"constraints":[],"acceptance":["findings reported"],"profile":"readonly"}' \
      "$role" "$role" "$TMP/repo" | (cd "$TMP/repo" && "$PWK" delegate >"$TMP/delegate-$role.json" 2>/dev/null) || true
  done
}
timed() { local t0 t1; t0=$(now); "$1"; t1=$(now); echo "$t1 - $t0" | bc -l; }

# Warm-up (compile caches, page cache) — not counted.
parallel_review; sequential_delegate
grep -q '"status": "completed"' "$TMP/review.json" || { echo "review produced no completed role:" >&2; cat "$TMP/review.json" >&2; exit 1; }
grep -q '"status": *"completed"' "$TMP/delegate-spec.json" || { echo "delegate did not complete:" >&2; cat "$TMP/delegate-spec.json" >&2; exit 1; }

echo "pi: $("$PI_BIN" --version 2>&1 | head -1)  pwk: $PWK  cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
sum_p=0; sum_s=0
for i in $(seq "$ROUNDS"); do
  if [ $((i % 2)) -eq 1 ]; then p=$(timed parallel_review); s=$(timed sequential_delegate)
  else s=$(timed sequential_delegate); p=$(timed parallel_review); fi
  printf 'round %d: review (4 roles, parallel) %.2f s   4 x delegate (sequential) %.2f s   ratio %.2fx\n' \
    "$i" "$p" "$s" "$(echo "$s / $p" | bc -l)"
  sum_p=$(echo "$sum_p + $p" | bc -l); sum_s=$(echo "$sum_s + $s" | bc -l)
done
printf 'mean: review %.2f s, sequential delegate %.2f s, speed-up %.2fx (target >= 1.8x)\n' \
  "$(echo "$sum_p / $ROUNDS" | bc -l)" "$(echo "$sum_s / $ROUNDS" | bc -l)" "$(echo "$sum_s / $sum_p" | bc -l)"
