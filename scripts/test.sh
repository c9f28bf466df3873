#!/usr/bin/env bash
# The project's test command (README): provisions the real pi CLIs the end-to-end
# tests drive (npm, into the ignored .pi-test/), then runs every test.
# Under CI (CI=true) the pi end-to-end tests fail instead of skipping when pi is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/provision-pi.sh
if [ -x .pi-test/bin/pi073 ]; then export PWK_TEST_PI073="$PWD/.pi-test/bin/pi073"; fi
if [ -x .pi-test/bin/pi16 ]; then export PWK_TEST_PI16="$PWD/.pi-test/bin/pi16"; fi
if [ "${CI:-}" = "true" ]; then export PWK_TEST_REQUIRE_PI=1; fi
export INSTA_UPDATE=no
cargo test --locked "$@"
