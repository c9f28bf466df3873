#!/usr/bin/env bash
# The project's test command (README): provisions the real pi CLIs the end-to-end
# tests drive (npm, into the ignored .pi-test/), then runs every test.
# Under CI (CI=true) a missing pi is an error: this script stops before testing, and
# the end-to-end tests themselves fail instead of skipping (PWK_TEST_REQUIRE_PI=1).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/provision-pi.sh
if [ -x .pi-test/bin/pi073 ]; then export PWK_TEST_PI073="$PWD/.pi-test/bin/pi073"; fi
if [ -x .pi-test/bin/pi16 ]; then export PWK_TEST_PI16="$PWD/.pi-test/bin/pi16"; fi
if [ "${CI:-}" = "true" ]; then
  export PWK_TEST_REQUIRE_PI=1
  if [ -z "${PWK_TEST_PI073:-}" ] || [ -z "${PWK_TEST_PI16:-}" ]; then
    echo "test.sh: CI=true but pi 0.73.1 and/or 1.6 could not be provisioned; the end-to-end tests cannot run" >&2
    exit 1
  fi
fi
export INSTA_UPDATE=no
cargo test --locked "$@"
