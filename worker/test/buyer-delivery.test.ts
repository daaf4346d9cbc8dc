// Delivery to the buyer (DGII's emisor-receptor standard): after DGII's verdict, an e-CF whose
// buyer is an electronic receiver in DGII's directory is posted to the buyer's reception service;
// its signed ARECF is checked and archived, failures are retried until a deadline, never twice.
import { verifyXml, parseArecf } from "@ecf/shared";
import { env } from "cloudflare:workers";
import { COMPRADOR_RNC } from "@ecf/shared/test-support/ecf-factories";
import { afterEach, describe, expect, inject, it } from "vitest";
import type { SinkAnswer, SinkStream } from "./support/webhook-sink.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, received, sandboxUrl, setFault } from "./support/issuing.ts";
import { everyMonthSql, receiptRow, runRetryAlarms, runTaskAlarms } from "./support/ledger.ts";
import { until } from "./support/until.ts";

const setDirectory = async (entries: { rnc: string; host: string }[]) => {
  const body = entries.map((e) => ({
    nombre: "Comprador SRL",
    rnc: e.rnc,
    urlRecepcion: e.host,
    urlAceptacion: e.host,
    urlOpcional: null,
  }));
  const res = await fetch(`${sandboxUrl()}/__sandbox/directory`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
};
const buyerHost = () => `${sandboxUrl()}/testecf/emisorreceptor`;

const setBuyer = (behaviour: Record<string, unknown> | null) =>
  fetch(
    `${sandboxUrl()}/__sandbox/buyer`,
    behaviour
      ? { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(behaviour) }
      : { method: "DELETE" },
  );

afterEach(async () => {
  await clearFaults();
  await setDirectory([]);
  await setBuyer(null);
});

interface BuyerDelivery {
  state: string;
  at: string | null;
  arecfEstado: string | null;
  codigoMotivoNoRecibido: string | null;
  attempts: number;
  detail: string | null;
}
/** buyerDelivery.state's one closed set (DGII's words for the ARECF's states). */
const STATES = ["Pendiente", "Recibido", "No Recibido", "No Receptor", "Fallido"];
/** Runs the alarms until the delivery is no longer pending (an alarm already in flight holds it meanwhile). */
async function settle(companyId: string, token: string, encf: string): Promise<void> {
  await until(
    async () => (await deliveryOf(token, encf))?.state !== "Pendiente",
    () => runTaskAlarms(companyId),
  );
}
/** The receipt's `buyerDelivery`, its only name (1.8.0's `entregaComprador` is gone), with a state of the closed set. */
const deliveryOf = async (token: string, encf: string) => {
  const answer = (await (await call(`/fe/recepcion/ecf/${encf}`, { headers: authed(token) })).json()) as {
    buyerDelivery?: BuyerDelivery;
  };
  expect(answer).not.toHaveProperty("entregaComprador");
  const delivery = answer.buyerDelivery;
  if (delivery) expect(STATES).toContain(delivery.state);
  return delivery;
};

/** A hostile "buyer" in DGII's directory: the tests' webhook sink, answering a redirect or a huge body. */
const hostileBuyer = async (name: string, answer: SinkAnswer) => {
  const url = `${inject("webhookSinkUrl")}/sinks/${name}`;
  await fetch(url, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", answer }),
  });
  return url;
};

describe("delivery to the buyer, under the outbound policy", () => {
  it("a buyer's service that redirects is not followed: the delivery stays pending, the redirect's target hears nothing", async () => {
    const { company, token } = await issuer();
    const host = await hostileBuyer("buyer-redirect", { redirectTo: `${buyerHost()}/fe/recepcion/api/ecf` });
    await setDirectory([{ rnc: COMPRADOR_RNC, host }]);
    const { body } = await issue(token, issueRequest("31"));
    await runTaskAlarms(company.id);
    await runTaskAlarms(company.id);
    const delivery = (await deliveryOf(token, body.encf))!;
    expect(delivery.state).toBe("Pendiente");
    expect(delivery.detail).toMatch(/HTTP 307.*redirects are not followed/);
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "receptor-ecf")).toHaveLength(0);
  });

  it("a buyer's 24 MiB answer is not read whole: refused after the cap, the stream hung up", async () => {
    const { company, token } = await issuer();
    const hugeBytes = 24 * 1024 * 1024;
    const host = await hostileBuyer("buyer-huge", { hugeBytes });
    await setDirectory([{ rnc: COMPRADOR_RNC, host }]);
    const { body } = await issue(token, issueRequest("31"));
    await runTaskAlarms(company.id);
    const delivery = (await deliveryOf(token, body.encf))!;
    expect(delivery.state).toBe("Pendiente");
    expect(delivery.detail).toMatch(/larger than \d+ bytes/);
    let stream: SinkStream | null = null;
    for (let round = 0; round < 100 && !stream?.hungUp && !stream?.completed; round++) {
      stream = (await (await fetch(`${host}/stream`)).json()) as SinkStream | null;
      if (!stream?.hungUp) await new Promise((r) => setTimeout(r, 50));
    }
    expect(stream).toMatchObject({ hungUp: true, completed: false });
    expect(stream!.sent).toBeLessThan(hugeBytes);
  });

  it("a directory URL outside the policy is never called", async () => {
    const { company, token } = await issuer();
    await setDirectory([{ rnc: COMPRADOR_RNC, host: "https://169.254.169.254/latest/meta-data" }]);
    const { body } = await issue(token, issueRequest("31"));
    await runTaskAlarms(company.id);
    expect((await deliveryOf(token, body.encf))?.detail).toMatch(/URL refused .*link-local/);
  });
});

describe("delivery to the buyer", () => {
  it("an accepted E31 to an electronic receiver: delivered once, its signed ARECF archived beside the receipt", async () => {
    const { company, token } = await issuer();
    await setDirectory([{ rnc: COMPRADOR_RNC, host: buyerHost() }]);
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(200);
    await settle(company.id, token, body.encf);

    const delivery = (await deliveryOf(token, body.encf))!;
    expect(delivery).toMatchObject({ state: "Recibido", arecfEstado: "0", codigoMotivoNoRecibido: null });
    expect(delivery.attempts).toBeGreaterThanOrEqual(1);
    expect(Date.parse(delivery.at!)).not.toBeNaN();
    const row = (await receiptRow(company.id, body.encf))!;
    const arecf = await (await env.ARCHIVE.get(row.xmlKey.replace(/\.xml$/, ".arecf.xml")))!.text();
    expect((await verifyXml(arecf)).ok).toBe(true);
    expect(parseArecf(arecf)).toMatchObject({
      RNCEmisor: company.rnc,
      RNCComprador: COMPRADOR_RNC,
      eNCF: body.encf,
      Estado: "0",
    });
    // Once, whatever more alarms run.
    await runTaskAlarms(company.id);
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "receptor-ecf")).toHaveLength(1);
  });

  it("a buyer that is not an electronic receiver is marked no_receptor; a consumer invoice (E32) is not delivered at all", async () => {
    const { company, token } = await issuer();
    const invoice = await issue(token, issueRequest("31"));
    const consumer = await issue(token, issueRequest("32"));
    await settle(company.id, token, invoice.body.encf);
    expect(await deliveryOf(token, invoice.body.encf)).toMatchObject({ state: "No Receptor" });
    expect(await deliveryOf(token, consumer.body.encf)).toBeUndefined();
    expect((await received(company.rnc)).filter((r) => r.kind === "receptor-ecf")).toHaveLength(0);
  });

  it("never before DGII's verdict: a receipt in contingency is delivered only once DGII accepted it", async () => {
    const { company, token } = await issuer();
    await setDirectory([{ rnc: COMPRADOR_RNC, host: buyerHost() }]);
    await setFault({ mode: "down", services: ["recepcion", "recepcionfc", "consultatrackids", "consultaresultado"] });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(503);
    await runTaskAlarms(company.id);
    expect(await deliveryOf(token, body.encf)).toBeUndefined();
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "receptor-ecf")).toHaveLength(0);

    await clearFaults();
    await until(
      async () => (await receiptRow(company.id, body.encf))?.status === "accepted",
      () => runRetryAlarms(company.id),
    );
    await settle(company.id, token, body.encf);
    expect(await deliveryOf(token, body.encf)).toMatchObject({ state: "Recibido" });
  });

  it("an unreachable buyer is retried with back-off (pending, attempts counted), then delivered once it is back", async () => {
    const { company, token } = await issuer();
    await setDirectory([{ rnc: COMPRADOR_RNC, host: buyerHost() }]);
    const { body } = await issue(token, issueRequest("31"));
    await setFault({ mode: "down", services: ["emisorreceptor"] });
    // On a busy machine DGII's verdict can come after the answer: the delivery starts with it.
    await until(
      async () => (await receiptRow(company.id, body.encf))?.status === "accepted",
      () => runRetryAlarms(company.id),
    );
    // Two failed attempts, awaited (an alarm run already in flight holds the task meanwhile).
    await until(
      async () => ((await deliveryOf(token, body.encf))?.attempts ?? 0) >= 2,
      () => runTaskAlarms(company.id),
    );
    const waiting = (await deliveryOf(token, body.encf))!;
    expect(waiting.state).toBe("Pendiente");
    expect(waiting.attempts).toBeGreaterThanOrEqual(2);
    expect(waiting.detail).toMatch(/HTTP 5\d\d/);
    const [task] = await everyMonthSql(company.id, "SELECT next_attempt_at FROM tasks WHERE kind = 'buyer_delivery'");
    expect(Date.parse(String(task!.next_attempt_at))).toBeGreaterThan(Date.now() + 1_000);

    await clearFaults();
    await settle(company.id, token, body.encf);
    const delivered = (await deliveryOf(token, body.encf))!;
    expect(delivered).toMatchObject({ state: "Recibido", arecfEstado: "0" });
    expect(delivered.attempts).toBeGreaterThan(waiting.attempts);
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "receptor-ecf")).toHaveLength(1);
  });

  it("after 72 hours of failures the delivery is marked failed, and an integrator hears receipt.delivery_failed with it", async () => {
    const { company, token } = await issuer();
    // The buyer's reception service cannot be reached (nothing listens there) from the start: the
    // month object's alarm may try the delivery the moment DGII accepts.
    await setDirectory([{ rnc: COMPRADOR_RNC, host: "http://127.0.0.1:9/testecf/emisorreceptor" }]);
    // An endpoint that hears both events, so the request queues the acceptance whether it or the alarm hears DGII's verdict.
    const webhook = await call("/webhooks", {
      method: "POST",
      headers: authed(token, { "Content-Type": "application/json" }),
      body: JSON.stringify({
        url: "http://127.0.0.1:9/hooks",
        events: ["receipt.accepted", "receipt.delivery_failed"],
      }),
    });
    expect(webhook.status).toBe(201);
    const { body } = await issue(token, issueRequest("31"));
    const estado = async () =>
      ((await (await call(`/fe/recepcion/ecf/${body.encf}`, { headers: authed(token) })).json()) as { estado: string })
        .estado;
    // On a busy machine DGII's verdict can come after the answer: the delivery starts with it.
    await until(
      async () => (await estado()) === "Aceptado",
      () => runRetryAlarms(company.id),
    );
    expect(await estado()).toBe("Aceptado");
    await runTaskAlarms(company.id);
    expect(await deliveryOf(token, body.encf)).toMatchObject({ state: "Pendiente" });
    await everyMonthSql(
      company.id,
      "UPDATE tasks SET deadline = ?1 WHERE kind = 'buyer_delivery'",
      new Date(Date.now() - 1000).toISOString(),
    );
    // The next attempt past the deadline gives up (one of the object's own alarms may be that attempt).
    await until(
      async () => (await deliveryOf(token, body.encf))?.state !== "Pendiente",
      () => runTaskAlarms(company.id),
    );
    expect(await deliveryOf(token, body.encf)).toMatchObject({ state: "Fallido" });
    const events = await everyMonthSql(company.id, "SELECT payload FROM tasks WHERE kind = 'event' ORDER BY position");
    const sent = events.map(
      (e) =>
        (JSON.parse(String(e.payload)) as { event: { type: string; data: { buyerDelivery?: { state: string } } } })
          .event,
    );
    expect(sent.map((e) => e.type)).toEqual(["receipt.accepted", "receipt.delivery_failed"]);
    // The event carries the receipt answer: the English state and, until 1.9.0, its deprecated twin.
    expect(sent[1]!.data.buyerDelivery?.state).toBe("Fallido");
    expect(sent[1]!.data).not.toHaveProperty("entregaComprador");
  });

  it.each([["1"], ["2"], ["4"]])(
    "a buyer that answers ARECF Estado 1 with motivo %s: No Recibido, the ARECF archived, delivery_failed announced; never sent again",
    async (motivo) => {
      const { company, token } = await issuer();
      await setDirectory([{ rnc: COMPRADOR_RNC, host: buyerHost() }]);
      expect((await setBuyer({ estado: "1", motivo })).status).toBe(200);
      const { body } = await issue(token, issueRequest("31"));
      await settle(company.id, token, body.encf);
      expect(await deliveryOf(token, body.encf)).toMatchObject({
        state: "No Recibido",
        arecfEstado: "1",
        codigoMotivoNoRecibido: motivo,
      });
      const arecf = await (await call(`/fe/recepcion/ecf/${body.encf}/arecf`, { headers: authed(token) })).text();
      expect(parseArecf(arecf)).toMatchObject({ eNCF: body.encf, Estado: "1", CodigoMotivoNoRecibido: motivo });
      await runTaskAlarms(company.id);
      expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "receptor-ecf")).toHaveLength(1);
      const events = await everyMonthSql(
        company.id,
        "SELECT payload FROM tasks WHERE kind = 'event' ORDER BY position",
      );
      expect(events.map((e) => (JSON.parse(String(e.payload)) as { event: { type: string } }).event.type)).toContain(
        "receipt.delivery_failed",
      );
    },
  );

  it("a buyer that says it has the e-CF already (motivo 3, a duplicate) counts as delivered", async () => {
    const { company, token } = await issuer();
    await setDirectory([{ rnc: COMPRADOR_RNC, host: buyerHost() }]);
    await setBuyer({ estado: "1", motivo: "3" });
    const { body } = await issue(token, issueRequest("31"));
    await settle(company.id, token, body.encf);
    expect(await deliveryOf(token, body.encf)).toMatchObject({
      state: "Recibido",
      arecfEstado: "1",
      codigoMotivoNoRecibido: "3",
    });
  });

  it("a buyer that requires authentication: the worker gets a token from its semilla and validacioncertificado, then delivers", async () => {
    const { company, token } = await issuer();
    await setDirectory([{ rnc: COMPRADOR_RNC, host: buyerHost() }]);
    await setBuyer({ requireAuth: true });
    // Without a token the buyer refuses.
    const form = new FormData();
    form.set("xml", new File(["<ECF/>"], "x.xml"));
    expect((await fetch(`${buyerHost()}/fe/recepcion/api/ecf`, { method: "POST", body: form })).status).toBe(401);
    const { body } = await issue(token, issueRequest("31"));
    await settle(company.id, token, body.encf);
    expect(await deliveryOf(token, body.encf)).toMatchObject({ state: "Recibido", arecfEstado: "0" });
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "receptor-ecf")).toHaveLength(1);
  });
});
