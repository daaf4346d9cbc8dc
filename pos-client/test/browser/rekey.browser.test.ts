// The till's re-key prompt in Chromium against the real worker (wrangler dev) and the DGII sandbox.
// A paired till with no usable signing key (here: its key lost with the browser's storage) says so
// at the next sync round; someone at the issuer asks for a one-time code, types it at the till, and
// the till fetches the key again (POST /devices/signing-material) and signs with it; the sandbox,
// which takes only the issuer's registered signers, accepts the summary of what it sold.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, type TestIdentity, xmlsecVerify } from "@ecf/shared/test-support/certs";
import { buildPos, startStack, type Stack } from "./pos-stack.ts";
import { createTestIssuer, issuerToken } from "./support/issuer.ts";
import { createTestCashier, openShiftIfAsked } from "./support/shift.ts";

execFileSync(
  "node",
  [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium", "xmlsec1"],
  {
    stdio: "inherit",
  },
);

const RNC = "131880681";
let stack: Stack;
let browser: Browser;
let page: Page;
let companyId: string;
let deviceId: string;
let token: string;
let identity: TestIdentity;

/** The sync runner's interval (30 s) and the catalogue's never fire: only kicks start a round. */
const NO_LONG_INTERVALS = () => {
  const setIntervalNative = window.setInterval.bind(window);
  window.setInterval = ((handler: TimerHandler, timeout?: number, ...args: unknown[]) =>
    (timeout ?? 0) >= 30_000 ? 0 : setIntervalNative(handler, timeout, ...args)) as typeof window.setInterval;
};

beforeAll(async () => {
  buildPos();
  [stack, identity] = await Promise.all([
    startStack(),
    createTestIdentity({ rnc: RNC, commonName: "FARMACIA DE PRUEBA SRL" }),
  ]);
  const company = await createTestIssuer(
    stack,
    identity,
    { name: "FARMACIA DE PRUEBA SRL", tradeName: "Farmacia", registryNumber: RNC, address: "Calle 1" },
    100000,
  );
  companyId = company.id;
  token = await issuerToken(stack, company.id);
  const product = await fetch(`${stack.workerUrl}/products`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "X-RNC-Emisor": RNC, "Content-Type": "application/json" },
    body: JSON.stringify({
      code: "GASA",
      barcodes: [],
      name: "Gasa",
      price: "20.00",
      priceIncludesItbis: false,
      itbisRate: "exempt",
      unit: "43",
      kind: "good",
    }),
  });
  expect(product.status, await product.clone().text()).toBe(201);
  await createTestCashier(stack.admin, company.id);
  const device = await stack.admin<{ id: string; pairingCode: string }>(
    "POST",
    `/admin/companies/${company.id}/devices`,
    { name: "Caja 1" },
  );
  deviceId = device.id;
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: "es-DO",
    timezoneId: "America/Santo_Domingo",
  });
  await context.addInitScript(NO_LONG_INTERVALS);
  page = await context.newPage();
  await page.goto(`${stack.workerUrl}/pos/`);
  await page.fill("#pairing-code", device.pairingCode);
  await page.press("#pairing-code", "Enter");
  await openShiftIfAsked(page);
  await page.waitForSelector('button.product[data-code="GASA"]', { state: "attached", timeout: 60_000 });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Rings up one Gasa in cash; returns the e-NCF on the ticket. */
async function sell(): Promise<string> {
  await page.click('button[data-tab="venta"]');
  await page.fill("#search", "GASA");
  await page.press("#search", "Enter");
  await page.fill("#cash", "100");
  await page.press("#search", "Control+Enter");
  const ticket = await page.waitForSelector("section.ticket[data-encf]");
  const encf = (await ticket.getAttribute("data-encf"))!;
  await page.click('button[data-tab="venta"]');
  return encf;
}

/** The serial of the key the till holds (undefined: none), read from its IndexedDB. */
const heldKeySerial = () =>
  page.evaluate(
    () =>
      new Promise<string | null | undefined>((resolve, reject) => {
        const open = indexedDB.open("ecf-pos");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction("keys").objectStore("keys").get("signing");
          get.onsuccess = () =>
            resolve((get.result as { certificateSerial: string | null } | undefined)?.certificateSerial);
        };
      }),
  );

/** A round (the network comes back), then the till's prompt for a code. */
async function roundShowsPrompt(): Promise<void> {
  await page.evaluate(() => window.dispatchEvent(new Event("online")));
  await page.waitForSelector('#sync[data-key-outdated="true"]', { timeout: 60_000 });
  // The bar's text follows its attribute when the round's status is drawn: awaited, not read at once.
  await page.waitForFunction(
    () => document.querySelector("#sync")?.textContent?.includes("Falta la firma del emisor"),
    {
      timeout: 60_000,
    },
  );
  expect(await page.textContent("#sync")).toContain("Falta la firma del emisor");
}

/** The issuer asks for a one-time code; the cashier taps the prompt and types it; the key arrives. */
async function typeFreshCode(): Promise<void> {
  const res = await fetch(`${stack.workerUrl}/tills/${deviceId}/pairing-code`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "X-RNC-Emisor": RNC },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const { pairingCode } = (await res.json()) as { pairingCode: string };
  const material = page.waitForResponse((r) => r.url().endsWith("/devices/signing-material"), { timeout: 60_000 });
  page.once("dialog", (dialog) => {
    expect(dialog.type()).toBe("prompt");
    void dialog.accept(pairingCode);
  });
  await page.click("#sync");
  expect((await material).status()).toBe(200);
  await page.waitForSelector('#sync:not([data-key-outdated="true"])', { timeout: 60_000 });
}

/**
 * A sale after the re-key: the server takes the till's receipt only signed with the issuer's current
 * certificate, and DGII (the sandbox, which takes only registered signers) accepts its summary.
 */
async function saleSignedBy(signer: TestIdentity): Promise<void> {
  const encf = await sell();
  await page.waitForFunction(() => document.querySelector("#sync")?.getAttribute("data-pending") === "0", undefined, {
    timeout: 60_000,
  });
  const receipts = await stack.receipts(companyId);
  expect(receipts.find((r) => r.encf === encf)?.estado).toBe("Aceptado");
  // The archived receipt is the till's own signature, with the key it was just given.
  const drToday = new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
  const xml = stack.archived(`${RNC}/${drToday.slice(0, 4)}/${drToday.slice(5, 7)}/${encf}.xml`);
  expect(xml).toContain(`<eNCF>${encf}</eNCF>`);
  expect(xmlsecVerify(xml, signer.certificatePem)).toEqual({ ok: true, output: "" });
}

describe("the till asks for a fresh pairing code when it has no usable signing key", () => {
  it("a key lost with the browser's storage: the till asks, the code brings the key back, the next sale is accepted", async () => {
    expect(await heldKeySerial()).toBeTruthy();
    // What a cleared site storage or a broken IndexedDB leaves: the till is paired, the key is gone.
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open("ecf-pos");
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const tx = open.result.transaction("keys", "readwrite");
            tx.objectStore("keys").delete("signing");
            tx.oncomplete = () => resolve();
          };
        }),
    );
    await roundShowsPrompt();
    await typeFreshCode();
    expect(await heldKeySerial()).toBeTruthy();
    await saleSignedBy(identity);
  }, 300_000);
});
