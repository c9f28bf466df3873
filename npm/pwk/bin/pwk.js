#!/usr/bin/env node
// The `pwk` command of the npm package: runs the prebuilt binary from the platform
// package npm installed with it (one of the optionalDependencies, chosen by npm from
// their `os`/`cpu` fields). Nothing is downloaded here or at install time.
// PWK_BINARY names another binary to run instead.
"use strict";

const { spawnSync } = require("child_process");

// process.platform / process.arch -> the package carrying that binary. The Linux
// binaries are static (musl), so one package serves glibc and musl systems alike.
const PLATFORMS = {
  linux: { x64: "@pwk/cli-linux-x64", arm64: "@pwk/cli-linux-arm64" },
  darwin: { x64: "@pwk/cli-darwin-x64", arm64: "@pwk/cli-darwin-arm64" },
};

function binaryPath() {
  if (process.env.PWK_BINARY) {
    return process.env.PWK_BINARY;
  }
  const pkg = (PLATFORMS[process.platform] || {})[process.arch];
  if (!pkg) {
    const known = Object.entries(PLATFORMS)
      .flatMap(([os, arches]) => Object.keys(arches).map((arch) => `${os}-${arch}`))
      .join(", ");
    fail(
      `pwk: no prebuilt binary for ${process.platform}-${process.arch} (there are: ${known}); ` +
        "install from source with `cargo install pwk`",
    );
  }
  try {
    return require.resolve(`${pkg}/bin/pwk`);
  } catch {
    fail(
      `pwk: the package ${pkg} is not installed. npm installs it as an optional dependency ` +
        "of pwk; reinstall without --no-optional / --omit=optional.",
    );
  }
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const bin = binaryPath();
// No shell: the arguments reach pwk exactly as given.
const result = spawnSync(bin, process.argv.slice(2), { stdio: "inherit", shell: false });
if (result.error) {
  fail(`pwk: could not run ${bin}: ${result.error.message}`);
}
if (result.signal) {
  // Die of the same signal, so a parent sees what happened to pwk.
  process.kill(process.pid, result.signal);
}
process.exit(result.status === null ? 2 : result.status);
