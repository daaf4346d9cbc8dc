// What `npm run deploy` uploads (scripts/build-worker.mjs: the entry and a chunk per lazily
// imported part, served with --no-bundle) on a fresh isolate: the first requests for every route
// group arrive at once, several for the same group and several for groups sharing a segment, with
// /docs and /openapi.json (which mounts every group) among them. Every one of them must be
// answered, and answered as the same request is once the isolate is warm; a first request its
// client gives up must not leave the next ones waiting.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeDocsAssets } from "../../scripts/docs-assets.mjs";
import { root } from "../../scripts/lib.mjs";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";

let stack: LocalStack;

beforeAll(async () => {
  placeDocsAssets();
  stack = await startLocalStack({ frozen: true });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

/** Every first path segment the route table in app.ts names (RNC_SEGMENT: any RNC). */
function segments(): string[] {
  const table = readFileSync(join(root, "worker/src/app.ts"), "utf8");
  const found = new Set<string>();
  for (const [, list] of table.matchAll(/serves: \[([^\]]*)\]/g))
    for (const item of list!.split(",").map((s) => s.trim()))
      found.add(item === "RNC_SEGMENT" ? "131880681" : JSON.parse(item));
  return [...found];
}

interface Answer {
  path: string;
  status: number;
  type: string;
  body: string;
}

async function get(path: string): Promise<Answer> {
  // Generous: a cold isolate on a loaded machine compiles each chunk on its first import. A request
  // that never answers fails here, named, instead of at the test's timeout.
  const res = await fetch(`${stack.workerUrl}${path}`, { signal: AbortSignal.timeout(100_000) });
  return { path, status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
}

/** A path under each segment (no group has it: its group's middleware or the not-found answers), twice. */
function firstRequests(): string[] {
  const paths = segments().flatMap((s) => [`/${s}/no-such-route`, `/${s}/`]);
  return [...paths, "/docs", "/openapi.json", ...paths, "/docs", "/openapi.json", "/health"];
}

describe("the split build on a fresh isolate", () => {
  it("answers the first requests for every lazily imported route group, all at once", async () => {
    const paths = firstRequests();
    expect(segments().length).toBeGreaterThan(15);
    const cold = await Promise.all(paths.map(get));
    for (const answer of cold) expect(answer.status, `${answer.path}: ${answer.body.slice(0, 300)}`).toBeLessThan(500);
    const docs = cold.filter((a) => a.path === "/docs");
    for (const answer of docs) {
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('<script src="/docs/scalar.js"');
    }
    for (const answer of cold.filter((a) => a.path === "/openapi.json")) {
      expect(answer.status).toBe(200);
      expect(Object.keys(JSON.parse(answer.body).paths).length).toBeGreaterThan(50);
    }
    // The warm isolate's answers to the same requests: the cold ones must not differ from them.
    const warm = await Promise.all(paths.map(get));
    const summary = (answers: Answer[]) => answers.map((a) => `${a.path} ${a.status} ${a.type.split(";")[0]}`);
    expect(summary(cold)).toEqual(summary(warm));
    // Each group's own answer, not the app's catch-all: an authenticated group refuses, others say not found.
    const problems = cold.filter((a) => a.path.endsWith("/no-such-route"));
    for (const answer of problems) expect([400, 401, 403, 404, 405], answer.path).toContain(answer.status);
  });

  it("answers a group's requests after the first one for it was cancelled by its client", async () => {
    await stack.restartWorker();
    const paths = [...segments().map((s) => `/${s}/no-such-route`), "/openapi.json"];
    // Each first request given up while its group may still be loading (a browser navigating away).
    await Promise.all(
      paths.map(async (path, i) => {
        const cancel = new AbortController();
        const first = fetch(`${stack.workerUrl}${path}`, { signal: cancel.signal }).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, i % 5));
        cancel.abort();
        await first;
      }),
    );
    const after = await Promise.all(paths.map(get));
    for (const answer of after) expect(answer.status, `${answer.path}: ${answer.body.slice(0, 300)}`).toBeLessThan(500);
    expect(after.at(-1)!.status).toBe(200);
  });

  it("serves /docs and its script after a restart, the first load racing the document", async () => {
    await stack.restartWorker();
    const [page, script, document] = await Promise.all([get("/docs"), get("/docs/scalar.js"), get("/openapi.json")]);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="/docs/scalar.js"');
    expect(script.status).toBe(200);
    expect(script.type).toContain("javascript");
    expect(document.status).toBe(200);
  });
});
