#!/usr/bin/env bash
# Long property ("fuzz") runs, each for SECS seconds (default 600):
#   lint      lint on arbitrary bytes, nesting past the depth limit and control
#             characters (tests/cli/lint.rs `lint::fuzz`), every host profile: no
#             panic, every position inside the file, no control character in any
#             output format;
#   delegate  the delegate input parsers (request JSON, pi's event stream, strict
#             JSON with duplicate keys: `src/delegate`, `src/json.rs`);
#   lsp       `pwk lsp`'s framing (`lsp::framing::tests::fuzz`): arbitrary bytes
#             alone and spliced into a valid stream never panic, a valid message
#             after a complete bad one is still read, no control character in an
#             error answer;
#   mcp       `pwk mcp`'s message JSON (`mcp::transport::tests::fuzz`): arbitrary
#             bytes alone and spliced into a tool call never panic, a call with a
#             key twice in its arguments is never taken.
#   yaml      the YAML reader on flow collections (`role::yaml::tests::flow_fuzz`):
#             a generated value written as flow YAML (plain and quoted scalars with
#             flow indicators, `#`, `: `, non-ASCII; nesting; one line or several)
#             reads back as that value with every span its own token; soups of flow
#             tokens never panic and every span stays inside the frontmatter.
#   render    the human finding renderer (`lint::render::human::tests::fuzz`): a
#             finding and related spans anywhere in text with lines of thousands of
#             characters, control, bidi, invisible and wide characters, in the text,
#             message, label and help: no panic, no raw control/bidi/invisible
#             character, no output line and no line count that grows with the file.
# The property targets run in rounds of CASES cases (default 20000); each prints
# its rounds and executions. The targets run one after the other.
#
# Usage: SECS=600 scripts/fuzz.sh [TARGET...]   (default: lint delegate lsp mcp yaml render)
#        PROFILE=dev for a debug build (no release build; fewer executions).
#        LIBTEST=PATH runs that lib test binary (a copy of target/*/deps/pwk-*)
#        for the lib targets instead of `cargo test --lib`, so that edits and
#        builds in the worktree during a long run do not change what is fuzzed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${SECS:-600}
cases=${CASES:-20000}
profile=${PROFILE:-release}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(lint delegate lsp mcp yaml render)
flags=(--quiet)
[[ $profile == release ]] && flags+=(--release)

# rounds NAME FILTER...: the lib tests matching a FILTER, CASES cases a round, for SECS.
rounds() {
  local name=$1 start n=0
  shift
  start=$(date +%s)
  while (($(date +%s) - start < secs)); do
    log="${TMPDIR:-/tmp}/pwk-fuzz-$name.log"
    if [[ -n ${LIBTEST:-} ]]; then
      PWK_FUZZ_CASES=$cases "$LIBTEST" "$@" >"$log" 2>&1
    else
      PWK_FUZZ_CASES=$cases cargo test "${flags[@]}" --lib -- "$@" >"$log" 2>&1
    fi || {
      echo "$name fuzz: round $((n + 1)) failed after $((n * cases)) cases (output: $log; re-run: PWK_FUZZ_CASES=$cases cargo test ${flags[*]} --lib -- $*)"
      return 1
    }
    n=$((n + 1))
  done
  echo "$name fuzz: $n rounds of $cases cases per property ($((n * cases)) executions each) in $(($(date +%s) - start))s, 0 failures"
}

for t in "${targets[@]}"; do
  case $t in
    lint)
      cargo test "${flags[@]}" --test cli --no-run >/dev/null 2>&1
      PWK_FUZZ_SECS=$secs cargo test "${flags[@]}" --test cli lint::fuzz -- --nocapture 2>&1 |
        grep -E '^lint fuzz:|panicked|FAILED'
      ;;
    delegate | lsp | mcp | yaml | render)
      [[ -n ${LIBTEST:-} ]] || cargo test "${flags[@]}" --lib --no-run >/dev/null 2>&1
      case $t in
        delegate) rounds delegate delegate:: json:: ;;
        lsp) rounds lsp lsp::framing::tests::fuzz ;;
        mcp) rounds mcp mcp::transport::tests::fuzz ;;
        yaml) rounds yaml role::yaml::tests::flow_fuzz ;;
        render) rounds render lint::render::human::tests::fuzz ;;
      esac
      ;;
    *)
      echo "unknown fuzz target $t (lint, delegate, lsp, mcp, yaml, render)" >&2
      exit 2
      ;;
  esac
done
