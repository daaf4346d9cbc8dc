#!/usr/bin/env node
// The API reference's script among the worker's static assets, so /docs needs no CDN and works
// offline: Scalar's browser bundle (@scalar/api-reference, 4 MB) is copied from node_modules into
// wrangler.toml's [assets] directory as docs/scalar.js, served by Cloudflare beside the worker
// rather than inside its script (which it would double). `npm start` runs this; so must a deploy.
//   node scripts/docs-assets.mjs
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { root } from "./lib.mjs";

/** Where the page (worker/src/routes/docs.ts) loads the script from. */
export const SCALAR_SCRIPT_PATH = "/docs/scalar.js";

/** wrangler.toml's [assets] directory (the POS and the console builds are served from it too). */
export function assetsDirectory() {
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const section = toml.split(/^\[assets\]\s*$/m)[1]?.split(/^\[/m)[0] ?? "";
  const directory = /^directory\s*=\s*"([^"]+)"/m.exec(section)?.[1];
  if (!directory) throw new Error("wrangler.toml has no [assets] directory");
  return join(root, directory);
}

/** @scalar/api-reference's folder, resolved from the worker whose dependency it is (its exports hide package.json). */
function scalarPackageDirectory() {
  let dir = dirname(createRequire(join(root, "worker", "package.json")).resolve("@scalar/api-reference"));
  while (
    !existsSync(join(dir, "package.json")) ||
    JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name !== "@scalar/api-reference"
  ) {
    if (dirname(dir) === dir) throw new Error("@scalar/api-reference is not installed: run npm install");
    dir = dirname(dir);
  }
  return dir;
}

/**
 * Copies Scalar's standalone bundle into the assets; returns the file written. A copy already in
 * place is left untouched, so that a `wrangler dev` serving the assets (another test stack) does
 * not see a change and reload mid-request.
 */
export function placeDocsAssets() {
  const bundle = join(scalarPackageDirectory(), "dist", "browser", "standalone.js");
  const target = join(assetsDirectory(), SCALAR_SCRIPT_PATH);
  if (existsSync(target) && readFileSync(target).equals(readFileSync(bundle))) return target;
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(bundle, target);
  return target;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(`wrote ${placeDocsAssets()}`);
