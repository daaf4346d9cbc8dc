#!/usr/bin/env node
// `npm test`: install the system tools the tests need (or say which are missing), check formatting
// and types, build once what the projects serve, then run the test projects, two at a time where
// they do not disturb each other. Prints each project's wall time, the slowest files and a closing
// `N passed, N failed` line. `npm run test:quick` (`--quick`): the same checks and only the unit
// projects, no browser and no local stack (a few minutes: the inner loop; CI runs the whole suite).
import { spawn, spawnSync } from "node:child_process";
import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { buildWorker } from "./build-worker.mjs";
import { assetsDirectory, placeDocsAssets } from "./docs-assets.mjs";
import { root, wranglerBin, wranglerEnv } from "./lib.mjs";

const PACKAGES = ["shared", "ui-kit", "worker", "pos-client", "console", "dgii-sandbox", "sdk"];
/**
 * Test projects: a package folder and, where it has several, the vitest config to use. `stack`: it
 * starts local stacks (the worker's split build, a migrated state, the assets); `builds`: the front
 * ends those stacks serve. Listed longest first, the order they are started in.
 */
const PROJECTS = [
  { name: "console", dir: "console", stack: true, builds: ["console"] },
  { name: "worker-node", dir: "worker", config: "vitest.node.config.ts", stack: true },
  { name: "pos-client", dir: "pos-client", stack: true, builds: ["pos-client"] },
  { name: "worker", dir: "worker" },
  { name: "worker-browser", dir: "worker", config: "vitest.browser.config.ts", stack: true },
  { name: "shared", dir: "shared" },
  { name: "sdk", dir: "sdk", stack: true },
  { name: "dgii-sandbox", dir: "dgii-sandbox" },
];
/** The quick subset: pure and in-process tests only (pos-client and console without their Chromium tests). */
const QUICK = [
  { name: "shared", dir: "shared" },
  { name: "pos-client (unit)", dir: "pos-client", args: ["--exclude", "test/browser/**"] },
  { name: "console (unit)", dir: "console", args: ["--exclude", "test/browser/**"] },
  { name: "dgii-sandbox", dir: "dgii-sandbox" },
];
// `node scripts/test.mjs worker shared`: only the projects named.
// `--jobs 1`: one project at a time (the projects' own files still run in parallel where they may).
const { positionals: only, values: flags } = parseArgs({
  allowPositionals: true,
  options: {
    quick: { type: "boolean", default: false },
    jobs: { type: "string", default: String(Math.min(2, availableParallelism())) },
  },
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

/** Runs a command with its output kept; resolves to its status and output, printed by the caller. */
function capture(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: wranglerEnv, ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (status) => resolve({ status, output }));
  });
}

/** Runs `tasks` (functions returning promises) with at most `jobs` at once; their results in order. */
async function pool(tasks, jobs) {
  const results = [];
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, tasks.length) }, lane));
  return results;
}

const jobs = Math.max(1, Number(flags.jobs) || 1);

const out = mkdtempSync(join(tmpdir(), "ecf-test-"));

// Biome (the tree stays formatted as committed, and its linter finds nothing: biome.json), tsc for
// each package, and what the chosen projects' stacks serve, built once here rather than once per
// test file: the worker's split build (what `npm run deploy` uploads), a D1 state with the
// migrations applied (copied into each stack's own), the POS and the console (Vite), and /docs's
// script. Independent and single-threaded each, so run side by side; the tests find the builds
// through the variables set below and build nothing themselves (scripts/local-stack.ts).
step("format and lint (biome), typecheck, builds");
const CHECKS = [
  { title: "biome ci", cmd: join(root, "node_modules/.bin/biome"), args: ["ci", "."] },
  ...[...PACKAGES, "worker/tsconfig.node.json", "scripts", "bench"].map((project) => ({
    title: `tsc -p ${project}`,
    cmd: join(root, "node_modules/.bin/tsc"),
    args: ["-p", project],
  })),
];
const env = { ...wranglerEnv };
const stacks = projects.some((p) => p.stack);
const frontends = [...new Set(projects.flatMap((p) => p.builds ?? []))];
const paths = { worker: join(out, "worker-build"), state: join(out, "migrated-state"), assets: join(out, "assets") };
const BUILDS = stacks
  ? [
      { title: "worker split build", run: () => buildWorker({ outdir: paths.worker }).then(() => ({ status: 0 })) },
      {
        title: "migrated D1 state",
        cmd: wranglerBin,
        args: ["d1", "migrations", "apply", "DB", "--local", "-c", "wrangler.toml", "--persist-to", paths.state],
      },
      ...frontends.map((workspace) => ({
        title: `vite build ${workspace}`,
        cmd: join(root, "node_modules/.bin/vite"),
        args: ["build", "--logLevel", "warn"],
        cwd: join(root, workspace),
      })),
    ]
  : [];
const checked = await pool(
  [...CHECKS, ...BUILDS].map((check) => async () => {
    const started = Date.now();
    const result = check.run
      ? await check.run().catch((error) => ({ status: 1, output: String(error?.stack ?? error) }))
      : await capture(check.cmd, check.args, check.cwd ? { cwd: check.cwd } : {});
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`  ${check.title}: ${result.status === 0 ? "ok" : "FAILED"} (${seconds} s)`);
    return { ...check, ...result };
  }),
  jobs,
);
const badChecks = checked.filter((c) => c.status !== 0);
for (const c of badChecks) console.error(`\n${c.title} failed:\n${c.output ?? ""}`);
if (badChecks.some((c) => c.title === "biome ci"))
  console.error("biome ci failed: run `npx biome check --write .` and commit the result");
if (badChecks.length) process.exit(1);
if (stacks) {
  placeDocsAssets();
  // The stacks serve this copy: `npm start` (in its own tests) builds wrangler.toml's folder again.
  cpSync(assetsDirectory(), paths.assets, { recursive: true });
  Object.assign(env, {
    ECF_TEST_WORKER_BUILD: paths.worker,
    ECF_TEST_MIGRATED_STATE: paths.state,
    ECF_TEST_ASSETS: paths.assets,
    ...(frontends.length ? { ECF_TEST_FRONTENDS_BUILT: frontends.join(",") } : {}),
  });
}

let passed = 0;
let failed = 0;
const broken = [];
const failures = [];
/** Wall time of each project, printed at the end so a slow one is visible. */
const timings = [];
/** Every test file's duration, across projects: the slowest are printed at the end. */
const files = [];

/** One project's vitest run, its output kept in a file and printed whole when it ends. */
async function runProject({ name, dir, config, args: extra = [] }) {
  const report = join(out, `${name.replace(/\W+/g, "-")}.json`);
  const logFile = join(out, `${name.replace(/\W+/g, "-")}.log`);
  const args = [
    "run",
    ...(config ? ["--config", config] : []),
    ...extra,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    `--reporter=${join(root, "scripts/file-times-reporter.mjs")}`,
  ];
  const times = join(out, `${name.replace(/\W+/g, "-")}.times.json`);
  const started = Date.now();
  const log = openSync(logFile, "w");
  const status = await new Promise((resolve) => {
    const child = spawn(join(root, "node_modules/.bin/vitest"), args, {
      cwd: join(root, dir),
      env: { ...env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0", ECF_TEST_FILE_TIMES: times },
      stdio: ["ignore", log, log],
    });
    child.on("close", resolve);
  });
  closeSync(log);
  const seconds = (Date.now() - started) / 1000;
  timings.push({ name, seconds });
  step(`tests: ${name} (${seconds.toFixed(0)} s)`);
  process.stdout.write(readFileSync(logFile, "utf8"));
  try {
    const r = JSON.parse(readFileSync(report, "utf8"));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    for (const file of r.testResults ?? []) {
      const path = `${name}: ${relative(join(root, dir), file.name)}`;
      // Named again at the end: a CI log that keeps only its tail still says what failed.
      for (const t of file.assertionResults ?? [])
        if (t.status === "failed")
          failures.push(
            `${path} > ${t.fullName}\n    ${String(t.failureMessages?.[0] ?? "")
              .split("\n")[0]
              .slice(0, 300)}`,
          );
    }
  } catch {
    failed++;
  }
  try {
    for (const { file, seconds } of JSON.parse(readFileSync(times, "utf8")))
      files.push({ path: `${name}: ${relative(join(root, dir), file)}`, seconds });
  } catch {
    // No times (vitest stopped before the end): the project's failure says why.
  }
  if (status !== 0) broken.push(name);
}

// Up to `jobs` projects at once, longest first: each has its own stacks, ports and state, and the
// stacks serve the run's copy of the assets, so none disturbs another.
await pool(
  projects.map((project) => () => {
    if (jobs > 1) console.log(`  started: ${project.name}`);
    return runProject(project);
  }),
  jobs,
);

console.log("\nwall time per project:");
for (const { name, seconds } of timings) console.log(`  ${name.padEnd(20)} ${seconds.toFixed(0).padStart(5)} s`);
console.log(`  ${"all".padEnd(20)} ${((Date.now() - suiteStarted) / 1000).toFixed(0).padStart(5)} s (checks included)`);
console.log("\nslowest files:");
for (const { path, seconds } of files.sort((a, b) => b.seconds - a.seconds).slice(0, 10))
  console.log(`  ${seconds.toFixed(0).padStart(5)} s  ${path}`);
rmSync(out, { recursive: true, force: true });
console.log(`\nprojects failing: ${broken.length ? broken.join(", ") : "none"}`);
for (const f of failures) console.log(`  FAILED ${f}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(broken.length || failed ? 1 : 0);
