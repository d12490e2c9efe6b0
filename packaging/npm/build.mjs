#!/usr/bin/env node
// Builds the npm packages of conform from binaries already built: the launcher
// `conform-cli` (bin `conform`, one optional dependency per platform) and one
// package per platform whose os, cpu and libc fields let npm install it only where
// its binary runs. Each is packed into a tarball in --out, ready for `npm publish`.
//
//   node packaging/npm/build.mjs --version 0.1.0 --repository https://github.com/OWNER/conform \
//     --out dist/npm --binary linux-x64=target/release/conform [--binary linux-arm64=...]
//
// The launcher lists every platform below, whichever binaries are given, so the one
// published is the same wherever it is built.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");

// npm's process.platform-process.arch, as the launcher (conform.js) looks them up.
const PLATFORMS = {
  "linux-x64": { os: "linux", cpu: "x64" },
  "linux-arm64": { os: "linux", cpu: "arm64" },
};
const SCOPE = "@conform-cli";
const DESCRIPTION =
  "conform proves whether a command-line tool is safe and reliable for AI agents to call (CLI Agent Spec conformance)";
const KEYWORDS = ["cli", "agents", "ai", "llm", "conformance", "testing", "lint", "cli-agent-spec"];

function fail(message) {
  process.stderr.write(`build.mjs: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { binaries: {} };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) fail(`${flag} needs a value`);
    if (flag === "--version") args.version = value;
    else if (flag === "--repository") args.repository = value.replace(/\/$/, "");
    else if (flag === "--out") args.out = resolve(value);
    else if (flag === "--binary") {
      const [platform, path] = value.split(/=(.*)/s);
      if (!PLATFORMS[platform]) fail(`unknown platform ${platform} (known: ${Object.keys(PLATFORMS).join(", ")})`);
      args.binaries[platform] = resolve(path);
    } else fail(`unknown argument ${flag}`);
  }
  for (const needed of ["version", "repository", "out"]) if (!args[needed]) fail(`--${needed} is required`);
  if (Object.keys(args.binaries).length === 0) fail("give at least one --binary PLATFORM=PATH");
  return args;
}

function common(args) {
  return {
    version: args.version,
    license: "MIT OR Apache-2.0",
    homepage: args.repository,
    repository: { type: "git", url: `git+${args.repository}.git` },
    bugs: { url: `${args.repository}/issues` },
  };
}

function writePackage(dir, manifest, files) {
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [from, to, mode] of files) {
    copyFileSync(from, join(dir, to));
    chmodSync(join(dir, to), mode);
  }
}

function pack(dir, out) {
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
  });
  return join(out, JSON.parse(output)[0].filename);
}

const args = parseArgs(process.argv.slice(2));
mkdirSync(args.out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "conform-npm-"));
const licenses = [
  [join(root, "LICENSE-MIT"), "LICENSE-MIT", 0o644],
  [join(root, "LICENSE-APACHE"), "LICENSE-APACHE", 0o644],
];
const tarballs = [];

for (const [platform, binary] of Object.entries(args.binaries)) {
  const { os, cpu } = PLATFORMS[platform];
  const name = `${SCOPE}/${platform}`;
  const dir = join(work, platform);
  writePackage(
    dir,
    {
      name,
      ...common(args),
      description: `The conform binary for ${os} ${cpu} (glibc 2.31+); install conform-cli, which depends on it`,
      os: [os],
      cpu: [cpu],
      // Linked against glibc 2.31 or newer: npm skips it on musl (Alpine), and the
      // launcher says why.
      libc: ["glibc"],
      files: ["bin/conform", "LICENSE-MIT", "LICENSE-APACHE"],
      preferUnplugged: true,
    },
    [[binary, "bin/conform", 0o755], ...licenses],
  );
  tarballs.push(pack(dir, args.out));
}

const launcher = join(work, "conform-cli");
writePackage(
  launcher,
  {
    name: "conform-cli",
    ...common(args),
    description: DESCRIPTION,
    keywords: KEYWORDS,
    bin: { conform: "bin/conform.js" },
    files: ["bin/conform.js", "README.md", "LICENSE-MIT", "LICENSE-APACHE"],
    engines: { node: ">=16" },
    optionalDependencies: Object.fromEntries(
      Object.keys(PLATFORMS).map((platform) => [`${SCOPE}/${platform}`, args.version]),
    ),
  },
  [[join(here, "conform.js"), "bin/conform.js", 0o755], [join(here, "README.md"), "README.md", 0o644], ...licenses],
);
tarballs.push(pack(launcher, args.out));

for (const tarball of tarballs) process.stdout.write(`${tarball}\n`);
