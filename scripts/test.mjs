#!/usr/bin/env node
// `npm test`: install the system tools the tests need (or say which are missing), typecheck every
// package, then run each test project. Prints each project's wall time and a closing
// `N passed, N failed` line. `npm run test:quick` (`--quick`): the same checks and only the unit
// projects, no browser and no local stack (a few minutes: the inner loop; CI runs the whole suite).
import { mkdtempSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { root, wranglerEnv } from "./lib.mjs";

const PACKAGES = ["shared", "ui-kit", "worker", "pos-client", "console", "dgii-sandbox", "sdk"];
/** Test projects: a package folder and, where it has several, the vitest config to use. */
const PROJECTS = [
  { name: "shared", dir: "shared" },
  { name: "worker", dir: "worker" },
  { name: "worker-node", dir: "worker", config: "vitest.node.config.ts" },
  { name: "worker-browser", dir: "worker", config: "vitest.browser.config.ts" },
  { name: "pos-client", dir: "pos-client" },
  { name: "console", dir: "console" },
  { name: "dgii-sandbox", dir: "dgii-sandbox" },
  { name: "sdk", dir: "sdk" },
];
/** The quick subset: pure and in-process tests only (pos-client and console without their Chromium tests). */
const QUICK = [
  { name: "shared", dir: "shared" },
  { name: "pos-client (unit)", dir: "pos-client", args: ["--exclude", "test/browser/**"] },
  { name: "console (unit)", dir: "console", args: ["--exclude", "test/browser/**"] },
  { name: "dgii-sandbox", dir: "dgii-sandbox" },
];
// `node scripts/test.mjs worker shared`: only the projects named.
const { positionals: only, values: flags } = parseArgs({
  allowPositionals: true,
  options: { quick: { type: "boolean", default: false } },
});
const chosen = flags.quick ? QUICK : PROJECTS;
const projects = only.length ? chosen.filter((p) => only.includes(p.name)) : chosen;
const suiteStarted = Date.now();
const step = (title) => console.log(`\n=== ${title} ===`);
const sh = (cmd, args, opts = {}) =>
  spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: wranglerEnv, ...opts }).status;

step("system tools");
if (
  sh(process.execPath, [
    "scripts/require-tools.mjs",
    "xmlsec1",
    "chromium",
    "pdftoppm",
    "zbarimg",
    "openssl",
    "unzip",
  ]) !== 0
)
  process.exit(1);

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
/** Wall time of each project, printed at the end so a slow one is visible. */
const timings = [];
for (const { name, dir, config, args: extra = [] } of projects) {
  step(`tests: ${name}`);
  const report = join(out, `${name.replace(/\W+/g, "-")}.json`);
  const args = [
    "run",
    ...(config ? ["--config", config] : []),
    ...extra,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ];
  const started = Date.now();
  const status = sh(join(root, "node_modules/.bin/vitest"), args, { cwd: join(root, dir) });
  timings.push({ name, seconds: (Date.now() - started) / 1000 });
  try {
    const r = JSON.parse(readFileSync(report, "utf8"));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    // Named again at the end: a CI log that keeps only its tail still says what failed.
    for (const file of r.testResults ?? [])
      for (const t of file.assertionResults ?? [])
        if (t.status === "failed")
          failures.push(
            `${name}: ${relative(join(root, dir), file.name)} > ${t.fullName}\n    ${String(
              t.failureMessages?.[0] ?? "",
            )
              .split("\n")[0]
              .slice(0, 300)}`,
          );
  } catch {
    failed++;
  }
  if (status !== 0) broken.push(name);
}
console.log("\nwall time per project:");
for (const { name, seconds } of timings) console.log(`  ${name.padEnd(20)} ${seconds.toFixed(0).padStart(5)} s`);
console.log(`  ${"all".padEnd(20)} ${((Date.now() - suiteStarted) / 1000).toFixed(0).padStart(5)} s (checks included)`);
console.log(`\nprojects failing: ${broken.length ? broken.join(", ") : "none"}`);
for (const f of failures) console.log(`  FAILED ${f}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(broken.length || failed ? 1 : 0);
