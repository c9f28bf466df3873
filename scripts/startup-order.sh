#!/usr/bin/env bash
# Regenerate link/startup.order: the functions of the release binary that
# `pwk --version` and `pwk lint` execute (one file and 40 files, portable and
# `--host tintinweb`, with and without findings), which build.rs asks the linker to
# lay out together (fewer page faults at start-up; see build.rs `link_order`).
#
#   scripts/startup-order.sh           # builds --release, rewrites link/startup.order
#   scripts/startup-order.sh --check   # how many listed functions the binary still has
#
# Names are the binary's symbols as valgrind's callgrind sees them (--demangle=no),
# v0-mangled (.cargo/config.toml), so other code's changes leave them as they are:
# regenerate after a toolchain or dependency update or a change of start-up code,
# and commit the file. `--check` says how many listed names the binary still has,
# not how well they still lay it out: a list that found 641 of its 643 names cost
# the one-file lint 10 page faults and 0.015 of its ratio to --version
# (docs/src/perf.md, step 35). A stale list costs start-up time, never correctness.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
order=$root/link/startup.order
pwk=${PWK_BIN:-$root/target/release/pwk}
if [[ -z ${PWK_BIN:-} ]]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
fi

if [[ ${1:-} == --check ]]; then
  total=$(grep -c . "$order")
  have=$(nm --defined-only "$pwk" | awk '{print $3}' | sort -u | comm -12 - <(sort -u "$order") | wc -l)
  echo "link/startup.order: $have of $total functions are in $pwk"
  exit 0
fi

command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
if nm --defined-only "$pwk" | grep -q ' _ZN3pwk'; then
  echo "$pwk has legacy-mangled names (a RUSTFLAGS of your own replaces .cargo/config.toml's v0): a list of them goes stale with any code change" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pwk-order.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/gen-roles.py" 40 "$work/roles" >/dev/null

n=0
run() {
  n=$((n + 1))
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$n.out" \
    "$pwk" "$@" >/dev/null 2>&1 || true
}
run --version
run lint "$work/roles/role-00000.md"
run lint --host tintinweb "$work/roles/role-00000.md"
run lint "$work/roles"
run lint --host tintinweb "$work/roles"

# Every function of the binary each run entered, first run first, each once.
python3 - "$pwk" "$work"/{1..5}.out >"$order" <<'PY'
import re, sys
binary, seen, order = sys.argv[1], set(), []
for path in sys.argv[2:]:
    obs, fns, ob = {}, {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^(c?)(ob|fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        callee, kind, idx, name = m.groups()
        table = obs if kind == "ob" else fns
        if name is not None:
            table[idx] = name
        if callee:
            continue
        if kind == "ob":
            ob = obs.get(idx)
        elif ob == binary:
            # Callgrind marks recursion levels (`name'2`) and names what it
            # cannot place (`0x...`, `(below main)`): not symbols.
            f = re.sub(r"'\d+$", "", fns.get(idx) or "")
            if f and f not in seen and not f.startswith(("0x", "(")):
                seen.add(f)
                order.append(f)
print("\n".join(order))
PY
echo "link/startup.order: $(grep -c . "$order") functions"
