// A send DGII answered and refused to take (503 …) is not a send whose fate is unknown: DGII did
// not record it, so the receipt is sent again on its normal back-off, without the settle window
// and without asking DGII first. A send that got no answer (timeout) still waits and asks
// (contingency-recovery.test.ts); here only the refused kind and a voiding that got no answer.
import { afterEach, describe, expect, it } from "vitest";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, received, sandboxUrl, setFault } from "./support/issuing.ts";
import { nextNumber, receiptRow, runRetryAlarms } from "./support/ledger.ts";
import { until } from "./support/until.ts";

afterEach(clearFaults);

type Json = Record<string, any>;
const requestsTo = async (service: string) =>
  (await (await fetch(`${sandboxUrl()}/__sandbox/requests?service=${service}`)).json()) as { status: number }[];
const copiesAtDgii = async (rnc: string, encf: string, kind: "ecf" | "rfce") =>
  (await received(rnc, encf)).filter((r) => r.kind === kind).length;
/** Seconds from now until the alarm takes the receipt again. */
const dueIn = async (companyId: string, encf: string) =>
  (Date.parse((await receiptRow(companyId, encf))!.nextAttemptAt!) - Date.now()) / 1000;

/** The receipt's next attempt is its first back-off step, not the minute a send of unknown fate waits. */
async function expectSentOnItsBackOff(
  companyId: string,
  encf: string,
  lookup: "consultatrackids" | "consultaestado",
): Promise<void> {
  expect(await receiptRow(companyId, encf)).toMatchObject({ status: "contingency", sendAttempts: 0 });
  expect(await dueIn(companyId, encf)).toBeLessThanOrEqual(10);
  await clearFaults();
  const asked = (await requestsTo(lookup)).length;
  await until(
    async () => (await receiptRow(companyId, encf))?.status === "accepted",
    () => runRetryAlarms(companyId),
  );
  expect(await receiptRow(companyId, encf)).toMatchObject({ status: "accepted", sendAttempts: 1 });
  // Sent again straight away: DGII was not asked whether it had the refused copy.
  expect((await requestsTo(lookup)).length).toBe(asked);
}

describe("DGII answers 503 to a send", () => {
  it("an e-CF is sent again on its back-off, with no consultatrackids first, and reaches DGII once", async () => {
    const { company, token } = await issuer();
    // The status service says up; reception answers 503 to every send until it is cleared.
    await setFault({ mode: "flaky", every: 1, services: ["recepcion"] });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status, JSON.stringify(body)).toBe(503);
    expect((await requestsTo("recepcion")).at(-1)?.status).toBe(503);
    await expectSentOnItsBackOff(company.id, body.encf, "consultatrackids");
    expect(await copiesAtDgii(company.rnc, body.encf, "ecf")).toBe(1);
  });

  it("an RFCE is sent again on its back-off, with no consultaestado first, and reaches DGII once", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "flaky", every: 1, services: ["recepcionfc"] });
    const { status, body } = await issue(token, issueRequest("32"));
    expect(status, JSON.stringify(body)).toBe(503);
    expect(await receiptRow(company.id, body.encf)).toMatchObject({ dgiiPath: "rfce" });
    await expectSentOnItsBackOff(company.id, body.encf, "consultaestado");
    expect(await copiesAtDgii(company.rnc, body.encf, "rfce")).toBe(1);
  });

  it("a send that never left (its token could not be had) is not counted either", async () => {
    const { company, token } = await issuer();
    // A new issuer has no token yet: authentication answers after the client's timeout (6 s).
    await setFault({ mode: "slow", delayMs: 6500, services: ["autenticacion"] });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status, JSON.stringify(body)).toBe(503);
    expect(body.mensajes[0].valor).toMatch(/timed out/);
    await expectSentOnItsBackOff(company.id, body.encf, "consultatrackids");
    expect(await copiesAtDgii(company.rnc, body.encf, "ecf")).toBe(1);
  });
});

describe("an ANECF that got no answer", () => {
  const voidRange = async (token: string, rangos: Json[]) => {
    const res = await call("/fe/anulacion", {
      method: "POST",
      headers: authed(token, { "Content-Type": "application/json" }),
      body: JSON.stringify({ rangos }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it("keeps its numbers out of the sequence (DGII may have voided them); the same request again settles it", async () => {
    const { company, rnc, token } = await issuer().then((i) => ({ ...i, rnc: i.company.rnc }));
    const rangos = [{ tipoeCF: "31", desde: "E310000000001", hasta: "E310000000010" }];
    await setFault({ mode: "slow", delayMs: 7000, services: ["anulacionrangos"] });
    const lost = await voidRange(token, rangos);
    expect(lost.status, JSON.stringify(lost.body)).toBe(503);
    expect(lost.body.detail).toMatch(/may have voided/);
    // Not handed out again: a receipt under one of them would be refused by DGII if it did void them.
    expect(await nextNumber(company.id, "31")).toBe(11);
    await clearFaults();
    await until(async () => (await received(rnc)).some((r) => r.kind === "anecf"));

    const again = await voidRange(token, rangos);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ codigo: "1", rangos: [{ anulado: true }] });
    expect(await nextNumber(company.id, "31")).toBe(11);
  });

  it("answered 503, gives its numbers back: DGII did not take it", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "flaky", every: 1, services: ["anulacionrangos"] });
    const refused = await voidRange(token, [{ tipoeCF: "31", desde: "E310000000001", hasta: "E310000000010" }]);
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body.detail).toMatch(/not sent/);
    expect(await nextNumber(company.id, "31")).toBe(1);
  });
});
