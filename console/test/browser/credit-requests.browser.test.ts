// Crédito fiscal requests end to end in Chromium against the real stack (wrangler dev + the DGII
// sandbox): the owner chooses that requests wait for approval, a buyer asks on an E32's public
// address for a crédito fiscal invoice, the owner sees it waiting in Crédito fiscal and approves
// it there; the E31 (CodigoModificacion 5, referencing the E32) is Aceptado by the sandbox and in
// the 607, and a second request for the same E32 is refused. When the owner voids the E32 with a
// credit note and that note cannot be issued right away (the E34 range expired), the request's
// row says the note is pending.
import { xmlToEcf } from "@ecf/shared";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A,
  accept,
  BUYER,
  cliInvitation,
  go,
  reportOf,
  startWorld,
  stopWorld,
  supplierInvoice,
  type World,
} from "./console-world.ts";

type Json = Record<string, any>;
let world: World;
let owner: Page;

/** The month in Santo Domingo (UTC−4, no daylight saving) as yyyy-MM. */
const sdMonth = () => new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 7);

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(() => stopWorld(world));

/** A's E32 to a consumer, accepted by the sandbox, and the security code printed on it. */
async function consumerReceipt(): Promise<{ encf: string; code: string }> {
  const invoice = supplierInvoice();
  const res = await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf`, {
    method: "POST",
    headers: { Authorization: `Bearer ${world.tokenA}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      ...invoice,
      Encabezado: {
        IdDoc: { ...invoice.Encabezado.IdDoc, TipoeCF: "32" },
        Comprador: { RazonSocialComprador: "CONSUMIDOR FINAL" },
      },
    }),
  });
  const answer = (await res.json()) as Json;
  expect(answer.estado, JSON.stringify(answer)).toBe("Aceptado");
  return { encf: answer.encf, code: new URL(answer.urlTimbre).searchParams.get("CodigoSeguridad")! };
}

/** The buyer's request, as the public page's form would post it (JSON). */
const ask = (e32: { encf: string; code: string }) =>
  fetch(`${world.stack.workerUrl}/r/${A.rnc}/${e32.encf}/credito-fiscal?c=${encodeURIComponent(e32.code)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ rncComprador: BUYER.rnc }),
  });

describe("crédito fiscal requests approved in the console", () => {
  it("the owner chooses that requests wait for approval", async () => {
    ({ page: owner } = await accept(world, cliInvitation(world, A.rnc, "duena-cf@super.do"), A.name, "Dueño"));
    await go(world, owner, "#/credito-fiscal", "Crédito fiscal");
    await owner
      .getByLabel("Las solicitudes", { exact: true })
      .selectOption({ label: "Esperan la aprobación del dueño o del contador" });
    await owner.getByRole("button", { name: "Guardar" }).click();
    await expect
      .poll(async () => ((await reportOf(world, world.tokenA, "/company/me")) as Json).creditoFiscalApproval)
      .toBe("approval");
  });

  it("a buyer's request waits, the owner approves it, and the E31 is accepted and in the 607", async () => {
    const e32 = await consumerReceipt();
    const asked = await ask(e32);
    expect(asked.status).toBe(202);
    expect(((await asked.json()) as Json).estado).toBe("Pendiente");
    const page = await (
      await fetch(`${world.stack.workerUrl}/r/${A.rnc}/${e32.encf}?c=${encodeURIComponent(e32.code)}`)
    ).text();
    expect(page).toContain("está esperando la aprobación");

    await owner.reload();
    await owner.getByRole("heading", { name: "Crédito fiscal", level: 1 }).waitFor();
    await owner.getByRole("button", { name: `Aprobar y emitir la factura de ${e32.encf}` }).click();
    const decided = owner.locator("main table").first();
    await expect.poll(() => decided.textContent(), { timeout: 60_000 }).toContain("Aprobada");
    const e31 = (await decided.locator("tbody tr", { hasText: e32.encf }).locator("td").nth(3).textContent())!.trim();
    expect(e31).toMatch(/^E31\d{10}$/);

    const receipt = (await reportOf(world, world.tokenA, `/fe/recepcion/ecf/${e31}`)) as Json;
    expect(receipt.estado).toBe("Aceptado");
    const xml = await (
      await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf/${e31}/xml`, {
        headers: { Authorization: `Bearer ${world.tokenA}` },
      })
    ).text();
    expect((xmlToEcf(xml) as Json).InformacionReferencia).toMatchObject({
      NCFModificado: e32.encf,
      CodigoModificacion: "5",
    });
    const f607 = (await reportOf(world, world.tokenA, `/reports/607?period=${sdMonth()}`)) as Json;
    expect(f607.lines.map((line: Json) => line.encf)).toContain(e31);

    const again = await ask(e32);
    expect(again.status).toBe(409);
    expect(((await again.json()) as Json).errors[0].code).toBe("already_issued");
  });

  it("a credit note that cannot be issued yet is shown pending on the approved request", async () => {
    await go(world, owner, "#/credito-fiscal", "Crédito fiscal");
    await owner
      .getByLabel("La factura de consumo", { exact: true })
      .selectOption({ label: "Se anula con una nota de crédito" });
    await owner.getByRole("button", { name: "Guardar" }).click();
    await expect
      .poll(async () => ((await reportOf(world, world.tokenA, "/company/me")) as Json).creditoFiscalE32)
      .toBe("credit_note");
    const range = (expiresOn: string) =>
      world.stack.admin("PUT", `/admin/companies/${world.companyA}/sequences/34`, {
        rangeFrom: 1,
        rangeTo: 100_000,
        expiresOn,
      });
    await range("2020-01-31"); // the E34 is refused right after the E31: it stays owed
    try {
      const e32 = await consumerReceipt();
      expect((await ask(e32)).status).toBe(202);
      await owner.reload();
      await owner.getByRole("button", { name: `Aprobar y emitir la factura de ${e32.encf}` }).click();
      const row = owner.locator("main table").first().locator("tbody tr", { hasText: e32.encf });
      await expect.poll(() => row.textContent(), { timeout: 60_000 }).toContain("Aprobada");
      expect((await row.locator("td").nth(4).textContent())!.trim()).toBe("Pendiente: se emitirá automáticamente");
    } finally {
      await range("2099-12-31");
    }
  });
});
