// The issuer's crédito fiscal settings: with `creditoFiscalApproval` "approval" a buyer's request
// waits (202, the E32's page says so) until an owner or accountant approves it (the E31 issued as
// the at-once path issues it; of two approvals at once one issues) or rejects it with a reason
// (the buyer may ask again); each decision and each settings change is in the audit log. With
// `creditoFiscalE32` "credit_note" the E32 is voided by an E34 (CodigoModificacion 1).
import { xmlToEcf } from "@ecf/shared";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer, sandboxUrl } from "./support/issuing.ts";
import { auditRows, runTaskAlarms } from "./support/ledger.ts";
import { until } from "./support/until.ts";

type Json = Record<string, any>;
const BUYER = { rnc: "131880738", name: "DIRECCION GENERAL DE IMPUESTOS INTERNOS" };
let token: string;
let rnc: string;
let companyId: string;

beforeAll(async () => {
  const created = await issuer();
  ({ token } = created);
  ({ rnc, id: companyId } = created.company);
  const started = await admin<{ importId: number }>("POST", "/admin/taxpayers/imports", { source: "prueba.zip" });
  await admin("POST", `/admin/taxpayers/imports/${started.importId}/rows`, {
    rows: [
      {
        rnc: BUYER.rnc,
        legalName: BUYER.name,
        tradeName: null,
        activity: "GOBIERNO",
        status: "ACTIVO",
        paymentRegime: "NORMAL",
        registeredOn: "2000-01-01",
      },
    ],
  });
  await admin("POST", `/admin/taxpayers/imports/${started.importId}/commit`);
});

const settings = (patch: Json) =>
  call("/company/me", {
    method: "PATCH",
    headers: authed(token, { "Content-Type": "application/json" }),
    body: JSON.stringify(patch),
  });

async function consumerReceipt(): Promise<{ encf: string; code: string }> {
  const { status, body } = await issue(token, issueRequest("32"));
  expect(status, JSON.stringify(body)).toBe(200);
  return { encf: body.encf, code: new URL(body.urlTimbre).searchParams.get("CodigoSeguridad")! };
}

const ask = (e32: { encf: string; code: string }, body: Json = { rncComprador: BUYER.rnc }) =>
  call(`/r/${rnc}/${e32.encf}/credito-fiscal?c=${encodeURIComponent(e32.code)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

const decide = (id: string, what: "approve" | "reject", body?: Json) =>
  call(`/credito-fiscal/requests/${id}/${what}`, {
    method: "POST",
    headers: authed(token, { "Content-Type": "application/json" }),
    body: body ? JSON.stringify(body) : undefined,
  });

const pending = async () =>
  ((await (await call("/credito-fiscal/requests?status=pending", { headers: authed(token) })).json()) as Json).items;
const xmlOf = async (encf: string) => (await call(`/fe/recepcion/ecf/${encf}/xml`, { headers: authed(token) })).text();
const pageOf = async (e32: { encf: string; code: string }) =>
  (await call(`/r/${rnc}/${e32.encf}?c=${encodeURIComponent(e32.code)}`)).text();

describe("crédito fiscal requests waiting for the issuer", () => {
  it("the settings are the issuer's, answered in its profile, and each change is audited", async () => {
    const before = (await (await call("/company/me", { headers: authed(token) })).json()) as Json;
    expect(before).toMatchObject({ creditoFiscalApproval: "at_once", creditoFiscalE32: "none" });
    const changed = await settings({ creditoFiscalApproval: "approval" });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ creditoFiscalApproval: "approval", totalsPolicy: "strict" });
    const unknown = await settings({ creditoFiscalApproval: "sometimes" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as Json).errors[0].path).toBe("/creditoFiscalApproval");
    const audited = await auditRows(companyId, "code = ?", "settings_changed");
    expect(audited.map((row) => row.detail)).toContain("creditoFiscalApproval=approval");
  });

  it("a waiting request is rejected with its reason, audited, and the buyer may ask again", async () => {
    await settings({ creditoFiscalApproval: "approval" });
    const e32 = await consumerReceipt();
    const asked = await ask(e32);
    expect(asked.status).toBe(202);
    const { id, estado } = (await asked.json()) as Json;
    expect(estado).toBe("Pendiente");
    expect(await pageOf(e32)).toContain('data-solicitud="pendiente"');
    expect((await ask(e32)).status).toBe(409);
    expect((await pending()).map((r: Json) => r.id)).toContain(id);

    expect((await decide(id, "reject", { reason: " " })).status).toBe(400);
    const rejected = await decide(id, "reject", { reason: "Ya tiene factura de crédito fiscal en papel." });
    expect(rejected.status).toBe(200);
    expect(await rejected.json()).toMatchObject({
      status: "declined",
      reason: "Ya tiene factura de crédito fiscal en papel.",
    });
    expect((await decide(id, "approve")).status).toBe(409);
    const audited = await auditRows(companyId, "code = ?", "credito_fiscal_rejected");
    expect(audited.map((row) => row.detail).join("\n")).toContain(`${e32.encf} (RNC ${BUYER.rnc}): Ya tiene`);
    expect(await pageOf(e32)).toContain('name="rncComprador"');
    expect((await ask(e32)).status).toBe(202);
    expect((await decide("no-such-request", "approve")).status).toBe(404);
  });

  it("two approvals at once issue one E31 (CodigoModificacion 5) and, as chosen, an E34 voiding the E32", async () => {
    await settings({ creditoFiscalApproval: "approval", creditoFiscalE32: "credit_note" });
    const e32 = await consumerReceipt();
    const address = `compras-${rnc}@cliente.com.do`;
    const asked = await ask(e32, { rncComprador: BUYER.rnc, email: address });
    const { id } = (await asked.json()) as Json;
    const answers = await Promise.all([decide(id, "approve"), decide(id, "approve")]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const approved = (await answers.find((a) => a.status === 200)!.json()) as Json;
    expect(approved.request).toMatchObject({ status: "issued", e31: approved.e31.encf });
    expect(approved.e31.estado).toBe("Aceptado");

    const e31 = xmlToEcf(await xmlOf(approved.e31.encf)) as Json;
    expect(e31.InformacionReferencia).toMatchObject({ NCFModificado: e32.encf, CodigoModificacion: "5" });
    expect(e31.Encabezado.Comprador).toMatchObject({ RNCComprador: BUYER.rnc, CorreoComprador: address });
    // Not an electronic receiver: the printed copy goes to the address the buyer left.
    const mailTo = async () =>
      ((await (await fetch(`${sandboxUrl()}/__mail`)).json()) as { to: string[]; subject: string }[]).filter((m) =>
        m.to.includes(address),
      );
    await until(
      async () => (await mailTo()).length > 0,
      () => runTaskAlarms(companyId),
    );
    expect((await mailTo())[0]!.subject).toContain(approved.e31.encf);
    const audited = await auditRows(companyId, "code = ?", "credito_fiscal_approved");
    expect(audited.map((row) => row.detail)).toContain(`${e32.encf} → ${approved.e31.encf} (RNC ${BUYER.rnc})`);
    expect(await pageOf(e32)).toContain('data-solicitud="aprobada"');

    // The issuer's first E34 (its range starts at 1; this file issues no other).
    const note = xmlToEcf(await xmlOf("E340000000001")) as Json;
    expect(note.InformacionReferencia).toMatchObject({ NCFModificado: e32.encf, CodigoModificacion: "1" });
    const noted = (await (await call("/fe/recepcion/ecf/E340000000001", { headers: authed(token) })).json()) as Json;
    expect(noted.estado).toBe("Aceptado");
    expect(note.DetallesItems).toEqual((xmlToEcf(await xmlOf(e32.encf)) as Json).DetallesItems);
  });
});
