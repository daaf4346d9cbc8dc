#!/usr/bin/env node
// Runs every benchmark under bench/ (files named *.bench.ts) one after another with tsx.
// Each benchmark prints one figure per line; this runner adds nothing but a heading per file.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { root } from "./lib.mjs";

// `npm run bench -- signing`: only the files whose name contains the word.
const [only] = parseArgs({ allowPositionals: true }).positionals;
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
