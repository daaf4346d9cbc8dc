// /docs in Chromium: Scalar renders the operations of /openapi.json from the script the worker
// serves itself, "try it" reaches this same server, and no request the page makes leaves it.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

execFileSync("node", [fileURLToPath(new URL("../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

const RESULTS = fileURLToPath(new URL("../test-results/", import.meta.url));
const workerUrl = inject("workerUrl");
let browser: Browser;
let page: Page;
/** Every request the page made, in order. */
const requests: string[] = [];

beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // Scalar's bundle is parsed and the whole document rendered on each load: on this 2-core machine,
  // loaded by the other test projects, that has taken more than Playwright's default 30 s.
  page.setDefaultTimeout(90_000);
  page.setDefaultNavigationTimeout(90_000);
  page.on("request", (request) => requests.push(request.url()));
});

afterAll(async () => {
  await browser?.close();
});

describe("/docs", () => {
  it("renders the issuing operation with the e-CF request schemas and examples", async () => {
    await page.goto(`${workerUrl}/docs#tag/issuing/POST/fe/recepcion/ecf`);
    const title = page.getByRole("heading", { name: "Issue an e-CF: validate, number, sign, archive, send to DGII" });
    await title.waitFor();
    expect(await title.isVisible()).toBe(true);
    // The body is "one of" the ten per-type schemas; the example picker offers one request per type.
    await page.getByText("E31 Factura de Crédito Fiscal Electrónica").first().waitFor();
    await page.screenshot({ path: `${RESULTS}docs-issuing.png` });
    expect(await page.getByText(/Void unused e-NCF ranges/).count()).toBeGreaterThan(0);
  });

  it("tries an operation against the server that served the page", async () => {
    // A fresh load: Scalar does not follow a change of the hash alone to another section.
    await page.goto("about:blank");
    await page.goto(`${workerUrl}/docs#tag/service/GET/health`);
    await page
      .getByRole("button", { name: /Test Request.*get \/health/i })
      .first()
      .click();
    const answered = page.waitForResponse((response) => response.url() === `${workerUrl}/health`);
    await page.getByRole("button", { name: /^Send/ }).first().click();
    expect((await answered).status()).toBe(200);
    await page.getByText("200 OK").first().waitFor();
  });

  it("makes no request beyond this origin (no CDN, no fonts, no telemetry)", () => {
    expect(requests).toContain(`${workerUrl}/docs/scalar.js`);
    expect(requests).toContain(`${workerUrl}/openapi.json`);
    expect(requests.filter((url) => new URL(url).origin !== workerUrl)).toEqual([]);
  });
});
