#!/usr/bin/env bash
# Builds and packages the VS Code extension (editors/vscode/) when npm is here:
# `npm ci` from the committed package-lock.json, `npm run compile` (tsc), and
# `npm run package` (@vscode/vsce) into editors/vscode/pwk-roles.vsix. All of it is
# ignored by git. Without npm it says so and does nothing, except under CI=true,
# where a missing npm or a failed build is an error.
set -euo pipefail
cd "$(dirname "$0")/../editors/vscode"
if ! command -v npm >/dev/null 2>&1; then
  echo "build-vscode.sh: npm not found; the VS Code extension is not built" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! { npm ci --no-audit --no-fund && npm run compile && npm run package; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "build-vscode.sh: building the VS Code extension failed" >&2
  exit 1
fi
test -f out/extension.js && test -f pwk-roles.vsix
echo "build-vscode.sh: editors/vscode/pwk-roles.vsix built" >&2
