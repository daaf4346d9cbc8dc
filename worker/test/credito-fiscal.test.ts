// A buyer who paid as a consumer asks, on the receipt's public page, for a crédito fiscal invoice:
// the E31 references the E32 with CodigoModificacion 5 (formato-ecf note 81), copies its lines and
// totals, is accepted by the DGII sandbox and listed in the 607; there is one per E32, ever (two
// concurrent requests: one E31), and what is not a consumer receipt or not an active taxpayer is refused.
import { xmlToEcf } from "@ecf/shared";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer } from "./support/issuing.ts";

type Json = Record<string, any>;
const BUYER = { rnc: "131880738", name: "DIRECCION GENERAL DE IMPUESTOS INTERNOS" };
const INACTIVE = "101000058";
let token: string;
let rnc: string;

beforeAll(async () => {
  ({
    token,
    company: { rnc },
  } = await issuer().then(({ token, company }) => ({ token, company })));
  const started = await admin<{ importId: number }>("POST", "/admin/taxpayers/imports", { source: "prueba.zip" });
  const taxpayer = (rnc: string, legalName: string, status: string) => ({
    rnc,
    legalName,
    tradeName: null,
    activity: "GOBIERNO",
    status,
    paymentRegime: "NORMAL",
    registeredOn: "2000-01-01",
  });
  await admin("POST", `/admin/taxpayers/imports/${started.importId}/rows`, {
    rows: [taxpayer(BUYER.rnc, BUYER.name, "ACTIVO"), taxpayer(INACTIVE, "CERRADA SRL", "DADO DE BAJA")],
  });
  await admin("POST", `/admin/taxpayers/imports/${started.importId}/commit`);
});

/** An E32 to a consumer, accepted by DGII (its summary), and the security code printed on it. */
async function consumerReceipt(): Promise<{ encf: string; code: string }> {
  const { status, body } = await issue(
    token,
    issueRequest("32", {}, (doc) => {
      doc.Encabezado.Comprador = { RazonSocialComprador: "CONSUMIDOR FINAL" };
    }),
  );
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.estado).toBe("Aceptado");
  return { encf: body.encf, code: new URL(body.urlTimbre).searchParams.get("CodigoSeguridad")! };
}

const ask = (encf: string, code: string, rncComprador: string) =>
  call(`/r/${rnc}/${encf}/credito-fiscal?c=${encodeURIComponent(code)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ rncComprador }),
  });

const xmlOf = async (encf: string) => (await call(`/fe/recepcion/ecf/${encf}/xml`, { headers: authed(token) })).text();

describe("crédito fiscal from a consumer receipt", () => {
  it("two concurrent requests give one E31 with CodigoModificacion 5, accepted and in the 607; a later one is refused", async () => {
    const e32 = await consumerReceipt();
    const answers = await Promise.all([ask(e32.encf, e32.code, BUYER.rnc), ask(e32.encf, e32.code, BUYER.rnc)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 409]);
    const issued = (await answers.find((a) => a.status === 201)!.json()) as Json;
    const refused = (await answers.find((a) => a.status === 409)!.json()) as Json;
    expect(refused.code).toMatch(/^(conflict|in_progress)$/);
    expect(issued).toMatchObject({ estado: "Aceptado", encf: expect.stringMatching(/^E31\d{10}$/) });
    expect(issued.pagina).toContain(`/r/${rnc}/${issued.encf}?c=`);

    const original = xmlToEcf(await xmlOf(e32.encf)) as Json;
    const e31 = xmlToEcf(await xmlOf(issued.encf)) as Json;
    expect(e31.InformacionReferencia).toEqual({
      NCFModificado: e32.encf,
      FechaNCFModificado: original.Encabezado.Emisor.FechaEmision,
      CodigoModificacion: "5",
    });
    expect(e31.Encabezado.Comprador).toMatchObject({ RNCComprador: BUYER.rnc, RazonSocialComprador: BUYER.name });
    expect(e31.DetallesItems).toEqual(original.DetallesItems);
    expect(e31.Encabezado.Totales).toEqual(original.Encabezado.Totales);

    const period = `${original.Encabezado.Emisor.FechaEmision.slice(6)}${original.Encabezado.Emisor.FechaEmision.slice(3, 5)}`;
    const report = (await (await call(`/reports/607?period=${period}`, { headers: authed(token) })).json()) as Json;
    expect(report.lines.map((line: Json) => line.encf)).toContain(issued.encf);

    const again = await ask(e32.encf, e32.code, BUYER.rnc);
    expect(again.status).toBe(409);
    expect(((await again.json()) as Json).errors[0].code).toBe("already_issued");
  });

  it("is refused for an inactive taxpayer, a malformed RNC, a wrong code, and what is not a consumer receipt", async () => {
    const e32 = await consumerReceipt();
    const inactive = await ask(e32.encf, e32.code, INACTIVE);
    expect(inactive.status).toBe(422);
    expect(((await inactive.json()) as Json).errors[0]).toMatchObject({
      path: "/rncComprador",
      code: "inactive_taxpayer",
    });
    const malformed = await ask(e32.encf, e32.code, "12345");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Json).errors[0]).toMatchObject({ path: "/rncComprador", code: "invalid_rnc" });
    const wrong = e32.code.startsWith("A") ? `B${e32.code.slice(1)}` : `A${e32.code.slice(1)}`;
    expect((await ask(e32.encf, wrong, BUYER.rnc)).status).toBe(404);

    const { body } = await issue(token, issueRequest("31"));
    const e31Code = new URL(body.urlTimbre).searchParams.get("CodigoSeguridad")!;
    const notConsumer = await ask(body.encf, e31Code, BUYER.rnc);
    expect(notConsumer.status).toBe(422);
    expect(((await notConsumer.json()) as Json).errors[0].code).toBe("not_consumer_receipt");
    // Nothing was issued by the refused requests: the E32 can still be exchanged once.
    expect((await ask(e32.encf, e32.code, BUYER.rnc)).status).toBe(201);
  });
});
