// The workerd XSD engine (src/receiving/xsd) runs a copy of xmllint-wasm's Emscripten factory and
// WebAssembly binary: they must be the installed package's, so an upgrade cannot drift silently.
// WRITE_XMLLINT_GLUE=1 regenerates them from node_modules.
import { createHash } from "node:crypto";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const pkgDir = path.dirname(require.resolve("xmllint-wasm/package.json"));
const here = path.join(import.meta.dirname, "../src/receiving/xsd");

function glueFromPackage(): string {
  const src = readFileSync(path.join(pkgDir, "xmllint-browser.mjs"), "utf8");
  const version = (JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { version: string }).version;
  const end = src.indexOf("if (typeof exports === 'object'");
  if (end < 0) throw new Error("xmllint-browser.mjs changed shape: adapt the glue extraction");
  return `// GENERATED from xmllint-wasm ${version} (xmllint-browser.mjs, MIT, (c) kripken, sterpe, noppa):
// its Emscripten factory without the Web Worker wrapper, so workerd (no Worker constructor) can
// run libxml2 in-process. Regenerate: WRITE_XMLLINT_GLUE=1 npx vitest run -c worker/vitest.node.config.ts xmllint-glue
/* eslint-disable */
// @ts-nocheck
${src.slice(0, end).trimEnd()}
export default Module;
`;
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("xmllint glue for workerd", () => {
  it("is the installed xmllint-wasm's factory and binary", () => {
    if (process.env.WRITE_XMLLINT_GLUE) {
      writeFileSync(path.join(here, "xmllint-glue.js"), glueFromPackage());
      copyFileSync(path.join(pkgDir, "xmllint.wasm"), path.join(here, "xmllint.wasm"));
    }
    expect(readFileSync(path.join(here, "xmllint-glue.js"), "utf8")).toBe(glueFromPackage());
    expect(sha(readFileSync(path.join(here, "xmllint.wasm")))).toBe(sha(readFileSync(path.join(pkgDir, "xmllint.wasm"))));
  });
});
