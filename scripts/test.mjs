#!/usr/bin/env node
// `npm test`: install the system tools the tests need (or say which are missing), typecheck every
// package, then run each test project. Prints a closing `N passed, N failed` line.
import { mkdtempSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { root, wranglerEnv } from "./lib.mjs";

const PACKAGES = ["shared", "worker", "pos-client", "dgii-sandbox", "sdk"];
/** Test projects: a package folder and, where it has several, the vitest config to use. */
const PROJECTS = [
  { name: "shared", dir: "shared" },
  { name: "worker", dir: "worker" },
  { name: "worker-node", dir: "worker", config: "vitest.node.config.ts" },
  { name: "worker-browser", dir: "worker", config: "vitest.browser.config.ts" },
  { name: "pos-client", dir: "pos-client" },
  { name: "dgii-sandbox", dir: "dgii-sandbox" },
  { name: "sdk", dir: "sdk" },
];
// `node scripts/test.mjs worker shared`: only the projects named.
const only = parseArgs({ allowPositionals: true }).positionals;
const projects = only.length ? PROJECTS.filter((p) => only.includes(p.name)) : PROJECTS;
const step = (title) => console.log(`\n=== ${title} ===`);
const sh = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: wranglerEnv, ...opts }).status;

step("system tools");
if (sh(process.execPath, ["scripts/require-tools.mjs", "xmlsec1", "chromium", "pdftoppm", "zbarimg", "openssl", "unzip"]) !== 0) process.exit(1);

// Biome: the tree stays formatted as committed, and its linter finds nothing (biome.json).
step("format and lint (biome)");
if (sh(join(root, "node_modules/.bin/biome"), ["ci", "."]) !== 0) {
  console.error("biome ci failed: run `npx biome check --write .` and commit the result");
  process.exit(1);
}

step("typecheck");
for (const project of [...PACKAGES, "worker/tsconfig.node.json", "scripts", "bench"]) {
  if (sh(join(root, "node_modules/.bin/tsc"), ["-p", project]) !== 0) {
    console.error(`typecheck failed in ${project}`);
    process.exit(1);
  }
}

const out = mkdtempSync(join(tmpdir(), "ecf-test-"));
let passed = 0;
let failed = 0;
const broken = [];
const failures = [];
for (const { name, dir, config } of projects) {
  step(`tests: ${name}`);
  const report = join(out, `${name}.json`);
  const args = ["run", ...(config ? ["--config", config] : []), "--reporter=default", "--reporter=json", `--outputFile.json=${report}`];
  const status = sh(join(root, "node_modules/.bin/vitest"), args, { cwd: join(root, dir) });
  try {
    const r = JSON.parse(readFileSync(report, "utf8"));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    // Named again at the end: a CI log that keeps only its tail still says what failed.
    for (const file of r.testResults ?? [])
      for (const t of file.assertionResults ?? [])
        if (t.status === "failed")
          failures.push(
            `${name}: ${relative(join(root, dir), file.name)} > ${t.fullName}\n    ${String(t.failureMessages?.[0] ?? "")
              .split("\n")[0]
              .slice(0, 300)}`,
          );
  } catch {
    failed++;
  }
  if (status !== 0) broken.push(name);
}
console.log(`\nprojects failing: ${broken.length ? broken.join(", ") : "none"}`);
for (const f of failures) console.log(`  FAILED ${f}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(broken.length || failed ? 1 : 0);
