#!/usr/bin/env bash
# The project's test command (README): provisions the real pi CLIs the end-to-end
# tests drive (npm, into the ignored .pi-test/) and the real subagent hosts the host
# oracle loads (into the ignored .host-test/), the real MCP clients the `pwk mcp`
# tests drive (the TypeScript SDK and the MCP Inspector, into the ignored .mcp-test/),
# Neovim for the language-server test in a real editor (apt, scripts/provision-editor.sh),
# builds and packages the VS Code extension when npm is there (scripts/build-vscode.sh),
# builds the book with a pinned mdbook (scripts/build-docs.sh; a failed docs build fails
# the run under CI=true), then runs every test, then the packaging tests
# (scripts/test-packaging.sh).
# Under CI (CI=true) a missing pi or oracle is an error: this script stops before
# testing, and those tests themselves fail instead of skipping (PWK_TEST_REQUIRE_PI=1).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/provision-pi.sh
./scripts/provision-hosts.sh
./scripts/provision-mcp.sh
./scripts/provision-editor.sh
./scripts/build-vscode.sh
./scripts/build-docs.sh
if [ -x .pi-test/bin/pi073 ]; then export PWK_TEST_PI073="$PWD/.pi-test/bin/pi073"; fi
if [ -x .pi-test/bin/pi16 ]; then export PWK_TEST_PI16="$PWD/.pi-test/bin/pi16"; fi
if [ -f .mcp-test/node_modules/@modelcontextprotocol/sdk/package.json ]; then export PWK_TEST_MCP_CLIENT="$PWD/.mcp-test"; fi
if [ -x .host-test/bin/oracle ]; then export PWK_TEST_ORACLE="$PWD/.host-test/bin/oracle"; fi
if [ -x .host-test/bin/cli-oracle ]; then export PWK_TEST_CLI_ORACLE="$PWD/.host-test/bin/cli-oracle"; fi
if [ -z "${PWK_TEST_NVIM:-}" ] && command -v nvim >/dev/null 2>&1; then export PWK_TEST_NVIM="$(command -v nvim)"; fi
if [ "${CI:-}" = "true" ]; then
  export PWK_TEST_REQUIRE_PI=1
  if [ -z "${PWK_TEST_PI073:-}" ] || [ -z "${PWK_TEST_PI16:-}" ]; then
    echo "test.sh: CI=true but pi 0.73.1 and/or 1.6 could not be provisioned; the end-to-end tests cannot run" >&2
    exit 1
  fi
  if [ -z "${PWK_TEST_MCP_CLIENT:-}" ]; then
    echo "test.sh: CI=true but the MCP clients could not be provisioned; the pwk mcp tests cannot run" >&2
    exit 1
  fi
  if [ -z "${PWK_TEST_ORACLE:-}" ]; then
    echo "test.sh: CI=true but the subagent hosts could not be provisioned; the host-oracle tests cannot run" >&2
    exit 1
  fi
  if [ -z "${PWK_TEST_CLI_ORACLE:-}" ]; then
    echo "test.sh: CI=true but the agent CLIs could not be provisioned; the CLI host-oracle test cannot run" >&2
    exit 1
  fi
fi
# The MCP Inspector's CLI mode against the server: tools/list and one tools/call
# (also a test: mcp::inspector_cli_lists_tools_and_calls_one).
if [ -n "${PWK_TEST_MCP_CLIENT:-}" ]; then
  cargo build --locked --quiet
  pwk=$(cargo metadata --format-version 1 --no-deps | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')/debug/pwk
  inspector="$PWK_TEST_MCP_CLIENT/node_modules/.bin/mcp-inspector"
  "$inspector" --cli "$pwk" mcp --method tools/list | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const n=JSON.parse(s).tools.length;if(n<16)process.exit(1);console.log(`inspector: tools/list: ${n} tools`)})'
  "$inspector" --cli "$pwk" mcp --method tools/call --tool-name rules | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);if(r.isError||!r.structuredContent.rules.length)process.exit(1);console.log(`inspector: tools/call rules: ${r.structuredContent.rules.length} rules`)})'
fi
export INSTA_UPDATE=no
# A test whose real tool is missing says SKIPPED and appends to this log
# (tests/cli/support/tools.rs); the log is printed at the end, so a skip is never
# read as a pass. (Under CI=true such a test fails instead.)
skip_log="$PWD/${CARGO_TARGET_DIR:-target}/pwk-test-skips.txt"
mkdir -p "$(dirname "$skip_log")"
: > "$skip_log"
export PWK_TEST_SKIP_LOG="$skip_log"
status=0
cargo test --locked "$@" || status=$?
if [ -s "$skip_log" ]; then
  echo "test.sh: $(wc -l < "$skip_log") test(s) SKIPPED (not run, not passed):" >&2
  sort "$skip_log" >&2
fi
[ "$status" = 0 ] || exit "$status"
# The packaging tests (the wheel, the pre-commit hook, the npm packages, the action's
# install script) with the binary cargo test built; not when a test filter was given.
if [ "$#" = 0 ] || [ "${CI:-}" = "true" ]; then
  ./scripts/test-packaging.sh
fi
