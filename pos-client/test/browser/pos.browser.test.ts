// The POS end to end in Chromium against the real worker (wrangler dev) and the DGII sandbox:
// pair, sell online, sell offline (print view with QR), reload offline, come back online and
// every receipt syncs exactly once; the archived XML verifies with xmlsec1.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page, type Request, type Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, xmlsecVerify, type TestIdentity } from "@ecf/shared/test-support/certs";
import { buildPos, startStack, type Stack } from "./pos-stack.ts";
import { createTestIssuer } from "./support/issuer.ts";
import { createTestCashier, openShiftIfAsked } from "./support/shift.ts";

execFileSync(
  "node",
  [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium", "xmlsec1"],
  { stdio: "inherit" },
);

const RESULTS = fileURLToPath(new URL("../../test-results/", import.meta.url));
const RNC = "131880681";

let stack: Stack;
let browser: Browser;
let identity: TestIdentity;
let deviceId: string;
let pairingCode: string;
let companyId: string;

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  buildPos();
  [stack, identity] = await Promise.all([
    startStack(),
    createTestIdentity({ rnc: RNC, commonName: "COLMADO DE PRUEBA SRL" }),
  ]);
  const company = await createTestIssuer(
    stack,
    identity,
    {
      name: "COLMADO DE PRUEBA SRL",
      tradeName: "Colmado La Esquina",
      registryNumber: RNC,
      address: "Av. Duarte 12, Santo Domingo",
    },
    100000,
  );
  const device = await stack.admin<{ id: string; pairingCode: string }>(
    "POST",
    `/admin/companies/${company.id}/devices`,
    { name: "Caja 1" },
  );
  // This till types its own products and changes a price: the issuer allows it (a per-device setting).
  await stack.admin("PATCH", `/admin/companies/${company.id}/devices/${device.id}`, { canEditPrices: true });
  // Selling takes an open shift, opened by a cashier with a PIN.
  await createTestCashier(stack.admin, company.id);
  deviceId = device.id;
  companyId = company.id;
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
  await openShiftIfAsked(page);
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

/** A receipt upload: the single route (a lone receipt) or the batch route (a backlog). */
const isUpload = (url: string) => /\/devices\/receipts(\/batch)?$/.test(url);
/** The e-NCF an upload carries, in order. */
const uploadedEncfs = (request: Request) =>
  [...(request.postData() ?? "").matchAll(/<eNCF>(E\d{12})<\/eNCF>/g)].map((m) => m[1]!);
/** Each receipt's answer in an upload's response, whichever route. */
async function uploadAnswers(response: Response): Promise<{ encf: string; estado?: string; status: number }[]> {
  const body = (await response.json()) as {
    encf: string;
    estado: string;
    results?: { encf: string; status: number; answer?: { estado: string } }[];
  };
  return body.results
    ? body.results.map((r) => ({ encf: r.encf, estado: r.answer?.estado, status: r.status }))
    : [{ encf: body.encf, estado: body.estado, status: response.status() }];
}

/** Window listeners the page holds, by event type (an init script keeps count). */
const COUNT_WINDOW_LISTENERS = () => {
  const live = new Map<string, Set<unknown>>();
  const add = window.addEventListener.bind(window);
  const remove = window.removeEventListener.bind(window);
  window.addEventListener = ((type: string, fn: EventListener, options?: AddEventListenerOptions | boolean) => {
    const set = live.get(type) ?? new Set();
    live.set(type, set.add(fn));
    if (typeof options === "object") options.signal?.addEventListener("abort", () => set.delete(fn));
    add(type, fn, options);
  }) as typeof window.addEventListener;
  window.removeEventListener = ((type: string, fn: EventListener, options?: EventListenerOptions | boolean) => {
    live.get(type)?.delete(fn);
    remove(type, fn, options);
  }) as typeof window.removeEventListener;
  (window as unknown as { windowListeners: () => Record<string, number> }).windowListeners = () =>
    Object.fromEntries([...live].map(([t, set]) => [t, set.size]));
};
const windowListeners = (page: Page) =>
  page.evaluate(() => (window as unknown as { windowListeners: () => Record<string, number> }).windowListeners());

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

describe("the POS in Chromium", () => {
  let context: BrowserContext;
  let page: Page;
  const uploads: string[] = [];

  it("pairs, sells online, keeps selling offline, reopens offline, and syncs every receipt once", async () => {
    context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      locale: "es-DO",
      timezoneId: "America/Santo_Domingo",
    });
    await context.addInitScript(COUNT_WINDOW_LISTENERS);
    page = await context.newPage();
    const answers = new Map<string, string>();
    const batches: string[][] = [];
    // Uploads that reached the server and came back (a request the emulated network dropped is
    // retried by design and does not count; the server would dedupe it anyway).
    page.on("requestfinished", (r) => {
      if (!isUpload(r.url())) return;
      uploads.push(...uploadedEncfs(r));
      if (r.url().endsWith("/batch")) batches.push(uploadedEncfs(r));
    });
    page.on("requestfailed", (r) => {
      if (isUpload(r.url())) console.log(`upload failed (will be retried): ${r.failure()?.errorText}`);
    });
    page.on("response", async (r) => {
      if (isUpload(r.url()) && r.ok())
        for (const a of await uploadAnswers(r)) if (a.estado) answers.set(a.encf, a.estado);
    });
    await page.goto(`${stack.workerUrl}/pos/`);
    await page.fill("#pairing-code", pairingCode.toLowerCase());
    await page.press("#pairing-code", "Enter");
    await page.waitForSelector("header.bar");
    expect(await page.textContent("header.bar")).toContain("Colmado La Esquina");
    // The issuer's (empty) catalogue and the till's permission arrive right after pairing.
    await page.waitForSelector('#catalog-status:has-text("Catálogo actualizado")', { timeout: 30_000 });
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
    await page.waitForFunction(
      (estado) => document.querySelector("section.ticket .estado")?.textContent === `Estado: ${estado}`,
      firstEstado,
      { timeout: 30_000 },
    );
    // The ticket's link beside the QR opens the receipt's public page for the buyer, no account.
    const link = (await page.getAttribute("section.ticket .consulta-url", "href"))!;
    expect(link).toMatch(new RegExp(`^${stack.workerUrl}/r/${RNC}${online}[A-Za-z0-9_-]{6}$`));
    const publicPage = await fetch(link);
    expect(publicPage.status).toBe(200);
    expect(await publicPage.text()).toContain(online);

    // Offline: each receipt is signed on the device, printable with its QR, queued in contingency.
    await context.setOffline(true);
    await page.waitForSelector("#net.off");
    const offline: string[] = [];
    for (const items of [["Café"], ["Yogur", "Yogur", "Arroz"], ["7460003"]]) {
      offline.push(await sell(page, items));
      // Each distinct product is one line; the same product twice is quantity 2.
      const quantities = await page.$$eval("section.ticket .items tbody tr td:first-child", (cells) =>
        cells.map((c) => c.textContent),
      );
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
    for (const encf of offline)
      expect(await page.getAttribute(`tr[data-encf="${encf}"]`, "data-estado")).toBe("Contingencia");

    // Back online: the queue drains in order, in one batch, each receipt exactly once.
    await context.setOffline(false);
    await page.waitForFunction(() => document.querySelector("#sync")?.getAttribute("data-pending") === "0", undefined, {
      timeout: 60_000,
    });
    const all = [online, ...offline];
    expect(batches).toEqual([offline]);
    // The batch was recorded at once (En Proceso); the server tells DGII in the background.
    // (The listener reads the upload's body after the till has shown it: wait for it to finish.)
    await expect.poll(() => offline.every((encf) => answers.has(encf)), { timeout: 10_000 }).toBe(true);
    for (const encf of offline) expect(answers.get(encf), encf).toBe("En Proceso");
    // Each receipt shows DGII's word on the till: the sale online at once, the backlog once the
    // till asked again (a round follows soon after one that left receipts in process).
    await page.click('button[data-tab="recibos"]');
    for (const encf of all) {
      await page.waitForFunction(
        (e) => document.querySelector(`tr[data-encf="${e}"]`)?.getAttribute("data-estado") === "Aceptado",
        encf,
        { timeout: 30_000 },
      );
    }
    expect(answers.get(online)).toBe("Aceptado");
    expect(uploads.filter((e) => all.includes(e)).sort()).toEqual([...all].sort());
    expect(uploads.slice(-3)).toEqual(offline);
    // One receipt per e-NCF in the issuer's ledger, recorded as coming from a device.
    const recorded = (await stack.receipts(companyId)).filter((r) => r.source === "device").map((r) => r.encf);
    expect(recorded.sort()).toEqual([...all].sort());

    // What the server archived is the device's signature, valid for xmlsec1.
    const drToday = new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
    for (const encf of all) {
      const xml = stack.archived(`${RNC}/${drToday.slice(0, 4)}/${drToday.slice(5, 7)}/${encf}.xml`);
      expect(xml).toContain(`<eNCF>${encf}</eNCF>`);
      expect(xmlsecVerify(xml, identity.certificatePem)).toEqual({ ok: true, output: "" });
    }
  }, 300_000);

  it("is never framed by another site: /pos/ forbids every frame ancestor", async () => {
    for (const path of ["/pos/", "/pos/index.html"]) {
      // As the browser fetches the page (its own connection, not the test process's pool).
      const res = await page.request.get(`${stack.workerUrl}${path}`);
      expect(res.status(), path).toBe(200);
      expect(res.headers()["content-security-policy"], path).toContain("frame-ancestors 'none'");
      expect(res.headers()["x-frame-options"], path).toBe("DENY");
    }
  });

  it("is installable: the manifest is served and valid, its icons load, the service worker is registered", async () => {
    const href = await page.getAttribute('link[rel="manifest"]', "href");
    const res = await fetch(new URL(href!, `${stack.workerUrl}/pos/`));
    expect(res.status).toBe(200);
    const manifest = (await res.json()) as {
      name: string;
      short_name: string;
      start_url: string;
      scope: string;
      display: string;
      icons: { src: string; sizes: string; type: string }[];
    };
    expect(manifest).toMatchObject({
      name: expect.stringContaining("Punto de venta"),
      start_url: "/pos/",
      scope: "/pos/",
      display: "standalone",
    });
    const base = new URL(href!, `${stack.workerUrl}/pos/`);
    const sizes = new Set<string>();
    for (const icon of manifest.icons) {
      const got = await fetch(new URL(icon.src, base));
      expect(got.status, icon.src).toBe(200);
      expect(got.headers.get("content-type"), icon.src).toContain(icon.type);
      const bytes = new Uint8Array(await got.arrayBuffer());
      if (icon.type === "image/png") {
        // The PNG's own size (IHDR) is what the manifest says.
        const view = new DataView(bytes.buffer);
        expect(`${view.getUint32(16)}x${view.getUint32(20)}`, icon.src).toBe(icon.sizes);
        sizes.add(icon.sizes);
      }
    }
    expect([...sizes].sort()).toEqual(["192x192", "512x512"]);
    const registration = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.getRegistration();
      return { scope: r?.scope, script: r?.active?.scriptURL, controlled: navigator.serviceWorker.controller !== null };
    });
    expect(registration).toEqual({
      scope: `${stack.workerUrl}/pos/`,
      script: `${stack.workerUrl}/pos/sw.js`,
      controlled: true,
    });
  }, 120_000);

  it("edits a product, rings up quantities, a line discount, card, an E31 and cash change, from the keyboard and without double charges", async () => {
    const answers = new Map<string, string>();
    page.on("response", async (r) => {
      if (isUpload(r.url()) && r.ok())
        for (const a of await uploadAnswers(r)) if (a.estado) answers.set(a.encf, a.estado);
    });
    // Edit a product; leaving the tab drops a half-done edit.
    await page.click('button[data-tab="productos"]');
    await page.click('table.products tr:has(td:text-is("7460001")) button');
    await page.waitForSelector('#product-form h2:text-is("Editar producto")');
    await page.click('button[data-tab="venta"]');
    await page.waitForSelector("#search");
    await page.click('button[data-tab="productos"]');
    await page.waitForSelector('#product-form h2:text-is("Nuevo producto")');
    await page.waitForTimeout(300);
    expect(await page.textContent("#product-form h2")).toBe("Nuevo producto");
    await page.click('table.products tr:has(td:text-is("7460001")) button');
    await page.waitForSelector('#product-form h2:text-is("Editar producto")');
    expect(await page.inputValue('input[name="code"]')).toBe("7460001");
    await page.fill('input[name="price"]', "360");
    await page.click('#product-form button[type="submit"]');
    await page.waitForSelector('table.products tr:has(td:text-is("7460001")) td:text-is("RD$360.00")');

    // Quantity 3 and 10 % off: 1,080.00 − 108.00 = 972.00, ITBIS 174.96, total 1,146.96.
    await page.click('button[data-tab="venta"]');
    await page.fill("#search", "7460001");
    await page.press("#search", "Enter");
    const qty = 'input[aria-label="Cantidad de Café Santo Domingo 1 lb"]';
    await page.fill(qty, "3");
    await page.press(qty, "Tab");
    const disc = 'input[aria-label="Descuento de Café Santo Domingo 1 lb"]';
    await page.fill(disc, "10");
    await page.press(disc, "Tab");
    await page.waitForFunction(() => document.querySelector("#total")?.textContent === "RD$1,146.96");
    await page.selectOption("#payment-method", "tarjeta");
    const before = (await storeRows(page, "outbox")).length;
    // Two Ctrl+Enter in a row (the second while the first is signing): one receipt.
    await page.evaluate(() => {
      const search = document.querySelector("#search")!;
      for (let i = 0; i < 2; i++)
        search.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }));
    });
    const card = (await (await page.waitForSelector("section.ticket")).getAttribute("data-encf"))!;
    await page.waitForTimeout(500);
    expect((await storeRows(page, "outbox")).length).toBe(before + 1);
    const ticket = await page.textContent("section.ticket");
    expect(ticket).toContain("desc. RD$108.00");
    expect(ticket).toMatch(/TOTAL\s*RD\$1,146\.96/);
    expect(ticket).toMatch(/Tarjeta\s*RD\$1,146\.96/);
    expect(ticket).not.toContain("Cambio");

    // "Nueva venta": the search box has the focus, typing and Enter work without a click.
    await page.click("#new-sale");
    await page.waitForSelector("#search");
    // At a person's pace: five letters and Enter within a few milliseconds would be a scan (a code).
    await page.keyboard.type("Yogur", { delay: 120 });
    await page.keyboard.press("Enter");
    await page.waitForSelector('#cart td:text-is("Yogur natural")');
    // An E31: the buyer's RNC, checked by the shared package; cash with its change.
    await page.fill("#buyer-rnc", "131880738");
    await page.fill("#buyer-name", "DIRECCION GENERAL DE IMPUESTOS INTERNOS");
    expect(await page.textContent("#tipo")).toBe("E31 Crédito fiscal");
    await page.selectOption("#payment-method", "efectivo");
    await page.fill("#cash", "1000");
    // 95.25 + 16 % ITBIS (15.24) = 110.49; 1,000.00 − 110.49 = 889.51.
    expect(await page.textContent("#change")).toBe("Cambio: RD$889.51");
    // With the focus on the page itself, Ctrl+Enter still charges.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Control+Enter");
    const e31 = (await (await page.waitForSelector('section.ticket[data-encf^="E31"]')).getAttribute("data-encf"))!;
    const e31Ticket = await page.textContent("section.ticket");
    expect(e31Ticket).toContain("RNC cliente131880738");
    expect(e31Ticket).toMatch(/Cambio\s*RD\$889\.51/);
    await expect.poll(() => answers.get(e31), { timeout: 30_000 }).toBe("Aceptado");
    await expect.poll(() => answers.get(card), { timeout: 30_000 }).toBe("Aceptado");

    // Opening a receipt and leaving at once: the receipt never comes back over the sale screen.
    await page.click('button[data-tab="recibos"]');
    await page.waitForSelector(`tr[data-encf="${e31}"]`);
    await page.evaluate((encf) => {
      document.querySelector<HTMLButtonElement>(`tr[data-encf="${encf}"] button`)!.click();
      document.querySelector<HTMLButtonElement>('button[data-tab="venta"]')!.click();
    }, e31);
    await page.waitForSelector("#search");
    // A sync round ends with a status report, which re-renders a receipt believed on screen.
    const roundsSeen = await page.evaluate(() => Number(document.getElementById("sync")?.dataset.rounds ?? 0));
    await page.evaluate(() => window.dispatchEvent(new Event("online")));
    // Awaited, not slept for: the round the event started has ended and its results are drawn.
    await page.waitForFunction(
      (seen) => Number(document.getElementById("sync")?.dataset.rounds ?? 0) > seen,
      roundsSeen,
    );
    expect(await page.$("section.ticket")).toBeNull();
    expect(await page.$("#search")).not.toBeNull();

    // A full return in the till's own dialog (no browser pop-up), opened and confirmed twice: one
    // credit note; the receipt, fully credited, offers no return any more.
    const dialogs: string[] = [];
    const onDialog = (d: import("playwright-core").Dialog) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss();
    };
    page.on("dialog", onDialog);
    await page.click('button[data-tab="recibos"]');
    await page.click(`tr[data-encf="${card}"] button`);
    await page.waitForSelector(`section.ticket[data-encf="${card}"]`);
    await page.evaluate(() => {
      const refund = document.querySelector<HTMLButtonElement>("#refund")!;
      refund.click();
      refund.click();
    });
    await page.waitForSelector("#refund-dialog");
    expect(await page.$$eval("#refund-dialog", (d) => d.length)).toBe(1);
    await page.evaluate(() => {
      const confirm = document.querySelector<HTMLButtonElement>("#refund-confirm")!;
      confirm.click();
      confirm.click();
    });
    const note = (await (await page.waitForSelector('section.ticket[data-encf^="E34"]')).getAttribute("data-encf"))!;
    expect(await page.textContent("section.ticket")).toContain(`Modifica${card}`);
    await page.click('button[data-tab="recibos"]');
    await page.click(`tr[data-encf="${card}"] button`);
    await page.waitForSelector(`section.ticket[data-encf="${card}"]`);
    await page.waitForSelector("#new-sale");
    expect(await page.$("#refund")).toBeNull();
    page.off("dialog", onDialog);
    expect(dialogs).toEqual([]);
    const notes = (await storeRows<{ encf: string }>(page, "outbox")).filter((e) => e.encf.startsWith("E34"));
    expect(notes.map((e) => e.encf)).toEqual([note]);
  }, 300_000);

  it("two tabs: one syncs at a time (Web Lock) and every receipt is uploaded once", async () => {
    const second = await context.newPage();
    await second.goto(`${stack.workerUrl}/pos/`);
    await second.waitForSelector("header.bar");
    await page.waitForFunction(() => document.querySelector("#sync")?.getAttribute("data-pending") === "0", undefined, {
      timeout: 60_000,
    });
    const sent: { tab: number; encf: string }[] = [];
    [page, second].forEach((p, tab) =>
      p.on("requestfinished", (r) => {
        if (isUpload(r.url())) for (const encf of uploadedEncfs(r)) sent.push({ tab, encf });
      }),
    );
    await context.setOffline(true);
    await page.waitForSelector("#net.off");
    const queued = [await sell(page, ["Arroz"]), await sell(page, ["Yogur"]), await sell(page, ["Café"])];
    // Both tabs see the network come back and both try to sync.
    await context.setOffline(false);
    // (A round cut short, say by wrangler dev reloading, goes again at the next interval.)
    for (const p of [page, second])
      await p.waitForFunction(() => document.querySelector("#sync")?.getAttribute("data-pending") === "0", undefined, {
        timeout: 120_000,
      });
    // Let any later round of either tab run too.
    await page.evaluate(() => window.dispatchEvent(new Event("online")));
    await second.evaluate(() => window.dispatchEvent(new Event("online")));
    await page.waitForTimeout(2000);
    expect(
      sent
        .filter((s) => queued.includes(s.encf))
        .map((s) => s.encf)
        .sort(),
    ).toEqual([...queued].sort());
    const rows = (await stack.receipts(companyId)).filter((r) => queued.includes(r.encf)).map((r) => r.encf);
    expect(rows.sort()).toEqual([...queued].sort());
    await second.close();
  }, 300_000);

  it("revocation: the device learns it at the next sync, deletes its key, hands over what it signed before, and pairs again", async () => {
    // A receipt signed offline, then the device is revoked before it syncs.
    await context.setOffline(true);
    await page.waitForSelector("#net.off");
    const signedBefore = await sell(page, ["Arroz"]);
    const listeners = await windowListeners(page);
    const handedOver = new Map<string, number>();
    page.on("response", async (r) => {
      if (isUpload(r.url())) for (const a of await uploadAnswers(r).catch(() => [])) handedOver.set(a.encf, a.status);
    });
    await stack.admin("POST", `/admin/devices/${deviceId}/revoke`);
    await context.setOffline(false);
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
    // The receipt signed before the revocation went up with the revoked token, and was taken.
    await expect.poll(() => handedOver.get(signedBefore), { timeout: 30_000 }).toBe(200);

    // Pairing again starts one app: its window listeners replace the old ones, they do not pile up.
    const again = await stack.admin<{ pairingCode: string }>("POST", `/admin/companies/${companyId}/devices`, {
      name: "Caja 1 (de nuevo)",
    });
    await page.fill("#pairing-code", again.pairingCode);
    await page.press("#pairing-code", "Enter");
    await page.waitForSelector("header.bar");
    expect(await windowListeners(page)).toEqual(listeners);
    await context.close();
    // On the server: the revoked device's upload was answered (above) and made one receipt.
    expect((await stack.receipts(companyId)).filter((r) => r.encf === signedBefore)).toEqual([
      expect.objectContaining({ encf: signedBefore, source: "device" }),
    ]);
  }, 120_000);
});
