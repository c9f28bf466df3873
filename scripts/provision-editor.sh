#!/usr/bin/env bash
# Provisions the real tools the tests drive from the system's packages: Neovim
# (Debian package `neovim`) for the language-server test in a real editor, and strace
# for `pwk verify`'s loopback-only test (verify::verify_connects_to_nothing_but_loopback).
# Installed with apt-get when missing and we are root (or have passwordless sudo).
# Idempotent. Prints nothing when both are already there.
# Under CI=true a missing tool is an error: the test that needs it fails, never skips.
set -euo pipefail
run_root() {
  if [ "$(id -u)" = "0" ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    return 1
  fi
}
status=0
for pair in nvim:neovim strace:strace; do
  cmd=${pair%%:*} pkg=${pair#*:}
  if command -v "$cmd" >/dev/null 2>&1; then
    continue
  fi
  if command -v apt-get >/dev/null 2>&1; then
    echo "provision-editor.sh: installing $pkg with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! run_root apt-get install -y --no-install-recommends "$pkg" >/dev/null 2>&1; then
      run_root apt-get update >/dev/null 2>&1 || true
      run_root apt-get install -y --no-install-recommends "$pkg" >/dev/null 2>&1 || true
    fi
  fi
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "provision-editor.sh: $pkg is not installed and could not be (needs apt-get and root or sudo); the test that drives it cannot run" >&2
    if [ "${CI:-}" = "true" ]; then
      status=1
    fi
  fi
done
exit $status
