// The till's sync rounds in Chromium against the real worker (wrangler dev) and the DGII sandbox.
// The rounds' interval never fires in these tests (an init script holds back the long intervals),
// so whatever reaches the server got there by a kick: a sale rung while a round is in flight goes
// in the round right after it, and a number given up on the till (a tab that died between
// numbering and signing) is voided with an ANECF in the next round and shows "anulado" on the Z report.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page, type Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity } from "@ecf/shared/test-support/certs";
import { buildPos, startStack, type Stack } from "./pos-stack.ts";
import { createTestIssuer, issuerToken } from "./support/issuer.ts";
import { createTestCashier, openShiftIfAsked } from "./support/shift.ts";

execFileSync("node", [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

const RNC = "131880681";
let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let companyId: string;

/** The sync runner's interval (30 s) and the catalogue's never fire: only kicks start a round. */
const NO_LONG_INTERVALS = () => {
  const setIntervalNative = window.setInterval.bind(window);
  window.setInterval = ((handler: TimerHandler, timeout?: number, ...args: unknown[]) =>
    (timeout ?? 0) >= 30_000 ? 0 : setIntervalNative(handler, timeout, ...args)) as typeof window.setInterval;
};

beforeAll(async () => {
  buildPos();
  const [started, identity] = await Promise.all([
    startStack(),
    createTestIdentity({ rnc: RNC, commonName: "COLMADO DE PRUEBA SRL" }),
  ]);
  stack = started;
  const company = await createTestIssuer(
    stack,
    identity,
    {
      name: "COLMADO DE PRUEBA SRL",
      tradeName: "Colmado La Ronda",
      registryNumber: RNC,
      address: "Av. Duarte 12, Santo Domingo",
    },
    100000,
  );
  companyId = company.id;
  // One product, through the issuer's own API as a back office adds it.
  const token = await issuerToken(stack, company.id);
  const product = await fetch(`${stack.workerUrl}/products`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "X-RNC-Emisor": RNC, "Content-Type": "application/json" },
    body: JSON.stringify({
      code: "PLAT",
      barcodes: [],
      name: "Plátano",
      price: "20.00",
      priceIncludesItbis: false,
      itbisRate: "exempt",
      unit: "43",
      kind: "good",
    }),
  });
  expect(product.status, await product.clone().text()).toBe(201);
  await createTestCashier(stack.admin, company.id);
  const device = await stack.admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
    name: "Caja 1",
  });
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
  context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: "es-DO",
    timezoneId: "America/Santo_Domingo",
  });
  await context.addInitScript(NO_LONG_INTERVALS);
  page = await context.newPage();
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${stack.workerUrl}/pos/`);
  await page.fill("#pairing-code", device.pairingCode);
  await page.press("#pairing-code", "Enter");
  await openShiftIfAsked(page);
  await page.waitForSelector('button.product[data-code="PLAT"]', { state: "attached", timeout: 60_000 });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Rings up one Plátano in cash; returns the e-NCF on the ticket. */
async function sell(): Promise<string> {
  await page.click('button[data-tab="venta"]');
  await page.fill("#search", "PLAT");
  await page.press("#search", "Enter");
  await page.fill("#cash", "100");
  await page.press("#search", "Control+Enter");
  const ticket = await page.waitForSelector("section.ticket[data-encf]");
  const encf = (await ticket.getAttribute("data-encf"))!;
  await page.click('button[data-tab="venta"]');
  return encf;
}

/** The e-NCF a single receipt upload carries. */
const encfOfUpload = (body: string | null) => /<eNCF>(E\d{12})<\/eNCF>/.exec(body ?? "")?.[1];
const isUpload = (url: string) => /\/devices\/receipts(\/batch)?$/.test(url);

/** A setting of the till's database, read in the page. */
const setting = <T>(key: string) =>
  page.evaluate(
    (k) =>
      new Promise<unknown>((resolve, reject) => {
        const open = indexedDB.open("ecf-pos");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction("settings").objectStore("settings").get(k);
          get.onsuccess = () => resolve((get.result as { value?: unknown } | undefined)?.value);
        };
      }),
    key,
  ) as Promise<T | undefined>;

describe("sync rounds on a till", () => {
  it("a sale rung while a round uploads goes in the round right after it, with no interval to wait for", async () => {
    const checkIns: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/devices/me")) checkIns.push(r.url());
    });
    // The first sale's upload is held: its round stays in flight until the second sale is rung.
    let held!: Route;
    const holding = new Promise<void>((resolve) => {
      void page.route(
        (url) => isUpload(url.pathname),
        async (route) => {
          if (held) return route.continue();
          held = route;
          resolve();
        },
      );
    });
    const first = await sell();
    await holding;
    expect(encfOfUpload(held.request().postData())).toBe(first);
    const roundsBefore = checkIns.length;

    const second = await sell();
    expect(second).not.toBe(first);
    const secondUpload = page.waitForRequest(
      (r) => isUpload(new URL(r.url()).pathname) && encfOfUpload(r.postData()) === second,
      { timeout: 60_000 },
    );
    await held.continue();
    await secondUpload;
    // One more check-in: the round right after the held one, started by the second sale's kick.
    expect(checkIns.length).toBe(roundsBefore + 1);
    await page.waitForFunction(() => document.querySelector("#sync")?.getAttribute("data-pending") === "0", undefined, {
      timeout: 60_000,
    });
    const received = new Map((await stack.receipts(companyId)).map((r) => [r.encf, r.estado]));
    expect(received.get(first)).toBe("Aceptado");
    expect(received.get(second)).toBe("Aceptado");
    await page.unroute((url) => isUpload(url.pathname));
  }, 300_000);

  it("a number taken by a tab that died before signing is proposed at the next round, voided (ANECF) once the owner confirms; the Z report says anulado", async () => {
    // What takeNumber leaves behind when the tab dies before the sale is recorded: the block's next
    // number moved on, and the number in flight since ten minutes ago.
    const lost = await page.evaluate(
      () =>
        new Promise<string>((resolve, reject) => {
          const open = indexedDB.open("ecf-pos");
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const tx = open.result.transaction(["leases", "settings"], "readwrite");
            const leases = tx.objectStore("leases");
            const settings = tx.objectStore("settings");
            const all = leases.getAll();
            all.onsuccess = () => {
              const blocks = all.result as { id: number; tipoeCF: string; next: number; rangeTo: number }[];
              const block = blocks.find((b) => b.tipoeCF === "32" && b.next <= b.rangeTo)!;
              const encf = `E32${String(block.next).padStart(10, "0")}`;
              leases.put({ ...block, next: block.next + 1 });
              const taken = settings.get("taken-encf");
              taken.onsuccess = () => {
                const value = (taken.result as { value?: Record<string, string> } | undefined)?.value ?? {};
                const at = new Date(Date.now() - 10 * 60_000).toISOString();
                settings.put({ key: "taken-encf", value: { ...value, [encf]: at } });
              };
              tx.oncomplete = () => resolve(encf);
            };
          };
        }),
    );
    const givenUpRound = async () => {
      const answered = page.waitForResponse((r) => r.url().endsWith("/devices/given-up-numbers"), { timeout: 60_000 });
      // The network comes back: a round.
      await page.evaluate(() => window.dispatchEvent(new Event("online")));
      return ((await (await answered).json()) as { results: Record<string, unknown>[] }).results;
    };
    // A till does not void at DGII: the number becomes a proposal, and the till keeps it to send again.
    expect(await givenUpRound()).toEqual([expect.objectContaining({ encf: lost, anulado: false, proposed: true })]);
    expect(await setting<string[]>("unused-encf")).toEqual([lost]);
    // The owner's side (here its API key) confirms the proposal: that is when the ANECF leaves.
    const headers = {
      Authorization: `Bearer ${await issuerToken(stack, companyId)}`,
      "X-RNC-Emisor": RNC,
      "Content-Type": "application/json",
    };
    const { proposals } = (await (
      await fetch(`${stack.workerUrl}/devices/given-up-proposals`, { headers })
    ).json()) as { proposals: { id: string; encf: string }[] };
    expect(proposals.map((p) => p.encf)).toEqual([lost]);
    const confirmed = await fetch(`${stack.workerUrl}/devices/given-up-proposals/confirm`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ids: proposals.map((p) => p.id) }),
    });
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);
    // The next round hears it was voided.
    expect(await givenUpRound()).toEqual([expect.objectContaining({ encf: lost, anulado: true, replayed: true })]);
    await page.waitForFunction(
      async (encf) => {
        const value = await new Promise<Record<string, { estado: string }> | undefined>((resolve) => {
          const open = indexedDB.open("ecf-pos");
          open.onsuccess = () => {
            const get = open.result.transaction("settings").objectStore("settings").get("given-up-outcomes");
            get.onsuccess = () => resolve((get.result as { value?: Record<string, { estado: string }> })?.value);
          };
        });
        return value?.[encf]?.estado === "Anulado";
      },
      lost,
      { timeout: 30_000, polling: 250 },
    );
    expect(await setting<string[]>("unused-encf")).toEqual([]);
    const sandbox = (await (await fetch(`${stack.sandboxUrl}/__sandbox/received?rnc=${RNC}`)).json()) as {
      kind: string;
    }[];
    expect(sandbox.filter((r) => r.kind === "anecf")).toHaveLength(1);

    // The next sale takes the number after the voided one; the shift's Z report lists the voided one.
    const next = await sell();
    expect(Number(next.slice(3))).toBe(Number(lost.slice(3)) + 1);
    await page.click('button[data-tab="turno"]');
    await page.fill("#shift-counted", "0");
    await page.click("#shift-close-button");
    await page.waitForSelector("#z-report");
    expect(await page.textContent(`#z-report [data-field="given-up-${lost}"]`)).toBe(`${lost}anulado`);
  }, 300_000);
});
