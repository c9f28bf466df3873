#!/usr/bin/env bash
# Provisions the real editor the language-server test drives: Neovim (Debian package
# `neovim`), installed with apt-get when it is missing and we are root (or have
# passwordless sudo). Idempotent. Prints nothing when nvim is already there.
# Under CI=true a missing nvim is an error: the test that needs it fails, never skips.
set -euo pipefail
if command -v nvim >/dev/null 2>&1; then
  exit 0
fi
run_root() {
  if [ "$(id -u)" = "0" ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    return 1
  fi
}
if command -v apt-get >/dev/null 2>&1; then
  echo "provision-editor.sh: installing neovim with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! run_root apt-get install -y --no-install-recommends neovim >/dev/null 2>&1; then
    run_root apt-get update >/dev/null 2>&1 || true
    run_root apt-get install -y --no-install-recommends neovim >/dev/null 2>&1 || true
  fi
fi
if ! command -v nvim >/dev/null 2>&1; then
  echo "provision-editor.sh: Neovim is not installed and could not be (needs apt-get and root or sudo); the editor test cannot run" >&2
  if [ "${CI:-}" = "true" ]; then
    exit 1
  fi
fi
exit 0
