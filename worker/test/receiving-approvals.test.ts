// Our commercial approvals over the wire: the DGII sandbox (started by the global setup) plays
// DGII, its directory and the supplier's emisor-receptor approval service.
import { env } from "cloudflare:workers";
import { parseAcecf, verifyXml } from "@ecf/shared";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../src/db/client.ts";
import { companies } from "../src/db/tables.ts";
import { dgiiClientFor, signerFor } from "../src/dgii/for-company.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { postXml, receivingCompany, signAsSupplier, supplierEcf } from "./receiving-support.ts";
import { checkPurchasesAtDgii, everyMonthSql } from "./support/ledger.ts";
import { until } from "./support/until.ts";

const sandbox = env.DGII_SANDBOX_URL.replace(/\/+$/, "");

/** A purchase as the buyer's month object holds it (snake_case columns). */
async function purchaseRow(companyId: string, id: string) {
  const [row] = await everyMonthSql(companyId, "SELECT * FROM purchases WHERE id = ?", id);
  return row as Record<string, string> | undefined;
}

async function companyRow(id: string) {
  return (await database(env.DB).query.companies.findFirst({ where: eq(companies.id, id) }))!;
}

/** The supplier issues an e-CF to the buyer: DGII (the sandbox) accepts it, the buyer receives it. */
async function purchase(options: { toDgii: boolean; listed: boolean }) {
  const buyer = await receivingCompany();
  const supplier = await receivingCompany();
  const ecf = supplierEcf("31", buyer.company.rnc, { rncEmisor: supplier.company.rnc });
  const signed = await signAsSupplier(ecf.xml);
  if (options.toDgii) {
    const row = await companyRow(supplier.company.id);
    const client = dgiiClientFor(env, row, await signerFor(env, row));
    const trackId = await client.sendEcf(signed, ecf.encf);
    let result = await client.consultaResultado(trackId);
    // DGII codigo 3: "En Proceso".
    await until(
      async () => result.codigo !== 3,
      async () => (result = await client.consultaResultado(trackId)),
    );
    expect([1, 4], JSON.stringify(result)).toContain(result.codigo);
  }
  if (options.listed) {
    const host = `${sandbox}/testecf/emisorreceptor`;
    const res = await fetch(`${sandbox}/__sandbox/directory`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify([
        {
          nombre: "Proveedor SRL",
          rnc: supplier.company.rnc,
          urlRecepcion: host,
          urlAceptacion: host,
          urlOpcional: host,
        },
      ]),
    });
    expect(res.status).toBe(200);
  }
  const arecf = await (await postXml("/fe/recepcion/api/ecf", signed)).text();
  expect(arecf).toContain("<Estado>0</Estado>");
  // The month alarm's check, a couple of minutes after reception: DGII (the sandbox) knows it or not.
  await checkPurchasesAtDgii(buyer.company.id, new Date(Date.now() + 120_000));
  const [row] = await everyMonthSql(buyer.company.id, "SELECT id, dgii_status FROM purchases WHERE encf = ?", ecf.encf);
  expect(row!.dgii_status).toBe(options.toDgii ? "confirmed" : "pending");
  return { buyer, supplier, encf: ecf.encf, purchaseId: String(row!.id) };
}

function decide(token: string, id: string, body: unknown) {
  return call(`/compras/${id}/aprobacion`, {
    method: "POST",
    headers: authed(token, { "Content-Type": "application/json" }),
    body: JSON.stringify(body),
  });
}

async function received(kind: string, encf: string) {
  return (await (await fetch(`${sandbox}/__sandbox/received?kind=${kind}&encf=${encf}`)).json()) as {
    rnc: string;
    outcome: Record<string, unknown>;
  }[];
}

describe("POST /compras/{id}/aprobacion", () => {
  it("two opposite decisions at once: one 200, one 409, and one ACECF", async () => {
    const { buyer, encf, purchaseId } = await purchase({ toDgii: true, listed: true });
    const answers = await Promise.all([
      decide(buyer.token, purchaseId, { estado: "Aceptado" }),
      decide(buyer.token, purchaseId, { estado: "Rechazado", motivo: "Mercancía dañada" }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const won = answers[0]!.status === 200 ? "accepted" : "rejected";
    expect(await purchaseRow(buyer.company.id, purchaseId)).toMatchObject({ approval_status: won });
    expect((await received("acecf", encf)).length).toBe(1);
  });

  it("accepts: a signed ACECF reaches the supplier's approval service (from DGII's directory) and DGII", async () => {
    const { buyer, supplier, encf, purchaseId } = await purchase({ toDgii: true, listed: true });
    const res = await decide(buyer.token, purchaseId, { estado: "Aceptado" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      estado: string;
      supplier: { outcome: string; detail: string };
      dgii: { outcome: string; detail: string };
    };
    expect(body.estado).toBe("Aceptado");
    expect(body).not.toHaveProperty("status");
    expect(body.supplier.outcome, body.supplier.detail).toBe("sent");
    expect(body.dgii.outcome, body.dgii.detail).toBe("sent");

    expect((await received("receptor-acecf", encf)).map((r) => r.outcome.Estado)).toEqual(["1"]);
    expect((await received("acecf", encf)).length).toBe(1);

    const row = await purchaseRow(buyer.company.id, purchaseId);
    expect(row).toMatchObject({
      approval_status: "accepted",
      approval_supplier_outcome: "sent",
      approval_dgii_outcome: "sent",
    });
    const acecf = await (await env.ARCHIVE.get(row!.approval_key!))!.text();
    expect((await verifyXml(acecf)).ok).toBe(true);
    expect(parseAcecf(acecf)).toMatchObject({
      RNCEmisor: supplier.company.rnc,
      RNCComprador: buyer.company.rnc,
      eNCF: encf,
      FechaEmision: "01-04-2025",
      Estado: "1",
    });

    // The same decision again sends nothing twice; a different one is refused.
    const again = await decide(buyer.token, purchaseId, { estado: "Aceptado" });
    expect(again.status).toBe(200);
    expect((await received("receptor-acecf", encf)).length).toBe(1);
    const flip = await decide(buyer.token, purchaseId, { estado: "Rechazado", motivo: "Cambié de opinión" });
    expect(flip.status).toBe(409);

    // The purchases report shows the state.
    const report = (await (await call("/reports/compras", { headers: authed(buyer.token) })).json()) as {
      items: Record<string, string>[];
    };
    expect(report.items[0]).toMatchObject({
      encf,
      arecfEstado: "0",
      aprobacionComercial: "Aceptado",
      approvalSupplierOutcome: "sent",
      approvalDgiiOutcome: "sent",
    });
    for (const old of ["approvalStatus", "aprobacionEnviadaEmisor", "aprobacionEnviadaDgii"])
      expect(report.items[0]).not.toHaveProperty(old);
  });

  it("rejects with the reason in DetalleMotivoRechazo; a rejection needs a reason", async () => {
    const { buyer, encf, purchaseId } = await purchase({ toDgii: true, listed: true });
    const missing = await decide(buyer.token, purchaseId, { estado: "Rechazado" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain("/motivo");

    const res = await decide(buyer.token, purchaseId, { estado: "Rechazado", motivo: "Mercancía no recibida" });
    expect(res.status).toBe(200);
    expect((await received("receptor-acecf", encf)).map((r) => r.outcome.Estado)).toEqual(["2"]);
    const row = await purchaseRow(buyer.company.id, purchaseId);
    const acecf = parseAcecf(await (await env.ARCHIVE.get(row!.approval_key!))!.text());
    expect(acecf).toMatchObject({ Estado: "2", DetalleMotivoRechazo: "Mercancía no recibida" });
  });

  it("takes the decision in DGII's words only: API 1.7's lower-case spelling is gone in 1.9.0", async () => {
    const { buyer, purchaseId } = await purchase({ toDgii: false, listed: false });
    for (const estado of ["ACEPTADO", "rechazado"]) {
      const wrong = await decide(buyer.token, purchaseId, { estado, motivo: "Duplicada" });
      expect(wrong.status, estado).toBe(400);
      expect(((await wrong.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain("/estado");
    }
    const decided = await decide(buyer.token, purchaseId, { estado: "Rechazado", motivo: "Duplicada" });
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({ estado: "Rechazado" });
    expect(await purchaseRow(buyer.company.id, purchaseId)).toMatchObject({
      approval_status: "rejected",
      approval_reason: "Duplicada",
    });
  });

  it("records each delivery's failure: a supplier missing from the directory, DGII not knowing the e-CF", async () => {
    const { buyer, purchaseId } = await purchase({ toDgii: false, listed: false });
    // DGII does not know it: accepted only after the accountant counts it anyway.
    const refused = await decide(buyer.token, purchaseId, { estado: "Aceptado" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("purchase_not_confirmed");
    const override = await call(`/compras/${purchaseId}/confirmacion-manual`, {
      method: "POST",
      headers: authed(buyer.token, { "Content-Type": "application/json" }),
      body: JSON.stringify({ motivo: "Factura en papel verificada con el proveedor" }),
    });
    expect(override.status).toBe(200);
    const res = await decide(buyer.token, purchaseId, { estado: "Aceptado" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { supplier: { outcome: string }; dgii: { outcome: string; detail: string } };
    expect(body.supplier.outcome).toBe("skipped");
    expect(body.dgii.outcome).toBe("failed");
    const row = await purchaseRow(buyer.company.id, purchaseId);
    expect(row).toMatchObject({
      approval_status: "accepted",
      approval_supplier_outcome: "skipped",
      approval_dgii_outcome: "failed",
    });
    expect(row!.approval_dgii_detail!.length).toBeGreaterThan(0);
  });

  it("is scoped to the company that received the e-CF", async () => {
    const { purchaseId } = await purchase({ toDgii: false, listed: false });
    const other = await receivingCompany();
    expect((await decide(other.token, purchaseId, { estado: "Aceptado" })).status).toBe(404);
    expect((await call(`/compras/${purchaseId}/aprobacion`, { method: "POST", body: "{}" })).status).toBe(401);
  });
});
