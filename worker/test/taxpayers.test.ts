// DGII's taxpayer registry through the real routes and D1: imports in chunks, the atomic switch on
// commit (lookups answer from the whole old registry until then, from the whole new one after),
// abandoned and unfinished imports never visible, the purge of replaced rows, and the lookup's
// contract for issuers and paired tills (issue 17: 400 invalid_rnc, 404 taxpayer_not_found).
import { env } from "cloudflare:workers";
import { fromBase64 } from "@ecf/shared";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { admin, authed, companyWithToken } from "./support/accounts.ts";
import { call, postJson } from "./support/http.ts";

const fixtures = inject("certificates");

interface Row {
  rnc: string;
  legalName: string;
  tradeName: string | null;
  activity: string | null;
  status: string;
  paymentRegime: string | null;
  registeredOn: string | null;
}

const row = (rnc: string, legalName: string, overrides: Partial<Row> = {}): Row => ({
  rnc,
  legalName,
  tradeName: null,
  activity: "VENTA AL POR MENOR",
  status: "ACTIVO",
  paymentRegime: "NORMAL",
  registeredOn: "2012-03-15",
  ...overrides,
});

const adminCall = (method: string, path: string, body?: unknown) =>
  call(path, {
    method,
    headers: {
      Authorization: `Bearer ${env.ADMIN_SECRET}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function startImport(): Promise<number> {
  const res = await adminCall("POST", "/admin/taxpayers/imports", { source: "DGII_RNC.zip" });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { importId: number; state: string };
  expect(body.state).toBe("loading");
  return body.importId;
}

async function append(importId: number, rows: Row[]) {
  const res = await adminCall("POST", `/admin/taxpayers/imports/${importId}/rows`, { rows });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.json()).toEqual({ importId, accepted: rows.length });
}

async function commit(importId: number) {
  const res = await adminCall("POST", `/admin/taxpayers/imports/${importId}/commit`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { importId: number; state: string; rows: number; committedAt: string };
}

/** A whole import: start, rows in chunks, commit. */
async function importRegistry(rows: Row[], chunk = 2000) {
  const id = await startImport();
  for (let i = 0; i < rows.length; i += chunk) await append(id, rows.slice(i, i + chunk));
  return commit(id);
}

let issuerToken: string;
let deviceToken: string;

const lookup = (rnc: string) => call(`/contribuyentes/${rnc}`, { headers: authed(issuerToken) });
const deviceLookup = (rnc: string) => call(`/devices/contribuyentes/${rnc}`, { headers: authed(deviceToken) });
async function legalNameOf(rnc: string): Promise<string | null> {
  const res = await lookup(rnc);
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return ((await res.json()) as { legalName: string }).legalName;
}
const generationRows = async (generation: number) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM taxpayers WHERE generation = ?1")
    .bind(generation)
    .first<{ n: number }>())!.n;

beforeAll(async () => {
  const { company, token } = await companyWithToken();
  issuerToken = token;
  const form = new FormData();
  form.set("file", new File([new Uint8Array(fromBase64(fixtures.forgeP12)!)], "firma.p12"));
  form.set("password", fixtures.password);
  const uploaded = await call(`/admin/companies/${company.id}/certificate`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
    body: form,
  });
  expect(uploaded.status).toBe(200);
  await admin("PUT", `/admin/companies/${company.id}/sequences/32`, {
    rangeFrom: 1,
    rangeTo: 1000,
    expiresOn: "2099-12-31",
  });
  const created = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
    name: "Caja 1",
  });
  const paired = await postJson("/devices/pair", { pairingCode: created.pairingCode });
  expect(paired.status).toBe(200);
  deviceToken = ((await paired.json()) as { token: string }).token;
});

describe("GET /contribuyentes/{rnc}", () => {
  it("before any import: 404 taxpayer_not_found saying no registry was imported", async () => {
    const res = await lookup("131880681");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const body = (await res.json()) as { code: string; detail: string; requestId: string };
    expect(body.code).toBe("taxpayer_not_found");
    expect(body.detail).toMatch(/no taxpayer registry/);
    expect(body.requestId).toBeTruthy();
    const status = await admin("GET", "/admin/taxpayers");
    expect(status).toMatchObject({ current: null, purgePending: false });
  });

  it("answers name, status and dates from the committed registry, the same for an issuer and a paired till", async () => {
    const committed = await importRegistry([
      row("131880681", "COMERCIAL PEÑA & ASOCIADOS SRL", { tradeName: "LA ESQUINA DE ÑOÑO" }),
      row("00114532871", "JOSÉ ÁNGEL MUÑOZ", { activity: null, paymentRegime: null, registeredOn: null }),
      row("101000002", "FERRETERÍA EL CLAVO SRL", { status: "SUSPENDIDO" }),
    ]);
    expect(committed).toMatchObject({ state: "current", rows: 3 });
    const res = await lookup("131880681");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      rnc: "131880681",
      legalName: "COMERCIAL PEÑA & ASOCIADOS SRL",
      tradeName: "LA ESQUINA DE ÑOÑO",
      activity: "VENTA AL POR MENOR",
      status: "ACTIVO",
      active: true,
      paymentRegime: "NORMAL",
      registeredOn: "2012-03-15",
      registryImportedAt: committed.committedAt,
    });
    const fromTill = await deviceLookup("131880681");
    expect(fromTill.status).toBe(200);
    expect(await fromTill.json()).toEqual(body);

    expect(await (await lookup("00114532871")).json()).toMatchObject({
      legalName: "JOSÉ ÁNGEL MUÑOZ",
      activity: null,
      paymentRegime: null,
      registeredOn: null,
      active: true,
    });
    expect(await (await deviceLookup("101000002")).json()).toMatchObject({ status: "SUSPENDIDO", active: false });
  });

  it("an RNC not in the registry: 404 taxpayer_not_found, for the issuer and the till", async () => {
    for (const res of [await lookup("130000009"), await deviceLookup("130000009")]) {
      expect(res.status).toBe(404);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe("taxpayer_not_found");
      expect(body.detail).toContain("130000009");
    }
  });

  it.each(["12345678", "1318806811", "13188068A", "131-88068-1", "001145328711"])(
    "%s is not 9 or 11 digits: 400 invalid_rnc with the path",
    async (rnc) => {
      for (const res of [await lookup(rnc), await deviceLookup(rnc)]) {
        expect(res.status).toBe(400);
        expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        const body = (await res.json()) as { code: string; errors: { path: string; code: string }[] };
        expect(body.code).toBe("invalid_rnc");
        expect(body.errors).toEqual([expect.objectContaining({ path: "/rnc", code: "invalid_rnc" })]);
      }
    },
  );

  it("needs the issuer's token, or a paired till's", async () => {
    expect((await call("/contribuyentes/131880681")).status).toBe(401);
    expect((await call("/devices/contribuyentes/131880681")).status).toBe(401);
    expect((await call("/devices/contribuyentes/131880681", { headers: authed(issuerToken) })).status).toBe(401);
    expect((await call("/contribuyentes/131880681", { headers: authed("dvt_not-a-jwt") })).status).toBe(401);
  });
});

describe("replacing the registry", () => {
  it("during a second import lookups answer from the first; after its commit, from the second; the first's rows are purged", async () => {
    const first = await importRegistry([row("401000011", "PRIMERA SRL"), row("401000012", "SOLO EN LA PRIMERA SRL")]);
    expect(await legalNameOf("401000011")).toBe("PRIMERA SRL");

    const second = await startImport();
    await append(second, [row("401000011", "SEGUNDA SRL")]);
    await append(second, [row("401000013", "SOLO EN LA SEGUNDA SRL")]);
    // Loading: nothing of the second import shows.
    expect(await legalNameOf("401000011")).toBe("PRIMERA SRL");
    expect(await legalNameOf("401000012")).toBe("SOLO EN LA PRIMERA SRL");
    expect(await legalNameOf("401000013")).toBeNull();
    expect(await admin("GET", "/admin/taxpayers")).toMatchObject({ current: { importId: first.importId, rows: 2 } });

    const committed = await commit(second);
    expect(committed).toMatchObject({ importId: second, state: "current", rows: 2 });
    expect(await legalNameOf("401000011")).toBe("SEGUNDA SRL");
    expect(await legalNameOf("401000012")).toBeNull();
    expect(await legalNameOf("401000013")).toBe("SOLO EN LA SEGUNDA SRL");
    expect(await (await lookup("401000013")).json()).toMatchObject({ registryImportedAt: committed.committedAt });

    const status = await admin("GET", "/admin/taxpayers");
    expect(status.current).toEqual({ importId: second, rows: 2, importedAt: committed.committedAt });
    expect(status.imports.find((i: { importId: number }) => i.importId === first.importId)).toMatchObject({
      state: "replaced",
    });
    expect(status.purgePending).toBe(true);
    expect(await generationRows(first.importId)).toBe(2);

    let purged = 0;
    for (let i = 0; i < 10; i++) {
      const round = await admin<{ deleted: number; remaining: boolean }>("POST", "/admin/taxpayers/purge");
      purged += round.deleted;
      if (!round.remaining) break;
    }
    expect(await generationRows(first.importId)).toBe(0);
    expect(purged).toBeGreaterThanOrEqual(2);
    expect(await generationRows(second)).toBe(2);
    expect(await legalNameOf("401000011")).toBe("SEGUNDA SRL");
    expect((await admin("GET", "/admin/taxpayers")).purgePending).toBe(false);
  });

  it("lookups racing a commit see the whole old registry or the whole new one, never a mix", async () => {
    const rnc = (i: number) => String(402_000_000 + i);
    const n = 3000;
    const old = await importRegistry(Array.from({ length: n }, (_, i) => row(rnc(i), `VIEJA ${i}`)));
    const next = await startImport();
    for (let i = 0; i < n; i += 1500)
      await append(
        next,
        Array.from({ length: 1500 }, (_, j) => row(rnc(i + j), `NUEVA ${i + j}`)),
      );

    const lookups = Array.from({ length: 40 }, (_, k) =>
      lookup(rnc(k * 70)).then((r) => r.json() as Promise<{ legalName: string; registryImportedAt: string }>),
    );
    const committed = await commit(next);
    const answers = await Promise.all(lookups);
    for (const a of answers) {
      // Each answer's name and the import date it states come from the same generation.
      if (a.legalName.startsWith("VIEJA")) expect(a.registryImportedAt).toBe(old.committedAt);
      else expect([a.legalName.slice(0, 5), a.registryImportedAt]).toEqual(["NUEVA", committed.committedAt]);
    }
    expect(committed.rows).toBe(n);
    expect(await legalNameOf(rnc(2999))).toBe("NUEVA 2999");
  });

  it("an abandoned import, or one never committed, is invisible; its rows are purged", async () => {
    const before = (await admin("GET", "/admin/taxpayers")).current;
    const abandoned = await startImport();
    await append(abandoned, [row("403000001", "ABANDONADA SRL")]);
    const unfinished = await startImport();
    await append(unfinished, [row("403000002", "SIN TERMINAR SRL")]);
    expect(await legalNameOf("403000001")).toBeNull();
    expect(await legalNameOf("403000002")).toBeNull();

    const res = await adminCall("DELETE", `/admin/taxpayers/imports/${abandoned}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ importId: abandoned, state: "abandoned" });
    expect(await legalNameOf("403000001")).toBeNull();

    // Once abandoned it takes no rows and cannot be committed.
    const late = await adminCall("POST", `/admin/taxpayers/imports/${abandoned}/rows`, {
      rows: [row("403000003", "TARDE SRL")],
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { code: string }).code).toBe("conflict");
    expect((await adminCall("POST", `/admin/taxpayers/imports/${abandoned}/commit`)).status).toBe(409);
    expect(await generationRows(abandoned)).toBe(1);

    // An import silent for a day is abandoned by the purge, which then deletes its rows too.
    await env.DB.prepare(
      "UPDATE taxpayer_imports SET last_activity_at = '2020-01-01T00:00:00.000Z' WHERE generation = ?1",
    )
      .bind(unfinished)
      .run();
    for (let i = 0; i < 10 && (await admin<{ remaining: boolean }>("POST", "/admin/taxpayers/purge")).remaining; i++);
    expect(await generationRows(abandoned)).toBe(0);
    expect(await generationRows(unfinished)).toBe(0);
    expect(
      (await admin("GET", "/admin/taxpayers")).imports.find((i: { importId: number }) => i.importId === unfinished),
    ).toMatchObject({ state: "abandoned" });
    expect((await admin("GET", "/admin/taxpayers")).current).toEqual(before);
    expect((await adminCall("DELETE", `/admin/taxpayers/imports/${before.importId}`)).status).toBe(409);
  });

  it("a chunk sent twice is stored once; a commit sent twice answers the same", async () => {
    const id = await startImport();
    const rows = [row("404000001", "UNO SRL"), row("404000002", "DOS SRL")];
    await append(id, rows);
    await append(id, rows);
    // A file listing an RNC twice keeps its last line.
    await append(id, [row("404000002", "DOS Y MEDIO SRL")]);
    const first = await commit(id);
    expect(first.rows).toBe(2);
    expect(await commit(id)).toEqual(first);
    expect(await legalNameOf("404000002")).toBe("DOS Y MEDIO SRL");
  });

  it("an import committed after a newer one was is refused (409) and abandoned; the newer stays", async () => {
    const older = await startImport();
    await append(older, [row("405000001", "MAS VIEJA SRL")]);
    const newer = await startImport();
    await append(newer, [row("405000001", "MAS NUEVA SRL")]);
    await commit(newer);
    const res = await adminCall("POST", `/admin/taxpayers/imports/${older}/commit`);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/newer import/);
    expect(await legalNameOf("405000001")).toBe("MAS NUEVA SRL");
    expect((await admin("GET", "/admin/taxpayers")).current.importId).toBe(newer);
  });

  it("an import without rows cannot be committed (422); an unknown import is 404", async () => {
    const id = await startImport();
    const res = await adminCall("POST", `/admin/taxpayers/imports/${id}/commit`);
    expect(res.status).toBe(422);
    expect((await adminCall("POST", "/admin/taxpayers/imports/999999/commit")).status).toBe(404);
    expect(
      (await adminCall("POST", "/admin/taxpayers/imports/999999/rows", { rows: [row("406000001", "X SRL")] })).status,
    ).toBe(404);
    await adminCall("DELETE", `/admin/taxpayers/imports/${id}`);
  });

  it("5,000 rows in one request are stored in one go", async () => {
    const id = await startImport();
    const rows = Array.from({ length: 5000 }, (_, i) =>
      row(String(40_700_000_000 + i), `CONTRIBUYENTE NÚMERO ${i} CON UN NOMBRE LARGO COMO LOS DE DGII SRL`, {
        tradeName: `COMERCIO ${i}`,
      }),
    );
    await append(id, rows);
    expect((await commit(id)).rows).toBe(5000);
    expect(await legalNameOf("40700004999")).toBe("CONTRIBUYENTE NÚMERO 4999 CON UN NOMBRE LARGO COMO LOS DE DGII SRL");
  });
});

describe("admin routes refuse bad input", () => {
  it("rows that are not taxpayers: 400 naming each row's field, and nothing of the chunk stored", async () => {
    const id = await startImport();
    const res = await adminCall("POST", `/admin/taxpayers/imports/${id}/rows`, {
      rows: [
        row("408000001", "BIEN SRL"),
        row("40800000", "RNC CORTO SRL"),
        row("408000003", "FECHA MALA SRL", { registeredOn: "15/03/2012" }),
      ],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; errors: { path: string }[] };
    expect(body.code).toBe("validation_failed");
    expect(body.errors.map((e) => e.path)).toEqual(["/rows/1/rnc", "/rows/2/registeredOn"]);
    expect(await generationRows(id)).toBe(0);
    const tooMany = await adminCall("POST", `/admin/taxpayers/imports/${id}/rows`, {
      rows: Array.from({ length: 5001 }, (_, i) => row(String(408_100_000 + i), "X")),
    });
    expect(tooMany.status).toBe(400);
    expect(
      (await adminCall("POST", "/admin/taxpayers/imports/abc/rows", { rows: [row("408000001", "X")] })).status,
    ).toBe(400);
    await adminCall("DELETE", `/admin/taxpayers/imports/${id}`);
  });

  it("need the admin secret", async () => {
    expect((await call("/admin/taxpayers")).status).toBe(401);
    expect((await postJson("/admin/taxpayers/imports", {}, authed(issuerToken))).status).toBe(401);
  });
});
