// What the worker evaluates when an isolate starts is its entry's static import graph: a module
// reached only through a dynamic import() is bundled but not run until first used. Rendering a
// receipt's PDF (the QR encoder, font metrics, deflate) is loaded where it is used, so that a
// cold start does not pay for it (bench/cold-start.bench.ts measures the start-up); so is every
// route group, whose module builds its routes' zod schemas when it runs (app.ts, http/lazy-routes.ts).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const workerSrc = resolve(dirname(fileURLToPath(import.meta.url)), "../src");
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

/** Relative specifiers resolved to files under worker/src; package specifiers as they are. */
const target = (from: string, specifier: string) =>
  specifier.startsWith(".") ? resolve(dirname(from), specifier) : specifier;

/** Every worker/src module and package the entry evaluates at start-up, and every dynamic import seen on the way. */
function startUpGraph(): { evaluated: Set<string>; lazy: Set<string> } {
  const evaluated = new Set<string>([entry]);
  const lazy = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    const { static: statics, dynamic } = importsOf(file);
    for (const specifier of dynamic) lazy.add(target(file, specifier));
    for (const specifier of statics) {
      const to = target(file, specifier);
      if (evaluated.has(to)) continue;
      evaluated.add(to);
      if (to.startsWith(workerSrc) && to.endsWith(".ts")) queue.push(to);
    }
  }
  return { evaluated, lazy };
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
});
