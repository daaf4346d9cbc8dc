#!/usr/bin/env node
// Builds the worker into worker/dist: its entry (index.js, what an isolate evaluates when it starts)
// and one module per part that is only reached through a dynamic import() (the route groups, the
// OpenAPI document, PDF rendering, signing, the DGII client, e-mail, the 606/607 ...), as *.chunk.js
// files. wrangler's own bundling puts every module into one script (esbuild inlines dynamic imports
// when it writes one file), which the runtime compiles whole when an isolate starts; here each lazy
// part stays a module of its own, uploaded beside the entry (wrangler.toml's ESModule rule for
// *.chunk.js) and compiled only when imported where the runtime compiles modules on import
// (bench/cold-start.bench.ts measures both). `npm run deploy` and `npm start` build with this, then
// give wrangler worker/dist/index.js as the entry with --no-bundle (npm start with watchWorker:
// built again on every change of what it is built from). The options are wrangler's own for a
// module worker (its conditions, target, keepNames, NODE_ENV), plus wrangler.toml's [alias] and its
// Text rule for the ledger's .sql migrations (inlined as text).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, context } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const workerDist = join(root, "worker", "dist");

/** wrangler.toml's [alias] table (specifier → module), which wrangler applies when it bundles the source. */
function aliases() {
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const section = /^\[alias\]\n((?:[^[\n].*\n?)*)/m.exec(toml)?.[1] ?? "";
  return Object.fromEntries([...section.matchAll(/^"([^"]+)"\s*=\s*"([^"]+)"/gm)].map((m) => [m[1], m[2]]));
}

/** An esbuild plugin resolving each aliased specifier exactly, from the repository's root (as wrangler does). */
function aliasPlugin(table) {
  const escaped = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return {
    name: "wrangler-toml-alias",
    setup(b) {
      const names = Object.keys(table);
      if (!names.length) return;
      const filter = new RegExp(`^(${names.map(escaped).join("|")})$`);
      b.onResolve({ filter }, (args) => b.resolve(table[args.path], { kind: args.kind, resolveDir: root }));
    },
  };
}

/** The build's options: everything reachable from worker/src/index.ts, split at each dynamic import. */
function options(outdir, minify) {
  return {
    entryPoints: { index: join(root, "worker", "src", "index.ts") },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    chunkNames: "[name]-[hash].chunk",
    absWorkingDir: root,
    target: "es2024",
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*", "node:*"],
    loader: { ".sql": "text" },
    define: {
      "process.env.NODE_ENV": JSON.stringify(process.env.NODE_ENV || "production"),
      "navigator.userAgent": '"Cloudflare-Workers"',
    },
    plugins: [aliasPlugin(aliases())],
    minify,
    keepNames: true,
    sourcemap: "linked",
    metafile: true,
    write: false,
    logLevel: "warning",
  };
}

/** Writes a build's files into `outdir`, then removes what an earlier build left there and this one did not write. */
function writeOutput(outdir, outputFiles) {
  mkdirSync(outdir, { recursive: true });
  const written = new Set();
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.contents);
    written.add(relative(outdir, file.path));
  }
  // Only now, so that a wrangler dev reading the folder meanwhile still finds every module.
  for (const name of readdirSync(outdir)) if (!written.has(name)) rmSync(join(outdir, name), { force: true });
}

/** Builds the worker into `outdir` (worker/dist); its esbuild metafile. */
export async function buildWorker({ outdir = workerDist, minify = true } = {}) {
  const result = await build(options(outdir, minify));
  writeOutput(outdir, result.outputFiles);
  return result.metafile;
}

/** Builds the worker into `outdir`, then again whenever a file it is built from changes; stop() ends it. */
export async function watchWorker({ outdir = workerDist, minify = true } = {}) {
  const base = options(outdir, minify);
  let first;
  const built = new Promise((resolve) => (first = resolve));
  const writer = {
    name: "write-and-prune",
    setup(b) {
      b.onEnd((result) => {
        if (result.errors.length === 0) writeOutput(outdir, result.outputFiles ?? []);
        first(result);
      });
    },
  };
  const ctx = await context({ ...base, plugins: [...base.plugins, writer] });
  await ctx.watch();
  const result = await built;
  if (result.errors.length) {
    await ctx.dispose();
    throw new Error("the worker's build failed");
  }
  return { stop: () => ctx.dispose() };
}

// `node scripts/build-worker.mjs [--watch] [--outdir <folder>]`: one build, or (npm start, which runs
// this in a process group of its own and stops the group) a build kept up to date until signalled.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--outdir");
  const outdir = at >= 0 ? args[at + 1] : workerDist;
  const started = performance.now();
  if (args.includes("--watch")) await watchWorker({ outdir });
  else await buildWorker({ outdir });
  const modules = readdirSync(outdir).filter((f) => f.endsWith(".js")).length;
  const took = Math.round(performance.now() - started);
  console.log(`worker built into ${relative(root, outdir) || "."}: ${modules} modules in ${took} ms`);
  if (args.includes("--watch")) console.log("(built again on every change of worker/src or shared/src)");
}
