// The store's catalogue end to end in Chromium against the real stack (wrangler dev + the DGII
// sandbox, as `npm start` runs them): products created and repriced through the issuer's API reach
// two paired tills, a barcode typed + Enter rings the item up, a sale at shelf prices with ITBIS
// included comes back Aceptado with DGII's totals in the archived XML, and an RNC typed at the till
// fills the buyer's name from the taxpayer registry the administrator imported.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeTotals } from "@ecf/shared/totals";
import { xmlToEcf } from "@ecf/shared/xml/parse";
import { createTestIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { buildPos, startStack, type Stack } from "./pos-stack.ts";
import { createTestIssuer } from "./support/issuer.ts";
import { createTestCashier, openShiftIfAsked } from "./support/shift.ts";

execFileSync("node", [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

const RESULTS = fileURLToPath(new URL("../../test-results/", import.meta.url));
const RNC = "131880681";
const BUYER_RNC = "131880738";
const BUYER_NAME = "DIRECCION GENERAL DE IMPUESTOS INTERNOS";
const SUSPENDED_RNC = "130000001";

let stack: Stack;
let browser: Browser;
let identity: TestIdentity;
let companyId: string;
let issuerToken: string;
const tills: { id: string; pairingCode: string; context?: BrowserContext; page?: Page }[] = [];

/** The issuer's own API (its key's token), as a back office would call it. */
async function issuer(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${stack.workerUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${issuerToken}`,
      "X-RNC-Emisor": RNC,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  buildPos();
  [stack, identity] = await Promise.all([
    startStack(),
    createTestIdentity({ rnc: RNC, commonName: "SUPERMERCADO DE PRUEBA SRL" }),
  ]);
  const company = await createTestIssuer(
    stack,
    identity,
    {
      name: "SUPERMERCADO DE PRUEBA SRL",
      tradeName: "Súper La Cadena",
      registryNumber: RNC,
      address: "Av. 27 de Febrero 100, Santo Domingo",
    },
    100000,
  );
  companyId = company.id;
  // No sale without a shift: the cashier who opens one comes with the catalogue.
  await createTestCashier(stack.admin, companyId);
  for (const name of ["Caja 1", "Caja 2"])
    tills.push(
      await stack.admin<{ id: string; pairingCode: string }>("POST", `/admin/companies/${companyId}/devices`, { name }),
    );
  const key = await stack.admin<{ apiKey: string; apiSecret: string }>("POST", "/admin/keys", {
    ownerType: "company",
    ownerId: companyId,
    kind: "test",
  });
  const login = await fetch(`${stack.workerUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(key),
  });
  issuerToken = ((await login.json()) as { token: string }).token;

  // DGII's taxpayer registry, a tiny one, through the administrator's import routes.
  const started = await stack.admin<{ importId: number }>("POST", "/admin/taxpayers/imports", {
    source: "DGII_RNC_prueba.zip",
  });
  const row = (rnc: string, legalName: string, status: string) => ({
    rnc,
    legalName,
    tradeName: null,
    activity: "VENTA AL POR MENOR",
    status,
    paymentRegime: "NORMAL",
    registeredOn: "2012-03-15",
  });
  await stack.admin("POST", `/admin/taxpayers/imports/${started.importId}/rows`, {
    rows: [row(BUYER_RNC, BUYER_NAME, "ACTIVO"), row(SUSPENDED_RNC, "FERRETERIA CERRADA SRL", "SUSPENDIDO")],
  });
  await stack.admin("POST", `/admin/taxpayers/imports/${started.importId}/commit`);

  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const page = (i: number) => tills[i]!.page!;
/** The catalogue pull a browser makes when it comes back online (the till also pulls every minute). */
const online = (p: Page) => p.evaluate(() => window.dispatchEvent(new Event("online")));
const priceCell = (code: string) => `table.products tr[data-code="${code}"] td.num`;

interface ProductOut {
  id: string;
  code: string;
  price: string;
  version: number;
}

describe("the store's catalogue on two tills", () => {
  const products: Record<string, { product: ProductOut; etag: string }> = {};

  it("pairs two tills; products created through the API appear on both", async () => {
    for (const till of tills) {
      till.context = await browser.newContext({
        viewport: { width: 1280, height: 860 },
        locale: "es-DO",
        timezoneId: "America/Santo_Domingo",
      });
      till.page = await till.context.newPage();
      await till.page.goto(`${stack.workerUrl}/pos/`);
      await till.page.fill("#pairing-code", till.pairingCode);
      await till.page.press("#pairing-code", "Enter");
      await till.page.waitForSelector("header.bar");
      // Pulled at pairing: the (still empty) catalogue, and when.
      await till.page.waitForSelector('#catalog-status:has-text("Catálogo actualizado")', { timeout: 30_000 });
      await till.page.click('button[data-tab="productos"]');
      await till.page.waitForSelector('p:text-is("Aún no hay productos.")');
    }

    const create = async (body: Record<string, unknown>) => {
      const res = await issuer("POST", "/products", body);
      expect(res.status, await res.clone().text()).toBe(201);
      const product = (await res.json()) as ProductOut;
      products[product.code] = { product, etag: res.headers.get("ETag")! };
    };
    await create({
      code: "7460100",
      barcodes: ["7460100000019"],
      name: "Ron añejo 700 ml",
      price: "99.99",
      priceIncludesItbis: true,
      itbisRate: "18",
      unit: "43",
      kind: "good",
    });
    await create({
      code: "ENVIO",
      barcodes: [],
      name: "Servicio de envío",
      price: "100.00",
      priceIncludesItbis: false,
      itbisRate: "18",
      unit: "43",
      kind: "service",
    });
    await create({
      code: "7460300",
      barcodes: ["7460300000017"],
      name: "Galletas descontinuadas",
      price: "35.00",
      priceIncludesItbis: true,
      itbisRate: "18",
      unit: "43",
      kind: "good",
    });

    for (const [i, till] of tills.entries()) {
      await online(till.page!);
      await till.page!.waitForSelector(priceCell("7460100"), { timeout: 30_000 });
      expect(await till.page!.textContent(priceCell("7460100"))).toBe("RD$99.99");
      expect(await till.page!.textContent('table.products tr[data-code="7460100"]')).toContain("ITBIS 18 % (incluido)");
      expect(await till.page!.textContent('table.products tr[data-code="7460100"] td.barcodes')).toBe("7460100000019");
      // Read-only: this till may not change prices (the default).
      expect(await till.page!.$("#product-form")).toBeNull();
      expect(await till.page!.textContent("#catalog-rights")).toContain("no puede cambiarlos");
      await till.page!.screenshot({ path: `${RESULTS}store-till-${i + 1}-catalog.png`, fullPage: true });
    }
  }, 300_000);

  it("a price change (PATCH with If-Match) reaches both tills: one as it comes online, the other on its periodic pull", async () => {
    const ron = products["7460100"]!;
    const refused = await issuer("PATCH", `/products/${ron.product.id}`, { price: "109.99" });
    expect(refused.status).toBe(428);
    const res = await issuer("PATCH", `/products/${ron.product.id}`, { price: "109.99" }, { "If-Match": ron.etag });
    expect(res.status, await res.clone().text()).toBe(200);
    ron.product = (await res.json()) as ProductOut;
    ron.etag = res.headers.get("ETag")!;
    // And the issuer lets Caja 1 change prices at the counter.
    const allowed = await issuer("PATCH", `/devices/${tills[0]!.id}`, { canEditPrices: true });
    expect(allowed.status, await allowed.clone().text()).toBe(200);

    await online(page(0));
    await page(0).waitForSelector(`${priceCell("7460100")}:text-is("RD$109.99")`, { timeout: 30_000 });
    await page(0).waitForSelector("#product-form", { timeout: 30_000 });
    expect(await page(0).$('table.products tr[data-code="7460100"] button')).not.toBeNull();
    // Caja 2 hears nothing but its own minute.
    await page(1).waitForSelector(`${priceCell("7460100")}:text-is("RD$109.99")`, { timeout: 120_000 });
    expect(await page(1).$("#product-form")).toBeNull();
    expect(await page(1).$('table.products tr[data-code="7460100"] button')).toBeNull();
  }, 300_000);

  it("a barcode typed + Enter adds the item, again adds one more; an unknown or withdrawn code says so", async () => {
    const galletas = products["7460300"]!;
    const withdrawn = await issuer("DELETE", `/products/${galletas.product.id}`, undefined, {
      "If-Match": galletas.etag,
    });
    expect(withdrawn.status, await withdrawn.clone().text()).toBeLessThan(300);
    const p = page(0);
    await online(p);
    await p.waitForSelector('table.products tr[data-code="7460300"]', { state: "detached", timeout: 30_000 });

    await p.click('button[data-tab="venta"]');
    await openShiftIfAsked(p);
    await p.click("#search");
    // A scanner is a keyboard: the digits, then Enter, into the focused search box.
    await p.keyboard.type("7460100000019");
    await p.keyboard.press("Enter");
    const qty = 'input[aria-label="Cantidad de Ron añejo 700 ml"]';
    await p.waitForSelector(qty);
    expect(await p.inputValue(qty)).toBe("1");
    await p.keyboard.type("7460100000019");
    await p.keyboard.press("Enter");
    await p.waitForFunction((sel) => document.querySelector<HTMLInputElement>(sel)?.value === "2", qty);
    for (const unknown of ["0000000000000", "7460300000017"]) {
      await p.keyboard.type(unknown);
      await p.keyboard.press("Enter");
      await p.waitForSelector(`#scan-error:has-text("${unknown}")`);
      expect(await p.textContent("#scan-error")).toContain("No hay ningún producto");
    }
    expect(await p.$$eval("#cart tbody tr", (rows) => rows.length)).toBe(1);
    expect(await p.inputValue("#search")).toBe("");
    await p.screenshot({ path: `${RESULTS}store-barcode.png`, fullPage: true });
  }, 120_000);

  it("a sale at prices with ITBIS included comes back Aceptado with DGII's totals in the archived XML", async () => {
    const p = page(0);
    // Three bottles at the shelf price (109.99 with ITBIS) and the delivery, priced without ITBIS.
    const qty = 'input[aria-label="Cantidad de Ron añejo 700 ml"]';
    await p.fill(qty, "3");
    await p.press(qty, "Tab");
    await p.fill("#search", "ENVIO");
    await p.press("#search", "Enter");
    await p.waitForSelector('#cart td:text-is("Servicio de envío")');
    // In one document with IndicadorMontoGravado 1 the delivery is 100.00 × 1.18 = 118.00;
    // 3 × 109.99 + 118.00 = 447.97 ÷ 1.18 = 379.6356 → 379.64 taxed; the ITBIS is the rest,
    // 68.33 (formato-ecf's 379.64 × 18 % = 68.34 is a cent off, within tolerance): total 447.97,
    // the shelf sum the customer was told, to the cent.
    await p.waitForFunction(() => document.querySelector("#total")?.textContent === "RD$447.97", undefined, {
      timeout: 10_000,
    });
    await p.fill("#cash", "500");
    expect(await p.textContent("#change")).toBe("Cambio: RD$52.03");
    await p.press("#search", "Control+Enter");
    const encf = (await (await p.waitForSelector('section.ticket[data-encf^="E32"]')).getAttribute("data-encf"))!;
    await p.waitForFunction(
      () => document.querySelector("section.ticket .estado")?.textContent === "Estado: Aceptado",
      undefined,
      { timeout: 60_000 },
    );
    await p.emulateMedia({ media: "print" });
    await (await p.$("section.ticket"))!.screenshot({ path: `${RESULTS}store-itbis-included-receipt.png` });
    await p.emulateMedia({ media: "screen" });

    const drToday = new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
    const xml = stack.archived(`${RNC}/${drToday.slice(0, 4)}/${drToday.slice(5, 7)}/${encf}.xml`);
    expect(xml).toContain("<IndicadorMontoGravado>1</IndicadorMontoGravado>");
    expect(xml).toContain("<MontoGravadoI1>379.64</MontoGravadoI1>");
    expect(xml).toContain("<TotalITBIS>68.33</TotalITBIS>");
    expect(xml).toContain("<MontoTotal>447.97</MontoTotal>");
    expect([...xml.matchAll(/<PrecioUnitarioItem>([^<]+)</g)].map((m) => m[1])).toEqual(["109.99", "118.0000"]);
    expect([...xml.matchAll(/<MontoItem>([^<]+)</g)].map((m) => m[1])).toEqual(["329.97", "118.00"]);
    // The shared totals over the archived document give what it carries, field by field.
    const doc = xmlToEcf(xml) as { Encabezado: { Totales: Record<string, unknown> } };
    expect(computeTotals(doc).Totales).toEqual(doc.Encabezado.Totales);
    const recorded = (await stack.receipts(companyId)).find((r) => r.encf === encf);
    expect(recorded?.estado).toBe("Aceptado");
  }, 180_000);

  it("typing a registered RNC fills the buyer's name; a suspended one is flagged; offline, recent buyers fill it", async () => {
    const p = page(1);
    await p.click('button[data-tab="venta"]');
    await openShiftIfAsked(p);
    // The product withdrawn earlier leaves the sale screen on display when this till pulls.
    await online(p);
    await p.waitForSelector('#results button[data-code="7460300"]', { state: "detached", timeout: 30_000 });
    await p.fill("#search", "7460100");
    await p.press("#search", "Enter");
    await p.fill("#buyer-rnc", SUSPENDED_RNC);
    await p.waitForFunction(
      () => document.querySelector<HTMLInputElement>("#buyer-name")?.value === "FERRETERIA CERRADA SRL",
      undefined,
      { timeout: 30_000 },
    );
    expect(await p.textContent("#buyer-status")).toContain("SUSPENDIDO");
    await p.fill("#buyer-rnc", "132222223");
    await p.waitForSelector('#buyer-status:has-text("no figura en el registro")', { timeout: 30_000 });
    await p.fill("#buyer-name", "");
    await p.fill("#buyer-rnc", BUYER_RNC);
    await p.waitForFunction(
      (name) => document.querySelector<HTMLInputElement>("#buyer-name")?.value === name,
      BUYER_NAME,
      { timeout: 30_000 },
    );
    expect(await p.textContent("#buyer-status")).toBe("");
    expect(await p.textContent("#tipo")).toBe("E31 Crédito fiscal");
    await p.screenshot({ path: `${RESULTS}store-buyer-by-rnc.png`, fullPage: true });
    await p.fill("#cash", "200");
    await p.press("#search", "Control+Enter");
    await p.waitForSelector('section.ticket[data-encf^="E31"]');
    expect(await p.textContent("section.ticket")).toContain(BUYER_NAME);
    await p.waitForFunction(
      () => document.querySelector("section.ticket .estado")?.textContent === "Estado: Aceptado",
      undefined,
      { timeout: 60_000 },
    );

    // Offline: the buyer invoiced here a moment ago fills itself from the till's recent buyers.
    await tills[1]!.context!.setOffline(true);
    await p.waitForSelector("#net.off");
    await p.click("#new-sale");
    await p.waitForSelector("#search");
    await p.fill("#buyer-rnc", BUYER_RNC);
    await p.waitForFunction(
      (name) => document.querySelector<HTMLInputElement>("#buyer-name")?.value === name,
      BUYER_NAME,
      { timeout: 10_000 },
    );
    await tills[1]!.context!.setOffline(false);
    for (const till of tills) await till.context!.close();
  }, 180_000);
});
