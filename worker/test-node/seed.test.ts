// The demo seed (`npm run seed`, and `npm start`'s seeding) against a real local stack: run twice
// it leaves one demo company and one demo partner with working credentials, and it recovers when
// the credentials file or the keys it names are lost.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgetRunningCopy, recordRunningCopy, root as ROOT } from "../../scripts/lib.mjs";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";
// @ts-expect-error plain Node ES module without types
import { seed } from "../../scripts/seed.mjs";

type Credentials = { apiKey: string; apiSecret: string };
type Seeded = {
  company: Credentials & { rnc: string };
  partner: Credentials & { issuers: string[] };
  cashier: { name: string; pin: string };
  console: { url: string; email: string; password: string };
};

let stack: LocalStack;
let dir: string;
let stateFile: string;

const adminGet = async (path: string) => {
  const res = await fetch(`${stack.workerUrl}${path}`, { headers: { Authorization: `Bearer ${stack.adminSecret}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, any>;
};
const runSeed = () =>
  seed(stack.workerUrl, stateFile, { adminSecret: stack.adminSecret, sandboxUrl: stack.sandboxUrl }) as Promise<Seeded>;

async function login(credentials: Credentials): Promise<string | null> {
  const res = await fetch(`${stack.workerUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiKey: credentials.apiKey, apiSecret: credentials.apiSecret }),
  });
  return res.ok ? ((await res.json()) as { token: string }).token : null;
}

/** One demo company per RNC, one demo partner serving both, and credentials that work for each. */
async function expectOneOfEachWorking(seeded: Seeded) {
  for (const rnc of ["131880681", "130000002"]) {
    const { companies } = await adminGet(`/admin/companies?registryNumber=${rnc}`);
    expect(companies, rnc).toHaveLength(1);
    expect(companies[0].address, rnc).toBeTruthy();
    expect(Date.parse(companies[0].signatureExpirationDate), rnc).toBeGreaterThan(Date.now());
  }
  const { partners } = await adminGet(`/admin/partners?name=${encodeURIComponent("Demo Software House SRL")}`);
  expect(partners).toHaveLength(1);
  expect(partners[0].companyIds).toHaveLength(2);

  const companyToken = await login(seeded.company);
  expect(companyToken).not.toBeNull();
  const me = await fetch(`${stack.workerUrl}/company/me`, { headers: { Authorization: `Bearer ${companyToken}` } });
  expect(me.status).toBe(200);
  expect(await me.json()).toMatchObject({ registryNumber: "131880681", dgiiServer: "testecf" });
  // A till can sell at once: the demo issuer has a cashier (whose PIN the seed prints) and products.
  const auth = { headers: { Authorization: `Bearer ${companyToken}` } };
  const { cashiers } = await (await fetch(`${stack.workerUrl}/cashiers`, auth)).json();
  expect(cashiers.map((c: { name: string }) => c.name)).toEqual([seeded.cashier.name]);
  const products = await (await fetch(`${stack.workerUrl}/products?limit=100`, auth)).json();
  expect(products.items.map((p: { code: string }) => p.code).sort()).toEqual([
    "AGUA-GAL",
    "ARROZ-5LB",
    "CAFE-1LB",
    "DELIVERY",
  ]);
  // The demo issuer's console owner signs in with the printed password.
  const owner = await fetch(`${stack.workerUrl}/console/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: seeded.console.email, password: seeded.console.password }),
  });
  expect(owner.status).toBe(200);
  expect(await owner.json()).toMatchObject({ role: "owner", company: { rnc: "131880681" } });
  const partnerToken = await login(seeded.partner);
  expect(partnerToken).not.toBeNull();
  for (const rnc of seeded.partner.issuers) {
    const res = await fetch(`${stack.workerUrl}/company/me`, {
      headers: { Authorization: `Bearer ${partnerToken}`, "X-RNC-Emisor": rnc },
    });
    expect(res.status, rnc).toBe(200);
  }
  // The demo owners keep a single live key each: recovering rotates, it does not pile keys up.
  const companyId = (await adminGet("/admin/companies?registryNumber=131880681")).companies[0].id;
  for (const ownerId of [companyId, partners[0].id]) {
    const { keys } = await adminGet(`/admin/keys?ownerId=${ownerId}`);
    expect(keys.filter((k: { revokedAt: string | null }) => !k.revokedAt)).toHaveLength(1);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ecf-seed-"));
  stateFile = join(dir, "demo-credentials.json");
  // Frozen: another developer's edit must not reload the worker between the runs.
  stack = await startLocalStack({ frozen: true });
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run seed", () => {
  let first: Seeded;

  it("with a credentials file from another database (ids it does not know), seeds and gives working credentials", async () => {
    writeFileSync(
      stateFile,
      JSON.stringify({
        company: { rnc: "131880681", keyId: "key_test_gone", apiKey: "ecf_test_gone", apiSecret: "x" },
        partner: { id: "gone", keyId: "key_test_gone2", apiKey: "ecf_test_gone2", apiSecret: "y" },
      }),
    );
    first = await runSeed();
    await expectOneOfEachWorking(first);
    // DGII's sandbox knows each demo issuer's certificate as its authorized signer.
    const signers = (await (await fetch(`${stack.sandboxUrl}/__sandbox/signers`)).json()) as Record<string, string[]>;
    for (const rnc of ["131880681", "130000002"]) expect(signers[rnc], rnc).toHaveLength(1);
  }, 120_000);

  it("a second run changes nothing and prints the same credentials", async () => {
    const second = await runSeed();
    expect(second).toEqual(first);
    await expectOneOfEachWorking(second);
  }, 120_000);

  it("when the credentials file is lost, the demo keys are rotated: new working credentials, the old ones refused", async () => {
    unlinkSync(stateFile);
    const third = await runSeed();
    expect(third.company.apiKey).not.toBe(first.company.apiKey);
    expect(third.partner.apiKey).not.toBe(first.partner.apiKey);
    expect(await login(first.company)).toBeNull();
    await expectOneOfEachWorking(third);
    expect(await runSeed()).toEqual(third);
  }, 120_000);

  it("when the saved keys were revoked in the database, the seed replaces them", async () => {
    const current = await runSeed();
    const { keys } = await adminGet(`/admin/keys`);
    for (const k of keys.filter((k: { revokedAt: string | null }) => !k.revokedAt)) {
      const res = await fetch(`${stack.workerUrl}/admin/keys/${k.id}/revoke`, {
        method: "POST",
        headers: { Authorization: `Bearer ${stack.adminSecret}` },
      });
      expect(res.status).toBe(200);
    }
    expect(await login(current.company)).toBeNull();
    const recovered = await runSeed();
    await expectOneOfEachWorking(recovered);
  }, 120_000);

  it("refuses a credentials file that belongs to another worker, and rotates none of this one's keys", async () => {
    const current = await runSeed();
    const mine = readFileSync(stateFile, "utf8");
    expect(JSON.parse(mine).worker).toBe(stack.workerUrl);
    writeFileSync(stateFile, JSON.stringify({ ...JSON.parse(mine), worker: "http://127.0.0.1:1" }));
    await expect(runSeed()).rejects.toThrow(/holds the demo credentials of the worker at http:\/\/127\.0\.0\.1:1/);
    expect(await login(current.company)).not.toBeNull();
    writeFileSync(stateFile, mine);
  }, 120_000);

  it("`npm run seed` aimed at a copy (WORKER_URL) uses the state that copy's npm start recorded", async () => {
    const copyState = mkdtempSync(join(tmpdir(), "ecf-seed-copy-"));
    const copyFile = join(copyState, "demo-credentials.json");
    // As npm start records itself, with this process standing in for its (live) pid.
    recordRunningCopy({
      workerUrl: stack.workerUrl,
      sandboxUrl: stack.sandboxUrl,
      stateDir: copyState,
      credentialsFile: copyFile,
    });
    try {
      // Asynchronously: the stack's DGII sandbox runs in this process and must answer the seed.
      const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn(process.execPath, [join(ROOT, "scripts", "seed.mjs")], {
          env: { ...process.env, WORKER_URL: stack.workerUrl, ADMIN_SECRET: stack.adminSecret, ECF_STATE_DIR: "" },
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (status) => done({ status, stdout, stderr }));
      });
      expect(r.status, r.stderr).toBe(0);
      const printed = JSON.parse(r.stdout) as Seeded;
      const saved = JSON.parse(readFileSync(copyFile, "utf8"));
      expect(saved).toMatchObject({ worker: stack.workerUrl, company: { apiKey: printed.company.apiKey } });
    } finally {
      forgetRunningCopy(stack.workerUrl);
      rmSync(copyState, { recursive: true, force: true });
    }
  }, 120_000);

  it("says which URL it could not reach and what to try", () => {
    const r = spawnSync(process.execPath, [join(ROOT, "scripts", "seed.mjs")], {
      env: { ...process.env, WORKER_URL: "http://127.0.0.1:9" },
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("cannot reach the worker at http://127.0.0.1:9");
    expect(r.stderr).toContain("WORKER_URL");
  });

  it("npm run admin -- companies:create/update take the trade name, address, province and municipality", () => {
    const admin = (...args: string[]) => {
      const r = spawnSync(process.execPath, [join(ROOT, "scripts", "admin.mjs"), ...args], {
        env: { ...process.env, WORKER_URL: stack.workerUrl, ADMIN_SECRET: stack.adminSecret },
        encoding: "utf8",
      });
      return { status: r.status, out: r.status === 0 ? JSON.parse(r.stdout) : null, err: r.stderr };
    };
    // A company's first console owner: the invitation's link, printed.
    const invited = admin(
      "console:invite",
      "--rnc",
      "131880681",
      "--email",
      "contador@demo.do",
      "--role",
      "accountant",
    );
    expect(invited.status, invited.err).toBe(0);
    expect(invited.out).toMatchObject({ email: "contador@demo.do", role: "accountant" });
    expect(invited.out.link).toMatch(/\/app\/#\/invitacion\/[A-Za-z0-9_-]{40,}$/);
    expect(admin("console:invite", "--rnc", "999999999", "--email", "x@demo.do").status).toBe(1);
    const withoutAddress = admin("companies:create", "--rnc", "101000013", "--name", "Sin Dirección SRL");
    expect(withoutAddress.status).toBe(1);
    expect(withoutAddress.err).toContain("--address");
    const created = admin(
      "companies:create",
      "--rnc",
      "101000013",
      "--name",
      "Con Dirección SRL",
      "--trade-name",
      "Con Dirección",
      "--address",
      "Calle Las Damas 5",
      "--province",
      "010000",
      "--municipality",
      "010100",
      "--env",
      "certecf",
    );
    expect(created.status, created.err).toBe(0);
    expect(created.out).toMatchObject({
      registryNumber: "101000013",
      name: "Con Dirección SRL",
      tradeName: "Con Dirección",
      address: "Calle Las Damas 5",
      province: "010000",
      municipality: "010100",
      dgiiServer: "certecf",
    });
    const updated = admin(
      "companies:update",
      "--id",
      created.out.id,
      "--address",
      "Calle Las Mercedes 9",
      "--municipality",
      "010101",
    );
    expect(updated.status, updated.err).toBe(0);
    expect(updated.out).toMatchObject({
      tradeName: "Con Dirección",
      address: "Calle Las Mercedes 9",
      province: "010000",
      municipality: "010101",
      dgiiServer: "certecf",
    });
  });

  it("the seeded worker's OpenAPI document is a valid OpenAPI 3.1 document", async () => {
    // The tests before blocked the event loop with spawnSync while the worker closed an idle
    // keep-alive connection: a GET written to that stale connection is sent again, as HTTP allows.
    const get = (url: string) =>
      fetch(url).catch((e) => (e?.cause?.code === "UND_ERR_SOCKET" ? fetch(url) : Promise.reject(e)));
    const doc = await (await get(`${stack.workerUrl}/openapi.json`)).json();
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
});
