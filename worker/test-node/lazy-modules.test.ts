// What the worker evaluates when an isolate starts is its entry's static import graph: a module
// reached only through a dynamic import() is in the upload but not run until first used (and, where
// the runtime compiles modules lazily, not compiled either: scripts/build-worker.mjs keeps each such
// part a module of its own). Rendering a receipt's PDF, every route group (whose module builds its
// routes' zod schemas when it runs), the OpenAPI router, signing and the XML libraries, the DGII
// client, e-mail and what the month alarm runs load where they are used, so that a cold start does
// not pay for them (bench/cold-start.bench.ts measures the start-up). The graph is read from the
// source (worker/src and the @ecf/shared modules it imports), then from the deploy build itself.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { buildWorker } from "../../scripts/build-worker.mjs";

const workerSrc = resolve(dirname(fileURLToPath(import.meta.url)), "../src");
const sharedSrc = resolve(workerSrc, "../../shared/src");
const entry = join(workerSrc, "index.ts");

/** The module's imports that run with it (`import type` and `export type` are erased) and its dynamic import()s. */
function importsOf(file: string): { static: string[]; dynamic: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const found = { static: [] as string[], dynamic: [] as string[] };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly)
      found.static.push((node.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly)
      found.static.push((node.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteral(first)) found.dynamic.push(first.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Relative specifiers and @ecf/shared's (its package.json exports) resolved to files; other packages as they are. */
function target(from: string, specifier: string): string {
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier);
  if (specifier === "@ecf/shared") return join(sharedSrc, "index.ts");
  if (specifier.startsWith("@ecf/shared/")) return join(sharedSrc, `${specifier.slice("@ecf/shared/".length)}.ts`);
  return specifier;
}
const inSource = (file: string) => (file.startsWith(workerSrc) || file.startsWith(sharedSrc)) && file.endsWith(".ts");

/** The modules `from` reaches by static imports only (`dynamic` too: by both), and the dynamic imports seen on the way. */
function walk(from: string, dynamic: boolean): { reached: Set<string>; lazy: Set<string> } {
  const reached = new Set<string>([from]);
  const lazy = new Set<string>();
  const queue = [from];
  while (queue.length) {
    const file = queue.pop()!;
    const imports = importsOf(file);
    for (const specifier of imports.dynamic) lazy.add(target(file, specifier));
    for (const specifier of dynamic ? [...imports.static, ...imports.dynamic] : imports.static) {
      const to = target(file, specifier);
      if (reached.has(to)) continue;
      reached.add(to);
      if (inSource(to)) queue.push(to);
    }
  }
  return { reached, lazy };
}

/**
 * Every source module and package the entry evaluates at start-up, and every module the worker
 * imports dynamically anywhere (on the way from the entry through imports of either kind).
 */
function startUpGraph(): { evaluated: Set<string>; lazy: Set<string> } {
  return { evaluated: walk(entry, false).reached, lazy: walk(entry, true).lazy };
}

describe("the worker's start-up import graph", () => {
  const { evaluated, lazy } = startUpGraph();

  it("walks the whole app (the check reads the real graph)", () => {
    expect(evaluated.has(join(workerSrc, "app.ts"))).toBe(true);
    expect(evaluated.has(join(workerSrc, "objects/receipt-month.ts"))).toBe(true);
    expect(evaluated.size).toBeGreaterThan(50);
  });

  it("does not evaluate the route groups nor the API's schemas: each group loads on its prefix's first request", () => {
    const routes = readdirSync(join(workerSrc, "routes")).map((f) => join(workerSrc, "routes", f));
    const schemas = readdirSync(join(workerSrc, "http/schemas")).map((f) => join(workerSrc, "http/schemas", f));
    const document = ["http/api-document.ts", "http/openapi.ts", "http/ecf-request.ts"].map((m) => join(workerSrc, m));
    expect([...routes, ...schemas, ...document].filter((m) => evaluated.has(m))).toEqual([]);
    // Still bundled and served: every group is reached by a dynamic import() from app.ts.
    expect(routes.filter((m) => !lazy.has(m))).toEqual([]);
  });

  it("does not evaluate PDF rendering, the QR encoder or deflate: they load on the first render", () => {
    const heavy = ["print/render.ts", "print/qr.ts", "print/font-metrics.ts", "print/pdf-file.ts"];
    expect(heavy.map((m) => join(workerSrc, m)).filter((m) => evaluated.has(m))).toEqual([]);
    expect([...evaluated].filter((m) => /^(qrcode|pako)(\/|$)/.test(m))).toEqual([]);
    // Still bundled and used: reached by a dynamic import().
    expect(lazy.has(join(workerSrc, "print/render.ts"))).toBe(true);
  });
  it("evaluates no package at start-up but the router, the database's and the runtime's", () => {
    const packages = [...evaluated].filter((m) => !m.startsWith("/"));
    expect(packages.filter((p) => !/^(cloudflare:workers|hono|drizzle-orm)(\/|$)/.test(p))).toEqual([]);
  });

  it("does not evaluate zod, signing, XML, certificates, the DGII client, e-mail or what the alarm runs", () => {
    const shared = [
      "index.ts", // the barrel evaluates every module of @ecf/shared
      "catalogs.ts",
      "obligations.ts",
      "signing/xmldsig-signer.ts",
      "signing/fast-signer.ts",
      "signing/verify.ts",
      "signing/certificate.ts",
      "signing/pkcs12.ts",
      "xml/parse.ts",
      "xml/serialize.ts",
      "xml/model.ts",
      "documents/rfce.ts",
    ].map((m) => join(sharedSrc, m));
    const worker = [
      "http/router.ts",
      "dgii/client.ts",
      "dgii/for-company.ts",
      "issuing/transmit.ts",
      "after-dgii/receipt-step.ts",
      "after-dgii/tasks.ts",
      "after-dgii/email.ts",
      "after-dgii/buyer-delivery.ts",
      "catalog/products.ts",
      "catalog/csv.ts",
    ].map((m) => join(workerSrc, m));
    expect([...shared, ...worker].filter((m) => evaluated.has(m))).toEqual([]);
    // Still in the upload, and used: reached by a dynamic import().
    const lazyOnes = ["after-dgii/tasks.ts", "after-dgii/receipt-step.ts", "dgii/for-company.ts", "http/router.ts"];
    expect(lazyOnes.map((m) => join(workerSrc, m)).filter((m) => !lazy.has(m))).toEqual([]);
    expect(lazy.has(join(sharedSrc, "signing/pkcs12.ts"))).toBe(true);
  });
});

describe("the deploy build (scripts/build-worker.mjs)", () => {
  it("keeps every lazily imported part out of the entry's static graph: a small start-up script", async () => {
    const out = mkdtempSync(join(tmpdir(), "ecf-worker-build-"));
    try {
      const meta = await buildWorker({ outdir: out });
      const outputs = Object.entries(meta.outputs).filter(([file]) => file.endsWith(".js"));
      // The metafile names files from the repository's root (the build's working directory).
      const repo = resolve(workerSrc, "../..");
      const byFile = new Map(outputs.map(([file, output]) => [resolve(repo, file), output]));
      const entryFile = resolve(out, "index.js");
      // The entry and what it imports statically: what an isolate evaluates when it starts.
      const startUp = new Set([entryFile]);
      const queue = [entryFile];
      while (queue.length)
        for (const imported of byFile.get(queue.pop()!)!.imports)
          if (
            imported.kind === "import-statement" &&
            !imported.external &&
            !startUp.has(resolve(repo, imported.path))
          ) {
            startUp.add(resolve(repo, imported.path));
            queue.push(resolve(repo, imported.path));
          }
      const inputs = [...startUp].flatMap((file) => Object.keys(byFile.get(file)!.inputs));
      const heavy =
        /node_modules\/(zod|@hono\/zod-openapi|@asteasolutions|pkijs|asn1js|node-forge|@xmldom|xpath|xmldsigjs|worker-mailer|qrcode|pako)\//;
      expect(inputs.filter((input) => heavy.test(input))).toEqual([]);
      expect(inputs.filter((input) => /worker\/src\/routes\/|shared\/src\/generated\//.test(input))).toEqual([]);
      const startBytes = [...startUp].reduce((sum, file) => sum + byFile.get(file)!.bytes, 0);
      const allBytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
      // The whole worker is still built (every route group, the PDF, signing), in modules of its own.
      expect(allBytes).toBeGreaterThan(1024 * 1024);
      expect(outputs.length).toBeGreaterThan(20);
      expect(startBytes).toBeLessThan(400 * 1024);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
