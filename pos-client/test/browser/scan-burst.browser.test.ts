// A barcode scanner at full speed, in Chromium against the real worker and the DGII sandbox. The
// scanner is a keyboard: a code's 13 digits and Enter with no pause, the next item at once. Every
// code scanned becomes one line or one more unit, in scan order: 100 codes back to back into one
// sale, 20 sales in a row, offline and online in turn; with the focus in any field; into a fresh sale on
// the receipt just issued; the moment the network drops or returns. An unknown code is said once,
// with the code, and the next scan still lands. A shift closed while the server could not be
// reached is `closed` in /reports/turnos after the next sync round.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity } from "@ecf/shared/test-support/certs";
import { buildPos, startStack, type Stack } from "./pos-stack.ts";
import { createTestIssuer, issuerToken } from "./support/issuer.ts";
import { emptyCart, scanCodes, waitForCart } from "./support/scanner-keys.ts";
import { createTestCashier, openShiftIfAsked } from "./support/shift.ts";

execFileSync("node", [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

const RNC = "131880681";
const NAMES = [
  "Arroz",
  "Habichuelas",
  "Aceite",
  "Azúcar",
  "Café",
  "Leche",
  "Pan",
  "Huevos",
  "Salami",
  "Queso",
  "Jugo",
  "Galletas",
];
const PRODUCTS = NAMES.map((name, i) => ({
  code: `P${String(i + 1).padStart(2, "0")}`,
  barcode: `74620000000${String(i + 10)}`,
  name,
  price: `${i + 1}0.00`,
}));
const byBarcode = new Map(PRODUCTS.map((p) => [p.barcode, p]));

let stack: Stack;
let browser: Browser;
let token: string;
let companyId: string;
const tills: string[] = [];

beforeAll(async () => {
  buildPos();
  const [s, identity] = await Promise.all([
    startStack(),
    createTestIdentity({ rnc: RNC, commonName: "SUPERMERCADO VELOZ SRL" }),
  ]);
  stack = s;
  companyId = (
    await createTestIssuer(
      stack,
      identity,
      {
        name: "SUPERMERCADO VELOZ SRL",
        tradeName: "Súper Veloz",
        registryNumber: RNC,
        address: "Av. Duarte 1, Santo Domingo",
      },
      1000,
    )
  ).id;
  await createTestCashier(stack.admin, companyId);
  token = await issuerToken(stack, companyId);
  for (const p of PRODUCTS) {
    const res = await fetch(`${stack.workerUrl}/products`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "X-RNC-Emisor": RNC, "Content-Type": "application/json" },
      body: JSON.stringify({
        code: p.code,
        barcodes: [p.barcode],
        name: p.name,
        price: p.price,
        priceIncludesItbis: false,
        itbisRate: "exempt",
        unit: "43",
        kind: "good",
      }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
  }
  for (const name of ["Caja 1", "Caja 2", "Caja 3", "Caja 4"])
    tills.push(
      (await stack.admin<{ pairingCode: string }>("POST", `/admin/companies/${companyId}/devices`, { name }))
        .pairingCode,
    );
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A paired till with a shift open, on the sale screen, its first sync round over. */
async function tillOnSale(pairingCode: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: "es-DO",
    timezoneId: "America/Santo_Domingo",
  });
  const page = await context.newPage();
  await page.goto(`${stack.workerUrl}/pos/`);
  await page.fill("#pairing-code", pairingCode);
  await page.press("#pairing-code", "Enter");
  await page.waitForSelector('#catalog-status:has-text("Catálogo actualizado")', { timeout: 60_000 });
  await page.click('button[data-tab="venta"]');
  await openShiftIfAsked(page);
  await page.waitForSelector(`button.product[data-code="${PRODUCTS.at(-1)!.code}"]`, { timeout: 30_000 });
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
  return { context, page };
}

/** A small seeded generator (mulberry32): the same runs every time, different codes in each run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the cart must hold after `codes`: a line per product in the order first scanned, with its count. */
function expectedCart(codes: string[]): string[][] {
  const counts = new Map<string, number>();
  for (const code of codes) {
    const name = byBarcode.get(code)!.name;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => [name, String(n)]);
}

const barcodes = (...names: string[]) => names.map((n) => PRODUCTS.find((p) => p.name === n)!.barcode);

/** 100 codes back to back into one sale, then the cart emptied for the next; `runs` times. */
async function hundredScans(page: Page, random: () => number): Promise<void> {
  const codes = Array.from({ length: 100 }, () => PRODUCTS[Math.floor(random() * PRODUCTS.length)]!.barcode);
  await page.focus("#search");
  await scanCodes(page, codes);
  await waitForCart(page, expectedCart(codes));
  expect(await page.inputValue("#search")).toBe("");
  expect(await page.textContent("#scan-error")).toBe("");
  await emptyCart(page);
  await waitForCart(page, []);
}

describe("a scanner at full speed", () => {
  it("100 codes back to back into one sale, 20 sales in a row, offline and online in turn: every item, in order", async () => {
    const { context, page } = await tillOnSale(tills[0]!);
    const random = seeded(49);
    for (let run = 0; run < 20; run++) {
      const offline = run % 2 === 1;
      await context.setOffline(offline);
      await page.waitForSelector(offline ? "#net.off" : "#net.on");
      await hundredScans(page, random);
    }
    await context.close();
  }, 600_000);

  it("a scan with the focus in each field of the sale lands as a product and leaves the field as it was", async () => {
    const { context, page } = await tillOnSale(tills[1]!);
    const fields = [
      "#search",
      'button.product[data-code="P01"]',
      'input[aria-label="Cantidad de Arroz"]',
      'input[aria-label="Descuento de Arroz"]',
      "#buyer-rnc",
      "#buyer-name",
      "#payment-method",
      "#cash",
      "#charge",
    ];
    await page.click('button.product[data-code="P01"]');
    await waitForCart(page, [["Arroz", "1"]]);
    const expected = [["Arroz", "1"]];
    for (const [i, field] of fields.entries()) {
      const product = PRODUCTS[i + 1]!;
      await page.focus(field);
      await scanCodes(page, [product.barcode]);
      expected.push([product.name, "1"]);
      await waitForCart(page, expected);
    }
    expect(await page.inputValue("#search")).toBe("");
    expect(await page.inputValue('input[aria-label="Cantidad de Arroz"]')).toBe("1");
    expect(await page.inputValue('input[aria-label="Descuento de Arroz"]')).toBe("");
    expect(await page.inputValue("#buyer-rnc")).toBe("");
    expect(await page.inputValue("#buyer-name")).toBe("");
    expect(await page.inputValue("#cash")).toBe("");
    expect(await page.$("section.ticket")).toBeNull();

    // Mixed payment: the card and transfer amounts are fields too.
    await page.selectOption("#payment-method", "mixto");
    for (const [field, name] of [
      ["#card", "Jugo"],
      ["#transfer", "Galletas"],
    ] as const) {
      await page.focus(field);
      await scanCodes(page, barcodes(name));
      expected.push([name, "1"]);
      await waitForCart(page, expected);
      expect(await page.inputValue(field)).toBe("");
    }
    await context.close();
  }, 300_000);

  it("two scans into the fresh sale on the receipt just issued; an unknown code is said once and the next lands", async () => {
    const { context, page } = await tillOnSale(tills[2]!);
    await scanCodes(page, barcodes("Aceite"));
    await waitForCart(page, [["Aceite", "1"]]);
    await page.fill("#cash", "100");
    await page.click("#charge");
    await page.waitForSelector("section.ticket", { timeout: 30_000 });
    // Back to back on the receipt: both start the next sale.
    await scanCodes(page, barcodes("Aceite", "Pan"));
    await waitForCart(page, [
      ["Aceite", "1"],
      ["Pan", "1"],
    ]);

    // Unknown, then known, then the unknown again, with no gap: the message names it once.
    await scanCodes(page, ["7460000000999", ...barcodes("Queso"), "7460000000999", ...barcodes("Pan")]);
    await waitForCart(page, [
      ["Aceite", "1"],
      ["Pan", "2"],
      ["Queso", "1"],
    ]);
    const message = (await page.textContent("#scan-error"))!;
    expect(message).toContain("«7460000000999»");
    expect(message.split("7460000000999")).toHaveLength(2);
    expect(await page.inputValue("#search")).toBe("");
    await context.close();
  }, 300_000);

  it("a scan the moment the network drops, and the moment it returns, lands; the closed shift reaches /reports/turnos in the next round", async () => {
    const { context, page } = await tillOnSale(tills[3]!);
    await scanCodes(page, barcodes("Leche"));
    await waitForCart(page, [["Leche", "1"]]);
    await Promise.all([context.setOffline(true), scanCodes(page, barcodes("Huevos", "Leche"))]);
    await waitForCart(page, [
      ["Leche", "2"],
      ["Huevos", "1"],
    ]);
    await page.waitForSelector("#net.off");
    await Promise.all([context.setOffline(false), scanCodes(page, barcodes("Café", "Huevos"))]);
    await waitForCart(page, [
      ["Leche", "2"],
      ["Huevos", "2"],
      ["Café", "1"],
    ]);
    // Charged offline-then-online, while a sync round is under way: the next scans land too.
    await page.fill("#cash", "500");
    await page.click("#charge");
    await page.waitForSelector("section.ticket", { timeout: 30_000 });
    await Promise.all([context.setOffline(true), scanCodes(page, barcodes("Salami", "Salami", "Jugo"))]);
    await waitForCart(page, [
      ["Salami", "2"],
      ["Jugo", "1"],
    ]);
    await context.setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event("online")));
    await page.waitForFunction(() => document.querySelector("#sync")?.getAttribute("data-pending") === "0", undefined, {
      timeout: 60_000,
    });

    // The server refuses connections (the network itself is up) while the shift closes.
    const refused = (route: { abort: (code: string) => Promise<void> }) => route.abort("connectionrefused");
    await page.route(`${stack.workerUrl}/devices/**`, refused);
    await page.click('button[data-tab="turno"]');
    await page.fill("#shift-counted", "0");
    await page.click("#shift-close-button");
    const shiftId = await (await page.waitForSelector("#z-report")).getAttribute("data-shift-id");
    await page.waitForSelector('#net.off:text-is("Sin conexión con el servidor")', { timeout: 30_000 });
    // The bar says the closed shift is still to be handed over.
    await page.waitForSelector('#shift-sync:has-text("Turno cerrado sin enviar")');

    // The server answers again: the sync round that reaches it hands the shift over.
    await page.unroute(`${stack.workerUrl}/devices/**`, refused);
    await page.waitForSelector('#net.on:text-is("En línea")', { timeout: 30_000 });
    const today = new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
    const res = await fetch(`${stack.workerUrl}/reports/turnos?Desde=${today}&Hasta=${today}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const { items } = (await res.json()) as { items: { shiftId: string; state: string }[] };
    expect(items.find((s) => s.shiftId === shiftId)?.state).toBe("closed");
    await page.waitForSelector('#shift-sync:text-is("")', { state: "attached" });
    await context.close();
  }, 300_000);
});
