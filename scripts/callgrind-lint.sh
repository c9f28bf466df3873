#!/usr/bin/env bash
# Count the instructions `pwk lint` executes (valgrind's callgrind), which unlike wall
# time are repeatable on a busy machine.
#
#   scripts/callgrind-lint.sh              # 500 files and 1 file, builds --release if needed
#   FILES=2000 scripts/callgrind-lint.sh   # another corpus size
#   TOP=25 scripts/callgrind-lint.sh       # also list the 25 costliest functions (inclusive)
#
# The corpus is scripts/gen-roles.py's (the one bench-lint.sh times). Prints the total
# instructions for FILES files, for one file, for `pwk --version` (the process floor),
# and the per-file cost (FILES run minus the one-file run, divided by FILES - 1).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pwk=${PWK_BIN:-$root/target/release/pwk}
files=${FILES:-500}
top=${TOP:-0}
if [[ -z ${PWK_BIN:-} ]]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
fi
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pwk-callgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/gen-roles.py" "$files" "$work/roles"

# count NAME CMD... : instructions of CMD, all threads together.
count() {
  local name=$1; shift
  valgrind --tool=callgrind --separate-threads=no --callgrind-out-file="$work/$name.out" \
    "$@" >/dev/null 2>"$work/$name.log" || true
  grep -m1 '^summary:' "$work/$name.out" | awk '{print $2}'
}

many=$(count many "$pwk" lint "$work/roles")
# The corpus's own host: the findings the measurements before the host model had.
many_host=$(count many_host "$pwk" lint --host tintinweb "$work/roles")
one=$(count one "$pwk" lint "$work/roles/role-00000.md")
host=$(count host "$pwk" lint --host tintinweb "$work/roles/role-00000.md")
version=$(count version "$pwk" --version)

echo "pwk lint instructions (callgrind; corpus: scripts/gen-roles.py)"
awk -v n="$files" -v m="$many" -v mh="$many_host" -v o="$one" -v h="$host" -v v="$version" 'BEGIN {
  printf "  %-22s %14s\n", "run", "instructions"
  printf "  %-22s %14d   (portable: 2 host-ignored-key warnings a file)\n", "lint " n " files", m
  printf "  %-22s %14d\n", "lint " n " files, tintinweb", mh
  printf "  %-22s %14d\n", "lint 1 file", o
  printf "  %-22s %14d\n", "lint 1 file, tintinweb", h
  printf "  %-22s %14d\n", "--version", v
  printf "  start-up (1 file - --version): %d (tintinweb: %d)\n", o - v, h - v
  printf "  1 file / --version: %.2f (tintinweb: %.2f; wall-time target <= 1.10 in bench-lint.sh)\n", o / v, h / v
  printf "  per file ((%d files - 1 file) / %d): %d (tintinweb: %d)\n", n, n - 1, (m - o) / (n - 1), (mh - h) / (n - 1)
  printf "  %d files, portable / --host tintinweb: %.2f (target <= 1.0: detection and the default walk cost no share)\n", n, m / mh
}'
if ((top > 0)); then
  echo
  echo "costliest functions, inclusive, lint $files files:"
  callgrind_annotate --inclusive=yes "$work/many.out" 2>/dev/null | sed -n "1,$((top + 25))p" | grep -E '^\s*[0-9,]+ ' | head -n "$top"
fi
