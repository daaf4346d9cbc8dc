// Lighthouse 12 (the system Chromium, desktop settings: the console is an office app) on every
// console page against the real stack: accessibility 100 and performance at least 90, one run per
// page. The owner's session cookie is sent with each run (the pages are the signed-in ones).
import { launch } from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A,
  accept,
  BUYER,
  cliInvitation,
  startWorld,
  stopWorld,
  supplierInvoice,
  type World,
} from "./console-world.ts";

let world: World;
let cookie = "";
let issued = "";
let chrome: Awaited<ReturnType<typeof launch>> | undefined;

beforeAll(async () => {
  world = await startWorld();
  chrome = await launch({
    chromePath: "/usr/bin/chromium",
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}, 300_000);

afterAll(async () => {
  chrome?.kill();
  await stopWorld(world);
});

/** Accessibility and performance scores (0–100) of one run on `hash`. */
async function scores(
  hash: string,
  signedIn = true,
): Promise<{ accessibility: number; performance: number; failing: string[] }> {
  const result = await lighthouse(
    `${world.stack.workerUrl}/app/${hash}`,
    {
      port: chrome!.port,
      output: "json",
      logLevel: "error",
      onlyCategories: ["accessibility", "performance"],
      extraHeaders: signedIn ? { Cookie: cookie } : {},
    },
    desktopConfig,
  );
  const lhr = result!.lhr;
  const failing = lhr.categories
    .accessibility!.auditRefs.map((ref) => lhr.audits[ref.id]!)
    .filter((a) => a.score !== null && a.score < 1)
    .map((a) => `${a.id}: ${a.title}`);
  return {
    accessibility: Math.round((lhr.categories.accessibility!.score ?? 0) * 100),
    performance: Math.round((lhr.categories.performance!.score ?? 0) * 100),
    failing,
  };
}

describe("Lighthouse on every console page", () => {
  it("the owner signs in and has a receipt to open", async () => {
    const { context } = await accept(
      world,
      cliInvitation(world, A.rnc, "dueno@faro.do"),
      `${A.name} (${A.rnc})`,
      "Dueño",
    );
    cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    expect(cookie).not.toBe("");
    const body = supplierInvoice();
    body.Encabezado.Comprador = { RNCComprador: BUYER.rnc, RazonSocialComprador: BUYER.name };
    const res = await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf`, {
      method: "POST",
      headers: { Authorization: `Bearer ${world.tokenA}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    issued = ((await res.json()) as { encf: string }).encf;
    expect(issued).toMatch(/^E31/);
    await context.close();
  });

  const pages = () => [
    "#/hoy",
    "#/comprobantes",
    `#/comprobantes/${issued}`,
    "#/emitir/31",
    "#/clientes",
    "#/compras",
    "#/mensual",
    "#/tienda",
    "#/configuracion",
  ];

  it("gives each signed-in page accessibility 100 and performance at least 90", async () => {
    const report: Record<string, { accessibility: number; performance: number; failing: string[] }> = {};
    for (const hash of pages()) report[hash] = await scores(hash);
    report["#/login"] = await scores("#/login", false);
    // All pages' scores in one comparison, so that a failure shows every page's.
    const seen = Object.fromEntries(
      Object.entries(report).map(([hash, s]) => [
        hash,
        {
          accessibility: s.accessibility,
          failing: s.failing,
          fastEnough: s.performance >= 90,
          performance: s.performance,
        },
      ]),
    );
    const wanted = Object.fromEntries(
      Object.entries(report).map(([hash, s]) => [
        hash,
        { accessibility: 100, failing: [], fastEnough: true, performance: s.performance },
      ]),
    );
    expect(seen).toEqual(wanted);
  }, 600_000);
});
