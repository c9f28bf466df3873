#!/usr/bin/env bash
# Build the book (docs/) with a pinned mdbook, installed from crates into the ignored
# .docs-tool/ on first use (cargo install --locked; later runs reuse it). The HTML goes
# to docs/book/ (ignored). scripts/test.sh calls this.
#
# Without cargo, or when the install fails, this prints why and exits 0, except under
# CI=true, where a docs build that cannot run, or fails, fails the run.
# The generated pages (docs/src/rules/, docs/src/host-matrix.md) and the console
# transcripts are checked by the tests, not here:
#   PWK_WRITE_DOCS=1 cargo test --test cli docs_pages
#   PWK_WRITE_DOCS=1 cargo test --test cli docs_commands
set -euo pipefail
cd "$(dirname "$0")/.."
MDBOOK_VERSION=0.5.4
tool="$PWD/.docs-tool"
mdbook="$tool/bin/mdbook"

fail() {
  echo "build-docs: $*" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
}

if [ ! -x "$mdbook" ] || [ "$("$mdbook" --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  command -v cargo >/dev/null || fail "cargo not found; cannot install mdbook $MDBOOK_VERSION"
  echo "build-docs: installing mdbook $MDBOOK_VERSION into .docs-tool/ (once; a few minutes)" >&2
  # Only the HTML renderer with search: no `serve`/`watch` (an HTTP server and a file
  # watcher the build does not need, and a third of the compile).
  nice cargo install --locked --quiet mdbook --version "$MDBOOK_VERSION" \
    --no-default-features --features search --root "$tool" \
    || fail "cargo install mdbook $MDBOOK_VERSION failed"
fi
"$mdbook" build docs || fail "mdbook build failed"
echo "build-docs: docs/book/index.html"
