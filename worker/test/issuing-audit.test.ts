import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { database } from "../src/db/client.ts";
import { consumeOutbox, sweepOutbox, type OutboxMessage } from "../src/issuing/outbox.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, received, sandboxUrl, setFault } from "./support/issuing.ts";

const setProcessingMs = (processingMs: number) =>
  fetch(`${sandboxUrl()}/__sandbox/config`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ processingMs }) });

afterEach(async () => {
  await clearFaults();
  await setProcessingMs(100); // the global setup's value
});

const receiptRow = (companyId: string, encf: string) => database(env.DB).query.receipts.findFirst({ where: (r, { and, eq }) => and(eq(r.companyId, companyId), eq(r.encf, encf)) });
const auditOf = async (companyId: string) =>
  (await env.DB.prepare("SELECT actor, action, code, status, detail, request_id AS requestId FROM audit_log WHERE company_id = ?1 ORDER BY id").bind(companyId).all<Record<string, string>>()).results;
/** Waits until the sandbox has judged the e-CF (it reads En Proceso for `processingMs`). */
async function judged(rnc: string, encf: string) {
  for (let i = 0; i < 60; i++) {
    const [entry] = await received(rnc, encf);
    if (entry && entry.outcome.codigo !== 3) return entry;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the sandbox never judged ${encf}`);
}

describe("rejections nobody was waiting for go to the issuer's audit log", () => {
  it("the queue consumer finds a receipt answered En Proceso rejected", async () => {
    const { company, token } = await issuer();
    // Longer than the request's own polling (200 + 400 + 800 ms): the answer is En Proceso.
    await setProcessingMs(2500);
    await setFault({ mode: "reject", code: 1960, message: "Monto no permitido en nota de texto" });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ estado: "En Proceso", codigo: "3" });
    expect((await auditOf(company.id)).filter((a) => a.code === "dgii_rejected")).toEqual([]);

    await judged(company.rnc, body.encf);
    const row = (await receiptRow(company.id, body.encf))!;
    const batch = createMessageBatch<OutboxMessage>("ecf-outbox", [{ id: "m-reject", timestamp: new Date(), attempts: 1, body: { receiptId: row.id } }]);
    await consumeOutbox(batch, env);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual(["m-reject"]);
    expect((await receiptRow(company.id, body.encf))?.status).toBe("rejected");

    expect((await auditOf(company.id)).filter((a) => a.code === "dgii_rejected")).toEqual([
      // This batch's message, or the request's own message delivered by the test runtime's queue.
      expect.objectContaining({ actor: "queue", action: "QUEUE ecf-outbox", requestId: expect.stringMatching(/^queue:/), detail: expect.stringMatching(new RegExp(`^${body.encf}: 1960: Monto no permitido`)) }),
    ]);
    const state = (await (await call(`/fe/recepcion/ecf/${body.encf}`, { headers: authed(token) })).json()) as { estado: string };
    expect(state.estado).toBe("Rechazado");
  });

  it("the cron sweeper sends a receipt recovered from contingency and finds it rejected", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(503);
    await clearFaults();
    await setFault({ mode: "reject", code: 615, message: "Secuencia vencida", secuenciaUtilizada: false });

    // The queue consumer runs in tests too: a claim held for the next hour keeps it away, while the
    // sweeper, on a clock two hours ahead (each round past the back-off of the last), sees it expired.
    const keepQueueAway = () => env.DB.prepare("UPDATE receipts SET claimed_until = ?3 WHERE company_id = ?1 AND encf = ?2").bind(company.id, body.encf, new Date(Date.now() + 3_600_000).toISOString()).run();
    await keepQueueAway();
    for (let i = 0, at = Date.now() + 2 * 3_600_000; i < 20 && (await receiptRow(company.id, body.encf))?.status !== "rejected"; i++) {
      at += 15 * 60_000;
      await sweepOutbox(env, new Date(at));
      await keepQueueAway();
      await new Promise((r) => setTimeout(r, 150));
    }
    expect((await receiptRow(company.id, body.encf))?.status).toBe("rejected");
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "ecf")).toHaveLength(1);

    const rejections = (await auditOf(company.id)).filter((a) => a.code === "dgii_rejected");
    expect(rejections).toEqual([expect.objectContaining({ actor: "sweeper", action: "CRON sweeper", requestId: expect.stringMatching(/^sweep:/), detail: expect.stringContaining(`${body.encf}: 615: Secuencia vencida`) })]);
    // The contingency itself was audited by the request, as before.
    expect((await auditOf(company.id)).map((a) => a.code)).toContain("dgii_unavailable");
  });
});
