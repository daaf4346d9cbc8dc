// The console's accessibility in Chromium against the real stack (issue 36: "accessible (labels,
// keyboard, contrast), responsive down to a phone"): axe-core finds no serious or critical
// violation on any page an owner opens (and on the login and invitation pages); the login form and
// the main navigation work with Tab and Enter; at a phone's 375 px no page scrolls sideways.
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A,
  accept,
  BUYER,
  cliInvitation,
  PASSWORD,
  startWorld,
  stopWorld,
  supplierInvoice,
  type World,
} from "./console-world.ts";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

let world: World;
let owner: Page;
let invitation: string;
/** A receipt of A's (its page is one of the console's). */
let issued: string;

/** Every page the owner reaches, by hash, with its heading. */
const ownerPages = () => [
  { hash: "#/hoy", heading: "Hoy" },
  { hash: "#/comprobantes", heading: "Comprobantes" },
  { hash: `#/comprobantes/${issued}`, heading: new RegExp(`^${issued}`) },
  { hash: "#/emitir/31", heading: "Emitir E31 Crédito Fiscal" },
  { hash: "#/emitir/32", heading: /^Emitir E32/ },
  { hash: "#/clientes", heading: "Clientes" },
  { hash: "#/compras", heading: "Compras" },
  { hash: "#/mensual", heading: "Mensual" },
  { hash: "#/tienda", heading: "Tienda" },
  { hash: "#/credito-fiscal", heading: "Crédito fiscal" },
  { hash: "#/configuracion", heading: "Configuración" },
];

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** axe-core's WCAG 2.1 A/AA and best-practice rules on what the page shows now. */
async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (c: Document, o: object) => Promise<{ violations: unknown }> } })
      .axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    });
    return result.violations as Violation[];
  });
}

/** "page: rule (impact) at selector: why" for each serious or critical violation. */
function serious(where: string, violations: Violation[]): string[] {
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) =>
      v.nodes.map((n) => `${where}: ${v.id} (${v.impact}) at ${JSON.stringify(n.target)}: ${n.failureSummary}`),
    );
}

/** Opens a console page by its hash and waits for its heading (a text, or a pattern for a receipt's). */
async function open(page: Page, hash: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${world.stack.workerUrl}/app/${hash}`);
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
}

/** How far the page scrolls sideways ("" when nothing is wider than the window), and what sticks out. */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const over = document.scrollingElement!.scrollWidth - window.innerWidth;
    if (over <= 0) return "";
    // The outermost elements past the right edge (their parent is not) name the culprit.
    const past = (e: Element | null) => !!e && e.getBoundingClientRect().right > window.innerWidth + 0.5;
    const out = [...document.querySelectorAll("body *")].filter((e) => past(e) && !past(e.parentElement));
    const name = (e: Element) => `${e.tagName.toLowerCase()}${e.className ? `.${e.className}` : ""}`;
    return `${over} px (${out.slice(0, 5).map(name).join(", ")})`;
  });

beforeAll(async () => {
  world = await startWorld();
  // A receipt of A's to a buyer, and B's invoice to A (A's purchase): the pages show rows.
  const send = async (token: string, body: unknown) => {
    const res = await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.ok, await res.clone().text()).toBe(true);
    return ((await res.json()) as { encf: string }).encf;
  };
  const sale = supplierInvoice();
  sale.Encabezado.Comprador = { RNCComprador: BUYER.rnc, RazonSocialComprador: BUYER.name };
  [issued] = await Promise.all([send(world.tokenA, sale), send(world.tokenB, supplierInvoice())]);
  await fetch(`${world.stack.workerUrl}/products`, {
    method: "POST",
    headers: { Authorization: `Bearer ${world.tokenA}`, "Content-Type": "application/json" },
    body: JSON.stringify({ code: "CAFE-1", name: "Café molido 454 g", price: "250.00" }),
  });
}, 300_000);

afterAll(() => stopWorld(world));

describe("the console's accessibility", () => {
  it("the invitation and login pages have no serious or critical axe violation", async () => {
    invitation = cliInvitation(world, A.rnc, "dueno@super.do");
    const page = await world.browser.newPage();
    await page.goto(`${world.stack.workerUrl}${invitation}`);
    await page.getByRole("heading", { name: "Aceptar la invitación", level: 1 }).waitFor();
    const found = serious("invitación", await axeViolations(page));
    await page.goto(`${world.stack.workerUrl}/app/#/login`);
    await page.getByRole("heading", { name: "Entrar a la consola", level: 1 }).waitFor();
    found.push(...serious("login", await axeViolations(page)));
    await page.close();
    expect(found).toEqual([]);
  });

  it("every page the owner opens has no serious or critical axe violation", async () => {
    ({ page: owner } = await accept(world, invitation, `${A.name} (${A.rnc})`, "Dueño"));
    const found: string[] = [];
    for (const { hash, heading } of ownerPages()) {
      await open(owner, hash, heading);
      found.push(...serious(hash, await axeViolations(owner)));
    }
    // The store page with a pairing code and its QR shown.
    await open(owner, "#/tienda", "Tienda");
    await owner.getByLabel("Nombre de la caja").fill("Caja 1");
    await owner.getByRole("button", { name: "Vincular caja nueva" }).click();
    await owner.locator("#codigo-vinculacion").waitFor();
    found.push(...serious("#/tienda (vinculando)", await axeViolations(owner)));
    expect(found).toEqual([]);
  });

  it("the login form works with Tab and Enter, and so do the skip link and the main navigation", async () => {
    const context = await world.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${world.stack.workerUrl}/app/`);
    await page.getByRole("heading", { name: "Entrar a la consola" }).waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("autocomplete"))).toBe("username");
    await page.keyboard.type("dueno@super.do");
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Hoy", level: 1 }).waitFor();
    // The first Tab reaches the skip link; Enter moves the focus to the page's content.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Saltar al contenido");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("contenido");
    // From the top, Tab walks to the navigation's "Tienda" and Enter opens it.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? "");
    for (let presses = 0; presses < 20 && (await focusedText()) !== "Tienda"; presses++) {
      await page.keyboard.press("Tab");
    }
    expect(await focusedText()).toBe("Tienda");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Tienda", level: 1 }).waitFor();
    expect(page.url()).toMatch(/#\/tienda$/);
    await context.close();
  });

  it("at a phone's 375 px no page scrolls sideways", async () => {
    const context = await world.browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    const wide: string[] = [];
    await page.goto(`${world.stack.workerUrl}${cliInvitation(world, A.rnc, "socio@super.do")}`);
    await page.getByRole("heading", { name: "Aceptar la invitación", level: 1 }).waitFor();
    const invitationOver = await sideways(page);
    if (invitationOver) wide.push(`invitación: ${invitationOver}`);
    await page.getByLabel("Contraseña nueva").fill(PASSWORD);
    await page.getByRole("button", { name: "Aceptar y entrar" }).click();
    await page.getByRole("heading", { name: "Hoy", level: 1 }).waitFor();
    for (const { hash, heading } of ownerPages()) {
      await open(page, hash, heading);
      const over = await sideways(page);
      if (over) wide.push(`${hash}: ${over}`);
    }
    await context.close();
    expect(wide).toEqual([]);
  });
});
