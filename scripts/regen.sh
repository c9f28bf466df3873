#!/bin/sh
# Regenerate everything pwk generates from its sources, then check it:
#
#   1. src/role/validate/compiled.rs   the compiled-in validators, from
#                                      schemas/role.schema.json and schemas/hosts/*.json
#   2. docs/src/rules/, SUMMARY.md,    from the rule registry and the host profiles
#      host-matrix.md, the console     (and every ```console block's output)
#      blocks of the README and book
#   3. tests/cli/snapshots/            the insta snapshots (`--snapshots`, or a test
#                                      filter such as `discover::`)
#
# Usage: scripts/regen.sh [--snapshots | TEST-FILTER...]
# Review the diff (`git diff`) before committing: a generated file that changed is
# a change in what pwk says.
set -eu
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

step "compiled validators (src/role/validate/compiled.rs)"
PWK_WRITE_COMPILED=1 cargo test --quiet --lib compiled_validators_are_current
# Rebuilt with the new file: the binary must now hold exactly what it says.
cargo test --quiet --lib compiled_validators_are_current

step "docs pages and console blocks (docs/src/, README.md)"
PWK_WRITE_DOCS=1 cargo test --quiet --test cli -- docs_pages docs_commands
cargo test --quiet --test cli -- docs_pages docs_commands

if [ "$#" -gt 0 ]; then
    step "insta snapshots"
    if [ "$1" = "--snapshots" ]; then
        shift
        set -- lint:: discover:: provider:: setup_outcomes:: "$@"
    fi
    for filter in "$@"; do
        INSTA_UPDATE=always cargo test --quiet --test cli "$filter"
    done
fi

step "generated files that changed"
git status --short -- src/role/validate/compiled.rs docs README.md tests/cli/snapshots
