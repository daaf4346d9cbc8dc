// A received e-CF counts only once DGII knows it: after reception the month object's alarm asks
// DGII (the sandbox, consultaestado with the security code). The clock is passed to the check, so
// "days later" needs no sleeping.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drMonth } from "@ecf/shared";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { database } from "../src/db/client.ts";
import { companies } from "../src/db/tables.ts";
import { dgiiClientFor, signerFor } from "../src/dgii/for-company.ts";
import { receiptMonth } from "../src/ledger/client.ts";
import { CONFIRMATION_WINDOW_MS } from "../src/receiving/purchase-confirmation.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { todayDgii } from "./support/issuing.ts";
import { auditRows, checkPurchasesAtDgii, everyMonthSql, monthSql } from "./support/ledger.ts";
import { postXml, receivingCompany, signAsSupplier, supplierEcf } from "./receiving-support.ts";

type Json = Record<string, unknown>;
const month = drMonth(new Date());
const periodo = month.replace("-", "");
const minutes = (n: number) => new Date(Date.now() + n * 60_000);

/** A supplier's e-CF to `buyer`, signed by a certificate the demo CA issued; sent to DGII first when `toDgii`. */
async function receivePurchase(options: { toDgii: boolean }) {
  const buyer = await receivingCompany();
  const supplier = await receivingCompany();
  const ecf = supplierEcf("31", buyer.company.rnc, { rncEmisor: supplier.company.rnc, fechaEmision: todayDgii() });
  const signed = await signAsSupplier(ecf.xml);
  if (options.toDgii) {
    const row = (await database(env.DB).query.companies.findFirst({ where: eq(companies.id, supplier.company.id) }))!;
    const client = dgiiClientFor(env, row, await signerFor(env, row));
    const trackId = await client.sendEcf(signed, ecf.encf);
    let result = await client.consultaResultado(trackId);
    for (let i = 0; i < 50 && result.codigo === 3; i++) {
      await new Promise((r) => setTimeout(r, 100)); // the sandbox's own processing time, awaited by polling
      result = await client.consultaResultado(trackId);
    }
    expect([1, 4]).toContain(result.codigo);
  }
  expect(await (await postXml("/fe/recepcion/api/ecf", signed)).text()).toContain("<Estado>0</Estado>");
  const [row] = await everyMonthSql(buyer.company.id, "SELECT id FROM purchases WHERE encf = ?", ecf.encf);
  return { buyer, encf: ecf.encf, id: String(row!.id) };
}

async function comprasItem(token: string, encf: string): Promise<Json> {
  const res = await call(`/reports/compras?encfPrefix=${encf}`, { headers: authed(token) });
  expect(res.status).toBe(200);
  const items = ((await res.json()) as { items: Json[] }).items;
  return items.find((i) => i.encf === encf)!;
}

async function report606(token: string): Promise<{ lines?: Json[]; excluded: Json[]; [k: string]: unknown }> {
  const res = await call(`/reports/606?period=${periodo}`, { headers: authed(token) });
  expect(res.status).toBe(200);
  return (await res.json()) as { excluded: Json[] };
}

const in606 = (r: Json, encf: string) =>
  JSON.stringify(r.lines ?? r.lineas ?? r).includes(encf) && !JSON.stringify(r.excluded).includes(encf);

function decide(token: string, id: string, body: unknown) {
  return call(`/compras/${id}/aprobacion`, {
    method: "POST",
    headers: authed(token, { "Content-Type": "application/json" }),
    body: JSON.stringify(body),
  });
}

describe("a received e-CF is confirmed with DGII before it counts", () => {
  it("is pending at reception (out of the 606, not acceptable), the alarm is set, and DGII's Aceptado confirms it", async () => {
    const { buyer, encf, id } = await receivePurchase({ toDgii: true });
    const [stored] = await everyMonthSql(
      buyer.company.id,
      "SELECT dgii_status, security_code, dgii_next_check_at FROM purchases WHERE id = ?",
      id,
    );
    expect(stored).toMatchObject({ dgii_status: "pending", security_code: expect.stringMatching(/^.{6}$/) });
    // The check runs from the month object's alarm: it is set no later than the purchase is due.
    // (While a run of the alarm is under way, for the reception's own tasks, no alarm is set: the
    // run sets the next one when it ends, after loading what runs a task on its first use.)
    const alarm = await vi.waitFor(
      async () => {
        const at = await runInDurableObject(receiptMonth(env, buyer.company.id, month), (_i, state) =>
          state.storage.getAlarm(),
        );
        expect(at).not.toBeNull();
        return at;
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(alarm!).toBeLessThanOrEqual(Date.parse(String(stored!.dgii_next_check_at)));

    expect(await comprasItem(buyer.token, encf)).toMatchObject({
      estadoDgii: "Pendiente",
      confirmada: false,
      consultadaDgii: null,
    });
    const before = await report606(buyer.token);
    expect(before.excluded).toContainEqual(
      expect.objectContaining({ encf, reason: expect.stringMatching(/Not confirmed by DGII/) }),
    );
    const refused = await decide(buyer.token, id, { estado: "Aceptado" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("purchase_not_confirmed");

    expect(await checkPurchasesAtDgii(buyer.company.id, minutes(2))).toBe(1);
    expect(await comprasItem(buyer.token, encf)).toMatchObject({
      estadoDgii: "Aceptado",
      confirmada: true,
      consultadaDgii: expect.any(String),
    });
    expect(in606(await report606(buyer.token), encf)).toBe(true);
    // Confirmed: never asked again.
    expect(await checkPurchasesAtDgii(buyer.company.id, minutes(60 * 24 * 10))).toBe(0);
  });

  it("one DGII does not know: pending with back-off within the window, then not_found_at_dgii, a webhook, an audit entry", async () => {
    const { buyer, encf, id } = await receivePurchase({ toDgii: false });
    expect(await checkPurchasesAtDgii(buyer.company.id, minutes(2))).toBe(1);
    const [first] = await everyMonthSql(
      buyer.company.id,
      "SELECT dgii_status, dgii_checks, dgii_next_check_at FROM purchases WHERE id = ?",
      id,
    );
    expect(first).toMatchObject({ dgii_status: "pending", dgii_checks: 1 });
    // Backed off: not due again at once.
    expect(Date.parse(String(first!.dgii_next_check_at))).toBeGreaterThan(minutes(5).getTime());
    expect(await checkPurchasesAtDgii(buyer.company.id, minutes(3))).toBe(0);

    const afterWindow = new Date(Date.now() + CONFIRMATION_WINDOW_MS + 60_000);
    expect(await checkPurchasesAtDgii(buyer.company.id, afterWindow)).toBe(1);
    expect(await comprasItem(buyer.token, encf)).toMatchObject({ estadoDgii: "No Encontrado", confirmada: false });
    const events = await monthSql(buyer.company.id, month, "SELECT payload FROM tasks WHERE kind = 'event'");
    const unconfirmed = events
      .map((e) => JSON.parse(String(e.payload)).event)
      .filter((e: Json) => e.type === "purchase.unconfirmed");
    expect(unconfirmed).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ id, encf, estadoDgii: "No Encontrado" }) }),
    ]);
    expect((await auditRows(buyer.company.id)).map((r) => r.code)).toContain("purchase_not_found_at_dgii");
    const excluded = (await report606(buyer.token)).excluded;
    expect(excluded).toContainEqual(
      expect.objectContaining({ encf, reason: expect.stringMatching(/not_found_at_dgii/) }),
    );
    // Still flagged once more checks find nothing: one webhook, not one per check.
    await checkPurchasesAtDgii(buyer.company.id, new Date(afterWindow.getTime() + 2 * 86_400_000));
    const again = await monthSql(
      buyer.company.id,
      month,
      "SELECT payload FROM tasks WHERE kind = 'event' AND payload LIKE '%purchase.unconfirmed%'",
    );
    expect(again).toHaveLength(1);
  });

  it("the accountant's override (with a reason, audited) puts it in the 606 and lets it be accepted", async () => {
    const { buyer, encf, id } = await receivePurchase({ toDgii: false });
    await checkPurchasesAtDgii(buyer.company.id, new Date(Date.now() + CONFIRMATION_WINDOW_MS + 60_000));
    const override = (body: unknown) =>
      call(`/compras/${id}/confirmacion-manual`, {
        method: "POST",
        headers: authed(buyer.token, { "Content-Type": "application/json" }),
        body: JSON.stringify(body),
      });
    const noReason = await override({});
    expect(noReason.status).toBe(400);
    expect(((await noReason.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain("/motivo");
    const res = await override({ motivo: "Compra verificada con el proveedor; e-CF en contingencia" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id,
      encf,
      estadoDgii: "No Encontrado",
      confirmada: true,
      confirmacionManual: expect.stringMatching(/contingencia/),
    });
    expect(await comprasItem(buyer.token, encf)).toMatchObject({ estadoDgii: "No Encontrado", confirmada: true });
    const audited = await auditRows(buyer.company.id, "code = ?", "purchase_confirmation_overridden");
    expect(audited).toEqual([expect.objectContaining({ detail: expect.stringMatching(/contingencia/) })]);
    expect(in606(await report606(buyer.token), encf)).toBe(true);
    expect((await decide(buyer.token, id, { estado: "Aceptado" })).status).toBe(200);
  });

  it("refuses an override of one DGII rejected, and of an unknown purchase", async () => {
    const { buyer, id } = await receivePurchase({ toDgii: false });
    await everyMonthSql(
      buyer.company.id,
      "UPDATE purchases SET dgii_status = 'rejected', dgii_next_check_at = NULL WHERE id = ?",
      id,
    );
    const post = (path: string) =>
      call(path, {
        method: "POST",
        headers: authed(buyer.token, { "Content-Type": "application/json" }),
        body: JSON.stringify({ motivo: "Por si acaso" }),
      });
    expect((await post(`/compras/${id}/confirmacion-manual`)).status).toBe(409);
    expect((await post(`/compras/${month}.nope/confirmacion-manual`)).status).toBe(404);
  });
});
