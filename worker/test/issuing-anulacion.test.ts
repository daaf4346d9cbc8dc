import { env } from "cloudflare:workers";
import { ecfToXml, fechaHoraFirma, signEcfXml } from "@ecf/shared";
import { afterEach, describe, expect, it } from "vitest";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { database } from "../src/db/client.ts";
import { dgiiClientFor, signerFor } from "../src/dgii/for-company.ts";
import { admin, authed } from "./support/accounts.ts";
import { call, postJson } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, received, setFault } from "./support/issuing.ts";
import {
  auditRows,
  everyMonthSql,
  nextNumber as nextOf,
  receiptRow,
  runRetryAlarms,
  updateReceiptRow,
} from "./support/ledger.ts";
import { until } from "./support/until.ts";

afterEach(clearFaults);

type Json = Record<string, any>;
const nextNumber = async (companyId: string, tipo: string) => (await nextOf(companyId, tipo))!;
type Rango = { tipoeCF: string; desde: string; hasta: string };
const voidOnce = async (token: string, rangos: Rango[]) => {
  const res = await call("/fe/anulacion", {
    method: "POST",
    headers: authed(token, { "Content-Type": "application/json" }),
    body: JSON.stringify({ rangos }),
  });
  return { status: res.status, body: (await res.json()) as Json, retryAfter: res.headers.get("retry-after") };
};
/**
 * As a client does: a receipt being transmitted at that moment (encf_busy) is asked for again
 * shortly. The month object's retry alarm moves contingency receipts in the background and may
 * hold one for a few milliseconds.
 */
async function voidRanges(token: string, rangos: Rango[]) {
  let answer!: Awaited<ReturnType<typeof voidOnce>>;
  const answered = async () => {
    answer = await voidOnce(token, rangos);
    return !(answer.status === 409 && (answer.body.errors as Json[]).every((e) => e.code === "encf_busy"));
  };
  await until(answered, undefined, { withinMs: 30_000, pauseMs: 200 });
  return answer;
}
const anecfs = async (rnc: string) => (await received(rnc)).filter((r) => r.kind === "anecf").length;
const sent = async (rnc: string, encf: string) => (await received(rnc, encf)).filter((r) => r.kind === "ecf").length;

/**
 * Receipts signed while DGII's reception is down: rows in contingency, never sent. Reception
 * stays down (the status service says so), so the retry alarm, which tries them in the
 * background, cannot send them behind the test's back; voiding still works.
 */
async function inContingency(token: string, count: number): Promise<string[]> {
  await setFault({ mode: "down", services: ["recepcion"] });
  const encfs: string[] = [];
  for (let i = 0; i < count; i++) {
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(503);
    encfs.push(body.encf);
  }
  return encfs;
}

/** The issuer used `encf` outside this service (another system): DGII holds it as used, our records do not. */
async function usedElsewhere(companyId: string, rnc: string, sequence: number): Promise<string> {
  const owner = (await database(env.DB).query.companies.findFirst({ where: (c, { eq }) => eq(c.id, companyId) }))!;
  const signer = await signerFor(env, owner);
  const doc = makeEcf("31", { sequence, fechaHoraFirma: fechaHoraFirma(new Date()) }) as Json;
  doc.Encabezado.Emisor.RNCEmisor = rnc;
  doc.Encabezado.IdDoc.FechaVencimientoSecuencia = "31-12-2030";
  const encf = String(doc.Encabezado.IdDoc.eNCF);
  await dgiiClientFor(env, owner, signer).sendEcf(
    await signEcfXml(ecfToXml(doc), signer.key, signer.certificateDer),
    encf,
  );
  return encf;
}

/** Runs the issuer's retry alarms, each time past the back-off of the last, until `done`. */
async function alarmsUntil(companyId: string, done: () => Promise<boolean>) {
  await until(done, () => runRetryAlarms(companyId));
}

describe("POST /fe/anulacion: ranges and the sequence", () => {
  it("refuses a range starting above the unused tail (it would skip numbers unvoided); a gap below it can be voided", async () => {
    const { company, token } = await issuer();
    const gap = await voidRanges(token, [{ tipoeCF: "31", desde: "E310000000005", hasta: "E310000000010" }]);
    expect(gap.status).toBe(422);
    expect(gap.body.errors).toEqual([expect.objectContaining({ path: "/rangos/0", code: "range_gap" })]);
    expect(await anecfs(company.rnc)).toBe(0);
    expect(await nextNumber(company.id, "31")).toBe(1);

    // A client-chosen e-NCF leaves 1..49 unused below the tail: voidable, and the tail stays put.
    expect(
      (
        await issue(
          token,
          issueRequest("31", {}, (d) => (d.Encabezado.IdDoc.eNCF = "E310000000050")),
        )
      ).body.estado,
    ).toBe("Aceptado");
    const below = await voidRanges(token, [{ tipoeCF: "31", desde: "E310000000001", hasta: "E310000000049" }]);
    expect(below.status, JSON.stringify(below.body)).toBe(200);
    // 49 numbers voided, none of them a receipt: the counts say which is which (1.8.0 answered "anulados": 0).
    expect(below.body).toMatchObject({
      codigo: "1",
      numbersVoided: 49,
      receiptsVoided: 0,
      rangos: [{ desde: "E310000000001", anulado: true }],
    });
    expect(await nextNumber(company.id, "31")).toBe(51);

    const outside = await voidRanges(token, [{ tipoeCF: "31", desde: "E310000000051", hasta: "E310000200000" }]);
    expect(outside.status).toBe(422);
    expect(outside.body.errors[0].code).toBe("encf_out_of_range");
  });

  it("numbers leased to a point-of-sale device cannot be voided; the tail after the lease can", async () => {
    const { company, token } = await issuer();
    const device = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
      name: "Caja 1",
    });
    const pairing = await postJson("/devices/pair", { pairingCode: device.pairingCode });
    const lease = (
      (await pairing.json()) as { leases: { tipoeCF: string; rangeFrom: number; rangeTo: number }[] }
    ).leases.find((l) => l.tipoeCF === "32")!;
    expect(lease).toMatchObject({ rangeFrom: 1, rangeTo: 200 });

    const refused = await voidRanges(token, [{ tipoeCF: "32", desde: "E320000000150", hasta: "E320000000210" }]);
    expect(refused.status).toBe(409);
    expect(refused.body.errors.map((e: { code: string }) => e.code)).toEqual(["encf_leased"]);
    expect(await anecfs(company.rnc)).toBe(0);
    expect(await nextNumber(company.id, "32")).toBe(201);

    const after = await voidRanges(token, [{ tipoeCF: "32", desde: "E320000000201", hasta: "E320000000210" }]);
    expect(after.status).toBe(200);
    expect(await nextNumber(company.id, "32")).toBe(211);
  });
});

describe("POST /fe/anulacion: signed but unsent receipts", () => {
  it("a receipt in contingency is held while DGII is asked, so the retry alarm cannot send it, and becomes Anulado", async () => {
    const { company, token } = await issuer();
    const encfs = await inContingency(token, 2);
    const rows = await Promise.all(encfs.map((e) => receiptRow(company.id, e)));
    // A slow ANECF leaves time for the retry alarm to run while the voiding is in flight.
    await setFault({ mode: "slow", delayMs: 1500, services: ["anulacionrangos"] });
    const voiding = voidRanges(token, [{ tipoeCF: "31", desde: encfs[0]!, hasta: encfs[1]! }]);
    const claimed = async () =>
      Number(
        (
          await everyMonthSql(
            company.id,
            "SELECT COUNT(*) AS n FROM receipts WHERE id IN (?1, ?2) AND claimed_until IS NOT NULL",
            rows[0]!.id,
            rows[1]!.id,
          )
        ).reduce((n, r) => n + Number(r.n), 0),
      );
    await until(async () => (await claimed()) >= 2, undefined, { pauseMs: 50 });
    expect(await claimed()).toBe(2);
    // Reception back while the ANECF is in flight (its delay already runs): only the claim stops a send.
    await clearFaults();
    await runRetryAlarms(company.id);
    const { status, body } = await voiding;
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ codigo: "1", numbersVoided: 2, receiptsVoided: 2 });
    for (const encf of encfs) {
      expect(await receiptRow(company.id, encf)).toMatchObject({
        status: "voided",
        claimedUntil: null,
        sendAttempts: 0,
      });
      const state = (await (await call(`/fe/recepcion/ecf/${encf}`, { headers: authed(token) })).json()) as Json;
      expect(state).toMatchObject({ estado: "Anulado", codigo: "-2" });
    }
    await clearFaults();
    await runRetryAlarms(company.id);
    for (const encf of encfs) expect(await sent(company.rnc, encf)).toBe(0);
  });

  it("a receipt being transmitted at that moment is a 409 and nothing is sent to DGII", async () => {
    const { company, token } = await issuer();
    const [encf] = await inContingency(token, 1);
    const row = (await receiptRow(company.id, encf!))!;
    // What the retry alarm leaves while it sends this receipt.
    await updateReceiptRow(company.id, row.encf, "claimed_until = ?1", new Date(Date.now() + 30_000).toISOString());
    const busy = await voidOnce(token, [{ tipoeCF: "31", desde: encf!, hasta: encf! }]);
    expect(busy.status).toBe(409);
    expect(busy.body.errors.map((e: { code: string }) => e.code)).toEqual(["encf_busy"]);
    expect(await anecfs(company.rnc)).toBe(0);
    expect((await receiptRow(company.id, encf!))?.status).toBe("contingency");
    expect(await nextNumber(company.id, "31")).toBe(2);
  });

  it("DGII unreachable: 503, the receipt is released and the unused numbers are given back", async () => {
    const { company, token } = await issuer();
    const [encf] = await inContingency(token, 1);
    await setFault({ mode: "down", services: ["recepcion", "anulacionrangos"] });
    const down = await voidRanges(token, [{ tipoeCF: "31", desde: encf!, hasta: "E310000000010" }]);
    expect(down.status).toBe(503);
    expect(Number(down.retryAfter)).toBe(60);
    expect(await receiptRow(company.id, encf!)).toMatchObject({ status: "contingency", claimedUntil: null });
    expect(await nextNumber(company.id, "31")).toBe(2);
  });
});

describe("POST /fe/anulacion: DGII refuses", () => {
  it("partly (codigo 2): only the ranges DGII voided are voided here; the refused one's receipt is still sent later", async () => {
    const { company, token } = await issuer();
    const foreign = await usedElsewhere(company.id, company.rnc, 4);
    const [first, second] = await inContingency(token, 2);
    const { status, body } = await voidRanges(token, [
      { tipoeCF: "31", desde: first!, hasta: first! },
      { tipoeCF: "31", desde: second!, hasta: foreign },
    ]);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      codigo: "2",
      numbersVoided: 1,
      receiptsVoided: 1,
      rangos: [{ anulado: true }, { anulado: false }],
    });
    expect(await receiptRow(company.id, first!)).toMatchObject({ status: "voided" });
    expect(await receiptRow(company.id, second!)).toMatchObject({ status: "contingency", claimedUntil: null });
    const audit = await auditRows(company.id, "action = 'POST /fe/anulacion'");
    expect(audit).toEqual([
      expect.objectContaining({ code: "anecf_partial", detail: expect.stringContaining(foreign) }),
    ]);

    await clearFaults();
    await alarmsUntil(company.id, async () => (await receiptRow(company.id, second!))?.status === "accepted");
    expect((await receiptRow(company.id, second!))?.status).toBe("accepted");
    expect(await sent(company.rnc, second!)).toBe(1);
    expect(await sent(company.rnc, first!)).toBe(0);
  });

  it("entirely (codigo 3): a 409 with DGII's text, nothing voided here, the refusal audited", async () => {
    const { company, token } = await issuer();
    const foreign = await usedElsewhere(company.id, company.rnc, 3);
    const [encf] = await inContingency(token, 1);
    const { status, body } = await voidRanges(token, [{ tipoeCF: "31", desde: encf!, hasta: foreign }]);
    expect(status).toBe(409);
    expect(body.errors[0]).toMatchObject({ path: "/rangos/0", code: "encf_used" });
    expect(body.detail).toContain(foreign);
    expect(await receiptRow(company.id, encf!)).toMatchObject({ status: "contingency", claimedUntil: null });
    const audit = await auditRows(company.id, "action = 'POST /fe/anulacion'");
    expect(audit).toEqual([
      expect.objectContaining({ code: "conflict", detail: expect.stringContaining("DGII refused the ANECF") }),
    ]);
  });
});
