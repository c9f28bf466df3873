#!/usr/bin/env bash
# Benchmark pwk on hostile input (release build): costs must grow linearly.
#
#   keys   one role file with N unknown keys (up to 105k keys, just under 1 MiB),
#          linted in the human and JSON formats
#   names  N role files that all declare the same `name` (up to 8,000 files):
#          time, output size and peak memory
#   deep   one file with 40,000 nested block sequences (80 KB): must not crash
#
# Usage: scripts/bench-hostile.sh [SCALE]   (default 1: the full sizes above;
#        0.25 for a quick run). For each series the smallest size is the baseline
#        measured in the same run; the ratio column is time (or bytes, or memory)
#        against that baseline, next to the size ratio a linear cost would match.
#        Quadratic costs show up as a ratio that grows with the square of the size.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE="${1:-1}"
cargo build --release --quiet --offline
PWK="$PWD/target/release/pwk"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pwk-hostile.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

# run CMD…: prints "wall_us rss_kb out_bytes"; stdout of CMD counted, not kept.
measure() {
  local t0 t1 rss out
  t0=$(now_us)
  rss=$( { /usr/bin/time -f '%M' "$@" | wc -c > "$WORK/bytes"; } 2>&1 >/dev/null | tail -1)
  t1=$(now_us)
  out=$(cat "$WORK/bytes")
  echo "$((t1 - t0)) $rss $out"
}

scaled() { awk -v n="$1" -v s="$SCALE" 'BEGIN { printf "%d", n * s }'; }

header() {
  printf '\n%s\n' "$1"
  printf '  %-10s %10s %8s %10s %8s %12s %8s   %s\n' size time ratio rss ratio output ratio "(linear: ratio = size ratio)"
}

row() { # size base_size us base_us rss base_rss bytes base_bytes
  awk -v n="$1" -v n0="$2" -v t="$3" -v t0="$4" -v m="$5" -v m0="$6" -v b="$7" -v b0="$8" 'BEGIN {
    printf "  %-10d %8.3f s %7.2fx %8d KB %7.2fx %12d %7.2fx   size %.0fx\n",
      n, t / 1e6, t / t0, m, m / m0, b, (b0 > 0 ? b / b0 : 1), n / n0 }'
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
