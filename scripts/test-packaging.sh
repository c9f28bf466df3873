#!/usr/bin/env bash
# The packaging tests (called by scripts/test.sh after `cargo test` has built
# target/debug/pwk). They check the mechanics of every way pwk is installed, with
# the binary the tests built (not the optimised release one):
#   wheel       python/pyproject.toml built by maturin, installed into a fresh venv,
#               `pwk lint` run from it on a fixture
#   pre-commit  `pre-commit try-repo` of this repository's `pwk-lint` hook
#               (`language: python`) on a sample repository with a planted error
#   npm         the launcher package and this platform's package packed (`npm pack`),
#               installed from those tarballs into a fresh directory with --offline,
#               `npx pwk lint` run
#   action      action/install.sh against a local directory laid out like a release
#               (a tampered checksum is refused), action/run.sh's SARIF and annotations
#   size        the release binary's size against what README.md and the book state
#               (±5%; built under CI=true when missing)
# Nothing here reaches the network except installing maturin, pre-commit and a
# setuptools wheel from PyPI into the ignored .pkg-test/ the first time.
# Without Python (wheel, pre-commit) or npm those parts are skipped, and say so;
# under CI=true they are required.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/.pkg-test
mkdir -p "$work"

ci=${CI:-}
passed=0
failed=0
skipped=0
now() { if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s; fi; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
note() { echo "test-packaging: $*"; }

# `scripts/test-packaging.sh action` runs only the sections whose name begins with
# `action` (any section's first word); with no argument, every section.
only=${1:-}

# section NAME FUNCTION: runs one part in a subshell that stops at its first failure.
section() {
  local name=$1 start
  if [ -n "$only" ] && [ "${name%% *}" != "$only" ]; then return 0; fi
  start=$(now)
  if (set -euo pipefail; "$2"); then
    passed=$((passed + 1))
    note "ok: $name ($(since "$start"))"
  else
    failed=$((failed + 1))
    note "FAILED: $name ($(since "$start"))"
  fi
}
skip() {
  if [ "$ci" = "true" ]; then
    failed=$((failed + 1))
    note "FAILED: $1: $2, and CI=true requires it"
  else
    skipped=$((skipped + 1))
    note "SKIPPED: $1: $2"
  fi
}
die() { echo "test-packaging: $*" >&2; exit 1; }

cargo build --locked --quiet --bin pwk
# The binary the tests built, without its debug info (130 of its 160 MB), for the npm
# packages and the release archive; maturin strips its own copy (--strip).
pwk=$work/pwk
cp "$root/target/debug/pwk" "$pwk"
strip "$pwk" 2>/dev/null || true
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
bad_fixture=fixtures/lint/pwk/duplicate-key.md
clean_fixture=fixtures/pwk-shaped-roles/pwk-smell-reviewer.md

# lint_fails_on_fixture CMD...: CMD lint of the planted error exits 1 and names the rule,
# and of a clean fixture exits 0.
lint_fails_on_fixture() {
  local out rc=0
  out=$("$@" lint --color never --format json "$root/$bad_fixture") || rc=$?
  [ "$rc" = 1 ] || die "$* lint $bad_fixture exited $rc, not 1"
  case "$out" in *'"rule": "duplicate-key"'*) ;; *) die "$* lint did not report duplicate-key: $out" ;; esac
  "$@" lint --color never "$root/$clean_fixture" >/dev/null || die "$* lint $clean_fixture did not exit 0"
}

# Every package carries Cargo.toml's version, and the pre-commit package pins the wheel
# of that version.
versions() {
  grep -qx "version = \"$version\"" pyproject.toml || die "pyproject.toml's version is not $version"
  grep -q "\"pwk-cli==$version\"" pyproject.toml || die "pyproject.toml does not pin pwk-cli==$version"
  grep -q '^dynamic = \["version"\]' python/pyproject.toml || die "python/pyproject.toml must take the version from Cargo.toml"
  for f in npm/pwk/package.json npm/platforms/*/package.json; do
    grep -q "\"version\": \"$version\"" "$f" || die "$f's version is not $version"
  done
  local n
  n=$(grep -c "\"@pwk/cli-[a-z0-9-]*\": \"$version\"" npm/pwk/package.json)
  [ "$n" = "$(ls -d npm/platforms/*/ | wc -l | tr -d ' ')" ] || die "npm/pwk/package.json's optionalDependencies are not every platform package at $version"
}
section "versions agree with Cargo.toml ($version)" versions

# The host's platform, as the release names it (and the npm package directory).
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) triple=x86_64-unknown-linux-musl ;;
  Linux/aarch64) triple=aarch64-unknown-linux-musl ;;
  Darwin/x86_64) triple=x86_64-apple-darwin ;;
  Darwin/arm64) triple=aarch64-apple-darwin ;;
  *) die "no release target for $(uname -s) $(uname -m)" ;;
esac

# ---- Python: the wheel and the pre-commit hook ----
tools=$work/tools
python=${PYTHON:-python3}
wheels=$work/wheels
dist=$work/dist
if command -v "$python" >/dev/null 2>&1; then
  if [ ! -x "$tools/bin/maturin" ] || [ ! -x "$tools/bin/pre-commit" ] || ! ls "$wheels"/setuptools-*.whl >/dev/null 2>&1; then
    note "installing maturin and pre-commit into $tools (once)"
    rm -rf "$tools"
    "$python" -m venv "$tools"
    "$tools/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.9,<2" "pre-commit>=4,<5"
    # The pre-commit package's build backend, for the offline `pip install` below.
    "$tools/bin/pip" download --quiet --disable-pip-version-check --only-binary :all: "setuptools>=77" -d "$wheels"
  fi

  wheel() {
    rm -rf "$dist" "$work/venv"
    local compat=()
    [ "$(uname -s)" = Linux ] && compat=(--compatibility linux)
    # --profile dev: the pwk the tests built (cargo only links a stripped copy of it, once).
    (cd python && "$tools/bin/maturin" build --quiet --locked --profile dev --strip ${compat[@]+"${compat[@]}"} -o "$dist")
    ls "$dist"/pwk_cli-"$version"-*.whl >/dev/null
    "$python" -m venv "$work/venv"
    local start
    start=$(now)
    "$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index --no-compile "$dist"/pwk_cli-*.whl
    lint_fails_on_fixture "$work/venv/bin/pwk"
    note "wheel: pip install to first lint result on a fresh venv: $(since "$start")"
    [ "$("$work/venv/bin/pwk" --version)" = "pwk $version" ] || die "the wheel's pwk --version is not $version"
  }
  section "wheel (maturin, fresh venv, pwk lint)" wheel

  pre_commit() {
    ls "$dist"/pwk_cli-*.whl >/dev/null || die "no wheel (the wheel section failed)"
    local sample=$work/sample out rc=0
    rm -rf "$sample" "$work/pre-commit-home"
    mkdir -p "$sample/.agents/agents"
    cp "$bad_fixture" "$sample/.agents/agents/planted.md"
    cp "$clean_fixture" "$sample/.agents/agents/"
    git -C "$sample" init --quiet
    git -C "$sample" add -A
    git -C "$sample" -c user.name=test -c user.email=test@example.invalid commit --quiet -m sample
    # The hook installs this repository's root package, which depends on pwk-cli: from
    # the wheel just built (and the setuptools wheel), with no index: nothing compiles.
    out=$(cd "$sample" && env PRE_COMMIT_HOME="$work/pre-commit-home" PIP_NO_INDEX=1 \
      PIP_FIND_LINKS="$dist $wheels" "$tools/bin/pre-commit" try-repo "$root" pwk-lint --all-files --color never 2>&1) || rc=$?
    [ "$rc" = 1 ] || { echo "$out"; die "pre-commit try-repo pwk-lint exited $rc, not 1"; }
    case "$out" in *"error[duplicate-key]"*".agents/agents/planted.md:6:1"*) ;; *) echo "$out"; die "the hook did not report the planted duplicate-key" ;; esac
    case "$out" in *"Found 1 error and 0 warnings in 1 of 2 files"*) ;; *) echo "$out"; die "the hook did not lint both files, or found more than the planted error" ;; esac
  }
  section "pre-commit try-repo pwk-lint (language: python) fails on a planted error" pre_commit
else
  skip "wheel" "no $python"
  skip "pre-commit" "no $python"
fi

# ---- npm: the launcher and this platform's package ----
if command -v npm >/dev/null 2>&1; then
  npm_packages() {
    local n=$work/npm
    rm -rf "$n"
    mkdir -p "$n/app" "$n/cache"
    cp -R "npm/platforms/$triple" "$n/platform"
    mkdir -p "$n/platform/bin"
    cp "$pwk" "$n/platform/bin/pwk"
    (cd "$n" && npm pack --silent --pack-destination . ./platform "$root/npm/pwk" >/dev/null)
    local platform_tgz launcher_tgz
    platform_tgz=$(ls "$n"/pwk-cli-*-"$version".tgz)
    launcher_tgz=$n/pwk-$version.tgz
    [ -f "$launcher_tgz" ] || die "npm pack made no $launcher_tgz"
    echo '{"name": "app", "version": "1.0.0", "private": true}' >"$n/app/package.json"
    local start
    start=$(now)
    # --offline with an empty cache: nothing can come from a registry; the other
    # platforms' optional packages are skipped.
    (cd "$n/app" && npm install --silent --offline --no-audit --no-fund --cache "$n/cache" "$launcher_tgz" "$platform_tgz")
    (cd "$n/app" && lint_fails_on_fixture npx --offline pwk)
    note "npm: npm install to first lint result in a fresh directory: $(since "$start")"
    grep -q '"\(pre\|post\|\)install"' "$n/app/node_modules/pwk/package.json" && die "the pwk package has an install script"
    # Without its platform package the launcher says what is missing and exits 2.
    rm -rf "$n/app/node_modules/@pwk"
    local out rc=0
    out=$(cd "$n/app" && npx --offline pwk --version 2>&1) || rc=$?
    [ "$rc" = 2 ] || die "the launcher without its platform package exited $rc, not 2"
    case "$out" in *"is not installed"*) ;; *) die "the launcher without its platform package said: $out" ;; esac
  }
  section "npm (npm pack, offline install from the tarballs, npx pwk lint)" npm_packages
else
  skip "npm" "no npm"
fi

# ---- The GitHub Action's install and run steps ----
action() {
  local rel=$work/release stage=$work/release-stage asset="pwk-$triple.tar.xz"
  rm -rf "$rel" "$stage" "$work/action-bin" "$work/action-bin-tampered"
  # Laid out like a GitHub release of dist's archives (…/download/vX/<asset>, …/latest/download/<asset>).
  mkdir -p "$stage/pwk-$triple" "$rel/download/v$version" "$rel/download/v0.0.1-tampered" "$rel/latest/download"
  cp "$pwk" "$stage/pwk-$triple/pwk"
  cp README.md "$stage/pwk-$triple/"
  XZ_OPT=-1 tar -cJf "$rel/download/v$version/$asset" -C "$stage" "pwk-$triple"
  (cd "$rel/download/v$version" && sha256sum "$asset" >"$asset.sha256")
  cp "$rel/download/v$version/$asset"* "$rel/latest/download/"
  # The same archive with another archive's hash.
  cp "$rel/download/v$version/$asset" "$rel/download/v0.0.1-tampered/"
  echo "$(printf '0%.0s' $(seq 64))  $asset" >"$rel/download/v0.0.1-tampered/$asset.sha256"

  local gp=$work/github-path
  : >"$gp"
  PWK_BASE_URL="file://$rel" PWK_VERSION="$version" PWK_INSTALL_DIR="$work/action-bin" GITHUB_PATH="$gp" ./action/install.sh
  [ "$("$work/action-bin/pwk" --version)" = "pwk $version" ] || die "the installed pwk does not run"
  [ "$(cat "$gp")" = "$work/action-bin" ] || die "install.sh did not add its directory to GITHUB_PATH"
  PWK_BASE_URL="file://$rel/" PWK_INSTALL_DIR="$work/action-bin-latest" ./action/install.sh >/dev/null
  [ -x "$work/action-bin-latest/pwk" ] || die "install.sh did not install the latest release"

  local out rc=0
  out=$(PWK_BASE_URL="file://$rel" PWK_VERSION=v0.0.1-tampered PWK_INSTALL_DIR="$work/action-bin-tampered" ./action/install.sh 2>&1) || rc=$?
  [ "$rc" != 0 ] || die "install.sh installed an archive whose checksum does not match"
  case "$out" in *"checksum mismatch"*"refusing"*) ;; *) die "install.sh refused the tampered archive without saying why: $out" ;; esac
  [ ! -e "$work/action-bin-tampered/pwk" ] || die "install.sh left the tampered binary in place"

  # run.sh: a SARIF file with the finding, then annotations and pwk's exit status.
  local sarif=$work/pwk.sarif
  PWK_BIN="$work/action-bin/pwk" PWK_PATHS="$bad_fixture $clean_fixture" PWK_SARIF="$sarif" \
    PWK_ARGS="--deny-warnings" ./action/run.sh sarif >/dev/null
  grep -q '"ruleId": "duplicate-key"' "$sarif" || die "the SARIF file has no duplicate-key result"
  rc=0
  out=$(PWK_BIN="$work/action-bin/pwk" PWK_PATHS="$bad_fixture" PWK_HOST=pwk ./action/run.sh annotate) || rc=$?
  [ "$rc" = 1 ] || die "run.sh annotate exited $rc on the planted error, not 1"
  case "$out" in "::error file=$bad_fixture,line=6,col=1,"*"title=duplicate-key::"*) ;; *) die "run.sh annotate printed: $out" ;; esac
  PWK_BIN="$work/action-bin/pwk" PWK_PATHS="$clean_fixture" ./action/run.sh annotate >/dev/null || die "run.sh annotate failed on a clean file"

  # run.sh plan: the SARIF upload only when asked, never from a fork's pull request,
  # said with a notice; a bad value is exit 2. Each case: env, then the expected output.
  local gho=$work/github-output want got
  while IFS='|' read -r upload event repo head want; do
    : >"$gho"
    rc=0
    out=$(GITHUB_OUTPUT="$gho" PWK_UPLOAD_SARIF="$upload" PWK_EVENT="$event" PWK_REPO="$repo" PWK_HEAD_REPO="$head" ./action/run.sh plan 2>&1) || rc=$?
    case "$want" in
      error) [ "$rc" = 2 ] || die "run.sh plan took upload-sarif=$upload (exit $rc)"; continue ;;
      *) [ "$rc" = 0 ] || die "run.sh plan exited $rc for $upload/$event: $out" ;;
    esac
    got=$(cat "$gho")
    [ "$got" = "upload=$want" ] || die "run.sh plan for upload-sarif=$upload on $event ($head into $repo): $got, not upload=$want"
    if [ "$upload" = true ] && [ "$want" = false ]; then
      case "$out" in *"::notice title=pwk::SARIF upload skipped: a pull request from a fork"*) ;; *) die "the fork's skip is not said: $out" ;; esac
    fi
  done <<'CASES'
false|push|o/r||false
|push|o/r||false
true|push|o/r||true
true|schedule|o/r||true
true|pull_request|o/r|o/r|true
true|pull_request|o/r|fork/r|false
true|pull_request_target|o/r|fork/r|false
yes|push|o/r||error
CASES

  # action.yml: the annotations first and unconditional; the SARIF steps opt-in,
  # after them, never failing the job; the version is this release's; the download
  # URL an input whose default is Cargo.toml's repository.
  local repo_url
  repo_url=$(sed -n 's/^repository = "\(.*\)"/\1/p' Cargo.toml | head -n1)
  # A Python with PyYAML: the system's, or the one the pre-commit section installed.
  local py=python3
  if ! python3 -c 'import yaml' 2>/dev/null; then
    if [ -x "$tools/bin/python" ]; then py=$tools/bin/python; else
      [ "$ci" != "true" ] || die "no Python with PyYAML to read action.yml"
      note "action.yml not checked: no Python with PyYAML"; return 0
    fi
  fi
  "$py" - "$version" "$repo_url" <<'PY' || die "action.yml does not hold its promises"
import sys, yaml
version, repo = sys.argv[1], sys.argv[2]
a = yaml.safe_load(open("action.yml"))
ins, steps = a["inputs"], a["runs"]["steps"]
assert ins["version"]["default"] == version, ("version default", ins["version"]["default"], version)
assert ins["upload-sarif"]["default"] == "false", "upload-sarif is opt-in"
assert ins["base-url"]["default"] == repo + "/releases", ("base-url default", ins["base-url"]["default"])
assert "action_repository" not in open("action.yml").read(), "github.action_repository is unreliable in composite actions"
names = [s["name"] for s in steps]
lint = names.index("pwk lint")
assert "if" not in steps[lint], "the annotations always run"
for s in steps[lint + 1:]:
    assert s.get("continue-on-error") is True, (s["name"], "must not fail the job")
    assert "steps.plan.outputs.upload == 'true'" in s["if"], (s["name"], "only when the plan says so")
    assert s["if"].startswith("always()"), (s["name"], "also after findings")
plan = names.index("Decide the SARIF upload")
assert plan < lint and steps[plan]["id"] == "plan"
assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif@") for s in steps[lint + 1:])
PY
}
section "action (install.sh from a local release, checksum, run.sh)" action

# The size README.md and docs/src/install.md state ("one 11.7 MB binary", MB = 2^20
# bytes), against the real release binary, within ±5%: PWK_RELEASE_BIN, else
# target/release/pwk; under CI=true it is built when missing (fat LTO: minutes).
release_bin=${PWK_RELEASE_BIN:-$root/target/release/pwk}
release_size() {
  if [ ! -x "$release_bin" ]; then
    cargo build --release --locked --quiet --bin pwk
  fi
  python3 - "$release_bin" README.md docs/src/install.md <<'PY'
import os, re, sys
binary, docs = sys.argv[1], sys.argv[2:]
size = os.path.getsize(binary)
mb = size / 2**20
stated = {}
for doc in docs:
    found = re.findall(r"one (\d+(?:\.\d+)?) MB binary", open(doc, encoding="utf-8").read())
    assert len(found) == 1, f"{doc}: no (or more than one) `one N MB binary` ({found})"
    stated[doc] = float(found[0])
assert len(set(stated.values())) == 1, f"the docs disagree: {stated}"
said = next(iter(stated.values()))
assert abs(said - mb) <= 0.05 * mb, (
    f"{', '.join(docs)} say {said} MB; the release binary is {mb:.1f} MB ({size} bytes): write {mb:.1f}")
print(f"test-packaging: the release binary is {mb:.2f} MB ({size} bytes); the docs say {said} MB")
PY
}
if [ -z "$only" ] || [ "$only" = size ]; then
  if [ -x "$release_bin" ] || [ "$ci" = "true" ]; then
    section "size (the release binary against the size README.md and install.md state)" release_size
  else
    skip "size" "no release binary at $release_bin (set PWK_RELEASE_BIN or cargo build --release)"
  fi
fi

note "$passed passed, $failed failed, $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
