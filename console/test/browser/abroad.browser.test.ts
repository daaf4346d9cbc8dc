// Invoicing abroad by hand, in Chromium against the real stack: the E46 (export) and E47 (payment
// abroad) forms are offered only once the company has a range for them, ask what DGII's obligation
// matrices ask (the foreign buyer, the shipment, the transport and the export's FOB/CIF figures;
// the beneficiary abroad and the ISR withheld at the rate of the Código Tributario's case) and
// what they issue is Aceptado by DGII (the sandbox).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A, accept, cliInvitation, go, startWorld, stopWorld, type World } from "./console-world.ts";

let world: World;
let owner: Page;

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(() => stopWorld(world));

/** Issues the form as filled and waits for DGII's verdict on the receipt's page. */
async function issueAndAwait(tipo: string): Promise<string> {
  await owner.getByRole("button", { name: "Emitir", exact: true }).click();
  const heading = owner.getByRole("heading", { level: 1 });
  await expect.poll(() => heading.textContent(), { timeout: 60_000 }).toMatch(new RegExp(`^E${tipo}\\d{10}`));
  await expect.poll(() => owner.textContent("h1 .estado"), { timeout: 60_000 }).toBe("Aceptado");
  return (await heading.textContent())!.slice(0, 13);
}

describe("invoicing abroad", () => {
  it("the owner enters through the admin CLI's invitation", async () => {
    const path = cliInvitation(world, A.rnc, "exporta@factura.do");
    ({ page: owner } = await accept(world, path, `${A.name} (${A.rnc})`, "Dueño"));
  });

  it("E46 and E47 are not offered while the company has no range for them", async () => {
    await go(world, owner, "#/emitir/31", "Emitir E31 Crédito Fiscal");
    const types = owner.getByRole("navigation", { name: "Tipo de comprobante" });
    expect(await types.textContent()).not.toMatch(/E46|E47/);
    await go(world, owner, "#/emitir/46", "Emitir E46 Exportaciones");
    expect(await owner.textContent("main")).toContain("no tiene números autorizados");
    for (const tipo of ["46", "47"])
      await world.stack.admin("PUT", `/admin/companies/${world.companyA}/sequences/${tipo}`, {
        rangeFrom: 1,
        rangeTo: 100,
        expiresOn: "2099-12-31",
      });
    await go(world, owner, "#/emitir/31", "Emitir E31 Crédito Fiscal");
    expect(await types.textContent()).toMatch(/E46 Exportaciones.*E47 Pagos al Exterior/);
  });

  it("an export to a foreign buyer, with its shipment, is Aceptado", async () => {
    await go(world, owner, "#/emitir/46", "Emitir E46 Exportaciones");
    await owner.getByLabel("Identificación fiscal del comprador en el exterior").fill("US-884422");
    await owner.getByLabel("Razón social del comprador").fill("Caribbean Imports LLC");
    await owner.getByLabel("País del comprador").fill("ESTADOS UNIDOS");
    await owner.getByLabel("Número de embarque").fill("EMB-2026-0042");
    await owner.getByLabel("Puerto de embarque").fill("Puerto Caucedo");
    await owner.getByLabel("Condiciones de entrega").selectOption("FOB");
    await owner.getByLabel("Vía de transporte").selectOption({ label: "Marítimo" });
    await owner.getByLabel("País de destino").fill("ESTADOS UNIDOS");
    await owner.getByLabel("País de origen de la mercancía").fill("REPUBLICA DOMINICANA");
    await owner.getByLabel("Régimen aduanero").fill("Exportación definitiva");
    await owner.getByLabel("Compañía transportista").fill("Naviera del Caribe SA");
    await owner.getByLabel("Número de viaje").fill("V-118");
    // The figures are read as typed, the Dominican way, and checked as the owner types.
    const fob = owner.getByLabel("Valor FOB");
    await fob.fill("9,500");
    await fob.fill("9500,5");
    await fob.dispatchEvent("change");
    const fobError = `#${await fob.getAttribute("id")}-error`;
    await expect.poll(() => owner.textContent(fobError)).toContain("los decimales van con punto");
    await fob.fill("9,500.00");
    await owner.getByLabel("Flete").fill("350.50");
    await owner.getByLabel("Seguro", { exact: false }).first().fill("120");
    await owner.getByLabel("Otros gastos hasta la aduana de destino").fill("29.50");
    await expect.poll(() => owner.textContent("p.total-cif")).toBe("Valor CIF: RD$10,000.00");
    expect(await fob.getAttribute("aria-invalid")).toBeNull();
    // An export's lines are ITBIS 0 %: the rate is shown, not chosen.
    expect(await owner.getByLabel("ITBIS", { exact: true }).isDisabled()).toBe(true);
    await owner.getByLabel("Descripción").fill("Cacao en grano");
    await owner.getByLabel("Cantidad").fill("10");
    await owner.getByLabel("Precio unitario").fill("1,000.00");
    await expect.poll(() => owner.textContent("p.total")).toContain("RD$10,000.00");
    const encf = await issueAndAwait("46");
    const main = (await owner.textContent("main"))!;
    expect(main).toContain("Caribbean Imports LLC");
    // The signed XML DGII took carries the shipment as typed.
    const xml = await (
      await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf/${encf}/xml`, {
        headers: { Authorization: `Bearer ${world.tokenA}` },
      })
    ).text();
    expect(xml).toContain("<NumeroEmbarque>EMB-2026-0042</NumeroEmbarque>");
    expect(xml).toContain("<IdentificadorExtranjero>US-884422</IdentificadorExtranjero>");
    expect(xml).toContain("<ViaTransporte>02</ViaTransporte>");
    for (const element of [
      "<TotalFob>9500.00</TotalFob>",
      "<Seguro>120.00</Seguro>",
      "<Flete>350.50</Flete>",
      "<OtrosGastos>29.50</OtrosGastos>",
      "<TotalCif>10000.00</TotalCif>",
      "<RegimenAduanero>Exportación definitiva</RegimenAduanero>",
      "<PaisOrigen>REPUBLICA DOMINICANA</PaisOrigen>",
      "<NombreCompaniaTransportista>Naviera del Caribe SA</NombreCompaniaTransportista>",
      "<NumeroViaje>V-118</NumeroViaje>",
    ])
      expect(xml).toContain(element);
  });

  it("a payment abroad withholds 27 % ISR from its beneficiary and is Aceptado", async () => {
    await go(world, owner, "#/emitir/47", "Emitir E47 Pagos al Exterior");
    await owner.getByLabel("Identificación fiscal del beneficiario en el exterior").fill("ES-B12345678");
    await owner.getByLabel("Razón social del beneficiario").fill("Servicios Técnicos Ibéricos SL");
    // The cases the Código Tributario sets for payments abroad, in words.
    const cases = await owner.getByLabel("Retención de ISR").locator("option").allTextContents();
    expect(cases).toEqual([
      "27 %: servicios y demás pagos al exterior (art. 305)",
      "10 %: intereses pagados al exterior (art. 306)",
      "10 %: dividendos pagados al exterior (art. 308)",
    ]);
    await owner.getByLabel("Retención de ISR").selectOption({ label: cases[0]! });
    await owner.getByLabel("Descripción").fill("Licencia de programa");
    await owner.getByLabel("Bien o servicio").selectOption({ label: "Servicio" });
    await owner.getByLabel("Precio unitario").fill("5,000");
    await expect.poll(() => owner.textContent("p.total")).toContain("RD$5,000.00");
    const encf = await issueAndAwait("47");
    const main = (await owner.textContent("main"))!;
    expect(main).toContain("Servicios Técnicos Ibéricos SL");
    // 27 % of 5,000.00, as the receipt's totals say it.
    expect(main).toMatch(/ISR retenido\s*RD\$1,350\.00/);
    const xml = await (
      await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf/${encf}/xml`, {
        headers: { Authorization: `Bearer ${world.tokenA}` },
      })
    ).text();
    expect(xml).toContain("<MontoISRRetenido>1350.00</MontoISRRetenido>");
  });

  it("interest paid abroad withholds 10 % ISR and is Aceptado", async () => {
    await go(world, owner, "#/emitir/47", "Emitir E47 Pagos al Exterior");
    await owner.getByLabel("Identificación fiscal del beneficiario en el exterior").fill("US-55-1234567");
    await owner.getByLabel("Razón social del beneficiario").fill("Atlantic Lending Corp");
    await owner
      .getByLabel("Retención de ISR")
      .selectOption({ label: "10 %: intereses pagados al exterior (art. 306)" });
    await owner.getByLabel("Descripción").fill("Intereses del préstamo, noviembre");
    await owner.getByLabel("Bien o servicio").selectOption({ label: "Servicio" });
    await owner.getByLabel("Precio unitario").fill("12,345.67");
    const encf = await issueAndAwait("47");
    // 10 % of 12,345.67 is 1,234.567: 1,234.57 half-up.
    expect((await owner.textContent("main"))!).toMatch(/ISR retenido\s*RD\$1,234\.57/);
    const xml = await (
      await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf/${encf}/xml`, {
        headers: { Authorization: `Bearer ${world.tokenA}` },
      })
    ).text();
    expect(xml).toContain("<MontoISRRetenido>1234.57</MontoISRRetenido>");
  });
});
