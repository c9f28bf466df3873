#!/usr/bin/env bash
# Builds the static x86_64 Linux binary the release ships (the target and profile
# dist-workspace.toml gives `dist`), then checks it: statically linked (per `file`),
# `--version`, a lint run on the fixtures, and its size.
#
#   scripts/build-musl.sh            # profile `dist` (= release, fat LTO: minutes)
#   PROFILE=dev scripts/build-musl.sh   # a quick check of the linking only
#
# Needs the Rust target x86_64-unknown-linux-musl (`rustup target add
# x86_64-unknown-linux-musl`); pwk has no C dependency on Linux, so no musl C
# toolchain is needed (rustc links with its own self-contained musl objects).
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-unknown-linux-musl
profile=${PROFILE:-dist}

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  echo "build-musl.sh: the Rust target $target is not installed; trying: rustup target add $target" >&2
  if ! rustup target add "$target"; then
    echo "build-musl.sh: BLOCKED: could not install the Rust target $target (error above); no static binary was built" >&2
    exit 1
  fi
fi

cargo build --locked --profile "$profile" --target "$target" --bin pwk
case "$profile" in dev) dir=debug ;; *) dir=$profile ;; esac
bin="target/$target/$dir/pwk"

fail() { echo "build-musl.sh: FAIL: $*" >&2; exit 1; }

info=$(file -b "$bin")
echo "file: $info"
case "$info" in
  *"statically linked"* | *"static-pie linked"*) ;;
  *) fail "$bin is not statically linked" ;;
esac
case "$info" in *"dynamically linked"* | *interpreter*) fail "$bin asks for a dynamic loader" ;; esac

version=$("$bin" --version)
[ "$version" = "pwk $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)" ] || fail "--version printed '$version'"
echo "version: $version"

# A lint run: a clean file exits 0, a file with an error exits 1 and names its rule.
"$bin" lint --color never fixtures/pwk-shaped-roles/pwk-smell-reviewer.md >/dev/null || fail "lint of a clean fixture did not exit 0"
set +e
out=$("$bin" lint --color never --format json fixtures/lint/pwk/duplicate-key.md)
rc=$?
set -e
[ "$rc" = 1 ] || fail "lint of fixtures/lint/pwk/duplicate-key.md exited $rc, not 1"
case "$out" in *'"duplicate-key"'*) ;; *) fail "lint did not report duplicate-key: $out" ;; esac
echo "lint: ok (clean fixture exits 0; duplicate-key fixture exits 1 and reports duplicate-key)"

size=$(stat -c %s "$bin")
echo "size: $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.1f MB", s / 1e6 }'))"
echo "binary: $bin"
