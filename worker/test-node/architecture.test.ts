// The worker's layers, checked on the tree (docs/ARCHITECTURE.md draws them): no import cycle
// between modules of worker/src nor between its folders, nothing below the edge imports http/,
// storage never imports the HTTP edge, the Durable Object classes stay thin shells, no function in
// worker/src, shared/src or pos-client/src needs a map to be read, and no source names an issue.
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

/**
 * The folder graph of a module graph: folder A -> B when a module in A imports one in B. A file at
 * `dir`'s root (app.ts, index.ts, env.ts, version.ts) is a node of its own, named by its file name.
 */
function folderGraph(graph: Map<string, string[]>, dir: string): Map<string, string[]> {
  const folderOf = (file: string) => relative(dir, file).split("/")[0]!;
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const edges = folders.get(folderOf(from)) ?? new Set<string>();
    for (const t of targets) if (folderOf(t) !== folderOf(from)) edges.add(folderOf(t));
    folders.set(folderOf(from), edges);
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges].sort()]));
}

/** The imports from modules that `from` accepts of modules that `to` accepts, as "from -> target". */
function crossings(graph: Map<string, string[]>, from: (m: string) => boolean, to: (m: string) => boolean) {
  return [...graph].flatMap(([m, targets]) =>
    from(m) ? targets.filter(to).map((t) => `${short(m)} -> ${short(t)}`) : [],
  );
}

/** Lines of the TypeScript and JavaScript sources under `dir` that name an issue ("issue 44"). */
function issueReferences(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|mjs|js)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => !/\/(node_modules|generated)\//.test(file))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (/\bissues? \d+/i.test(line) ? [`${relative(root, file)}:${i + 1}`] : [])),
    );
}

/** The HTTP edge of the worker (STYLE.md's first layer): everything else is below it. */
const EDGE = ["http/", "routes/", "app.ts", "index.ts"];
const inEdge = (file: string) => EDGE.some((e) => short(file) === e || short(file).startsWith(e));

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

  it("has no import cycle between folders of worker/src (a root file is a node of its own)", () => {
    expect(cycles(folderGraph(graph, workerSrc))).toEqual([]);
  });

  it("finds a folder cycle where no module cycle is (the check can fail)", () => {
    const [ax, aw, by, bz] = ["a/x.ts", "a/w.ts", "b/y.ts", "b/z.ts"].map((f) => join(workerSrc, f));
    const modules = new Map([
      [ax!, [by!]],
      [aw!, []],
      [by!, []],
      [bz!, [aw!]],
    ]);
    expect(cycles(modules)).toEqual([]);
    expect(cycles(folderGraph(modules, workerSrc))).toEqual([["a", "b"]]);
  });

  it("keeps every module below the edge from importing http/", () => {
    const isHttp = (file: string) => short(file).startsWith("http/");
    expect(crossings(graph, (m) => !inEdge(m), isHttp)).toEqual([]);
  });

  it("keeps storage (ledger/, db/, archive/) from importing the HTTP edge or the routes", () => {
    const storage = ["ledger/", "db/", "archive/"];
    const edge = ["http/", "routes/", "app.ts"];
    const isStorage = (file: string) => storage.some((s) => short(file).startsWith(s));
    expect(crossings(graph, isStorage, (t) => edge.some((e) => short(t).startsWith(e)))).toEqual([]);
  });

  it("keeps storage to itself: ledger/, db/ and archive/ import only storage and what is below all", () => {
    const below = ["ledger/", "db/", "archive/", "errors/", "crypto/"];
    const isStorage = (file: string) => ["ledger/", "db/", "archive/"].some((s) => short(file).startsWith(s));
    expect(crossings(graph, isStorage, (t) => !below.some((b) => short(t).startsWith(b)))).toEqual([]);
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

  it("has no function over 80 lines in worker/src, shared/src or pos-client/src", () => {
    const dirs = ["worker/src", "shared/src", "pos-client/src"].map((d) => join(root, d));
    expect(dirs.flatMap((dir) => longFunctions(dir, 80))).toEqual([]);
  });

  it("names no issue in source code (a comment says why instead)", () => {
    const dirs = ["worker/src", "shared/src", "pos-client/src", "console/src", "sdk/src", "scripts"];
    expect(dirs.flatMap((d) => issueReferences(join(root, d)))).toEqual([]);
  });
});
