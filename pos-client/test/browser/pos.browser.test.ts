// The POS end to end in Chromium against the real worker (wrangler dev) and the DGII sandbox:
// pair, sell online, sell offline (print view with QR), reload offline, come back online and
// every receipt syncs exactly once; the archived XML verifies with xmlsec1.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, forgeP12, xmlsecVerify, type TestIdentity } from "../../../shared/test/support/certs.ts";
import { buildPos, startStack, type Stack } from "./pos-stack.ts";

execFileSync("node", [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium", "xmlsec1"], { stdio: "inherit" });

const RESULTS = fileURLToPath(new URL("../../test-results/", import.meta.url));
const RNC = "131880681";

let stack: Stack;
let browser: Browser;
let identity: TestIdentity;
let deviceId: string;
let pairingCode: string;

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  buildPos();
  [stack, identity] = await Promise.all([startStack(), createTestIdentity({ rnc: RNC, commonName: "COLMADO DE PRUEBA SRL" })]);
  const company = await stack.admin<{ id: string }>("POST", "/admin/companies", { legalName: "COLMADO DE PRUEBA SRL", tradeName: "Colmado La Esquina", rnc: RNC, address: "Av. Duarte 12, Santo Domingo", dgiiEnvironment: "testecf" });
  const form = new FormData();
  form.set("file", new File([new Uint8Array(forgeP12(identity, "clave"))], "firma.p12"));
  form.set("password", "clave");
  await stack.admin("PUT", `/admin/companies/${company.id}/certificate`, form);
  for (const tipo of ["32", "31", "34"]) await stack.admin("PUT", `/admin/companies/${company.id}/sequences/${tipo}`, { rangeFrom: 1, rangeTo: 100000, expiresOn: "2099-12-31" });
  const device = await stack.admin<{ id: string; pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, { name: "Caja 1" });
  deviceId = device.id;
  pairingCode = device.pairingCode;
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function addProduct(page: Page, p: { code: string; name: string; price: string; itbis: "18" | "16" | "E" }) {
  await page.click('button[data-tab="productos"]');
  await page.fill('input[name="code"]', p.code);
  await page.fill('input[name="name"]', p.name);
  await page.fill('input[name="price"]', p.price);
  await page.selectOption('select[name="itbis"]', p.itbis);
  await page.click('#product-form button[type="submit"]');
  await page.waitForSelector(`table.products td:text-is("${p.code}")`);
}

/** Rings up a sale from the keyboard: search, Enter adds, Ctrl+Enter charges. Returns the e-NCF. */
async function sell(page: Page, items: string[], screenshot?: string): Promise<string> {
  await page.click('button[data-tab="venta"]');
  for (const item of items) {
    await page.fill("#search", item);
    await page.press("#search", "Enter");
  }
  await page.fill("#cash", "5000");
  if (screenshot) await page.screenshot({ path: `${RESULTS}${screenshot}`, fullPage: true });
  await page.press("#search", "Control+Enter");
  const ticket = await page.waitForSelector("section.ticket");
  return (await ticket.getAttribute("data-encf"))!;
}

const estadoOf = (page: Page) => page.textContent("section.ticket .estado");

describe("the POS in Chromium", () => {
  let context: BrowserContext;
  let page: Page;
  const uploads: string[] = [];

  it("pairs, sells online, keeps selling offline, reopens offline, and syncs every receipt once", async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "es-DO", timezoneId: "America/Santo_Domingo" });
    page = await context.newPage();
    const answers = new Map<string, string>();
    // Uploads that reached the server and came back (a request the emulated network dropped is
    // retried by design and does not count; the server would dedupe it anyway).
    page.on("requestfinished", (r) => {
      if (r.url().endsWith("/devices/receipts")) uploads.push(/<eNCF>(E\d{12})<\/eNCF>/.exec(r.postData() ?? "")?.[1] ?? "?");
    });
    page.on("requestfailed", (r) => {
      if (r.url().endsWith("/devices/receipts")) console.log(`upload failed (will be retried): ${r.failure()?.errorText}`);
    });
    page.on("response", async (r) => {
      if (r.url().endsWith("/devices/receipts") && r.ok()) {
        const body = (await r.json()) as { encf: string; estado: string };
        answers.set(body.encf, body.estado);
      }
    });
    await page.goto(`${stack.workerUrl}/pos/`);
    await page.fill("#pairing-code", pairingCode.toLowerCase());
    await page.press("#pairing-code", "Enter");
    await page.waitForSelector("header.bar");
    expect(await page.textContent("header.bar")).toContain("Colmado La Esquina");
    // The service worker controls the page before the network goes away.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });

    // The key is a non-extractable CryptoKey stored as such in IndexedDB.
    const stored = await page.evaluate(
      () =>
        new Promise<{ extractable: boolean; type: string }>((resolve, reject) => {
          const open = indexedDB.open("ecf-pos");
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const get = open.result.transaction("keys").objectStore("keys").get("signing");
            get.onsuccess = () => resolve({ extractable: get.result.key.extractable, type: get.result.key.type });
          };
        }),
    );
    expect(stored).toEqual({ extractable: false, type: "private" });

    await addProduct(page, { code: "7460001", name: "Café Santo Domingo 1 lb", price: "350", itbis: "18" });
    await addProduct(page, { code: "7460002", name: "Arroz selecto 5 lb", price: "210.50", itbis: "E" });
    await addProduct(page, { code: "7460003", name: "Yogur natural", price: "95.25", itbis: "16" });

    // Online: signed on the device, uploaded at once, and the server's answer shown.
    const online = await sell(page, ["Café", "7460002"], "sale-screen.png");
    // The upload may finish before the ticket is even on screen: read the answer as it was seen.
    await expect.poll(() => answers.get(online), { timeout: 30_000 }).toBeDefined();
    const firstEstado = answers.get(online)!;
    expect(firstEstado).toBe("Aceptado");
    await page.waitForFunction((estado) => document.querySelector("section.ticket .estado")?.textContent === `Estado: ${estado}`, firstEstado, { timeout: 30_000 });

    // Offline: each receipt is signed on the device, printable with its QR, queued in contingency.
    await context.setOffline(true);
    await page.waitForSelector("#net.off");
    const offline: string[] = [];
    for (const items of [["Café"], ["Yogur", "Yogur", "Arroz"], ["7460003"]]) {
      offline.push(await sell(page, items));
      // Each distinct product is one line; the same product twice is quantity 2.
      const quantities = await page.$$eval("section.ticket .items tbody tr td:first-child", (cells) => cells.map((c) => c.textContent));
      expect(quantities).toEqual(items.length === 3 ? ["2.00", "1.00"] : ["1.00"]);
      expect(await estadoOf(page)).toContain("Contingencia");
      expect(await page.$("section.ticket .qr svg")).not.toBeNull();
      expect(await page.textContent("section.ticket .security-code")).toMatch(/^.{6}$/);
      expect(await page.textContent("section.ticket .signature-date")).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    }
    await page.evaluate(() => {
      (window as unknown as { printed: number }).printed = 0;
      window.print = () => void (window as unknown as { printed: number }).printed++;
    });
    await page.click("#print");
    expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    await page.emulateMedia({ media: "print" });
    await (await page.$("section.ticket"))!.screenshot({ path: `${RESULTS}receipt.png` });
    await page.emulateMedia({ media: "screen" });
    expect(await page.textContent("#sync")).toContain("Pendientes: 3");

    // Reload with no network: the precached shell opens, the queue is still there.
    await page.reload();
    await page.waitForSelector("header.bar");
    expect(await page.textContent("#net")).toBe("Sin conexión");
    await page.click('button[data-tab="recibos"]');
    for (const encf of offline) expect(await page.getAttribute(`tr[data-encf="${encf}"]`, "data-estado")).toBe("Contingencia");

    // Back online: the queue drains in order, each receipt exactly once.
    await context.setOffline(false);
    await page.waitForFunction(() => document.querySelector("#sync")?.getAttribute("data-pending") === "0", undefined, { timeout: 60_000 });
    const all = [online, ...offline];
    // Each receipt shows the server's answer to its upload.
    await page.click('button[data-tab="recibos"]');
    for (const encf of all) {
      await page.waitForFunction(([e, estado]) => document.querySelector(`tr[data-encf="${e}"]`)?.getAttribute("data-estado") === estado, [encf, answers.get(encf)] as const, { timeout: 30_000 });
    }
    // DGII (the sandbox) accepted every one of them.
    for (const encf of all) expect(answers.get(encf), encf).toBe("Aceptado");
    expect(uploads.filter((e) => all.includes(e)).sort()).toEqual([...all].sort());
    expect(uploads.slice(-3)).toEqual(offline);
    // One receipt per e-NCF on the server, recorded as coming from this device.
    const recorded = stack.sql<{ encf: string; n: number }>(`SELECT encf, COUNT(*) AS n FROM receipts WHERE source = 'device' GROUP BY encf ORDER BY encf`);
    expect(recorded).toEqual([...all].sort().map((encf) => ({ encf, n: 1 })));
    const rows = stack.sql<{ encf: string; n: number }>(`SELECT encf, COUNT(*) AS n FROM device_uploads WHERE device_id = '${deviceId}' GROUP BY encf ORDER BY encf`);
    expect(rows).toEqual([...all].sort().map((encf) => ({ encf, n: 1 })));

    // What the server archived is the device's signature, valid for xmlsec1.
    const drToday = new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
    for (const encf of all) {
      const xml = stack.archived(`${RNC}/${drToday.slice(0, 4)}/${drToday.slice(5, 7)}/${encf}.xml`);
      expect(xml).toContain(`<eNCF>${encf}</eNCF>`);
      expect(xmlsecVerify(xml, identity.certificatePem)).toEqual({ ok: true, output: "" });
    }
  }, 300_000);

  it("revocation: the device learns it at the next sync, deletes its key and asks to pair again", async () => {
    await stack.admin("POST", `/admin/devices/${deviceId}/revoke`);
    await page.reload();
    await page.waitForSelector("#pairing", { timeout: 30_000 });
    expect(await page.textContent("#pairing-error")).toContain("revocado");
    const keys = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const open = indexedDB.open("ecf-pos");
          open.onsuccess = () => {
            const count = open.result.transaction("keys").objectStore("keys").count();
            count.onsuccess = () => resolve(count.result);
          };
        }),
    );
    expect(keys).toBe(0);
    await context.close();
  }, 120_000);
});
