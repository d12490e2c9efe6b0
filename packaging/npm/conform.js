#!/usr/bin/env node
// The `conform` command of the conform-cli package: runs the conform binary that
// the platform's optional dependency (@conform-cli/linux-x64, ...) installed. No
// postinstall step, no download: npm installs only the package whose os and cpu
// fields match, and this file finds it.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");

// process.platform-process.arch -> the package that holds the binary there.
const PACKAGES = {
  "linux-x64": "@conform-cli/linux-x64",
  "linux-arm64": "@conform-cli/linux-arm64",
};

// The repository is the GitHub Action; build.mjs writes its address in package.json.
const ELSEWHERE = `use the GitHub Action (${require("../package.json").homepage}), or run conform in a Linux container`;

function refuse(message) {
  process.stderr.write(`conform-cli: ${message}\n`);
  process.exit(1);
}

function binaryPath() {
  const key = `${process.platform}-${process.arch}`;
  if (process.platform !== "linux") {
    refuse(`conform runs on Linux only (it needs /proc, pidfds and namespaces), not ${key}: ${ELSEWHERE}`);
  }
  const name = PACKAGES[key];
  if (!name) {
    refuse(`no conform binary for ${key} (there are ${Object.keys(PACKAGES).join(", ")}): ${ELSEWHERE}`);
  }
  // The release links the binaries against glibc 2.31 (the manylinux_2_31 floor,
  // release.yml). On musl (Alpine) npm skips them by their libc field, and an older
  // glibc would fail to load them: either deserves one line more than an error.
  const report = process.report && process.report.getReport();
  const glibc = report && report.header && report.header.glibcVersionRuntime;
  if (report && !glibc) {
    refuse(`the conform binary for ${key} needs glibc 2.31 or newer, and this system has no glibc (musl?): use a glibc-based image, or ${ELSEWHERE}`);
  }
  const [major, minor] = String(glibc).split(".").map(Number);
  if (major < 2 || (major === 2 && minor < 31)) {
    refuse(`the conform binary for ${key} needs glibc 2.31 or newer, and this system has ${glibc}: ${ELSEWHERE}`);
  }
  try {
    return require.resolve(`${name}/bin/conform`);
  } catch {
    refuse(`${name} is not installed beside conform-cli (installed with --omit=optional or --no-optional?): install conform-cli again with its optional dependencies`);
  }
  return undefined;
}

// Bit N-1 of a /proc/PID/status signal mask (hexadecimal) is signal N.
function inMask(mask, signal) {
  const number = require("os").constants.signals[signal];
  return ((BigInt(`0x${mask}`) >> BigInt(number - 1)) & 1n) === 1n;
}

// conform's signal masks: pending (SigPnd, ShdPnd) and caught (SigCgt); null once gone.
function masks(pid) {
  let status;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const field = (name) => {
    const line = status.split("\n").find((l) => l.startsWith(`${name}:`));
    return line ? line.slice(name.length + 1).trim() : "0";
  };
  return { pending: [field("SigPnd"), field("ShdPnd")], caught: field("SigCgt") };
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });

// A Ctrl-C, or `timeout`, signals the whole process group: conform has the signal
// already, and passing it on would be a second one, which kills conform at once
// instead of letting it stop its tools and report. A signal sent to this process
// alone (`kill PID`, a container's stop) must be passed on. conform's `run` and
// `check` catch SIGINT and SIGTERM together, each handler once (SA_RESETHAND), so
// conform has this signal already when it is pending there, or when conform
// catches the other one but no longer this one: its handler ran.
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
const SIBLING = { SIGINT: "SIGTERM", SIGTERM: "SIGINT" };

function reachedConform(signal) {
  const m = child.pid === undefined ? null : masks(child.pid);
  if (!m) return true; // gone: nothing to pass on
  if (m.pending.some((mask) => inMask(mask, signal))) return true;
  const sibling = SIBLING[signal];
  return Boolean(sibling) && !inMask(m.caught, signal) && inMask(m.caught, sibling);
}

const handlers = {};
for (const signal of FORWARDED) {
  handlers[signal] = () => {
    if (!reachedConform(signal)) child.kill(signal);
  };
  process.on(signal, handlers[signal]);
}

child.on("error", (error) => refuse(`cannot start conform: ${error.message}`));

// Exit as conform did: its code, or the same signal (the shell then sees 128+N).
child.on("exit", (code, signal) => {
  if (signal) {
    for (const s of FORWARDED) process.removeListener(s, handlers[s]);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
