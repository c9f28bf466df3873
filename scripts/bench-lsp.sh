#!/usr/bin/env bash
# Benchmark `pwk lsp`: didChange -> publishDiagnostics latency for one 200-line role
# and for a change in a workspace of 1,000 open roles (medians), the server's RSS
# with the 1,000 roles open, against `pwk lint` of the same files measured in the
# same run (scripts/bench-lsp.py does the talking).
#
#   scripts/bench-lsp.sh                 # builds --release if needed
#   CHANGES=301 scripts/bench-lsp.sh     # more changes (default 101)
#   PWK_BIN=/path/to/pwk scripts/bench-lsp.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pwk=${PWK_BIN:-$root/target/release/pwk}
if [[ -z ${PWK_BIN:-} ]]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pwk-bench-lsp.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
python3 "$root/scripts/bench-lsp.py" "$pwk" "$work" "${CHANGES:-101}"
