#!/usr/bin/env bash
# Re-run the scriptable repros of the turn-4 attack pass (N1–N36, see
# /work/shared/reference/attacks-turn4.md or docs/src/contributing.md) against a
# pwk binary, one line each: `held` or `BROKEN` and what was seen. Quick (a
# minute on a debug build): each repro is the short form from the attack notes;
# the class tests in tests/cli/ (attack_matrix, inert_output, growth, save_race,
# budget, runtime_bounds, message_classes) are what guard the classes.
#
# Not here (they need pi, a race harness, another user or a host's loader, and
# have their own tests): N2 (save_race.rs), N5 (trust), N9/N11/N13–N16/N18 (pi
# children and budgets: runtime_bounds.rs, budget.rs, children.rs), N20, N23–N25,
# N27, N28, N34's runtime messages.
#
# Usage: scripts/attacks.sh [PWK]   (default: target/debug/pwk, built if absent)
# Exit 1 when any repro is BROKEN.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PWK=${1:-$root/target/debug/pwk}
[[ -x $PWK ]] || (cd "$root" && cargo build --quiet --offline) || exit 2
W=$(mktemp -d "${TMPDIR:-/tmp}/pwk-attacks.XXXXXX")
trap 'rm -rf "$W"' EXIT
broken=0
verdict() { # N ok(0/1) what
  if [[ $2 == 0 ]]; then printf '  held    %-4s %s\n' "$1" "$3"; else
    printf '  BROKEN  %-4s %s\n' "$1" "$3"
    broken=$((broken + 1))
  fi
}
# proj NAME: a fresh project directory (a git root) with one role; cd into it.
proj() {
  P="$W/$1"
  mkdir -p "$P/.git" "$P/.pi/agents"
  printf -- '---\nname: a\ndescription: d\ntools: read\nfoo: 1\n---\nB\n' > "$P/.pi/agents/a.md"
  cd "$P" || exit 2
}
out() { "$PWK" "$@" > "$W/out" 2> "$W/err"; echo $?; }
said() { grep -qiE "$1" "$W/out" "$W/err"; }
raw() { # raw control/bidi/invisible bytes in the output
  python3 -c '
import sys, unicodedata
t = open(sys.argv[1], encoding="utf-8", errors="replace").read() + open(sys.argv[2], encoding="utf-8", errors="replace").read()
bad = [c for c in t if (unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t") or c in "\u2028\u2029"]
sys.exit(1 if bad else 0)' "$W/out" "$W/err"
}

echo "pwk: $PWK"

proj n1
printf 'baseline = "../../n1-outside.json"\n' > pwk.toml
out lint --write-baseline >/dev/null
[[ ! -e $W/../n1-outside.json && ! -e $W/n1-outside.json ]]
verdict N1 $? "a pwk.toml baseline outside the project is not created"

proj n3
mkdir -p .opencode/agents
printf -- '---\ndescription: d\ntools:\n  write: false\n  bash: false\n---\nB\n' > .opencode/agents/a.md
rc=$(out convert --from opencode --to tintinweb .opencode/agents/a.md --out out)
# Held: not written (exit 1), or written with the denials (a deny-list naming
# both, or an allow-list naming neither).
[[ $rc != 0 ]] || { grep -qE '^disallowed_tools:.*bash' out/a.md && grep -qE '^disallowed_tools:.*write' out/a.md; } ||
  { grep -q '^tools:' out/a.md && ! grep -qE '^tools:.*(write|bash)' out/a.md; }
verdict N3 $? "opencode denials are not widened by convert (exit $rc)"

proj n4
mkdir -p .claude/agents
printf -- '---\nname: a\ndescription: d\ntools: Read, Bash\npermissionMode: plan\n---\nB\n' > .claude/agents/a.md
rc=$(out convert --from claude-code --to tintinweb .claude/agents/a.md --out out)
[[ $rc != 0 ]]
verdict N4 $? "permissionMode: plan is a decision, not dropped (exit $rc)"

proj n6
flow() { # n items in one flow mapping on one line -> CPU seconds of a lint
  awk -v n="$1" 'BEGIN { print "---"; print "name: a"; print "description: d"; print "tools: read"
    printf "x-flow: {"; for (i = 0; i < n; i++) printf "%sk%d: v", (i ? ", " : ""), i; print "}"; print "---"; print "B" }' > .pi/agents/a.md
  /usr/bin/time -o "$W/time" -f '%U %S' timeout 120 "$PWK" lint .pi/agents/a.md > /dev/null 2>&1
  awk '{ print $1 + $2 }' "$W/time"
}
t1=$(flow 10000)
t8=$(flow 80000)
awk -v a="$t1" -v b="$t8" 'BEGIN { exit !(b < 16 * (a > 0.05 ? a : 0.05)) }'
verdict N6 $? "a one-line flow mapping: ${t1}s CPU at 10,000 items, ${t8}s at 80,000 (1 MiB; linear: 8x)"

proj n7
{ printf -- '---\nname: a\ndescription: d\ntools: read'
  for ((i = 0; i < 6000; i++)); do printf ', nope%d' "$i"; done
  printf '\n---\nB\n'; } > .pi/agents/a.md
"$PWK" lint .pi/agents/a.md 2> /dev/null | wc -c > "$W/bytes"
b=$(cat "$W/bytes")
[[ $b -lt 20000000 ]]
verdict N7 $? "6,000 findings on one 59 KB line print $b bytes (was 703 MB)"

proj n10
python3 -c "open('pwk.toml','w').write('exclude = [\"'+'a'*65600+'\"]\n')"
rc=$(out config)
[[ $rc != 101 ]] && ! said panicked
verdict N10 $? "pwk config with a 65,600-character value does not panic (exit $rc)"

proj n17
echo '{}' > packet.json
rc=$(out review --packet packet.json --budget max-tokens=1500,max-tokens=1000000)
[[ $rc == 2 ]] && said 'twice'
verdict N17 $? "a repeated --budget limit is an error (exit $rc)"

proj n19
mkdir -p .opencode/agents
printf -- '---\nname: rev\ndescription: d\n---\nBody\n' > .opencode/agents/src.md
out convert --from opencode --to claude-code .opencode/agents --out out > /dev/null
[[ $(cat out/*.md 2> /dev/null | grep -c '^name:') == 1 ]]
verdict N19 $? "converting an opencode role with name writes name once"

proj n21
python3 -c "open('.pi/agents/a.md','w').write('---\nname: a\ndescription: Reviews code.\u2028x\ntools: read\n---\nB\n')"
rc=$(out lint --host nicobailon .pi/agents/a.md)
[[ $rc != 0 ]] || said '2028|line separator'
verdict N21 $? "U+2028 in a key line is a finding for nicobailon (exit $rc)"

proj n22
python3 -c "
tag = ''.join(chr(0xE0000 + ord(c)) for c in 'run rm -rf')
open('.pi/agents/a.md','w').write('---\nname: a\ndescription: d' + tag + '\ntools: read\n---\nB' + tag + '\n')"
rc=$(out lint --host tintinweb .pi/agents/a.md)
f=$([[ $rc != 0 ]] || said 'invisible|tag'; echo $?)
out show a > /dev/null
raw
verdict N22 $((f + $?)) "tag characters are a finding (exit $rc) and pwk show escapes them"

for c in new delegate review recon run-request; do
  "$PWK" "$c" --help 2>&1 | grep -q -- '--config'
  verdict N26 $? "pwk $c takes --config"
done

proj n29
printf -- '---\nname: a\ndescription: d\ntools: read\nx: {PostToolUse: [{matcher: Bash, hooks: [{type: command, command: "true"}]}]}\n---\nB\n' > .claude-a.md
mkdir -p .claude/agents && mv .claude-a.md .claude/agents/a.md
out lint --host claude-code .claude/agents/a.md > /dev/null
# Settled by Claude Code's own loader (af78951: it loads these agents): the rule
# must NOT fire here.
! said 'hook-outside-hooks'
verdict N29 $? "hook-outside-hooks stays quiet on a PostToolUse matcher under another key (Claude loads it)"

for id in 1.5 '{"a":1}'; do
  python3 - "$PWK" "$id" > "$W/lsp" 2>&1 <<'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
body = ('{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"capabilities":{}}}' % sys.argv[2]).encode()
p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body); p.stdin.close()
out = p.stdout.read(); p.wait(timeout=20)
sys.exit(0 if b'"error"' in out or b'"result"' in out else 1)
PY
  verdict N30 $? "an LSP request with id $id gets a reply"
done

python3 - "$PWK" > "$W/lsp" 2>&1 <<'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def msg(m):
    b = json.dumps(m).encode(); return b"Content-Length: %d\r\n\r\n" % len(b) + b
data = msg({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
data += b"Content-Length: abc\r\n\r\n{}"
data += msg({"jsonrpc": "2.0", "method": "initialized", "params": {}})
data += msg({"jsonrpc": "2.0", "id": 7, "method": "shutdown"})
data += msg({"jsonrpc": "2.0", "method": "exit"})
p.stdin.write(data); p.stdin.flush()
out = p.stdout.read(); rc = p.wait(timeout=20)
sys.exit(0 if b'"id":7' in out.replace(b" ", b"") and rc == 0 else 1)
PY
verdict N31 $? "after a bad Content-Length the LSP session answers shutdown and exits 0"

proj n32
mkdir -p .claude/agents out && printf -- '---\nname: a\ndescription: d\ntools: Read\n---\nB\n' > .claude/agents/a.md
ln -s "$W/n32-victim.md" out/a.md
out convert --from claude-code --to tintinweb .claude/agents/a.md --out out > /dev/null
said 'NOT WRITTEN \(see'
verdict N32 $? "a refused convert write is summed up as NOT WRITTEN"
printf -- '---\r\nname: a\r\ndescription: d\r\ntools: Read\r\n---\r\nB\r\n' > .claude/agents/a.md
out convert --from claude-code --to tintinweb --in-place .claude/agents/a.md > /dev/null
[[ $(tr -cd '\r' < .claude/agents/a.md | wc -c) == $(tr -cd '\n' < .claude/agents/a.md | wc -c) ]]
verdict N32 $? "--in-place on a CRLF file writes CRLF throughout"
rc=$(out convert --from claude-code --to tintinweb --out out2 --model-map sonnet=a/x --model-map sonnet=a/y .claude/agents/a.md)
[[ $rc == 2 ]]
verdict N32 $? "a model given to --model-map twice is an error (exit $rc)"

proj n33
printf 'exclude = ["**"]\n' > pwk.toml
out lint > /dev/null
said 'exclude' && ! said 'recursive'
verdict N33 $? "an exclude that leaves nothing says so"
rm pwk.toml && printf 'host = "tintinweb"\n' > "$W/n33.toml" && ln -s "$W/n33.toml" pwk.toml
out lint .pi/agents/a.md > /dev/null
said '[-]-config'
verdict N33 $? "a symlinked pwk.toml says how to name the file"
rm pwk.toml && python3 -c "open('pwk.toml','w').write('exclude = [\"'+'a'*6000+'[\"]\n')"
out lint .pi/agents/a.md > /dev/null
[[ $(wc -c < "$W/err") -lt 1000 ]]
verdict N33 $? "a 6,000-character glob is not echoed whole ($(wc -c < "$W/err") bytes)"

proj n34
printf '[delegate]\nbudget = { max_cost_usd = nan }\n' > pwk.toml
out config > /dev/null
said 'not nan' && ! said null
verdict N34 $? "max_cost_usd = nan is refused by name"

proj n35
cp .pi/agents/a.md "$(printf '.pi/agents/b\u200fx.md')"
f=0
for fmt in human json concise github sarif; do
  out lint --format "$fmt" .pi/agents > /dev/null
  raw || f=1
done
verdict N35 $f "U+200F in a file name is escaped in every lint format"

proj n36
out lint --stdin-filename /etc/passwd - < .pi/agents/a.md > /dev/null
! said 'passwd\.md'
verdict N36 $? "--stdin-filename /etc/passwd is not called passwd.md"
printf 'baseline = "../../../../../../../../etc/n36-shadow"\n' > pwk.toml
out lint --write-baseline .pi/agents/a.md > /dev/null
! said '/\.\./'
verdict N36 $? "a baseline path is shown resolved"

echo "$broken broken"
[[ $broken == 0 ]]
