// A refusal answered before the request's body is read must not break the next request on the
// same keep-alive connection. The worker runs as `npm start` runs it: the split build given to
// `wrangler dev --no-bundle`, behind wrangler's dev proxy, where (without wrangler's own bundling,
// which adds a body-draining wrapper) a body left unread broke the proxy's connection to the worker
// and the next POST got "503 Your worker restarted mid-request". Node's fetch keeps its connections
// alive, as every SDK does; curl opens one per request and hides nothing here.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorker } from "../../scripts/build-worker.mjs";
import {
  applyMigrations,
  freePort,
  freshSecrets,
  root,
  stopChildren,
  waitForUrl,
  wranglerBin,
  wranglerDevArgs,
  wranglerEnv,
} from "../../scripts/lib.mjs";

const ROUNDS = 20;
const secrets = freshSecrets();
const state = mkdtempSync(join(tmpdir(), "ecf-refused-body-"));
let worker: ChildProcess | undefined;
let base: string;
let output = "";
let key: { apiKey: string; apiSecret: string };

beforeAll(async () => {
  const build = join(state, "build");
  await buildWorker({ outdir: build });
  applyMigrations(join(state, "persist"), { quiet: true });
  const [port, inspector] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  worker = spawn(
    wranglerBin,
    wranglerDevArgs({
      entry: [join(build, "index.js"), "--no-bundle", "--no-minify"],
      port,
      inspectorPort: inspector,
      persistTo: join(state, "persist"),
      vars: secrets,
    }),
    { cwd: root, env: wranglerEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const keep = (d: Buffer) => (output = (output + d).slice(-20_000));
  worker.stdout!.on("data", keep);
  worker.stderr!.on("data", keep);
  await waitForUrl(`${base}/health`, { timeoutMs: 180_000, child: worker }).catch((e) => {
    throw new Error(`${e.message}:\n${output}`);
  });
  const admin = { Authorization: `Bearer ${secrets.ADMIN_SECRET}`, "Content-Type": "application/json" };
  const company = await ok(
    await fetch(`${base}/admin/companies`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        name: "Cuerpo Rechazado SRL",
        registryNumber: "131880746",
        dgiiServer: "testecf",
        invoiceLimitPerMonth: 100,
      }),
    }),
  );
  key = await ok(
    await fetch(`${base}/admin/keys`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ ownerType: "company", ownerId: company.id, kind: "test" }),
    }),
  );
}, 300_000);

afterAll(async () => {
  if (worker) await stopChildren([worker], 5000);
  rmSync(state, { recursive: true, force: true });
});

async function ok(res: Response) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text);
}

const login = () =>
  fetch(`${base}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(key),
  });

/** `ROUNDS` times: the refusal (its answer read to the end), then a login on the same agent. */
async function afterEachRefusal(refuse: () => Promise<Response>, refusedWith: number) {
  const seen: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const refused = await refuse();
    await refused.arrayBuffer();
    const next = await login();
    const answer = await next.text();
    seen.push(`${refused.status}/${next.status}${next.status === 200 ? "" : ` ${answer.slice(0, 60)}`}`);
  }
  expect(seen.filter((s) => s !== `${refusedWith}/200`)).toEqual([]);
}

describe("a refusal before the body is read", () => {
  it(`413 for a 3 MB body, then a POST: ${ROUNDS} of ${ROUNDS} succeed`, async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    await afterEachRefusal(
      () => fetch(`${base}/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: big }),
      413,
    );
  }, 120_000);

  it(`401 for a bad token on a body, then a POST: ${ROUNDS} of ${ROUNDS} succeed`, async () => {
    const body = JSON.stringify({ Encabezado: {}, DetallesItems: [], padding: "x".repeat(64 * 1024) });
    await afterEachRefusal(
      () =>
        fetch(`${base}/fe/recepcion/ecf`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: "Bearer a.b.c" },
          body,
        }),
      401,
    );
  }, 120_000);
});
