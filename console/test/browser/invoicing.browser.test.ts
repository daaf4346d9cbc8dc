// Invoicing by hand as a Dominican business does it, in Chromium against the real stack: a missing
// RNC and a price typed "1,500.00" handled at their fields in Spanish (no element name, no JSON
// path), an E31 on credit at 30 days by transfer with two ITBIS rates and a discount that the 607
// lists under Venta a Crédito with its amounts, and its receipt page read as an owner reads it.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A,
  accept,
  B,
  BUYER,
  cliInvitation,
  go,
  RESULTS,
  reportOf,
  startWorld,
  stopWorld,
  type World,
} from "./console-world.ts";

let world: World;
let owner: Page;
const story: { credit?: string } = {};
/** DGII's element names and JSON paths: none may reach an owner's screen. */
const ELEMENT_NAMES =
  /RNCComprador|PrecioUnitarioItem|MontoGravado|ITBIS1|TotalITBIS|MontoTotal|\/Encabezado|\/DetallesItems/;

/** The month in Santo Domingo (UTC−4, no daylight saving) as yyyy-MM. */
function sdMonth(): string {
  return new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 7);
}

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(() => stopWorld(world));

describe("invoicing by hand", () => {
  it("the owner enters through the admin CLI's invitation", async () => {
    const path = cliInvitation(world, A.rnc, "dueno@factura.do");
    ({ page: owner } = await accept(world, path, `${A.name} (${A.rnc})`, "Dueño"));
  });

  it("a missing RNC and a price typed 1,500.00 are handled at their fields, in Spanish", async () => {
    await go(world, owner, "#/emitir/31", "Emitir E31 Crédito Fiscal");
    await owner.getByLabel("Descripción").fill("Silla de oficina");
    await owner.getByLabel("Precio unitario").fill("1,500.00");
    // The till's parser reads it: 1,500.00 + 18 % ITBIS.
    await expect.poll(() => owner.textContent("p.total")).toContain("RD$1,770.00");
    await owner.getByRole("button", { name: "Emitir", exact: true }).click();
    const rnc = owner.getByLabel("RNC del comprador");
    await expect.poll(() => rnc.getAttribute("aria-invalid")).toBe("true");
    const note = await owner.locator(`#${await rnc.getAttribute("id")}-error`).textContent();
    expect(note).toMatch(/^El comprador es obligatorio/);
    expect(await owner.getByLabel("Precio unitario").getAttribute("aria-invalid")).toBeNull();
    expect(await owner.textContent("main")).not.toMatch(ELEMENT_NAMES);
    expect(await owner.textContent("main")).not.toMatch(/ required|is not|must be/);
    // A price that cannot be read is said at the price, in Spanish.
    await owner.getByLabel("Precio unitario").fill("1.500,00");
    await owner.getByRole("button", { name: "Emitir", exact: true }).click();
    await expect.poll(() => owner.getByLabel("Precio unitario").getAttribute("aria-invalid")).toBe("true");
    expect(await owner.textContent("main")).toContain("El precio:");
    await owner.screenshot({ path: `${RESULTS}console-emitir-errores.png`, fullPage: true });
  });

  it("an E31 on credit at 30 days by transfer, two ITBIS rates and a discount: the 607 lists it under crédito", async () => {
    await go(world, owner, "#/emitir/31", "Emitir E31 Crédito Fiscal");
    await owner.getByLabel("RNC del comprador").fill(BUYER.rnc);
    await owner.getByLabel("RNC del comprador").press("Tab");
    await expect.poll(() => owner.getByLabel("Razón social del comprador").inputValue()).toBe(BUYER.name);
    await owner.getByLabel("Condición").selectOption({ label: "Crédito" });
    await owner.getByLabel("Plazo en días").fill("30");
    await expect.poll(() => owner.getByLabel("Fecha límite de pago").inputValue()).toMatch(/^\d{2}-\d{2}-\d{4}$/);
    await owner.getByLabel("Forma de pago 1").selectOption({ label: "Cheque, transferencia o depósito" });
    await owner.locator("fieldset.line").nth(0).getByLabel("Descripción").fill("Escritorio");
    await owner.locator("fieldset.line").nth(0).getByLabel("Cantidad").fill("2");
    await owner.locator("fieldset.line").nth(0).getByLabel("Precio unitario").fill("1,000.00");
    await owner.locator("fieldset.line").nth(0).getByLabel("Descuento").fill("100");
    await owner.getByRole("button", { name: "Agregar línea" }).click();
    const second = owner.locator("fieldset.line").nth(1);
    await second.getByLabel("Descripción").fill("Instalación");
    await second.getByLabel("Precio unitario").fill("500");
    await second.getByLabel("ITBIS").selectOption({ label: "ITBIS 16 %" });
    await second.getByLabel("Bien o servicio").selectOption({ label: "Servicio" });
    // 1,900.00 at 18 % (342.00) + 500.00 at 16 % (80.00).
    await expect.poll(() => owner.textContent("p.total")).toContain("RD$2,822.00");
    await owner.getByRole("button", { name: "Emitir", exact: true }).click();
    const heading = owner.getByRole("heading", { level: 1 });
    await expect.poll(() => heading.textContent(), { timeout: 60_000 }).toMatch(/^E31\d{10}/);
    story.credit = (await heading.textContent())!.slice(0, 13);
    await expect.poll(() => owner.textContent("h1 .estado"), { timeout: 60_000 }).toBe("Aceptado");
    const f607 = (await reportOf(world, world.tokenA, `/reports/607?period=${sdMonth()}`)) as {
      lines: { encf: string; fields: Record<string, string> }[];
    };
    const line = f607.lines.find((l) => l.encf === story.credit);
    expect(line?.fields).toMatchObject({
      rncCedulaPasaporte: BUYER.rnc,
      montoFacturado: "2400.00",
      itbisFacturado: "422.00",
      ventaCredito: "2822.00",
      chequeTransferenciaDeposito: "",
      efectivo: "",
    });
  });

  it("its receipt page shows the buyer, the terms and the totals in words, and no DGII element name", async () => {
    await go(world, owner, `#/comprobantes/${story.credit}`, story.credit!);
    const main = (await owner.textContent("main"))!;
    expect(main).toContain(BUYER.name);
    expect(main).toContain(BUYER.rnc);
    expect(main).toContain("Crédito");
    expect(main).toContain("Subtotal gravado 18 %");
    expect(main).toContain("ITBIS 16 %");
    expect(main).toContain("Descuentos");
    expect(main).not.toMatch(ELEMENT_NAMES);
    await owner.screenshot({ path: `${RESULTS}console-comprobante-credito.png`, fullPage: true });
  });

  it("Hoy's RD$ totals of the month are the 607's (its records plus the consumer summary)", async () => {
    await go(world, owner, "#/hoy", "Hoy");
    const f607 = (await reportOf(world, world.tokenA, `/reports/607?period=${sdMonth()}`)) as {
      totals: { montoFacturado: string; itbisFacturado: string };
      consumptionSummary: { montoFacturado: string; itbisFacturado: string };
    };
    const cents = (a: string) => Math.round(Number(a) * 100);
    const rd = (c: number) => `RD$${(c / 100).toLocaleString("en-US", { minimumFractionDigits: 2 })}`;
    const ventas = cents(f607.totals.montoFacturado) + cents(f607.consumptionSummary.montoFacturado);
    const itbis = cents(f607.totals.itbisFacturado) + cents(f607.consumptionSummary.itbisFacturado);
    expect(ventas).toBeGreaterThanOrEqual(240_000);
    await expect.poll(() => owner.textContent(".tile.ventas-mes strong")).toBe(rd(ventas));
    expect(await owner.textContent(".tile.itbis-mes strong")).toBe(rd(itbis));
    expect(await owner.textContent(".tile.total-mes strong")).toBe(rd(ventas + itbis));
    expect(await owner.getAttribute("figure.chart svg", "aria-label")).toContain("RD$2,822.00");
    await owner.screenshot({ path: `${RESULTS}console-hoy-ventas.png`, fullPage: true });
  });

  it("creates a product and a customer and invoices them", async () => {
    await go(world, owner, "#/tienda", "Tienda");
    await owner.getByRole("button", { name: "Producto nuevo" }).click();
    const form = owner.getByRole("form", { name: "Producto nuevo" });
    await form.getByLabel("Código", { exact: true }).fill("SILLA-1");
    await form.getByLabel("Códigos de barras").fill("7460000000017");
    await form.getByLabel("Nombre").fill("Silla ergonómica");
    await form.getByLabel("Precio", { exact: true }).fill("1,500.00");
    await form.getByLabel("El precio incluye ITBIS").uncheck();
    await form.getByRole("button", { name: "Guardar" }).click();
    await expect.poll(() => owner.textContent("main table")).toContain("7460000000017");
    const row = owner.locator("tr", { hasText: "SILLA-1" });
    expect(await row.textContent()).toContain("RD$1,500.00 sin ITBIS");
    expect(await row.textContent()).toContain("ITBIS 18 %");

    await go(world, owner, "#/clientes", "Clientes");
    // The buyer of the credit invoice is listed without being typed.
    expect(await owner.textContent("main table")).toContain(BUYER.name);
    await owner.getByRole("button", { name: "Cliente nuevo" }).click();
    await owner.getByLabel("RNC o cédula del cliente").fill(B.rnc);
    await owner.getByLabel("Nombre o razón social").fill(B.name);
    await owner.getByLabel("Correo (opcional)").fill("compras@proveedora.do");
    await owner.getByRole("button", { name: "Guardar cliente" }).click();
    const customer = owner.locator("tr", { hasText: B.rnc });
    await expect.poll(() => customer.textContent()).toContain("compras@proveedora.do");
    // DGII's directory lists only A on this platform: B receives no e-CF.
    expect(await customer.textContent()).toMatch(/No/);

    await customer.getByRole("link", { name: `Facturar a ${B.name}` }).click();
    await owner.getByRole("heading", { name: "Emitir E31 Crédito Fiscal", level: 1 }).waitFor();
    await expect.poll(() => owner.getByLabel("Razón social del comprador").inputValue()).toBe(B.name);
    expect(await owner.getByLabel("Correo del comprador").inputValue()).toBe("compras@proveedora.do");
    await owner.getByLabel("Descripción").fill("Silla ergonómica");
    await owner.getByLabel("Descripción").press("Tab");
    await expect.poll(() => owner.getByLabel("Precio unitario").inputValue()).toBe("1,500.00");
    await expect.poll(() => owner.textContent("p.total")).toContain("RD$1,770.00");
    await owner.getByRole("button", { name: "Emitir", exact: true }).click();
    await expect.poll(() => owner.textContent("h1 .estado"), { timeout: 60_000 }).toBe("Aceptado");
    const main = (await owner.textContent("main"))!;
    expect(main).toContain(`${B.name} (${B.rnc})`);
    expect(main).toContain("Silla ergonómica");
  });
});
