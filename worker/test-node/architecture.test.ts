// The worker's layers, checked on the tree (docs/ARCHITECTURE.md draws them): no import cycle
// between modules of worker/src nor between its folders, nothing below the edge imports http/,
// storage never imports the HTTP edge, the Durable Object classes stay thin shells whose methods
// hand out facets, a facet method holds nothing but a call, a refusal mapping or a transaction, no
// function in worker/src, shared/src or pos-client/src needs a map to be read, and no source names
// an issue.
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

/** A call whose function arguments are calls again: `f(x)`, `refusalsAsData(() => g(x))`, `transactionSync(() => g(x))`. */
function isPlainCall(expression: ts.Expression): boolean {
  if (!ts.isCallExpression(expression)) return false;
  return expression.arguments.every((argument) =>
    ts.isArrowFunction(argument)
      ? !ts.isBlock(argument.body) && isPlainCall(argument.body)
      : !ts.isFunctionLike(argument),
  );
}

/** A method body of one statement: `return <call>;` or `<call>;` (`await <call>;` for a platform handler). */
function isOneCall(body: ts.Block, allowAwait = false): boolean {
  if (body.statements.length !== 1) return false;
  const [statement] = body.statements;
  let expression =
    ts.isReturnStatement(statement!) || ts.isExpressionStatement(statement!) ? statement.expression : undefined;
  if (allowAwait && expression && ts.isAwaitExpression(expression)) expression = expression.expression;
  return expression !== undefined && isPlainCall(expression);
}

/** `return new Facet(…);`: an object hands out a facet built from what it holds. */
function isFacetAccessor(body: ts.Block): boolean {
  const [statement] = body.statements;
  return (
    body.statements.length === 1 &&
    ts.isReturnStatement(statement!) &&
    statement.expression !== undefined &&
    ts.isNewExpression(statement.expression) &&
    !(statement.expression.arguments ?? []).some((a) => ts.isFunctionLike(a))
  );
}

/** The platform's handlers a Durable Object may define beside its facet accessors. */
const PLATFORM_HANDLERS = new Set(["fetch", "alarm", "webSocketMessage", "webSocketClose", "webSocketError"]);

/**
 * The object rule, on one module's text: a facet method (of a class extending RpcTarget) holds
 * nothing but a call, a refusal mapping or a transaction; a Durable Object class's methods are its
 * facet accessors and the platform's handlers, each one call. Answers "Class.method" for each breach.
 */
function objectRuleBreaches(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const breaches: string[] = [];
  for (const node of source.statements) {
    if (!ts.isClassDeclaration(node) || !node.name) continue;
    const base = node.heritageClauses?.[0]?.types[0]?.expression.getText(source);
    if (base !== "RpcTarget" && base !== "DurableObject") continue;
    for (const member of node.members) {
      if (!ts.isMethodDeclaration(member) || !member.body) continue;
      const name = member.name.getText(source);
      const kept =
        base === "RpcTarget"
          ? isOneCall(member.body)
          : PLATFORM_HANDLERS.has(name)
            ? isOneCall(member.body, true)
            : isFacetAccessor(member.body);
      if (!kept) breaches.push(`${node.name.text}.${name}`);
    }
  }
  return breaches;
}

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

  it("keeps the issuer's and the month's storage apart in ledger/: no cycle between its folders and root files", () => {
    const ledger = join(workerSrc, "ledger");
    const inLedger = new Map(
      [...graph]
        .filter(([m]) => m.startsWith(`${ledger}/`))
        .map(([m, targets]) => [m, targets.filter((t) => t.startsWith(`${ledger}/`))]),
    );
    const folders = folderGraph(inLedger, ledger);
    expect(folders.get("issuer")).not.toContain("month");
    expect(cycles(folders)).toEqual([]);
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

  it("keeps each object method to a call, a refusal mapping or a transaction (objects/)", () => {
    const objects = modulesUnder(join(workerSrc, "objects"));
    expect(
      objects.flatMap((file) =>
        objectRuleBreaches(file, readFileSync(file, "utf8")).map((b) => `${short(file)}: ${b}`),
      ),
    ).toEqual([]);
  });

  it("finds a facet method that does more than one call, and an object method that is no facet (the check can fail)", () => {
    const facet = `
      class Kept extends RpcTarget {
        read(id: string) { return rows.byId(this.db, id); }
        write(id: string) { return refusalsAsData(() => this.storage.transactionSync(() => rows.write(this.db, id))); }
        drop(id: string) { rows.drop(this.db, id); }
      }
      class Thick extends RpcTarget {
        decide(id: string) { const row = rows.byId(this.db, id); return row ? rows.write(this.db, id) : null; }
        guard(id: string) { if (!id) throw new Error("no id"); }
        wrapped(id: string) { return refusalsAsData(() => { rows.drop(this.db, id); return rows.byId(this.db, id); }); }
        answer(id: string) { return rows.byId(this.db, id) ?? null; }
      }
      class Shell extends DurableObject<Env> {
        numbering() { return new NumberingFacet(this.db); }
        async alarm() { await runWatch(this.host); }
        number(request: Request) { return new NumberingFacet(this.db).number(request); }
      }`;
    expect(objectRuleBreaches("facets.ts", facet)).toEqual([
      "Thick.decide",
      "Thick.guard",
      "Thick.wrapped",
      "Thick.answer",
      "Shell.number",
    ]);
  });

  it("calls every facet method somewhere in worker/src (no RPC without a caller)", () => {
    const surfaces = ["ledger/issuer/issuer-rpc.ts", "ledger/month/month-rpc.ts"].map((f) => join(workerSrc, f));
    const methods = surfaces.flatMap((file) => {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      return source.statements
        .filter(ts.isInterfaceDeclaration)
        .filter((i) => i.heritageClauses?.[0]?.types[0]?.expression.getText(source) === "Rpc.RpcTargetBranded")
        .flatMap((i) => i.members.filter(ts.isMethodSignature).map((m) => `${i.name.text}.${m.name.getText(source)}`));
    });
    const callers = modulesUnder(workerSrc)
      .filter((file) => !short(file).startsWith("objects/") && !surfaces.includes(file))
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    expect(methods.length).toBeGreaterThan(40);
    expect(methods.filter((m) => !callers.includes(`.${m.split(".")[1]}(`))).toEqual([]);
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
    expect(cycles(folderGraph(importGraph(dir), dir))).toEqual([]);
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
    expect(cycles(folderGraph(graph, dir))).toEqual([["db.ts", "sale", "shift"]]);
    // The files of one folder importing each other make no folder cycle.
    expect(cycles(folderGraph(new Map([[sale, [join(dir, "sale/document.ts")]]]), dir))).toEqual([]);
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
