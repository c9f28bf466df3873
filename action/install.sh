#!/usr/bin/env bash
# Installs a pwk release binary for this machine, verifying its checksum: the install
# step of the GitHub Action (../action.yml), usable on its own.
#
#   PWK_VERSION      a version (0.1.0 or v0.1.0) or `latest` (default)
#   PWK_BASE_URL     the releases URL: https://github.com/OWNER/pwk/releases, or any
#                    mirror laid out like it (…/download/vX.Y.Z/<asset>,
#                    …/latest/download/<asset>), including a file:// directory
#   PWK_INSTALL_DIR  where the binary goes (default: $RUNNER_TEMP/pwk or ./.pwk-bin)
#
# The assets are dist's (dist-workspace.toml): pwk-<target>.tar.xz holding
# pwk-<target>/pwk, and pwk-<target>.tar.xz.sha256 holding its SHA-256. The archive is
# refused, and nothing is installed, when its hash differs. On GitHub Actions the
# directory is added to GITHUB_PATH.
set -euo pipefail

fail() { echo "pwk install: $*" >&2; exit 1; }

base=${PWK_BASE_URL:?PWK_BASE_URL must name the releases URL (or a file:// directory laid out like it)}
base=${base%/}
version=${PWK_VERSION:-latest}

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64 | Linux/amd64) target=x86_64-unknown-linux-musl ;;
  Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-musl ;;
  Darwin/x86_64) target=x86_64-apple-darwin ;;
  Darwin/arm64 | Darwin/aarch64) target=aarch64-apple-darwin ;;
  *) fail "no prebuilt pwk for $(uname -s) $(uname -m); build it from source with cargo install" ;;
esac

asset="pwk-$target.tar.xz"
case "$version" in
  latest) url="$base/latest/download/$asset" ;;
  v[0-9]*) url="$base/download/$version/$asset" ;;
  [0-9]*) url="$base/download/v$version/$asset" ;;
  *) fail "PWK_VERSION must be a version like 0.1.0 or 'latest', not '$version'" ;;
esac

dest=${PWK_INSTALL_DIR:-${RUNNER_TEMP:-$PWD/.pwk-bin}/pwk}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fetch() { curl --fail --silent --show-error --location --retry 3 --output "$2" "$1" || fail "could not download $1"; }
fetch "$url" "$scratch/$asset"
fetch "$url.sha256" "$scratch/$asset.sha256"

# dist writes `<hex>  <file name>`; only the hash is compared.
read -r expected _ <"$scratch/$asset.sha256" || true
case "$expected" in
  *[!0-9a-fA-F]* | "") fail "$url.sha256 does not hold a SHA-256" ;;
esac
[ "${#expected}" = 64 ] || fail "$url.sha256 does not hold a SHA-256"
if command -v sha256sum >/dev/null 2>&1; then
  read -r actual _ < <(sha256sum "$scratch/$asset")
else
  read -r actual _ < <(shasum -a 256 "$scratch/$asset")
fi
expected=$(printf '%s' "$expected" | tr 'A-F' 'a-f')
if [ "$actual" != "$expected" ]; then
  fail "checksum mismatch for $asset: expected $expected, got $actual; refusing to install it"
fi

mkdir "$scratch/x"
tar -xJf "$scratch/$asset" -C "$scratch/x" "pwk-$target/pwk" || fail "$asset has no pwk-$target/pwk"
mkdir -p "$dest"
install -m 0755 "$scratch/x/pwk-$target/pwk" "$dest/pwk"
"$dest/pwk" --version >/dev/null || fail "the installed $dest/pwk does not run"
echo "pwk install: $("$dest/pwk" --version) ($target, sha256 $actual) in $dest"
if [ -n "${GITHUB_PATH:-}" ]; then
  echo "$dest" >>"$GITHUB_PATH"
fi
