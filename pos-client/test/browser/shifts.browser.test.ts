// Shifts (cuadre de caja) end to end in Chromium against the real stack (wrangler dev + the DGII
// sandbox): cashiers with PINs created through the issuer's API reach the paired till; one cashier
// opens and closes an empty shift offline, the next logs in with her PIN (checked offline), opens with a
// float, sells online and offline, refunds, closes with a count that differs; the Z report prints
// (screenshots in test-results/) and the shift shows up in GET /reports/turnos with the difference.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { buildPos, startStack, type Stack } from "./pos-stack.ts";
import { createTestIssuer } from "./support/issuer.ts";

execFileSync("node", [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

const RESULTS = fileURLToPath(new URL("../../test-results/", import.meta.url));
const RNC = "131880681";

let stack: Stack;
let browser: Browser;
let identity: TestIdentity;
let companyId: string;
let issuerToken: string;
let till: { id: string; pairingCode: string };

/** The issuer's own API (its key's token), as a back office would call it. */
async function issuer(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${stack.workerUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${issuerToken}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  buildPos();
  [stack, identity] = await Promise.all([
    startStack(),
    createTestIdentity({ rnc: RNC, commonName: "FARMACIA DE PRUEBA SRL" }),
  ]);
  const company = await createTestIssuer(
    stack,
    identity,
    {
      name: "FARMACIA DE PRUEBA SRL",
      tradeName: "Farmacia El Turno",
      registryNumber: RNC,
      address: "Calle El Conde 5, Santo Domingo",
    },
    100000,
  );
  companyId = company.id;
  till = await stack.admin<{ id: string; pairingCode: string }>("POST", `/admin/companies/${companyId}/devices`, {
    name: "Caja 1",
  });
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

  // The cashiers and two shelf-priced products, through the issuer's API, before the till is paired.
  for (const cashier of [
    { name: "Ana Pérez", pin: "482193" },
    { name: "Luis Gómez", pin: "135791" },
  ]) {
    const res = await issuer("POST", "/cashiers", cashier);
    expect(res.status, await res.clone().text()).toBe(201);
  }
  for (const product of [
    { code: "ASP", name: "Aspirina 100 tabletas", price: "118.00" },
    { code: "TERM", name: "Termómetro digital", price: "236.00" },
  ]) {
    const res = await issuer("POST", "/products", {
      ...product,
      barcodes: [],
      priceIncludesItbis: true,
      itbisRate: "18",
      unit: "43",
      kind: "good",
    });
    expect(res.status, await res.clone().text()).toBe(201);
  }

  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Rows of an IndexedDB store of the POS database, read in the page. */
const storeRows = <T>(page: Page, store: string) =>
  page.evaluate(
    (name) =>
      new Promise<T[]>((resolve, reject) => {
        const open = indexedDB.open("ecf-pos");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction(name).objectStore(name).getAll();
          all.onsuccess = () => resolve(all.result as T[]);
        };
      }),
    store,
  ) as Promise<T[]>;

async function openShift(page: Page, cashier: string, pin: string, float: string): Promise<void> {
  await page.waitForSelector("#shift-open #shift-cashier");
  await page.selectOption("#shift-cashier", { label: cashier });
  await page.fill("#shift-pin", pin);
  await page.fill("#shift-float", float);
  await page.click("#shift-open-button");
  await page.waitForSelector("#search");
  await page.waitForSelector(`#shift-status:text-is("Turno: ${cashier}")`);
}

/** Rings up one product by its code; returns the e-NCF on the ticket. */
async function sell(page: Page, code: string, method: "efectivo" | "tarjeta"): Promise<string> {
  await page.click('button[data-tab="venta"]');
  await page.fill("#search", code);
  await page.press("#search", "Enter");
  await page.selectOption("#payment-method", method);
  await page.press("#search", "Control+Enter");
  const ticket = await page.waitForSelector("section.ticket[data-encf]");
  return (await ticket.getAttribute("data-encf"))!;
}

async function closeShift(page: Page, counted: string, screenshot: string): Promise<string> {
  await page.click('button[data-tab="turno"]');
  await page.fill("#shift-counted", counted);
  await page.click("#shift-close-button");
  const z = await page.waitForSelector("#z-report");
  await page.screenshot({ path: `${RESULTS}${screenshot}-screen.png`, fullPage: true });
  // The roll as the printer gets it: the print CSS shows only the ticket.
  await page.emulateMedia({ media: "print" });
  await z.screenshot({ path: `${RESULTS}${screenshot}.png` });
  await page.emulateMedia({ media: "screen" });
  return (await z.getAttribute("data-shift-id"))!;
}

const field = (page: Page, name: string) => page.textContent(`#z-report [data-field="${name}"] span:last-child`);

interface TurnoRow {
  shiftId: string;
  deviceId: string;
  cashierName: string;
  state: string;
  openingFloat: string;
  salesCount: number;
  salesTotal: string;
  refundsTotal: string;
  cash: string;
  card: string;
  expectedCash: string;
  countedCash: string;
  difference: string;
}

describe("shifts on a till", () => {
  it("two cashiers log in with their PINs; a shift sells online and offline, closes short, prints its Z report and reaches /reports/turnos", async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: "es-DO",
      timezoneId: "America/Santo_Domingo",
    });
    const page = await context.newPage();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${stack.workerUrl}/pos/`);
    await page.fill("#pairing-code", till.pairingCode);
    await page.press("#pairing-code", "Enter");
    // No sale without a shift: the sale tab asks to open one, once the cashiers have arrived.
    await page.waitForSelector('#shift-cashier option:text-is("Ana Pérez")', { state: "attached", timeout: 60_000 });
    expect(await page.$("#search")).toBeNull();
    await page.screenshot({ path: `${RESULTS}shift-open.png`, fullPage: true });

    // Luis's shift, with no network at all: a wrong PIN is refused, the right one opens (the PIN
    // is checked on the till); closed with the float untouched, it waits to be handed over.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
    await context.setOffline(true);
    await page.selectOption("#shift-cashier", { label: "Luis Gómez" });
    await page.fill("#shift-pin", "9999");
    await page.fill("#shift-float", "500");
    await page.click("#shift-open-button");
    await page.waitForSelector('#shift-error:text-is("PIN incorrecto.")');
    await openShift(page, "Luis Gómez", "135791", "500");
    const luisShift = await closeShift(page, "500.00", "z-report-empty");
    expect(await field(page, "difference")).toContain("0.00");
    expect((await storeRows<{ id: string; sync: string }>(page, "shifts")).find((s) => s.id === luisShift)?.sync).toBe(
      "pending",
    );
    await context.setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event("online")));
    await page.click("#next-shift");

    // Ana's shift: 1,000.00 in the drawer.
    await openShift(page, "Ana Pérez", "482193", "1000.00");
    const online1 = await sell(page, "ASP", "efectivo");
    await page.waitForFunction(
      () => document.querySelector("section.ticket .estado")?.textContent === "Estado: Aceptado",
      undefined,
      { timeout: 60_000 },
    );
    await sell(page, "TERM", "tarjeta");

    // Offline: a cash sale, then its full refund (E34) from the ticket.
    await context.setOffline(true);
    const offline = await sell(page, "ASP", "efectivo");
    expect(offline).not.toBe(online1);
    await page.click("#refund");
    await page.click("#refund-confirm");
    await page.waitForSelector('section.ticket[data-encf^="E34"]');
    const sales = await storeRows<{ encf: string; shiftId?: string }>(page, "sales");
    const [ana] = (await storeRows<{ id: string; cashierName: string; state: string }>(page, "shifts")).filter(
      (s) => s.state === "open",
    );
    expect(ana!.cashierName).toBe("Ana Pérez");
    expect(sales.filter((s) => s.shiftId === ana!.id)).toHaveLength(4);
    expect(sales.every((s) => s.shiftId === ana!.id)).toBe(true);

    // Back online: every receipt syncs; then Ana counts 1,110.00 where 1,118.00 is expected.
    await context.setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event("online")));
    await page.waitForFunction(() => document.querySelector("#sync")?.getAttribute("data-pending") === "0", undefined, {
      timeout: 120_000,
    });
    const anaShift = await closeShift(page, "1110", "z-report");
    expect(anaShift).toBe(ana!.id);
    expect(await field(page, "openingFloat")).toContain("1,000.00");
    expect(await field(page, "cashSales")).toContain("236.00");
    expect(await field(page, "cashRefunds")).toContain("118.00");
    expect(await field(page, "expectedCash")).toContain("1,118.00");
    expect(await field(page, "countedCash")).toContain("1,110.00");
    expect(await field(page, "difference")).toContain("-RD$8.00");
    expect(await field(page, "salesTotal")).toContain("472.00");
    expect(await field(page, "pago-tarjeta")).toContain("236.00");

    // The till hands the closed shift over by itself; the manager sees it in the day's report.
    await page.waitForFunction(
      async (id) => {
        const rows = await new Promise<{ id: string; sync: string }[]>((resolve) => {
          const open = indexedDB.open("ecf-pos");
          open.onsuccess = () => {
            const all = open.result.transaction("shifts").objectStore("shifts").getAll();
            all.onsuccess = () => resolve(all.result as { id: string; sync: string }[]);
          };
        });
        return rows.find((r) => r.id === id)?.sync === "sent";
      },
      anaShift,
      { timeout: 60_000, polling: 500 },
    );
    // The Turno tab lists the closed shifts with what the server has; a Z report prints again.
    await page.click("#next-shift");
    await page.click('button[data-tab="turno"]');
    await page.waitForSelector(`#shift-history tr[data-shift-id="${anaShift}"][data-sync="sent"]`);
    await page.waitForSelector(`#shift-history tr[data-shift-id="${luisShift}"][data-sync="sent"]`);
    await page.click(`#shift-history tr[data-shift-id="${luisShift}"] button`);
    expect(await (await page.waitForSelector("#z-report")).getAttribute("data-shift-id")).toBe(luisShift);

    const today = new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
    const res = await issuer("GET", `/reports/turnos?Desde=${today}&Hasta=${today}&deviceId=${till.id}`);
    expect(res.status).toBe(200);
    const report = (await res.json()) as { items: TurnoRow[] };
    const byId = new Map(report.items.map((r) => [r.shiftId, r]));
    expect(byId.get(luisShift)).toMatchObject({
      cashierName: "Luis Gómez",
      state: "closed",
      openingFloat: "500.00",
      expectedCash: "500.00",
      difference: "0.00",
    });
    expect(byId.get(anaShift)).toMatchObject({
      deviceId: till.id,
      cashierName: "Ana Pérez",
      state: "closed",
      openingFloat: "1000.00",
      salesCount: 3,
      salesTotal: "472.00",
      refundsTotal: "118.00",
      cash: "236.00",
      card: "236.00",
      expectedCash: "1118.00",
      countedCash: "1110.00",
      difference: "-8.00",
    });
    const csv = await (await issuer("GET", `/reports/turnos?Desde=${today}&Hasta=${today}&format=csv`)).text();
    expect(csv).toContain(`${anaShift},`);
    expect(
      csv
        .split("\r\n")
        .find((l) => l.includes(anaShift))!
        .endsWith(",1118.00,1110.00,-8.00"),
    ).toBe(true);
    await context.close();
  }, 600_000);

  it("a cashier who types 3 wrong PINs waits, even with the right one, and a reload does not reset the wait", async () => {
    const second = await stack.admin<{ pairingCode: string }>("POST", `/admin/companies/${companyId}/devices`, {
      name: "Caja 2",
    });
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: "es-DO",
      timezoneId: "America/Santo_Domingo",
    });
    const page = await context.newPage();
    await page.goto(`${stack.workerUrl}/pos/`);
    await page.fill("#pairing-code", second.pairingCode);
    await page.press("#pairing-code", "Enter");
    await page.waitForSelector('#shift-cashier option:text-is("Ana Pérez")', { state: "attached", timeout: 60_000 });
    const tryPin = async (pin: string) => {
      await page.evaluate(() => (document.querySelector("#shift-error")!.textContent = ""));
      await page.selectOption("#shift-cashier", { label: "Ana Pérez" });
      await page.fill("#shift-pin", pin);
      await page.fill("#shift-float", "0");
      await page.click("#shift-open-button");
    };
    await tryPin("000000");
    await page.waitForSelector('#shift-error:text-is("PIN incorrecto.")');
    await tryPin("000001");
    await page.waitForSelector('#shift-error:text-is("PIN incorrecto.")');
    await tryPin("000002");
    await page.waitForSelector('#shift-error:has-text("Espere 30 segundos")');
    // The right PIN is refused until the wait is over, also after a reload of the till.
    await tryPin("482193");
    await page.waitForSelector('#shift-error:has-text("Demasiados PIN incorrectos")');
    await page.reload();
    await page.waitForSelector('#shift-cashier option:text-is("Ana Pérez")', { state: "attached", timeout: 60_000 });
    await tryPin("482193");
    await page.waitForSelector('#shift-error:has-text("Demasiados PIN incorrectos")');
    expect(await page.$("#search")).toBeNull();
    await context.close();
  }, 300_000);
});
