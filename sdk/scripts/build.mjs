#!/usr/bin/env node
// `npm run build -w sdk`: the publishable @ecf/client in sdk/dist, a package of its own. In this
// repository the workspace package is TypeScript source (its `exports` point at src/, read as it
// is by Vite, Vitest and tsx); what an integrator installs is this build: ESM JavaScript with its
// .d.ts declarations (tsc, tsconfig.build.json), the README, and a package.json whose version is
// the API's own (worker/src/version.ts, the one place it is written), so a client of 1.12.0 speaks
// API 1.12.0. `npm pack ./sdk/dist` (or `npm publish ./sdk/dist`) packs it: see sdk/README.md.
import { spawnSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const sdkDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = join(sdkDir, "..");

/** The API's version, read from the one module that declares it. */
export function apiVersion() {
  const source = readFileSync(join(root, "worker/src/version.ts"), "utf8");
  const found = /export const API_VERSION = "([^"]+)"/.exec(source);
  if (!found) throw new Error("worker/src/version.ts declares no API_VERSION");
  return found[1];
}

/** Every file under `dir`, recursively. */
const filesUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );

/** Builds sdk/dist (or `outDir`) and answers its path. */
export function buildSdk(outDir = join(sdkDir, "dist")) {
  rmSync(outDir, { recursive: true, force: true });
  const tsc = spawnSync(
    process.execPath,
    [join(root, "node_modules/typescript/bin/tsc"), "-p", join(sdkDir, "tsconfig.build.json"), "--outDir", outDir],
    { stdio: "inherit" },
  );
  if (tsc.status !== 0) throw new Error(`tsc -p sdk/tsconfig.build.json failed (${tsc.status})`);
  // tsc rewrites `./x.ts` to `./x.js` in the JavaScript only; the declarations name the .js too.
  for (const file of filesUnder(outDir).filter((f) => f.endsWith(".d.ts")))
    writeFileSync(file, readFileSync(file, "utf8").replace(/(from "\.{1,2}\/[^"]+)\.ts"/g, '$1.js"'));
  const source = JSON.parse(readFileSync(join(sdkDir, "package.json"), "utf8"));
  const published = {
    name: source.name,
    version: apiVersion(),
    description: source.description,
    type: "module",
    exports: {
      ".": { types: "./index.d.ts", default: "./index.js" },
      "./generated/openapi": { types: "./generated/openapi.d.ts", default: "./generated/openapi.js" },
    },
    types: "./index.d.ts",
    sideEffects: false,
    engines: source.engines,
    dependencies: source.dependencies,
  };
  writeFileSync(join(outDir, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  copyFileSync(join(sdkDir, "README.md"), join(outDir, "README.md"));
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(`built ${buildSdk()}`);
