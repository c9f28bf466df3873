#!/usr/bin/env bash
# Install the real MCP clients the `pwk mcp` tests drive, into the ignored folder
# .mcp-test/ (idempotent; a second run is a no-op while the lock file is unchanged):
#   @modelcontextprotocol/sdk        the official TypeScript SDK (its stdio client)
#   @modelcontextprotocol/inspector  the MCP Inspector (its --cli mode)
# pinned by tests/mcp/package.json and tests/mcp/package-lock.json (npm ci).
# Exits 0 without doing anything when node or npm is missing (the tests then say so,
# and fail under CI).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.mcp-test"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "provision-mcp: node/npm not found; skipping the MCP clients" >&2
  exit 0
fi
mkdir -p "$dest"
if cmp -s "$root/tests/mcp/package-lock.json" "$dest/package-lock.json" \
   && [ -f "$dest/node_modules/@modelcontextprotocol/sdk/package.json" ] \
   && [ -f "$dest/node_modules/@modelcontextprotocol/inspector/package.json" ]; then
  exit 0
fi
echo "provision-mcp: installing @modelcontextprotocol/sdk and @modelcontextprotocol/inspector" >&2
cp "$root/tests/mcp/package.json" "$root/tests/mcp/package-lock.json" "$dest/"
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
