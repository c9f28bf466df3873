#!/usr/bin/env bash
# Benchmark pwk on hostile input (release build): costs must grow linearly.
#
#   keys   one role file with N unknown keys (up to 105k keys, just under 1 MiB),
#          linted in the human and JSON formats
#   names  N role files that all declare the same `name` (up to 8,000 files):
#          time, output size and peak memory
#   deep   one file with 40,000 nested block sequences (80 KB): must not crash
#   valued one role file with N one-line `x-kN: v` keys (up to 80,000, just under
#          1 MiB: the YAML reader's fast path), in `lint` and `list`
#   unknown one role file with N `kNNNNN: v` keys no host reads (up to 100,000),
#          under every host profile (pwk's portable one and each host's)
#   overrides N `[[overrides]]` entries in pwk.toml, each naming one of N role files
#          (up to 2,000 x 2,000): `lint` of the directory
#   lsp    `pwk lsp` opening a buffer of N MB (up to 30 MB, over the 1 MiB role cap):
#          time to the diagnostics, a hover answer and the shutdown answer, and the
#          server's peak memory
#   flow   one role file with N items in one flow mapping on one line (up to 80,000:
#          N6, quadratic once)
#   seq    one role file with N plain items in one flow sequence on one line (up to
#          200,000 `read`s: each item's trailing comment was sought to the line's end)
#   line   one role file whose unknown key's value is one line of N characters (up
#          to 800,000): one finding on it, human output (the renderer's window)
#   findings one line `tools: read, nope0, …` with N unknown tools (up to 40,000
#          findings on one line), human output
#   globs  N `exclude` globs in pwk.toml × 500 role files (up to 12,000 globs: N8)
#   depth  one role file with N nested flow sequences `[[[…]]]` (up to 80,000; past
#          the nesting limit: refused, in time linear in N)
#   mcp    one `pwk mcp` `lint` call whose message is N MB (text over the 1 MiB role
#          cap up to 16 MB messages): time to the answer and the server's peak memory
#
# Every series reports peak RSS (`/usr/bin/time -f %M`; the server's own rusage for
# lsp and mcp), and its smallest and largest sizes are n and 8n.
#
# Times are CPU seconds (user + system) of the pwk process; the lsp series is wall
# time of the client's round trips.
#
# Usage: scripts/bench-hostile.sh [SCALE]   (default 1: the full sizes above;
#        0.25 for a quick run). PROFILE=dev uses the debug build (no release
#        build; slower, the ratios are what counts). PWK_BENCH_BIN=PATH measures
#        that binary as it is (no build). For each series the smallest size is the baseline
#        measured in the same run; the ratio column is time (or bytes, or memory)
#        against that baseline, next to the size ratio a linear cost would match.
#        Quadratic costs show up as a ratio that grows with the square of the size.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE="${1:-1}"
if [[ -n ${PWK_BENCH_BIN:-} ]]; then
  PWK="$PWK_BENCH_BIN" # a binary built earlier (a release build of a given commit)
elif [[ ${PROFILE:-release} == dev ]]; then
  cargo build --quiet --offline
  PWK="$PWD/target/debug/pwk"
else
  cargo build --release --quiet --offline
  PWK="$PWD/target/release/pwk"
fi
echo "binary: $PWK"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pwk-hostile.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT


# run CMD…: prints "cpu_us rss_kb out_bytes" (CPU time, user + system: the
# machine may be shared, wall time would measure the neighbours); stdout of CMD
# counted, not kept.
measure() {
  local cpu rss out
  read -r cpu rss < <( { /usr/bin/time -f '%U %S %M' "$@" | wc -c > "$WORK/bytes"; } 2>&1 >/dev/null |
    tail -1 | awk '{ printf "%d %d\n", ($1 + $2) * 1e6, $3 }')
  out=$(cat "$WORK/bytes")
  echo "$cpu $rss $out"
}

scaled() { awk -v n="$1" -v s="$SCALE" 'BEGIN { printf "%d", n * s }'; }

header() {
  printf '\n%s\n' "$1"
  printf '  %-10s %10s %8s %10s %8s %12s %8s   %s\n' size cpu ratio rss ratio output ratio "(linear: ratio = size ratio)"
}

row() { # size base_size us base_us rss base_rss bytes base_bytes
  awk -v n="$1" -v n0="$2" -v t="$3" -v t0="$4" -v m="$5" -v m0="$6" -v b="$7" -v b0="$8" 'BEGIN {
    printf "  %-10d %8.3f s %7.2fx %8d KB %7.2fx %12d %7.2fx   size %.0fx\n",
      n, t / 1e6, t / (t0 > 0 ? t0 : 1), m, m / m0, b, (b0 > 0 ? b / b0 : 1), n / n0 }'
}

keys_file() { # n path: a role with n unknown keys (9 bytes a line: 105k keys < 1 MiB)
  awk -v n="$1" 'BEGIN {
    print "---"; print "name: keys"; print "description: d"; print "tools: read"
    for (i = 0; i < n; i++) printf "k%06d:\n", i
    print "---"; print "Body." }' > "$2"
}

for format in json human; do
  header "keys: one file, N unknown keys, --format $format"
  base=()
  for n in $(scaled 13125) $(scaled 26250) $(scaled 52500) $(scaled 105000); do
    f="$WORK/keys-$n.md"
    [[ -f $f ]] || keys_file "$n" "$f"
    read -r us rss bytes < <(measure "$PWK" lint --format "$format" "$f" || true)
    [[ ${#base[@]} -gt 0 ]] || base=("$n" "$us" "$rss" "$bytes")
    row "$n" "${base[0]}" "$us" "${base[1]}" "$rss" "${base[2]}" "$bytes" "${base[3]}"
  done
done

header "names: N files declaring the same name, --format json"
base=()
for n in $(scaled 1000) $(scaled 2000) $(scaled 4000) $(scaled 8000); do
  d="$WORK/names-$n"
  mkdir -p "$d"
  for ((i = 0; i < n; i++)); do
    printf -- '---\nname: same\ndescription: d\ntools: read\n---\nBody.\n' > "$d/r$i.md"
  done
  read -r us rss bytes < <(measure "$PWK" lint --format json "$d" || true)
  [[ ${#base[@]} -gt 0 ]] || base=("$n" "$us" "$rss" "$bytes")
  row "$n" "${base[0]}" "$us" "${base[1]}" "$rss" "${base[2]}" "$bytes" "${base[3]}"
done

printf '\ndeep: 40,000 nested block sequences (80 KB)\n'
mkdir -p "$WORK/deep/.agents/agents"
{ printf -- '---\nname: deep\ndescription: d\ntools: read\nx:\n  '
  for ((i = 0; i < 40000; i++)); do printf -- '- '; done
  printf 'x\n---\nBody.\n'; } > "$WORK/deep/.agents/agents/deep.md"
for cmd in "lint --format json" "list" "show deep"; do
  # shellcheck disable=SC2086
  read -r us rss bytes < <(cd "$WORK/deep" && measure "$PWK" $cmd || true)
  code=$(cd "$WORK/deep" && { "$PWK" $cmd >/dev/null 2>&1; echo $?; } || true)
  printf '  pwk %-18s exit %s  %8.3f s  %6d KB\n' "$cmd" "$code" "$(awk -v t="$us" 'BEGIN{print t/1e6}')" "$rss"
done

header "valued: one file, N one-line \`x-kN: v\` keys (the YAML fast path)"
base=()
for n in $(scaled 10000) $(scaled 20000) $(scaled 40000) $(scaled 80000); do
  d="$WORK/valued-$n"
  mkdir -p "$d/.pi/agents"
  awk -v n="$n" 'BEGIN { print "---"; print "name: keys"; print "description: d"; print "tools: read"
    for (i = 0; i < n; i++) printf "x-k%d: v\n", i; print "---"; print "Body." }' > "$d/.pi/agents/keys.md"
  read -r us rss bytes < <(cd "$d" && measure "$PWK" lint --format json .pi/agents/keys.md || true)
  [[ ${#base[@]} -gt 0 ]] || base=("$n" "$us" "$rss" "$bytes")
  row "$n" "${base[0]}" "$us" "${base[1]}" "$rss" "${base[2]}" "$bytes" "${base[3]}"
done
printf '  pwk list on the largest:\n'
base_list=()
for n in $(scaled 10000) $(scaled 80000); do
  read -r us rss bytes < <(cd "$WORK/valued-$n" && measure "$PWK" list || true)
  [[ ${#base_list[@]} -gt 0 ]] || base_list=("$n" "$us" "$rss" "$bytes")
  row "$n" "${base_list[0]}" "$us" "${base_list[1]}" "$rss" "${base_list[2]}" "$bytes" "${base_list[3]}"
done

# Every host profile pwk has (pwk is the portable one).
for host in pwk tintinweb nicobailon herdr claude-code gemini copilot opencode; do
  header "unknown: one file, N keys no host reads, --host $host"
  base=()
  for n in $(scaled 12500) $(scaled 25000) $(scaled 50000) $(scaled 100000); do
    f="$WORK/unknown-$n.md"
    [[ -f $f ]] || awk -v n="$n" 'BEGIN { print "---"; print "name: keys"; print "description: d"; print "tools: read"
      for (i = 0; i < n; i++) printf "k%05d: v\n", i; print "---"; print "Body." }' > "$f"
    read -r us rss bytes < <(measure "$PWK" lint --format json --host "$host" "$f" || true)
    [[ ${#base[@]} -gt 0 ]] || base=("$n" "$us" "$rss" "$bytes")
    row "$n" "${base[0]}" "$us" "${base[1]}" "$rss" "${base[2]}" "$bytes" "${base[3]}"
  done
done

header "overrides: N [[overrides]] x N role files, lint --format json (linear: ratio = size ratio)"
base=()
for n in $(scaled 250) $(scaled 500) $(scaled 1000) $(scaled 2000); do
  d="$WORK/overrides-$n"
  mkdir -p "$d/roles" "$d/.git" # the project root, where pwk.toml is looked for
  : > "$d/pwk.toml"
  for ((i = 0; i < n; i++)); do
    printf -- '---\nname: r%d\ndescription: d\ntools: read\n---\nBody.\n' "$i" > "$d/roles/r$i.md"
    printf '[[overrides]]\nfiles = ["roles/r%d.md"]\nrules = { crlf = "off" }\n' "$i" >> "$d/pwk.toml"
  done
  read -r us rss bytes < <(cd "$d" && measure "$PWK" lint --format json roles || true)
  [[ ${#base[@]} -gt 0 ]] || base=("$n" "$us" "$rss" "$bytes")
  row "$n" "${base[0]}" "$us" "${base[1]}" "$rss" "${base[2]}" "$bytes" "${base[3]}"
done

printf '\nlsp: pwk lsp opens an N MB buffer: seconds to its diagnostics, a hover answer, the shutdown answer\n'
mkdir -p "$WORK/lsp/.pi/agents"
lsp_row() { # MB -> "diag hover shutdown" seconds
  python3 - "$PWK" "$WORK/lsp" "$1" <<'PY'
import json, subprocess, sys, time
pwk, root, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
p = subprocess.Popen([pwk, "lsp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(m):
    b = json.dumps(m).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b); p.stdin.flush()
def read():
    n = None
    while True:
        line = p.stdout.readline()
        if not line: raise SystemExit("pwk lsp closed stdout")
        line = line.strip()
        if not line: break
        k, v = line.split(b":", 1)
        if k.lower() == b"content-length": n = int(v)
    return json.loads(p.stdout.read(n))
def until(pred):
    while True:
        m = read()
        if pred(m): return m
uri = "file://" + root + "/.pi/agents/big.md"
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": "file://" + root, "capabilities": {}}})
until(lambda m: m.get("id") == 1)
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
text = "---\nname: big\ndescription: d\n"
line = "x-key: value\n"
text += line * int(mb * 1024 * 1024 / len(line)) + "---\nBody\n"
t0 = time.time()
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}})
until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
t1 = time.time()
send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 2}}})
until(lambda m: m.get("id") == 2)
t2 = time.time()
send({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
until(lambda m: m.get("id") == 3)
t3 = time.time()
send({"jsonrpc": "2.0", "method": "exit"})
import os
_, _, ru = os.wait4(p.pid, 0)
print("%.3f %.3f %.3f %d" % (t1 - t0, t2 - t1, t3 - t2, ru.ru_maxrss))
PY
}
printf '  %-8s %12s %8s %10s %10s %12s %8s\n' size diagnostics ratio hover shutdown rss ratio
lsp_base=
lsp_rss0=
for mb in $(awk -v s="$SCALE" 'BEGIN { printf "%g %g", 3.75 * s, 30 * s }'); do
  read -r diag hover down rss < <(lsp_row "$mb")
  [[ -n $lsp_base ]] || { lsp_base=$diag; lsp_rss0=$rss; }
  awk -v mb="$mb" -v d="$diag" -v d0="$lsp_base" -v h="$hover" -v s="$down" -v m="$rss" -v m0="$lsp_rss0" 'BEGIN {
    printf "  %5g MB %10.3f s %7.2fx %8.3f s %8.3f s %9d KB %7.2fx   (linear: 8x for 8x the bytes)\n", mb, d, d / d0, h, s, m, m / m0 }'
done

# series NAME SIZES… -- a function `make_NAME n dir` that stages the input and
# prints the command to measure (run in dir): n and 8n (and between), one row each.
series() {
  local name=$1 n d cmd
  shift
  base=()
  for n in "$@"; do
    d="$WORK/$name-$n"
    mkdir -p "$d"
    cmd=$("make_$name" "$n" "$d")
    # shellcheck disable=SC2086
    read -r us rss bytes < <(cd "$d" && measure "$PWK" $cmd || true)
    [[ ${#base[@]} -gt 0 ]] || base=("$n" "$us" "$rss" "$bytes")
    row "$n" "${base[0]}" "$us" "${base[1]}" "$rss" "${base[2]}" "$bytes" "${base[3]}"
  done
}

make_flow() { # n items in one flow mapping on one line
  mkdir -p "$2/.git"
  awk -v n="$1" 'BEGIN { print "---"; print "name: flow"; print "description: d"; print "tools: read"
    printf "x-flow: {"; for (i = 0; i < n; i++) printf "%sk%d: v", (i ? ", " : ""), i; print "}"
    print "---"; print "Body." }' > "$2/flow.md"
  echo "lint --format json flow.md"
}
header "flow: one file, N items in one flow mapping on one line, lint --format json"
series flow $(scaled 10000) $(scaled 20000) $(scaled 40000) $(scaled 80000)

make_seq() { # n plain items in one flow sequence on one line (just under 1 MiB at 200,000)
  mkdir -p "$2/.git"
  awk -v n="$1" 'BEGIN { print "---"; print "name: seq"; print "description: d"
    printf "tools: [read"; for (i = 0; i < n; i++) printf ",read"; print "]"
    print "---"; print "Body." }' > "$2/seq.md"
  echo "lint --format json seq.md"
}
header "seq: one file, N plain items in one flow sequence on one line (each read for a comment after it), lint --format json"
series seq $(scaled 25000) $(scaled 50000) $(scaled 100000) $(scaled 200000)

make_line() { # one unknown key whose value is one line of n characters
  mkdir -p "$2/.git"
  awk -v n="$1" 'BEGIN { print "---"; print "name: line"; print "description: d"; print "tools: read"
    printf "zz-unknown: "; for (i = 0; i < n; i += 10) printf "aaaaaaaaaa"; print ""
    print "---"; print "Body." }' > "$2/line.md"
  echo "lint --format human --host tintinweb line.md"
}
header "line: one finding on one line of N characters, lint --format human (output must not grow)"
series line $(scaled 100000) $(scaled 200000) $(scaled 400000) $(scaled 800000)

make_findings() { # n unknown tools on one line
  mkdir -p "$2/.git"
  awk -v n="$1" 'BEGIN { print "---"; print "name: findings"; print "description: d"
    printf "tools: read"; for (i = 0; i < n; i++) printf ", nope%d", i; print ""
    print "---"; print "Body." }' > "$2/findings.md"
  echo "lint --format human findings.md"
}
header "findings: N findings on one line, lint --format human"
series findings $(scaled 5000) $(scaled 10000) $(scaled 20000) $(scaled 40000)

make_globs() { # n exclude globs x 500 role files
  mkdir -p "$2/.git" "$2/roles"
  for ((i = 0; i < 500; i++)); do
    printf -- '---\nname: r%d\ndescription: d\ntools: read\n---\nBody.\n' "$i" > "$2/roles/r$i.md"
  done
  awk -v n="$1" 'BEGIN { printf "exclude = ["; for (i = 0; i < n; i++) printf "%s\"x%d/**/*.md\"", (i ? ", " : ""), i; print "]" }' > "$2/pwk.toml"
  echo "lint --format json roles"
}
header "globs: N exclude globs x 500 role files, lint --format json"
series globs $(scaled 1500) $(scaled 3000) $(scaled 6000) $(scaled 12000)

make_depth() { # n nested flow sequences (past the nesting limit: refused)
  mkdir -p "$2/.git"
  awk -v n="$1" 'BEGIN { print "---"; print "name: depth"; print "description: d"; print "tools: read"
    printf "x-deep: "; for (i = 0; i < n; i++) printf "["; for (i = 0; i < n; i++) printf "]"; print ""
    print "---"; print "Body." }' > "$2/depth.md"
  echo "lint --format json depth.md"
}
header "depth: N nested flow sequences, lint --format json"
series depth $(scaled 10000) $(scaled 20000) $(scaled 40000) $(scaled 80000)

printf '\nmcp: one pwk mcp lint call of an N MB message: seconds to the answer, peak RSS\n'
mcp_row() { # MB -> "seconds rss_kb"
  python3 - "$PWK" "$WORK" "$1" <<'PY'
import json, os, subprocess, sys, time
pwk, root, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
p = subprocess.Popen([pwk, "mcp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(m):
    p.stdin.write(json.dumps(m).encode() + b"\n"); p.stdin.flush()
def until(i):
    while True:
        line = p.stdout.readline()
        if not line: raise SystemExit("pwk mcp closed stdout")
        m = json.loads(line)
        if m.get("id") == i: return m
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
until(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
line = "x-key: value\n"
text = "---\nname: big\ndescription: d\n" + line * int(mb * 1024 * 1024 / len(line)) + "---\nBody\n"
t0 = time.time()
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "lint", "arguments": {"text": text, "path": "big.md"}}})
until(2)
t1 = time.time()
p.stdin.close()
_, _, ru = os.wait4(p.pid, 0)
print("%.3f %d" % (t1 - t0, ru.ru_maxrss))
PY
}
printf '  %-8s %10s %8s %12s %8s\n' size answer ratio rss ratio
mcp_base=
mcp_rss0=
for mb in $(awk -v s="$SCALE" 'BEGIN { printf "%g %g", 1.875 * s, 15 * s }'); do
  read -r secs rss < <(mcp_row "$mb")
  [[ -n $mcp_base ]] || { mcp_base=$secs; mcp_rss0=$rss; }
  awk -v mb="$mb" -v t="$secs" -v t0="$mcp_base" -v m="$rss" -v m0="$mcp_rss0" 'BEGIN {
    printf "  %5g MB %8.3f s %7.2fx %9d KB %7.2fx   (linear: 8x for 8x the bytes)\n", mb, t, t / (t0 > 0 ? t0 : 1), m, m / m0 }'
done
