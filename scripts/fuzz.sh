#!/usr/bin/env bash
# Long property ("fuzz") runs, each for SECS seconds (default 600), release build:
#   - lint on arbitrary bytes, nesting past the depth limit and control characters
#     (tests/cli/lint.rs `lint::fuzz`), every host profile: no panic, every position
#     inside the file, no control character in any output format;
#   - the delegate input parsers (request JSON, pi's event stream, strict JSON with
#     duplicate keys: `src/delegate`), in rounds of CASES cases (default 20000).
# Prints the executions of each. Usage: SECS=600 scripts/fuzz.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${SECS:-600}
cases=${CASES:-20000}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
cargo test --release --quiet --test cli --no-run >/dev/null 2>&1
cargo test --release --quiet --lib --no-run >/dev/null 2>&1

PWK_FUZZ_SECS=$secs cargo test --release --quiet --test cli lint::fuzz -- --nocapture 2>&1 |
  grep -E '^lint fuzz:|panicked|FAILED' &
lint=$!

start=$(date +%s)
rounds=0
while (( $(date +%s) - start < secs )); do
  PWK_FUZZ_CASES=$cases cargo test --release --quiet --lib delegate:: >/dev/null 2>&1 || {
    echo "delegate fuzz: a round failed (re-run: PWK_FUZZ_CASES=$cases cargo test --release --lib delegate::)"
    exit 1
  }
  rounds=$((rounds + 1))
done
echo "delegate fuzz: $rounds rounds of $cases cases per property in $(( $(date +%s) - start ))s"
wait "$lint"
