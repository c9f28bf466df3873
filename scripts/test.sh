#!/usr/bin/env bash
# The project's test command (README): provisions the real pi CLIs the end-to-end
# tests drive (npm, into the ignored .pi-test/) and the real subagent hosts the host
# oracle loads (into the ignored .host-test/), Neovim for the language-server test in
# a real editor (apt, scripts/provision-editor.sh), builds and packages the VS Code
# extension when npm is there (scripts/build-vscode.sh), then runs every test.
# Under CI (CI=true) a missing pi or oracle is an error: this script stops before
# testing, and those tests themselves fail instead of skipping (PWK_TEST_REQUIRE_PI=1).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/provision-pi.sh
./scripts/provision-hosts.sh
./scripts/provision-editor.sh
./scripts/build-vscode.sh
if [ -x .pi-test/bin/pi073 ]; then export PWK_TEST_PI073="$PWD/.pi-test/bin/pi073"; fi
if [ -x .pi-test/bin/pi16 ]; then export PWK_TEST_PI16="$PWD/.pi-test/bin/pi16"; fi
if [ -x .host-test/bin/oracle ]; then export PWK_TEST_ORACLE="$PWD/.host-test/bin/oracle"; fi
if [ -z "${PWK_TEST_NVIM:-}" ] && command -v nvim >/dev/null 2>&1; then export PWK_TEST_NVIM="$(command -v nvim)"; fi
if [ "${CI:-}" = "true" ]; then
  export PWK_TEST_REQUIRE_PI=1
  if [ -z "${PWK_TEST_PI073:-}" ] || [ -z "${PWK_TEST_PI16:-}" ]; then
    echo "test.sh: CI=true but pi 0.73.1 and/or 1.6 could not be provisioned; the end-to-end tests cannot run" >&2
    exit 1
  fi
  if [ -z "${PWK_TEST_ORACLE:-}" ]; then
    echo "test.sh: CI=true but the subagent hosts could not be provisioned; the host-oracle tests cannot run" >&2
    exit 1
  fi
fi
export INSTA_UPDATE=no
cargo test --locked "$@"
