#!/usr/bin/env bash
# bench-mcp.sh — N concurrent delegated tasks through ONE `pwk mcp` server
# (delegate_start × N from the official TypeScript SDK client, then task_wait) against
# N concurrent `pwk delegate` processes doing the same work, on the same loopback fake
# LLM (reference mock_llm.py, text mode), same pi binary, same cap (all N at once).
# Reports wall time of both sides, the ratio, and the server's peak RSS (VmHWM of the
# pwk process alone: pi runs in its own processes and is excluded).
#
# Usage: scripts/bench-mcp.sh [PI_BIN] [N] [ROUNDS]
#   PI_BIN  default .pi-test/bin/pi16;  N default 20;  ROUNDS default 1 (alternating order)
# Env:  PWK (default target/release/pwk if built, else target/debug/pwk),
#       PWK_TEST_MCP_CLIENT (default .mcp-test, from scripts/provision-mcp.sh), MOCK_PY.
# Targets (issue 14): the server no slower than the processes; server RSS <= 40 MiB.
# Loopback only; the temp dir and the mock (by its PID) are cleaned up on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
PI_BIN=$(realpath "${1:-.pi-test/bin/pi16}")
N=${2:-20}
ROUNDS=${3:-1}
default_pwk=target/debug/pwk
[ -x target/release/pwk ] && default_pwk=target/release/pwk
PWK=$(realpath -m "${PWK:-$default_pwk}")
CLIENT=$(realpath -m "${PWK_TEST_MCP_CLIENT:-.mcp-test}")
MOCK_PY=${MOCK_PY:-/work/shared/reference/pi-samples/mock_llm.py}
[ -x "$PWK" ] || cargo build --quiet
[ -x "$PI_BIN" ] || { echo "no pi at $PI_BIN (run scripts/provision-pi.sh)" >&2; exit 2; }
[ -f "$CLIENT/node_modules/@modelcontextprotocol/sdk/package.json" ] || { echo "no MCP client in $CLIENT (run scripts/provision-mcp.sh)" >&2; exit 2; }
[ -f "$MOCK_PY" ] || { echo "no fake LLM at $MOCK_PY (set MOCK_PY)" >&2; exit 2; }

TMP=$(mktemp -d /tmp/pwk-bench-mcp.XXXXXX)
MOCK_PID=
cleanup() { [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

mkdir -p "$TMP/agent" "$TMP/repo/src" "$TMP/home"
python3 "$MOCK_PY" --port 0 --port-file "$TMP/port" --mode text \
  --text "Files: src/lib.rs" --max-requests 100000 --lifetime 3600 >/dev/null 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$TMP/port")
cat >"$TMP/agent/models.json" <<EOF
{"providers":{"mock":{"baseUrl":"http://127.0.0.1:$PORT/v1","api":"openai-completions","apiKey":"mock-key","models":[{"id":"mock-model"}]}}}
EOF
echo '{"defaultProvider":"mock","defaultModel":"mock-model","retry":{"enabled":false,"provider":{"maxRetries":0,"timeoutMs":60000}}}' >"$TMP/agent/settings.json"
echo 'pub fn answer() -> u32 { 42 }' >"$TMP/repo/src/lib.rs"
mkdir -p "$TMP/repo/.git"

export PI_CODING_AGENT_DIR="$TMP/agent" PI_OFFLINE=1 HOME="$TMP/home" PWK_PI_BIN="$PI_BIN" \
  NODE_COMPILE_CACHE="$TMP/node-cache"
unset OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY || true

request() { # taskId
  printf '{"action":"delegate","taskId":"%s","objective":"List the files in src and report.","cwd":"%s","scope":["src"],"constraints":[],"acceptance":["files listed"],"profile":"readonly","provider":"mock","model":"mock-model","timeoutMs":600000}' \
    "$1" "$TMP/repo"
}
requests_json() {
  local sep="" i
  printf '{"serverArgs":["--max-tasks","%s"],"requests":[' "$N"
  for i in $(seq "$N"); do printf '%s%s' "$sep" "$(request "mcp-$i")"; sep=","; done
  printf ']}'
}
requests_json >"$TMP/args.json"

now() { date +%s.%N; }
through_server() { # prints "wall_s states peak_rss_kib"
  (cd "$TMP/repo" && PWK_TEST_MCP_CLIENT="$CLIENT" PWK_BIN="$PWK" MCP_CWD="$TMP/repo" \
    MCP_ARGS="$(cat "$TMP/args.json")" node "$OLDPWD/tests/mcp/drive.mjs" bench 2>/dev/null) | tail -1 |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s).result;
      const ok=r.states.filter(x=>x==="completed").length;console.log(`${r.wallMs/1000} ${ok} ${r.serverPeakRssKib}`)})'
}
as_processes() { # prints "wall_s completed"
  local t0 t1 i
  t0=$(now)
  for i in $(seq "$N"); do
    request "cli-$i" | (cd "$TMP/repo" && "$PWK" delegate >"$TMP/delegate-$i.json" 2>/dev/null) &
  done
  wait
  t1=$(now)
  local ok
  ok=$(grep -l '"status": "completed"' "$TMP"/delegate-*.json | wc -l)
  rm -f "$TMP"/delegate-*.json
  echo "$(echo "$t1 - $t0" | bc -l) $ok"
}

echo "pi: $("$PI_BIN" --version 2>&1 | head -1)  pwk: $PWK  tasks: $N  cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Warm-up (compile caches, page cache): one of each, not counted.
N_SAVED=$N; N=1; requests_json >"$TMP/args1.json"; N=$N_SAVED
(cd "$TMP/repo" && PWK_TEST_MCP_CLIENT="$CLIENT" PWK_BIN="$PWK" MCP_CWD="$TMP/repo" MCP_ARGS="$(cat "$TMP/args1.json")" \
  node "$OLDPWD/tests/mcp/drive.mjs" bench >/dev/null 2>&1) || true
request warm | (cd "$TMP/repo" && "$PWK" delegate >/dev/null 2>&1) || true

sum_m=0; sum_p=0
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then m=$(through_server); p=$(as_processes); else p=$(as_processes); m=$(through_server); fi
  read -r mw mok mrss <<<"$m"; read -r pw pok <<<"$p"
  printf 'round %d: one server: %.2f s (%d/%d completed, server peak RSS %.1f MiB)   %d pwk delegate processes: %.2f s (%d/%d completed)   processes/server %.2fx\n' \
    "$r" "$mw" "$mok" "$N" "$(echo "$mrss / 1024" | bc -l)" "$N" "$pw" "$pok" "$N" "$(echo "$pw / $mw" | bc -l)"
  sum_m=$(echo "$sum_m + $mw" | bc -l); sum_p=$(echo "$sum_p + $pw" | bc -l)
  last_rss=$mrss
done
awk -v m="$sum_m" -v p="$sum_p" -v n="$ROUNDS" -v rss="$last_rss" 'BEGIN {
  printf "mean: server %.2f s, processes %.2f s, ratio processes/server %.2fx (target >= 1.0: %s); server peak RSS %.1f MiB (target <= 40: %s)\n",
    m / n, p / n, p / m, (p / m >= 1.0 ? "ok" : "MISSED"), rss / 1024, (rss / 1024 <= 40 ? "ok" : "MISSED") }'
