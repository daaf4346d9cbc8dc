#!/usr/bin/env node
// Makes sure the system tools the tests need are present. As root it installs the missing ones
// with apt-get; otherwise it stops with a message naming the Debian package. Tests never skip
// silently because a tool is missing.
import { execFileSync, spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

/** command on PATH -> Debian package that provides it */
const TOOLS = {
  xmlsec1: "xmlsec1",
  chromium: "chromium",
  pdftoppm: "poppler-utils",
  zbarimg: "zbar-tools",
  openssl: "openssl",
  unzip: "unzip",
};

const { positionals } = parseArgs({ allowPositionals: true });
const wanted = positionals.length ? positionals : Object.keys(TOOLS);
const has = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
const missing = wanted.filter((cmd) => !has(cmd));
if (missing.length === 0) process.exit(0);

const packages = missing.map((cmd) => {
  const pkg = TOOLS[cmd];
  if (!pkg) throw new Error(`require-tools: no Debian package known for '${cmd}'`);
  return pkg;
});
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot) {
  console.error(
    `Missing system tools: ${missing.join(", ")}. Install them with: sudo apt-get install -y ${packages.join(" ")}`,
  );
  process.exit(1);
}
console.log(`Installing ${packages.join(" ")} with apt-get…`);
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages], { stdio: "inherit", env });
const still = missing.filter((cmd) => !has(cmd));
if (still.length) {
  console.error(`apt-get finished but these are still missing: ${still.join(", ")}`);
  process.exit(1);
}
