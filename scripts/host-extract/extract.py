#!/usr/bin/env python3
"""extract.py HOST [options] — read a host's facts from its own artifact.

For a provisioned host (scripts/provision-hosts.sh) this reads what pwk's profile
claims — the keys the loader reads, their values, the required keys, the tool names a
role may give a subagent, the model aliases, the directories read and whether they are
read recursively — from the pinned artifact itself (a binary, a bundle, the loader's
source), and measures with the real CLI what cannot be read, and prints it as JSON
(schemas/extracted/<host>@<version>.json is the committed copy the tests compare the
profiles with: tests/cli/host_extract.rs).

  scripts/host-extract/extract.py claude-code              # print, and the profile diff
  scripts/host-extract/extract.py claude-code --write      # (re)write the committed file
  scripts/host-extract/extract.py claude-code --check      # exit 1 if it differs from it
  scripts/host-extract/extract.py gemini --version 0.56.0  # another version, installed
                                                           # into a scratch dir (drift)

HOST: claude-code copilot opencode gemini tintinweb nicobailon pi-example herdr.
Options:
  --version V      install HOST@V from the package registry into a scratch directory
                   (PWK_EXTRACT_DIR keeps it) and extract from that instead
  --hosts-root D   the provisioned hosts (default .host-test/)
  --source D       herdr: a checkout of its git repository (it is not on a registry)
  --static         skip the facts measured by running the CLI
  --profile HOST@V compare with that profile version (a drift check), not the one
                   whose `applies` holds the extracted version
  --write / --check / --out FILE
Exit: 0 done (and, without --write/--check, the profile agrees); 1 the profile or the
committed file disagrees; 2 usage or setup error.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import EXTRACTED, fail  # noqa: E402

# host -> (module, npm packages to install for --version, where they go)
HOSTS = {
    "claude-code": ("claude_code", ["@anthropic-ai/claude-code", "@anthropic-ai/claude-code-linux-x64"], "cli/claude-code"),
    "copilot": ("copilot", ["@github/copilot", "@github/copilot-linux-x64"], "cli/copilot"),
    "opencode": ("opencode", ["opencode-ai", "opencode-linux-x64"], "cli/opencode"),
    "gemini": ("gemini", ["@google/gemini-cli"], "cli/gemini"),
    "tintinweb": ("pi_hosts", ["@tintinweb/pi-subagents"], "tintinweb"),
    "nicobailon": ("pi_hosts", ["pi-subagents"], "nicobailon"),
    "pi-example": ("pi_hosts", ["@earendil-works/pi-coding-agent"], "tintinweb"),
    "herdr": ("herdr", [], None),
}


def install(host, version):
    """HOST@VERSION into a scratch hosts root laid out as .host-test/."""
    _, pkgs, sub = HOSTS[host]
    if not pkgs:
        fail(f"{host} is not on a package registry: give --source")
    scratch = os.environ.get("PWK_EXTRACT_DIR") or tempfile.mkdtemp(prefix="pwk-extract-")
    d = os.path.join(scratch, sub)
    os.makedirs(d, exist_ok=True)
    if not os.path.isfile(os.path.join(d, "package.json")):
        subprocess.run(["npm", "init", "-y"], cwd=d, check=True, capture_output=True)
    first = os.path.join(d, "node_modules", pkgs[0], "package.json")
    have = os.path.isfile(first) and json.load(open(first))["version"] == version
    if not have:
        print(f"host-extract: installing {' '.join(p + '@' + version for p in pkgs)} into {d}", file=sys.stderr)
        flags = ["--ignore-scripts"] if sub.startswith("cli/") else ["--legacy-peer-deps"]
        r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error", *flags,
                            *[f"{p}@{version}" for p in pkgs]], cwd=d, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"npm install failed: {r.stderr.strip()[-600:]}")
    return scratch


def run(host, hosts_root, source=None, measure=True):
    module = __import__(HOSTS[host][0])
    if host == "herdr":
        return module.extract(source)
    if HOSTS[host][0] == "pi_hosts":
        return module.extract(host, hosts_root)
    return module.extract(hosts_root, measure)


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n")[0])
    ap.add_argument("host", choices=sorted(HOSTS))
    ap.add_argument("--version")
    ap.add_argument("--hosts-root")
    ap.add_argument("--source")
    ap.add_argument("--static", action="store_true")
    ap.add_argument("--profile", help="compare with this profile version (HOST@V) instead of the one that applies")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    g.add_argument("--out")
    a = ap.parse_args()
    root = a.hosts_root or common.host_test()
    if a.version:
        root = install(a.host, a.version)
    doc = run(a.host, root, a.source, measure=not a.static)
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    name = f"{doc['host']}@{doc['version']}.json"
    committed = os.path.join(EXTRACTED, name)
    if a.write:
        os.makedirs(EXTRACTED, exist_ok=True)
        with open(committed, "w") as f:
            f.write(text)
        print(f"host-extract: wrote {os.path.relpath(committed, common.ROOT)}", file=sys.stderr)
    elif a.check:
        old = open(committed).read() if os.path.isfile(committed) else None
        if old != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                (old or "").splitlines(True), text.splitlines(True),
                f"{name} (committed)", f"{name} (extracted now)"))
            print(f"host-extract: {name}: the artifact says something else than the committed extraction "
                  f"(run extract.py {a.host} --write and review the diff)", file=sys.stderr)
            sys.exit(1)
        print(f"host-extract: {name} is current", file=sys.stderr)
        return
    elif a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    import compare
    print(file=sys.stderr)
    sys.stdout.flush()
    sys.stdout = sys.stderr
    sys.exit(compare.report([doc], a.profile))


if __name__ == "__main__":
    main()
