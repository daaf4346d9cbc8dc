#!/usr/bin/env node
// Runs every benchmark under bench/ (files named *.bench.ts) one after another with tsx.
// Each benchmark prints one figure per line; this runner adds nothing but a heading per file.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const only = process.argv[2];
const files = readdirSync(join(root, "bench"))
  .filter((f) => f.endsWith(".bench.ts") && (!only || f.includes(only)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`# ${file}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", join("bench", file)], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
