// The web console end to end in Chromium against the real stack (wrangler dev + the DGII sandbox
// and its mail sink, as `npm start` runs them), the "Done when": an owner from the admin
// CLI's invitation to the first login pairs a till (the code shown), imports products (a bad file's
// lines named first) and issues an E31 by hand (the buyer's name from the registry); an accountant
// invited by e-mail approves a purchase, classifies it and downloads a complete 606; a manager
// reads a closed shift's Z report; and the owner of another company sees none of it.
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A,
  accept as acceptAs,
  B,
  BUYER,
  PASSWORD,
  cliInvitation as invite,
  go as open,
  mailedInvitation as mailed,
  RESULTS,
  reportOf as report,
  startWorld,
  stopWorld,
  supplierInvoice,
  type World,
} from "./console-world.ts";

let world: World;
/** What one step leaves for the next (the walk is one story, in order). */
const story: { issued?: string; purchaseEncf?: string; tillCode?: string } = {};
const cliInvitation = (rnc: string, email: string) => invite(world, rnc, email);
const mailedInvitation = (email: string) => mailed(world, email);
const accept = (path: string, company: string, role: string) => acceptAs(world, path, company, role);
const go = (page: Page, hash: string, heading: string) => open(world, page, hash, heading);
const reportOf = (token: string, path: string) => report(world, token, path);

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(() => stopWorld(world));

describe("the console, as the issue's Done when walks it", () => {
  let owner: Page;

  it("is never framed by another site: /app/ forbids every frame ancestor", async () => {
    for (const path of ["/app/", "/app/index.html"]) {
      const res = await fetch(`${world.stack.workerUrl}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
    }
  });

  it("an owner from the admin CLI's invitation to the first login, and back in after logging out", async () => {
    const path = cliInvitation(A.rnc, "dueno@super.do");
    ({ page: owner } = await accept(path, `${A.name} (${A.rnc})`, "Dueño"));
    expect(await owner.textContent("header")).toContain("dueno@super.do · Dueño");
    // The invitation is single-use.
    const again = await world.browser.newPage();
    await again.goto(`${world.stack.workerUrl}${path}`);
    await expect.poll(() => again.textContent("main")).toContain("ya fue usada");
    await again.close();
    // Logout clears the cookie; the password logs in again.
    await owner.getByRole("button", { name: "Cerrar sesión" }).click();
    await owner.getByRole("heading", { name: "Entrar a la consola" }).waitFor();
    await owner.getByLabel("Correo electrónico").fill("dueno@super.do");
    await owner.getByLabel("Contraseña").fill("una-clave-equivocada");
    await owner.getByRole("button", { name: "Entrar" }).click();
    await expect.poll(() => owner.textContent("[role=alert]")).toContain("incorrectos");
    await owner.getByLabel("Contraseña").fill(PASSWORD);
    await owner.getByRole("button", { name: "Entrar" }).click();
    await owner.getByRole("heading", { name: "Hoy", level: 1 }).waitFor();
    expect(await owner.textContent(".tile.cert")).toMatch(/\d{2}-\d{2}-\d{4}/);
  });

  it("the owner pairs a till: the one-time code is shown (and a QR), and a till pairs with it", async () => {
    await go(owner, "#/tienda", "Tienda");
    await owner.getByLabel("Nombre de la caja").fill("Caja 1");
    await owner.getByRole("button", { name: "Vincular caja nueva" }).click();
    const code = (await owner.locator("#codigo-vinculacion").textContent())!.trim();
    expect(code).toMatch(/^[A-Z0-9-]{6,}$/);
    expect(await owner.getAttribute("img[alt^='Código QR']", "src")).toMatch(/^data:image\/png;base64,/);
    story.tillCode = code;
    await owner.screenshot({ path: `${RESULTS}console-tienda.png`, fullPage: true });
  });

  it("the owner imports products: a bad file's lines are named, a good one is listed", async () => {
    const header = "code,barcodes,name,price,priceIncludesItbis,itbisRate,unit,kind,active";
    const upload = async (csv: string) => {
      await owner
        .getByLabel("Archivo CSV")
        .setInputFiles({ name: "p.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
      await owner.getByRole("button", { name: "Importar CSV" }).click();
    };
    await upload(
      [header, "A-1,,Arroz 1 lb,45.00,true,18,43,good,true", "A-2,,Precio malo,4.001,true,18,43,good,true"].join("\n"),
    );
    await expect.poll(() => owner.textContent("ul.errors")).toContain("Línea 3, price");
    await upload(
      [header, "A-1,,Arroz 1 lb,45.00,true,18,43,good,true", "A-2,,Habichuelas,60.00,true,18,43,good,true"].join("\n"),
    );
    await expect.poll(() => owner.textContent("main table")).toContain("Habichuelas");
  });

  it("the owner issues an E31 by hand, the buyer's name from the registry, and DGII accepts it", async () => {
    await go(owner, "#/emitir/31", "Emitir E31 Crédito Fiscal");
    await owner.getByLabel("RNC del comprador").fill(BUYER.rnc);
    await owner.getByLabel("RNC del comprador").press("Tab");
    await expect.poll(() => owner.getByLabel("Razón social del comprador").inputValue()).toBe(BUYER.name);
    await owner.getByLabel("Descripción").fill("Servicio de consultoría");
    await owner.getByLabel("Cantidad").fill("2");
    await owner.getByLabel("Precio unitario").fill("1000.00");
    await expect.poll(() => owner.textContent("p.total")).toContain("RD$2,360.00");
    await owner.getByRole("button", { name: "Emitir", exact: true }).click();
    const heading = owner.getByRole("heading", { level: 1 });
    await expect.poll(() => heading.textContent(), { timeout: 60_000 }).toMatch(/^E31\d{10}/);
    story.issued = (await heading.textContent())!.slice(0, 13);
    await expect.poll(() => owner.textContent("h1 .estado"), { timeout: 60_000 }).toBe("Aceptado");
    expect(await owner.textContent("main")).toContain("Servicio de consultoría");
    // The ledger holds it as the console showed it.
    const held = await (
      await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf/${story.issued}`, {
        headers: { Authorization: `Bearer ${world.tokenA}` },
      })
    ).json();
    expect(held).toMatchObject({ encf: story.issued, estado: "Aceptado" });
    await owner.screenshot({ path: `${RESULTS}console-comprobante.png`, fullPage: true });
  });

  it("an accountant invited by e-mail approves a purchase, classifies it and downloads a complete 606", async () => {
    // B (a supplier on the same platform) invoices A: delivered to A's reception service, A's purchase.
    const sent = await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf`, {
      method: "POST",
      headers: { Authorization: `Bearer ${world.tokenB}`, "Content-Type": "application/json" },
      body: JSON.stringify(supplierInvoice()),
    });
    expect(sent.ok).toBe(true);
    story.purchaseEncf = ((await sent.json()) as { encf: string }).encf;
    await expect
      .poll(async () => JSON.stringify(await reportOf(world.tokenA, "/reports/compras")), { timeout: 60_000 })
      .toContain(story.purchaseEncf);

    await go(owner, "#/configuracion", "Configuración");
    await owner.getByLabel("Correo", { exact: true }).fill("contador@super.do");
    await owner.getByLabel("Rol", { exact: true }).selectOption("accountant");
    await owner.getByRole("button", { name: "Invitar" }).click();
    await expect.poll(() => owner.textContent("main")).toContain("Invitación enviada a contador@super.do");
    const { page } = await accept(await mailedInvitation("contador@super.do"), A.name, "Contador");

    await go(page, "#/compras", "Compras");
    const opened = page.getByRole("heading", { name: `${story.purchaseEncf} de ${B.name}` });
    await page.getByRole("button", { name: `Abrir ${story.purchaseEncf}` }).click();
    await opened.waitFor();
    // DGII has not been asked yet (the first check is a minute after reception): the accountant counts it.
    const motivo = page.getByLabel("Motivo (rechazo o confirmación manual)");
    const OVERRIDE = "Contar sin confirmación de la DGII";
    const override = page.getByRole("button", { name: OVERRIDE });
    if (await override.count()) {
      await motivo.fill("Factura verificada con el proveedor");
      await override.click();
      await expect.poll(() => page.getByRole("button", { name: OVERRIDE }).count()).toBe(0);
      await page.getByRole("button", { name: `Abrir ${story.purchaseEncf}` }).click();
      await opened.waitFor();
    }
    await page.getByRole("button", { name: "Aprobar" }).click();
    await expect
      .poll(() => page.locator("tr", { hasText: story.purchaseEncf! }).locator("td").nth(5).textContent(), {
        timeout: 30_000,
      })
      .toBe("Aceptado");
    await page.getByRole("button", { name: `Abrir ${story.purchaseEncf}` }).click();
    await opened.waitFor();
    await page.getByLabel("Tipo de bienes y servicios").selectOption("02");
    await page.getByLabel("Forma de pago").selectOption("01");
    await page.getByRole("button", { name: "Guardar clasificación" }).click();
    await expect.poll(() => page.textContent("[role=status]")).toContain("Clasificación guardada");

    await go(page, "#/mensual", "Mensual");
    await expect.poll(() => page.textContent("article:has(#f606)")).toContain("Completo");
    const download = page.waitForEvent("download");
    await page
      .locator("article:has(#f606)")
      .getByRole("button", { name: /^Descargar DGII_F_606_/ })
      .click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(new RegExp(`^DGII_F_606_${A.rnc}_\\d{6}\\.TXT$`));
    const txt = readFileSync((await file.path())!, "latin1");
    expect(txt.split(/\r?\n/)[0]).toMatch(new RegExp(`^606\\|${A.rnc}\\|\\d{6}\\|1$`));
    expect(txt).toContain(`${B.rnc}|1|02|${story.purchaseEncf}`);
    // The accountant may not manage the store: the API refuses it with the role named.
    const refused = await page.evaluate(async () => {
      const session = await (await fetch("/console/session")).json();
      const res = await fetch("/devices", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": session.csrfToken },
        body: JSON.stringify({ name: "Caja pirata" }),
      });
      return { status: res.status, body: await res.json() };
    });
    expect(refused).toMatchObject({ status: 403, body: { code: "forbidden" } });
    await page.context().close();
  });

  it("a manager reads the Z report of a shift the till closed", async () => {
    // The till paired with the code the console showed hands over a shift it opened and closed.
    const paired = await fetch(`${world.stack.workerUrl}/devices/pair`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pairingCode: story.tillCode }),
    });
    expect(paired.status).toBe(200);
    const { token: deviceToken } = (await paired.json()) as { token: string };
    const openedAt = new Date(Date.now() - 3_600_000).toISOString();
    const shift = { cashierId: "cajera-1", cashierName: "Ana Pérez", openedAt, openingFloat: "1000.00" };
    const closed = await fetch(`${world.stack.workerUrl}/devices/shifts/${crypto.randomUUID()}`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${deviceToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ ...shift, closedAt: new Date().toISOString(), countedCash: "1290.00", report: zReport() }),
    });
    expect(closed.status).toBe(201);

    await go(owner, "#/configuracion", "Configuración");
    await owner.getByLabel("Correo", { exact: true }).fill("encargado@super.do");
    await owner.getByLabel("Rol", { exact: true }).selectOption("manager");
    await owner.getByRole("button", { name: "Invitar" }).click();
    const { page } = await accept(await mailedInvitation("encargado@super.do"), A.name, "Encargado de tienda");
    // The books are not the manager's: no purchases, monthly files or settings in the menu.
    expect(await page.locator("nav").textContent()).toBe("HoyComprobantesTienda");
    await go(page, "#/tienda", "Tienda");
    await page.getByRole("button", { name: "Ver Z de Caja 1" }).click();
    const z = page.locator(".z-report");
    await expect.poll(() => z.textContent()).toContain("Reporte Z: Caja 1, Ana Pérez");
    expect(await z.locator("tr", { hasText: "Efectivo esperado" }).textContent()).toContain("RD$1,295.00");
    expect(await z.locator("tr", { hasText: "Diferencia" }).textContent()).toContain("-RD$5.00");
    await page.screenshot({ path: `${RESULTS}console-turnos.png`, fullPage: true });
    await page.context().close();
  });

  it("the owner of another company sees none of A's receipts or purchases", async () => {
    const { context, page } = await accept(cliInvitation(B.rnc, "dueno@proveedora.do"), B.name, "Dueño");
    await go(page, "#/comprobantes", "Comprobantes");
    const list = (await page.textContent("main"))!;
    expect(list).toContain(story.purchaseEncf!); // B's own invoice to A
    expect(list).not.toContain(story.issued!);
    await page.goto(`${world.stack.workerUrl}/app/#/comprobantes/${story.issued}`);
    await expect.poll(() => page.textContent("[role=alert]")).toBeTruthy();
    expect(await page.getByRole("heading", { name: story.issued! }).count()).toBe(0);
    // The same through the API with B's cookie: 404, as for B's API key.
    const answer = await context.request.get(`${world.stack.workerUrl}/fe/recepcion/ecf/${story.issued}`);
    expect(answer.status()).toBe(404);
    const purchases = await context.request.get(`${world.stack.workerUrl}/reports/compras`);
    expect(JSON.stringify(await purchases.json())).not.toContain(story.purchaseEncf!);
    await context.close();
  });
});

/** A Z report whose cash adds up: float 1000.00 + cash 354.00 − refunds 59.00 = 1295.00; counted 1290.00. */
function zReport() {
  return {
    receipts: [
      { tipoeCF: "32", count: 3, total: "472.00" },
      { tipoeCF: "31", count: 1, total: "236.00" },
      { tipoeCF: "34", count: 1, total: "59.00" },
    ],
    payments: [
      { method: "efectivo", count: 3, total: "354.00" },
      { method: "tarjeta", count: 1, total: "236.00" },
      { method: "transferencia", count: 1, total: "118.00" },
    ],
    salesCount: 4,
    salesTotal: "708.00",
    itbisTotal: "108.00",
    refunds: { count: 1, total: "59.00", itbis: "9.00" },
    cashSales: "354.00",
    cashRefunds: "59.00",
    expectedCash: "1295.00",
    countedCash: "1290.00",
    difference: "-5.00",
  };
}
