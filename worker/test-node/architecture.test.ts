// The worker's layers, checked on the tree (docs/ARCHITECTURE.md draws them): no import cycle
// between modules of worker/src, storage never imports the HTTP edge, the Durable Object classes
// stay thin shells, and no function in worker/src or pos-client/src needs a map to be read.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const workerSrc = join(root, "worker/src");

/** Every TypeScript module under `dir` (generated code aside: it is checked against its generator). */
function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ts$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => !relative(dir, file).split("/").includes("generated"));
}

/** The modules of `dir` a module imports (type-only imports too: a cycle of types is still a cycle). */
function importsOf(file: string, modules: Set<string>): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteral(first)) specifiers.push(first.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      specifiers.push((node.argument.literal as ts.StringLiteral).text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers
    .filter((s) => s.startsWith("."))
    .map((s) => resolve(dirname(file), s))
    .flatMap((target) => [target, `${target}.ts`, join(target, "index.ts")].filter((t) => modules.has(t)).slice(0, 1));
}

/** Strongly connected components with more than one module (Tarjan): each is an import cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}

function importGraph(dir: string): Map<string, string[]> {
  const modules = modulesUnder(dir);
  const known = new Set(modules);
  return new Map(modules.map((m) => [m, importsOf(m, known)]));
}

/** Functions longer than `limit` lines (first to last line, nested functions counted in their parent). */
function longFunctions(dir: string, limit: number): string[] {
  const long: string[] = [];
  for (const file of modulesUnder(dir)) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const last = source.getLineAndCharacterOfPosition(node.end).line;
        if (last - first + 1 > limit) long.push(`${relative(root, file)}:${first + 1} (${last - first + 1} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return long;
}

const short = (file: string) => relative(workerSrc, file);

describe("the worker's layers", () => {
  const graph = importGraph(workerSrc);

  it("has no import cycle between modules of worker/src", () => {
    expect(cycles(graph).map((c) => c.map(short))).toEqual([]);
  });

  it("finds a cycle when there is one (the check can fail)", () => {
    const a = join(workerSrc, "a.ts");
    const b = join(workerSrc, "b.ts");
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ).map((c) => c.map(short)),
    ).toEqual([["a.ts", "b.ts"]]);
  });

  it("keeps storage (ledger/, db/, archive/) from importing the HTTP edge or the routes", () => {
    const storage = ["ledger/", "db/", "archive/"];
    const edge = ["http/", "routes/", "app.ts"];
    const crossings = [...graph].flatMap(([from, targets]) =>
      storage.some((s) => short(from).startsWith(s))
        ? targets.filter((t) => edge.some((e) => short(t).startsWith(e))).map((t) => `${short(from)} -> ${short(t)}`)
        : [],
    );
    expect(crossings).toEqual([]);
  });

  it("keeps the Durable Object classes in objects/ as thin shells (at most 250 lines each)", () => {
    const objects = modulesUnder(join(workerSrc, "objects"));
    const classes = objects.filter((file) => /extends DurableObject\b/.test(readFileSync(file, "utf8")));
    expect(classes.map(short).sort()).toEqual(["objects/issuer-ledger.ts", "objects/receipt-month.ts"]);
    const long = objects
      .map((file) => ({ file: short(file), lines: readFileSync(file, "utf8").split("\n").length }))
      .filter(({ lines }) => lines > 250);
    expect(long).toEqual([]);
    // Nothing else declares a Durable Object class, and no module imports one for its types.
    const elsewhere = modulesUnder(workerSrc).filter(
      (file) => !short(file).startsWith("objects/") && /extends DurableObject\b/.test(readFileSync(file, "utf8")),
    );
    expect(elsewhere.map(short)).toEqual([]);
    const importers = [...graph]
      .filter(([from]) => short(from) !== "index.ts" && !short(from).startsWith("objects/"))
      .flatMap(([from, targets]) =>
        targets.filter((t) => classes.includes(t)).map((t) => `${short(from)} -> ${short(t)}`),
      );
    expect(importers).toEqual([]);
  });

  it("has no function over 80 lines in worker/src or pos-client/src", () => {
    expect([...longFunctions(workerSrc, 80), ...longFunctions(join(root, "pos-client/src"), 80)]).toEqual([]);
  });
});

/** The graph between the top folders of `dir` (a file at its root is a node of its own), self-edges left out. */
function folderGraph(dir: string, graph: Map<string, string[]>): Map<string, string[]> {
  const node = (file: string) => relative(dir, file).replace(/\/.*/, "/");
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const edges = folders.get(node(from)) ?? new Set<string>();
    for (const t of targets) if (node(t) !== node(from)) edges.add(node(t));
    folders.set(node(from), edges);
  }
  return new Map([...folders].map(([f, edges]) => [f, [...edges].sort()]));
}

/** What a module names in its imports, re-exports and dynamic imports, exactly as written. */
const specifiersOf = (file: string) =>
  ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.map((f) => f.fileName);

describe("the UI apps", () => {
  const apps = ["pos-client/src", "console/src", "ui-kit/src"];

  it.each(apps)("has no import cycle between modules of %s", (app) => {
    const dir = join(root, app);
    expect(cycles(importGraph(dir)).map((c) => c.map((f) => relative(dir, f)))).toEqual([]);
  });

  it.each(apps)("has no import cycle between the folders and root files of %s", (app) => {
    const dir = join(root, app);
    expect(cycles(folderGraph(dir, importGraph(dir)))).toEqual([]);
  });

  it("finds a cycle between folders when there is one (the check can fail)", () => {
    const dir = join(root, "pos-client/src");
    const [db, sale, shift] = ["db.ts", "sale/issue.ts", "shift/shifts.ts"].map((f) => join(dir, f)) as [
      string,
      string,
      string,
    ];
    const graph = new Map([
      [db, [shift]],
      [sale, [db]],
      [shift, [sale]],
    ]);
    expect(cycles(graph)).toHaveLength(1);
    expect(cycles(folderGraph(dir, graph))).toEqual([["db.ts", "sale/", "shift/"]]);
    // The files of one folder importing each other make no folder cycle.
    expect(cycles(folderGraph(dir, new Map([[sale, [join(dir, "sale/document.ts")]]])))).toEqual([]);
  });

  it.each([
    ["console/src", "pos-client"],
    ["pos-client/src", "console"],
  ])("keeps %s from importing anything of %s (both use @ecf/ui-kit)", (app, other) => {
    const crossings = modulesUnder(join(root, app)).flatMap((file) =>
      specifiersOf(file)
        .filter((s) =>
          s.startsWith(".")
            ? relative(root, resolve(dirname(file), s)).startsWith(`${other}/`)
            : s === `@ecf/${other}` || s.startsWith(`@ecf/${other}/`),
        )
        .map((s) => `${relative(root, file)} -> ${s}`),
    );
    expect(crossings).toEqual([]);
  });

  it("has no function over 80 lines in console/src or ui-kit/src", () => {
    expect([...longFunctions(join(root, "console/src"), 80), ...longFunctions(join(root, "ui-kit/src"), 80)]).toEqual(
      [],
    );
  });
});
