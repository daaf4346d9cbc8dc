// Mensual as an accountant reads it, in Chromium against the real stack: the month still under way
// is never "listo para presentar" while an ended month with nothing missing is; the consumer
// summary (E32 under 250,000) is shown; and each of the 606, 607 and 608 is previewed as a table
// under DGII's column names in words before it is downloaded. And Hoy's today figures add every
// accepted receipt of the month, not the report's first page of 100.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A,
  accept,
  BUYER,
  cliInvitation,
  go,
  RESULTS,
  reportOf,
  startWorld,
  stopWorld,
  supplierInvoice,
  type World,
} from "./console-world.ts";

let world: World;
let owner: Page;

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(() => stopWorld(world));

/** A month in Santo Domingo (UTC−4) as yyyy-MM, `back` months before the current one. */
function sdMonth(back = 0): string {
  const t = new Date(Date.now() - 4 * 3_600_000);
  const m = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() - back, 1));
  return m.toISOString().slice(0, 7);
}

/** Sends `body` with an issuer's API key; DGII (the sandbox) must accept it. */
async function issue(token: string, body: unknown): Promise<string> {
  const res = await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { encf: string; estado: string };
  expect(answer.estado, JSON.stringify(answer)).toBe("Aceptado");
  return answer.encf;
}

/** The column headers of a format's preview, opened as the accountant opens it. */
async function previewHeaders(format: string): Promise<string[]> {
  const card = owner.locator(`article:has(#f${format})`);
  await card.getByText(`Ver los registros del ${format}`).click();
  return (await card.locator("details.preview th").allTextContents()).map((t) => t.trim());
}

describe("Mensual", () => {
  it("the month's sales, consumer invoices, purchase and voided numbers are in place", async () => {
    const path = cliInvitation(world, A.rnc, "contable@factura.do");
    ({ page: owner } = await accept(world, path, `${A.name} (${A.rnc})`, "Dueño"));
    const invoice = supplierInvoice();
    const toBuyer = { RNCComprador: BUYER.rnc, RazonSocialComprador: BUYER.name };
    // E31 number 3 chosen ahead of the sequence leaves 1 and 2 unused, to be voided (the 608).
    const sale = { ...invoice.Encabezado.IdDoc, eNCF: "E310000000003" };
    await issue(world.tokenA, { ...invoice, Encabezado: { IdDoc: sale, Comprador: toBuyer } });
    const consumo = { ...invoice.Encabezado.IdDoc, TipoeCF: "32" };
    await issue(world.tokenA, {
      ...invoice,
      Encabezado: { IdDoc: consumo, Comprador: { RazonSocialComprador: "CONSUMIDOR FINAL" } },
    });
    // A's own Gastos Menores (E43) is a purchase it documented itself: a record of the 606.
    await world.stack.admin("PUT", `/admin/companies/${world.companyA}/sequences/43`, {
      rangeFrom: 1,
      rangeTo: 100,
      expiresOn: "2099-12-31",
    });
    await issue(world.tokenA, {
      Encabezado: { IdDoc: { TipoeCF: "43" } },
      DetallesItems: [
        {
          IndicadorFacturacion: "4",
          NombreItem: "Café para la oficina",
          IndicadorBienoServicio: "1",
          CantidadItem: "1",
          UnidadMedida: "43",
          PrecioUnitarioItem: "500.00",
        },
      ],
    });
    await go(world, owner, "#/comprobantes", "Comprobantes");
    const card = owner.locator("article", { hasText: "Números sin usar por anular" });
    await card.getByRole("button", { name: "Anular con la DGII" }).click();
    await expect
      .poll(() => owner.locator("article", { hasText: "Números sin usar" }).textContent(), { timeout: 60_000 })
      .toContain("Ninguno.");
  });

  it("the current month is not ready to file, and shows the consumer summary", async () => {
    await go(world, owner, `#/mensual?periodo=${sdMonth()}`, "Mensual");
    const main = (await owner.textContent("main"))!;
    expect(main).not.toContain("listo para presentar");
    expect(await owner.textContent("article:has(#f607)")).toContain("se presenta cuando el mes termine");
    const summary = owner.locator("article:has(#f607) table", { hasText: "Resumen de facturas de consumo" });
    expect(await summary.locator("caption").textContent()).toContain("(1)");
    expect(await summary.locator("td").allTextContents()).toEqual(["RD$1,000.00", "RD$180.00", "RD$1,180.00"]);
  });

  it("each format is previewed under DGII's column names in words", async () => {
    const h607 = await previewHeaders("607");
    expect(h607).toEqual(expect.arrayContaining(["RNC, cédula o pasaporte", "Monto facturado", "Venta a crédito"]));
    expect(await owner.textContent("article:has(#f607) details.preview tbody")).toContain(BUYER.rnc);
    const h606 = await previewHeaders("606");
    expect(h606).toEqual(expect.arrayContaining(["RNC o cédula", "Tipo de bienes y servicios comprados", "NCF"]));
    const h608 = await previewHeaders("608");
    expect(h608).toEqual(["Número de comprobante fiscal", "Fecha del comprobante", "Tipo de anulación"]);
    expect(await owner.locator("article:has(#f608) details.preview tbody tr").count()).toBe(2);
    // Words, never the API's keys: no header is written as one run-together word.
    for (const header of [...h606, ...h607, ...h608]) expect(header).not.toMatch(/[a-z][A-Z]/);
    await owner.screenshot({ path: `${RESULTS}console-mensual-vista.png`, fullPage: true });
  });

  it("an ended month with nothing missing is ready to file", async () => {
    await go(world, owner, `#/mensual?periodo=${sdMonth(1)}`, "Mensual");
    // The same page again: the month's figures replace the current month's.
    await expect.poll(() => owner.getByLabel("Mes").inputValue()).toBe(sdMonth(1));
    for (const format of ["606", "607", "608"]) {
      const card = owner.locator(`article:has(#f${format})`);
      await expect
        .poll(() => card.locator("p").first().textContent(), { message: (await card.textContent()) ?? "" })
        .toMatch(/^Completo: \d+ registros, listo para presentar\.$/);
    }
  });

  it("Hoy's sales of today add every accepted receipt, beyond the report's first page of 100", async () => {
    const invoice = supplierInvoice();
    const consumo = { ...invoice.Encabezado.IdDoc, TipoeCF: "32" };
    const sale = {
      ...invoice,
      Encabezado: { IdDoc: consumo, Comprador: { RazonSocialComprador: "CONSUMIDOR FINAL" } },
    };
    for (let batch = 0; batch < 10; batch++)
      await Promise.all(Array.from({ length: 10 }, () => issue(world.tokenA, sale)));
    const report = (await reportOf(
      world,
      world.tokenA,
      `/reports/encf?estado=Aceptado&Desde=01-${sdMonth().slice(5)}-${sdMonth().slice(0, 4)}&pageSize=1000`,
    )) as { items: { montoTotal: string }[] };
    expect(report.items.length).toBeGreaterThan(100);
    const cents = report.items.reduce((s, r) => s + Math.round(Number(r.montoTotal) * 100), 0);
    const rd = `RD$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2 })}`;
    await go(world, owner, "#/hoy", "Hoy");
    await expect.poll(() => owner.textContent(".tile.ventas-hoy strong")).toBe(rd);
  });
});
