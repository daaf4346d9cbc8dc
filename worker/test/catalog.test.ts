// The shared catalogue through the real worker, its IssuerLedger objects and D1: products with
// ETag/If-Match, paging, the CSV import (all or nothing, every bad line named) and export, cashiers
// with PINs a till checks offline, what a paired till pulls by version, the per-device price
// setting, and that another issuer never sees any of it.
import { env } from "cloudflare:workers";
import { fromBase64, toBase64 } from "@ecf/shared";
import { type PinHash, pinHashMatches } from "@ecf/shared/pin-kdf";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { admin, authed, companyWithToken } from "./support/accounts.ts";
import { call, postJson } from "./support/http.ts";
import { issuerSql } from "./support/ledger.ts";

const fixtures = inject("certificates");

type Product = {
  id: string;
  code: string;
  barcodes: string[];
  name: string;
  price: string;
  priceIncludesItbis: boolean;
  itbisRate: string;
  unit: string;
  kind: string;
  active: boolean;
  version: number;
  updatedAt: string;
};
type Page = { items: Product[]; total: number; limit: number; nextCursor: string | null };
type Problem = {
  code: string;
  status: number;
  detail: string;
  requestId: string;
  errors: { path: string; code: string; line?: number; column?: string | null; detail?: string }[];
};
type Pin = PinHash;
type Pull = {
  version: number;
  products: Product[];
  cashiers: { id: string; name: string; active: boolean; version: number; pin: Pin }[];
  nextSince: number;
  complete: boolean;
  device: { canEditPrices: boolean };
};

const HEADER = "code,barcodes,name,price,priceIncludesItbis,itbisRate,unit,kind,active";

const send = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(path, {
    method,
    headers: authed(token, body === undefined ? headers : { "Content-Type": "application/json", ...headers }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const getJson = async <T>(token: string, path: string): Promise<T> => {
  const res = await call(path, { headers: authed(token) });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};
const importCsv = (token: string, csv: string) =>
  call("/products/import", { method: "POST", headers: authed(token, { "Content-Type": "text/csv" }), body: csv });
const exportCsv = async (token: string) => {
  const res = await call("/products/export", { headers: authed(token) });
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toMatch(/^text\/csv/);
  return res.text();
};
const catalogVersion = async (companyId: string) =>
  Number((await issuerSql(companyId, "SELECT version FROM catalog_version"))[0]?.version ?? 0);
const productCount = async (companyId: string) =>
  Number((await issuerSql(companyId, "SELECT count(*) AS n FROM products"))[0]!.n);

async function allPages(token: string, query = "", limit = 10): Promise<Product[]> {
  const items: Product[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await getJson<Page>(
      token,
      `/products?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** A company with a certificate and a paired till (pairing needs the signing material). */
async function pairedTill() {
  const { company, token } = await companyWithToken();
  const form = new FormData();
  form.set("file", new File([new Uint8Array(fromBase64(fixtures.forgeP12)!)], "firma.p12"));
  form.set("password", fixtures.password);
  const upload = await call(`/admin/companies/${company.id}/certificate`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
    body: form,
  });
  expect(upload.status).toBe(200);
  const created = await admin<{ id: string; pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
    name: "Caja 1",
  });
  const res = await postJson("/devices/pair", { pairingCode: created.pairingCode });
  expect(res.status).toBe(200);
  const { token: deviceToken } = (await res.json()) as { token: string };
  return { company, token, deviceId: created.id, deviceToken };
}

async function pullAll(
  deviceToken: string,
  since: number,
  limit: number,
): Promise<{ pages: Pull[]; products: Product[]; cashiers: Pull["cashiers"] }> {
  const pages: Pull[] = [];
  let next = since;
  for (;;) {
    const page = await getJson<Pull>(deviceToken, `/devices/catalog?since=${next}&limit=${limit}`);
    pages.push(page);
    expect(page.products.length + page.cashiers.length).toBeLessThanOrEqual(limit);
    next = page.nextSince;
    if (page.complete) break;
    expect(pages.length, "the pull ends").toBeLessThan(100);
  }
  return { pages, products: pages.flatMap((p) => p.products), cashiers: pages.flatMap((p) => p.cashiers) };
}

/** The check a till makes offline (its own code, @ecf/shared/pin-kdf), on the hash it pulled. */
const pinMatches = (pin: Pin, candidate: string) => pinHashMatches(pin, candidate);

/** PBKDF2-SHA256 (100k) of a PIN, as the worker hashed PINs before scrypt. */
async function pbkdf2Pin(pin: string): Promise<{ salt: string; hash: string }> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(pin), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: 100_000 }, key, 256);
  return { salt: toBase64(salt), hash: toBase64(new Uint8Array(bits)) };
}

describe("products through the issuer API", () => {
  let token: string;
  let companyId: string;
  beforeAll(async () => {
    const made = await companyWithToken();
    token = made.token;
    companyId = made.company.id;
  });

  it("creates with defaults, answers ETag and Location, and reads back the same", async () => {
    const res = await send(token, "POST", "/products", {
      code: "CAFE-454",
      name: "Café molido 454 g",
      price: "325.5",
      barcodes: ["7460000123456"],
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as Product;
    expect(created).toMatchObject({
      code: "CAFE-454",
      name: "Café molido 454 g",
      price: "325.50",
      barcodes: ["7460000123456"],
      priceIncludesItbis: true,
      itbisRate: "18",
      unit: "43",
      kind: "good",
      active: true,
    });
    expect(res.headers.get("Location")).toBe(`/products/${created.id}`);
    expect(res.headers.get("ETag")).toBe(`"${created.version}"`);
    const read = await call(`/products/${created.id}`, { headers: authed(token) });
    expect(read.headers.get("ETag")).toBe(`"${created.version}"`);
    expect(await read.json()).toEqual(created);
    expect(await catalogVersion(companyId)).toBe(created.version);
  });

  it.each([
    ["a unit outside DGII's Tabla IV", { code: "U1", name: "x", price: "1.00", unit: "63" }, "/unit"],
    ["a price with 3 decimals (never rounded here)", { code: "U2", name: "x", price: "1.005" }, "/price"],
    ["a negative price", { code: "U3", name: "x", price: "-1.00" }, "/price"],
    ["a price as a JSON number", { code: "U4", name: "x", price: 1.5 }, "/price"],
    ["a name over DGII's 80 characters", { code: "U5", name: "n".repeat(81), price: "1.00" }, "/name"],
    ["an unknown ITBIS rate", { code: "U6", name: "x", price: "1.00", itbisRate: "12" }, "/itbisRate"],
    ["a code over 35 characters", { code: "c".repeat(36), name: "x", price: "1.00" }, "/code"],
    ["an unknown field", { code: "U7", name: "x", price: "1.00", colour: "red" }, ""],
  ])("refuses %s with a 400 problem pointing at the field", async (_label, body, path) => {
    const res = await send(token, "POST", "/products", body);
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as Problem;
    expect(problem.code).toBe("validation_failed");
    expect(problem.requestId).toBeTruthy();
    expect(problem.errors.map((e) => e.path)).toContain(path);
  });

  it("takes a unit code with a leading zero as DGII's code", async () => {
    const res = await send(token, "POST", "/products", {
      code: "KG-1",
      name: "Arroz",
      price: "45.00",
      unit: "05",
      kind: "good",
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Product).unit).toBe("5");
  });

  it("refuses a second product with the same code (409)", async () => {
    expect((await send(token, "POST", "/products", { code: "DUP", name: "a", price: "1.00" })).status).toBe(201);
    const res = await send(token, "POST", "/products", { code: "DUP", name: "b", price: "2.00" });
    expect(res.status).toBe(409);
    expect(((await res.json()) as Problem).errors[0]!.path).toBe("/code");
  });

  it("changes only with If-Match: 428 without, 412 when stale, and a change made meanwhile is never overwritten", async () => {
    const created = (await (
      await send(token, "POST", "/products", { code: "AGUA", name: "Agua 500 ml", price: "25.00" })
    ).json()) as Product;
    const missing = await send(token, "PATCH", `/products/${created.id}`, { price: "30.00" });
    expect(missing.status).toBe(428);
    expect(((await missing.json()) as Problem).code).toBe("precondition_required");

    const first = await send(
      token,
      "PATCH",
      `/products/${created.id}`,
      { price: "30.00" },
      { "If-Match": `"${created.version}"` },
    );
    expect(first.status).toBe(200);
    const changed = (await first.json()) as Product;
    expect(changed).toMatchObject({ price: "30.00", name: "Agua 500 ml" });
    expect(changed.version).toBeGreaterThan(created.version);
    expect(first.headers.get("ETag")).toBe(`"${changed.version}"`);

    // A second editor who read the old version loses: 412, and the first change stands.
    const second = await send(
      token,
      "PATCH",
      `/products/${created.id}`,
      { price: "28.00" },
      { "If-Match": `"${created.version}"` },
    );
    expect(second.status).toBe(412);
    const problem = (await second.json()) as Problem & { currentVersion: number };
    expect(problem.code).toBe("precondition_failed");
    expect(problem.currentVersion).toBe(changed.version);
    expect(((await getJson<Product>(token, `/products/${created.id}`)) as Product).price).toBe("30.00");

    // The same values again change nothing: the version (and so every till) stays.
    const same = (await (
      await send(token, "PATCH", `/products/${created.id}`, { price: "30.00" }, { "If-Match": `"${changed.version}"` })
    ).json()) as Product;
    expect(same.version).toBe(changed.version);
  });

  it("deletes by marking inactive (If-Match too), and PATCH brings it back", async () => {
    const created = (await (
      await send(token, "POST", "/products", { code: "PAN", name: "Pan", price: "10.00" })
    ).json()) as Product;
    expect((await send(token, "DELETE", `/products/${created.id}`)).status).toBe(428);
    const gone = await send(token, "DELETE", `/products/${created.id}`, undefined, {
      "If-Match": `"${created.version}"`,
    });
    expect(gone.status).toBe(200);
    const inactive = (await gone.json()) as Product;
    expect(inactive.active).toBe(false);
    expect(inactive.version).toBeGreaterThan(created.version);
    const back = (await (
      await send(token, "PATCH", `/products/${created.id}`, { active: true }, { "If-Match": "*" })
    ).json()) as Product;
    expect(back.active).toBe(true);
  });

  it("404 for a product that does not exist, even with If-Match *", async () => {
    expect((await call("/products/nope", { headers: authed(token) })).status).toBe(404);
    expect((await send(token, "PATCH", "/products/nope", { price: "1.00" }, { "If-Match": "*" })).status).toBe(404);
  });
});

describe("paging and filters", () => {
  it("pages in code order through every product exactly once, with q and active filters", async () => {
    const { token } = await companyWithToken();
    const codes = Array.from({ length: 25 }, (_, i) => `P${String(i).padStart(3, "0")}`);
    const csv = [
      HEADER,
      ...codes.map(
        (code, i) => `${code},BAR${i},Producto ${i % 2 ? "rojo" : "azul"} ${i},${i}.00,true,18,43,good,${i % 5 !== 0}`,
      ),
    ].join("\r\n");
    expect((await importCsv(token, csv)).status).toBe(200);

    const all = await allPages(token, "", 10);
    expect(all.map((p) => p.code)).toEqual(codes);
    const first = await getJson<Page>(token, "/products?limit=10");
    expect(first.total).toBe(25);
    expect(first.nextCursor).toBeTruthy();

    const reds = await allPages(token, "&q=ROJO", 4);
    expect(reds.map((p) => p.code)).toEqual(codes.filter((_, i) => i % 2));
    expect((await allPages(token, "&q=BAR7")).map((p) => p.code)).toEqual(["P007"]);
    expect((await allPages(token, "&q=p01")).map((p) => p.code)).toEqual(codes.slice(10, 20));
    const inactive = await allPages(token, "&active=false");
    expect(inactive.map((p) => p.code)).toEqual(["P000", "P005", "P010", "P015", "P020"]);
    // LIKE's wildcards are plain characters in q.
    expect(await allPages(token, "&q=%25")).toEqual([]);
  });

  it.each([
    ["limit=0", "/query/limit"],
    ["limit=5000", "/query/limit"],
    ["cursor=not-ours", "/query/cursor"],
    ["active=yes", "/query/active"],
  ])("refuses %s (400, pointing into the query)", async (query, path) => {
    const { token } = await companyWithToken();
    const res = await call(`/products?${query}`, { headers: authed(token) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Problem).errors.map((e) => e.path)).toEqual([path]);
  });
});

describe("CSV import and export", () => {
  it("reads a file with the Spanish header and values (sí/no, bien/servicio, exento) as the English one", async () => {
    const { token } = await companyWithToken();
    const csv = [
      "Código,Códigos_barras,Nombre,Precio,Precio_incluye_ITBIS,Tasa_ITBIS,Unidad,Tipo,Activo",
      "ES-1,7460009,Servicio,1500.00,sí,exento,43,servicio,si",
      "ES-2,,Arroz 5 lb,250,no,18,43,bien,no",
    ].join("\r\n");
    const res = await importCsv(token, csv);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ created: 2 });
    const items = await allPages(token);
    expect(
      items.map(({ code, name, barcodes, priceIncludesItbis, itbisRate, kind, active }) => ({
        code,
        name,
        barcodes,
        priceIncludesItbis,
        itbisRate,
        kind,
        active,
      })),
    ).toEqual([
      {
        code: "ES-1",
        name: "Servicio",
        barcodes: ["7460009"],
        priceIncludesItbis: true,
        itbisRate: "exempt",
        kind: "service",
        active: true,
      },
      {
        code: "ES-2",
        name: "Arroz 5 lb",
        barcodes: [],
        priceIncludesItbis: false,
        itbisRate: "18",
        kind: "good",
        active: false,
      },
    ]);
  });

  it("imports a file with quoting, barcodes and defaults, and a second import of the same file changes nothing", async () => {
    const { token, company } = await companyWithToken();
    const csv = [
      `\uFEFF${HEADER}`,
      `A-1,7460001|7460002,"Leche, entera 1 L",85.00,true,18,43,good,true`,
      `A-2,,"Queso ""de hoja""",120.5,false,16,23,good,true`,
      `S-1,,Servicio de entrega,150,true,exempt,43,service,false`,
      `A-3,,"Nombre, con coma",1,,,,,`,
      "",
    ].join("\r\n");
    const res = await importCsv(token, csv);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ lines: 4, created: 4, updated: 0, unchanged: 0 });
    const items = await allPages(token);
    expect(
      items.map((p) => [
        p.code,
        p.barcodes,
        p.name,
        p.price,
        p.priceIncludesItbis,
        p.itbisRate,
        p.unit,
        p.kind,
        p.active,
      ]),
    ).toEqual([
      ["A-1", ["7460001", "7460002"], "Leche, entera 1 L", "85.00", true, "18", "43", "good", true],
      ["A-2", [], 'Queso "de hoja"', "120.50", false, "16", "23", "good", true],
      ["A-3", [], "Nombre, con coma", "1.00", true, "18", "43", "good", true],
      ["S-1", [], "Servicio de entrega", "150.00", true, "exempt", "43", "service", false],
    ]);
    const version = await catalogVersion(company.id);
    expect(version).toBe(4);
    const again = (await (await importCsv(token, csv)).json()) as {
      unchanged: number;
      created: number;
      updated: number;
      version: number;
    };
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 4, version });
    expect(await catalogVersion(company.id)).toBe(version);
  });

  it("refuses the whole file when any line is bad: every bad line and column listed, nothing stored", async () => {
    const { token, company } = await companyWithToken();
    expect((await importCsv(token, `${HEADER}\r\nKEEP,,Se queda,1.00,true,18,43,good,true\r\n`)).status).toBe(200);
    const before = await catalogVersion(company.id);
    const csv = [
      HEADER,
      "OK-1,,Bueno,10.00,true,18,43,good,true", // line 2
      "BAD-1,,Precio malo,10.001,true,18,43,good,true", // line 3: price
      "OK-2,,Bueno,10.00,true,18,43,good,true", // line 4
      "BAD-2,,Unidad mala,10.00,true,18,99,good,maybe", // line 5: unit and active
      "OK-1,,Repetido,10.00,true,18,43,good,true", // line 6: duplicate code
      "BAD-3,,Faltan campos", // line 7: field count
      "KEEP,,Cambiado,2.00,true,18,43,good,true", // line 8: fine, but must not be applied
      'ML,,"Dos\nlíneas",1.00,true,18,43,good,true', // lines 9-10: a name is one line
      "BAD-4,,Precio,abc,true,18,43,good,true", // line 11: counted after the record of two lines
    ].join("\n");
    const res = await importCsv(token, csv);
    expect(res.status).toBe(422);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as Problem;
    expect(problem.code).toBe("unprocessable");
    expect(problem.errors.map((e) => [e.line, e.column])).toEqual([
      [3, "price"],
      [5, "active"],
      [5, "unit"],
      [6, "code"],
      [7, null],
      [9, "name"],
      [11, "price"],
    ]);
    expect(problem.errors.every((e) => e.detail && e.path.startsWith(`/line/${e.line}`))).toBe(true);
    expect(problem.errors.find((e) => e.line === 6)!.detail).toMatch(/line 2/);
    // Nothing of the file was stored, not even its good lines.
    expect(await catalogVersion(company.id)).toBe(before);
    expect((await allPages(token)).map((p) => [p.code, p.name])).toEqual([["KEEP", "Se queda"]]);
  });

  it.each([
    ["an empty body", ""],
    ["a header with a missing column", "code,name,price\r\nX,Y,1.00"],
    ["a header with an unknown column", `${HEADER},colour\r\n`],
    ["an unclosed quote", `${HEADER}\r\nX,,"Sin cerrar,1.00,true,18,43,good,true`],
  ])("refuses %s with a 422 naming the line", async (_label, csv) => {
    const { token } = await companyWithToken();
    const res = await importCsv(token, csv);
    expect(res.status).toBe(422);
    const problem = (await res.json()) as Problem;
    expect(problem.errors.length).toBeGreaterThan(0);
    expect(problem.errors.every((e) => typeof e.line === "number")).toBe(true);
  });

  it("refuses a body that is not CSV (415)", async () => {
    const { token } = await companyWithToken();
    const res = await call("/products/import", {
      method: "POST",
      headers: authed(token, { "Content-Type": "application/json" }),
      body: "{}",
    });
    expect(res.status).toBe(415);
  });

  it("export → import into another issuer → export gives the same file (and formula-looking text survives)", async () => {
    const a = await companyWithToken();
    const csv = [
      HEADER,
      `Z-9,111|222,"=SUMA(A1)",5.00,true,0,43,good,true`,
      `B-2,,"Coma, y ""comillas""",1234567.89,false,16,21,good,false`,
      `C-3,,+Sabor,0.00,true,exempt,43,service,true`,
      `D-4,,-2+3,1.00,true,exempt,43,service,true`,
      `E-5,,@SUM(1),1.00,true,exempt,43,service,true`,
    ].join("\r\n");
    expect((await importCsv(a.token, csv)).status).toBe(200);
    const exported = await exportCsv(a.token);
    const lines = exported.split("\r\n");
    expect(lines[0]).toBe(HEADER);
    expect(lines.slice(1, -1).map((l) => l.split(",")[0])).toEqual(["B-2", "C-3", "D-4", "E-5", "Z-9"]);
    for (const guarded of ["'=SUMA(A1)", ",'+Sabor,", ",'-2+3,", ",'@SUM(1),"]) expect(exported).toContain(guarded);

    const b = await companyWithToken();
    expect((await importCsv(b.token, exported)).status).toBe(200);
    expect(await exportCsv(b.token)).toBe(exported);
    const names = (await allPages(b.token)).map((p) => p.name);
    expect(names).toEqual(['Coma, y "comillas"', "+Sabor", "-2+3", "@SUM(1)", "=SUMA(A1)"]);
    // The same file back into its own issuer changes nothing.
    expect(await (await importCsv(a.token, exported)).json()).toMatchObject({ unchanged: 5, created: 0, updated: 0 });
  });

  it("exports more than one RPC page, streamed, in code order", async () => {
    const { token } = await companyWithToken();
    const codes = Array.from({ length: 2300 }, (_, i) => `K${String(i).padStart(5, "0")}`);
    const res = await importCsv(
      token,
      [HEADER, ...codes.map((c) => `${c},,Item ${c},1.00,true,18,43,good,true`)].join("\n"),
    );
    expect(await res.json()).toMatchObject({ created: 2300 });
    const exported = (await exportCsv(token)).split("\r\n").slice(1, -1);
    expect(exported.map((l) => l.split(",")[0])).toEqual(codes);
  });

  it("the administrator imports and exports for an issuer, with the same all-or-nothing answer", async () => {
    const { company, token } = await companyWithToken();
    const adminCall = (path: string, init: RequestInit = {}) =>
      call(path, { ...init, headers: { Authorization: `Bearer ${env.ADMIN_SECRET}`, ...init.headers } });
    const bad = await adminCall(`/admin/companies/${company.id}/products/import`, {
      method: "POST",
      headers: { "Content-Type": "text/csv" },
      body: `${HEADER}\nX,,,1.00,true,18,43,good,true`,
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as Problem).errors.map((e) => [e.line, e.column])).toEqual([[2, "name"]]);
    const good = await adminCall(`/admin/companies/${company.id}/products/import`, {
      method: "POST",
      headers: { "Content-Type": "text/csv" },
      body: `${HEADER}\nX,,Equis,1.00,true,18,43,good,true`,
    });
    expect(good.status).toBe(200);
    const exported = await (await adminCall(`/admin/companies/${company.id}/products/export`)).text();
    expect(exported).toBe(await exportCsv(token));
    expect((await adminCall("/admin/companies/nope/products/export")).status).toBe(404);
  });
});

describe("barcodes name one active product", () => {
  it("refuses a barcode another active product carries (409), and frees it when that product is withdrawn", async () => {
    const { token } = await companyWithToken();
    const a = (await (
      await send(token, "POST", "/products", { code: "A", name: "A", price: "1.00", barcodes: ["111", "222"] })
    ).json()) as Product;
    const taken = await send(token, "POST", "/products", {
      code: "B",
      name: "B",
      price: "1.00",
      barcodes: ["333", "222"],
    });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as Problem).errors.map((e) => e.path)).toEqual(["/barcodes/1"]);
    const b = (await (
      await send(token, "POST", "/products", { code: "B", name: "B", price: "1.00", barcodes: ["333"] })
    ).json()) as Product;
    expect(
      (await send(token, "PATCH", `/products/${b.id}`, { barcodes: ["333", "111"] }, { "If-Match": "*" })).status,
    ).toBe(409);
    await send(token, "DELETE", `/products/${a.id}`, undefined, { "If-Match": "*" });
    expect(
      (await send(token, "PATCH", `/products/${b.id}`, { barcodes: ["333", "111"] }, { "If-Match": "*" })).status,
    ).toBe(200);
    // Bringing A back would give 111 two active products.
    expect((await send(token, "PATCH", `/products/${a.id}`, { active: true }, { "If-Match": "*" })).status).toBe(409);
  });

  it("refuses a file whose active lines share a barcode, or give one that another active product keeps; a file may move a barcode", async () => {
    const { token, company } = await companyWithToken();
    expect(
      (
        await importCsv(
          token,
          `${HEADER}\nKEEP,999|888,Guarda,1.00,true,18,43,good,true\nOLD,777,Viejo,1.00,true,18,43,good,false`,
        )
      ).status,
    ).toBe(200);
    const version = await catalogVersion(company.id);
    const inFile = await importCsv(
      token,
      `${HEADER}\nX,100,Equis,1.00,true,18,43,good,true\nY,200|100,Ye,1.00,true,18,43,good,true\nZ,200,Zeta,1.00,true,18,43,good,false`,
    );
    expect(((await inFile.json()) as Problem).errors.map((e) => [e.line, e.column, e.detail])).toEqual([
      [3, "barcodes", "Barcode 100 is already on line 2."],
    ]);
    const stored = await importCsv(
      token,
      `${HEADER}\nX,100,Equis,1.00,true,18,43,good,true\nY,888,Ye,1.00,true,18,43,good,true`,
    );
    expect(stored.status).toBe(422);
    const problem = (await stored.json()) as Problem;
    expect(problem.errors.map((e) => [e.line, e.column])).toEqual([[3, "barcodes"]]);
    expect(problem.errors[0]!.detail).toContain("KEEP");
    expect(await catalogVersion(company.id)).toBe(version);
    expect(await productCount(company.id)).toBe(2);
    // Moving 888 from KEEP to Y in the same file, and reusing the inactive product's 777, is fine.
    const moved = await importCsv(
      token,
      `${HEADER}\nKEEP,999,Guarda,1.00,true,18,43,good,true\nY,888|777,Ye,1.00,true,18,43,good,true`,
    );
    expect(moved.status).toBe(200);
  });
});

describe("cashiers", () => {
  it("keeps only a scrypt hash of the PIN; the issuer never reads it back", async () => {
    const { token, company } = await companyWithToken();
    const res = await send(token, "POST", "/cashiers", { name: "María", pin: "482193" });
    expect(res.status).toBe(201);
    const cashier = (await res.json()) as Record<string, unknown>;
    expect(cashier).toMatchObject({ name: "María", active: true });
    expect(JSON.stringify(cashier)).not.toContain("482193");
    expect(cashier.pin).toBeUndefined();
    const [row] = await issuerSql(company.id, "SELECT pin_hash, pin_salt, pin_iterations FROM cashiers");
    // scrypt N 2^14, r 8, p 1 (16 MiB, memory-hard): docs/security.md.
    expect(String(row!.pin_hash)).toMatch(/^scrypt:16384:8:1:[A-Za-z0-9+/]{43}=$/);
    expect(row!.pin_iterations).toBe(16384);
    expect(String(row!.pin_hash)).not.toContain("482193");
    // At least 6 digits (issue 32): a 4- or 5-digit PIN falls to an offline search at once.
    for (const pin of ["123", "1234", "12345", "1234567890123", "12a456"])
      expect((await send(token, "POST", "/cashiers", { name: "X", pin })).status, pin).toBe(400);
    expect((await send(token, "PATCH", "/cashiers/nope", { active: false })).status).toBe(404);
  });
});

describe("what a paired till pulls", () => {
  it("pages products and cashiers by version until complete, then only what changed (deactivations included)", async () => {
    const { token, deviceToken } = await pairedTill();
    const empty = await getJson<Pull>(deviceToken, "/devices/catalog");
    expect(empty).toEqual({
      version: 0,
      products: [],
      cashiers: [],
      nextSince: 0,
      complete: true,
      device: { canEditPrices: false },
    });

    const csv = [
      HEADER,
      ...Array.from({ length: 7 }, (_, i) => `T${i},,Producto ${i},${i + 1}.00,true,18,43,good,true`),
    ].join("\n");
    expect((await importCsv(token, csv)).status).toBe(200);
    const ana = (await (await send(token, "POST", "/cashiers", { name: "Ana", pin: "123412" })).json()) as {
      id: string;
    };
    await send(token, "POST", "/cashiers", { name: "Luis", pin: "987654" });

    const first = await pullAll(deviceToken, 0, 3);
    expect(first.pages.map((p) => p.complete)).toEqual([false, false, true]);
    expect(first.pages.map((p) => p.nextSince)).toEqual([3, 6, 9]);
    expect(first.products.map((p) => p.code)).toEqual(["T0", "T1", "T2", "T3", "T4", "T5", "T6"]);
    expect(first.cashiers.map((c) => c.name)).toEqual(["Ana", "Luis"]);
    const versions = [...first.products, ...first.cashiers].map((r) => r.version);
    expect(new Set(versions).size).toBe(9);
    // The till checks a PIN offline from what it pulled.
    const anaPin = first.cashiers[0]!.pin;
    expect(anaPin).toMatchObject({ algorithm: "scrypt", N: 16384, r: 8, p: 1 });
    expect(await pinMatches(anaPin, "123412")).toBe(true);
    expect(await pinMatches(anaPin, "123413")).toBe(false);

    // Changes after the till's version: a price, a withdrawn product, a deactivated cashier.
    const since = first.pages.at(-1)!.nextSince;
    const t3 = first.products.find((p) => p.code === "T3")!;
    const t5 = first.products.find((p) => p.code === "T5")!;
    await send(token, "PATCH", `/products/${t3.id}`, { price: "99.99" }, { "If-Match": `"${t3.version}"` });
    await send(token, "DELETE", `/products/${t5.id}`, undefined, { "If-Match": `"${t5.version}"` });
    expect((await send(token, "PATCH", `/cashiers/${ana.id}`, { active: false })).status).toBe(200);
    const next = await pullAll(deviceToken, since, 100);
    expect(next.pages).toHaveLength(1);
    expect(next.products.map((p) => [p.code, p.price, p.active])).toEqual([
      ["T3", "99.99", true],
      ["T5", "6.00", false],
    ]);
    expect(next.cashiers.map((c) => [c.name, c.active])).toEqual([["Ana", false]]);
    expect(next.pages[0]).toMatchObject({ version: since + 3, nextSince: since + 3, complete: true });

    // Up to date: nothing more.
    expect(await getJson<Pull>(deviceToken, `/devices/catalog?since=${since + 3}`)).toMatchObject({
      products: [],
      cashiers: [],
      complete: true,
    });
  });

  it.each([["since=-1"], ["since=abc"], ["limit=0"], ["limit=1001"]])("refuses %s (400)", async (query) => {
    const { deviceToken } = await pairedTill();
    expect((await call(`/devices/catalog?${query}`, { headers: authed(deviceToken) })).status).toBe(400);
  });

  it("needs a device token", async () => {
    const { token } = await companyWithToken();
    expect((await call("/devices/catalog", { headers: authed(token) })).status).toBe(401);
  });

  it("a PIN hashed with PBKDF2 before scrypt still reaches the till and matches; its next change is scrypt", async () => {
    const { token, deviceToken, company } = await pairedTill();
    const created = await send(token, "POST", "/cashiers", { name: "Rosa", pin: "564738" });
    const rosa = (await created.json()) as { id: string };
    // What a cashier created before scrypt has in the ledger.
    const legacy = await pbkdf2Pin("564738");
    await issuerSql(
      company.id,
      "UPDATE cashiers SET pin_iterations = 100000, pin_salt = ?, pin_hash = ? WHERE id = ?",
      legacy.salt,
      legacy.hash,
      rosa.id,
    );
    const before = (await pullAll(deviceToken, 0, 100)).cashiers.find((c) => c.id === rosa.id)!.pin;
    expect(before).toEqual({ algorithm: "PBKDF2-SHA256", iterations: 100_000, ...legacy });
    expect(await pinMatches(before, "564738")).toBe(true);
    expect(await pinMatches(before, "564739")).toBe(false);

    expect((await send(token, "PATCH", `/cashiers/${rosa.id}`, { pin: "918273" })).status).toBe(200);
    const after = (await pullAll(deviceToken, 0, 100)).cashiers.find((c) => c.id === rosa.id)!.pin;
    expect(after).toMatchObject({ algorithm: "scrypt", N: 16384, r: 8, p: 1 });
    expect(await pinMatches(after, "918273")).toBe(true);
  });
});

describe("canEditPrices, per device", () => {
  it("is off by default, set by the issuer or the administrator, and read by the till with its pull", async () => {
    const { company, token, deviceId, deviceToken } = await pairedTill();
    const setting = async () => (await getJson<Pull>(deviceToken, "/devices/catalog")).device.canEditPrices;
    expect(await setting()).toBe(false);

    const on = await send(token, "PATCH", `/devices/${deviceId}`, { canEditPrices: true });
    expect(on.status).toBe(200);
    expect(await on.json()).toEqual({ id: deviceId, name: "Caja 1", canEditPrices: true });
    expect(await setting()).toBe(true);
    // The device list and the till's own /devices/me say it too.
    const listed = await getJson<{ devices: { id: string; canEditPrices: boolean }[] }>(token, "/devices");
    expect(listed.devices.find((d) => d.id === deviceId)?.canEditPrices).toBe(true);
    expect(
      (await getJson<{ device: { canEditPrices: boolean } }>(deviceToken, "/devices/me")).device.canEditPrices,
    ).toBe(true);

    const off = await admin("PATCH", `/admin/companies/${company.id}/devices/${deviceId}`, { canEditPrices: false });
    expect(off.canEditPrices).toBe(false);
    expect(await setting()).toBe(false);

    expect((await send(token, "PATCH", `/devices/${deviceId}`, { canEditPrices: "yes" })).status).toBe(400);
    expect((await send(token, "PATCH", `/devices/${deviceId}`, { canPrint: true })).status).toBe(400);
  });
});

describe("tenant isolation", () => {
  it("another issuer never sees, changes or pulls the catalogue", async () => {
    const a = await pairedTill();
    const b = await pairedTill();
    const product = (await (
      await send(a.token, "POST", "/products", { code: "SOLO-A", name: "Solo de A", price: "1.00" })
    ).json()) as Product;
    await send(a.token, "POST", "/cashiers", { name: "Cajera de A", pin: "111111" });

    expect(await allPages(b.token)).toEqual([]);
    expect((await call(`/products/${product.id}`, { headers: authed(b.token) })).status).toBe(404);
    expect(
      (await send(b.token, "PATCH", `/products/${product.id}`, { price: "0.01" }, { "If-Match": "*" })).status,
    ).toBe(404);
    expect((await send(b.token, "DELETE", `/products/${product.id}`, undefined, { "If-Match": "*" })).status).toBe(404);
    expect((await getJson<{ cashiers: unknown[] }>(b.token, "/cashiers")).cashiers).toEqual([]);
    expect((await exportCsv(b.token)).split("\r\n").filter(Boolean)).toEqual([HEADER]);
    expect(await getJson<Pull>(b.deviceToken, "/devices/catalog")).toMatchObject({
      version: 0,
      products: [],
      cashiers: [],
    });
    // Nor another issuer's till settings.
    expect((await send(b.token, "PATCH", `/devices/${a.deviceId}`, { canEditPrices: true })).status).toBe(404);
    expect(
      (await admin<{ canEditPrices: boolean }>("PATCH", `/admin/companies/${a.company.id}/devices/${a.deviceId}`, {}))
        .canEditPrices,
    ).toBe(false);
    await expect(
      admin("PATCH", `/admin/companies/${b.company.id}/devices/${a.deviceId}`, { canEditPrices: true }),
    ).rejects.toThrow(/404/);

    // A's own till sees A's product, unchanged.
    const pulled = await getJson<Pull>(a.deviceToken, "/devices/catalog");
    expect(pulled.products.map((p) => [p.code, p.price])).toEqual([["SOLO-A", "1.00"]]);
    expect(await productCount(b.company.id)).toBe(0);
  });
});
