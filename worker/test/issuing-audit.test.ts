import { afterEach, describe, expect, it } from "vitest";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, received, sandboxUrl, setFault } from "./support/issuing.ts";
import { auditRows, receiptRow, runRetryAlarms } from "./support/ledger.ts";
import { until } from "./support/until.ts";

const setProcessingMs = (processingMs: number) =>
  fetch(`${sandboxUrl()}/__sandbox/config`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ processingMs }),
  });

afterEach(async () => {
  await clearFaults();
  await setProcessingMs(100); // the global setup's value
});

const auditOf = async (companyId: string) =>
  (await auditRows(companyId)).map((a) => ({
    actor: a.actor,
    action: a.action,
    code: a.code,
    status: a.status,
    detail: a.detail,
    requestId: a.request_id,
  }));
/** Waits until the sandbox has judged the e-CF (it reads En Proceso for `processingMs`). */
async function judged(rnc: string, encf: string) {
  let entry: Awaited<ReturnType<typeof received>>[number] | undefined;
  const isJudged = async () =>
    ([entry] = await received(rnc, encf)) && entry !== undefined && entry.outcome.codigo !== 3;
  if (!(await until(isJudged))) throw new Error(`the sandbox never judged ${encf}`);
  return entry!;
}

describe("rejections nobody was waiting for go to the issuer's audit log", () => {
  it("the retry alarm finds a receipt answered En Proceso rejected", async () => {
    const { company, token } = await issuer();
    // Longer than the request's own polling (200 + 1000 + 4000 ms): the answer is En Proceso.
    await setProcessingMs(12_000);
    await setFault({ mode: "reject", code: 1960, message: "Monto no permitido en nota de texto" });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ estado: "En Proceso", codigo: "3" });
    expect((await auditOf(company.id)).filter((a) => a.code === "dgii_rejected")).toEqual([]);

    await judged(company.rnc, body.encf);
    await until(
      async () => (await receiptRow(company.id, body.encf))?.status === "rejected",
      () => runRetryAlarms(company.id),
    );
    expect((await receiptRow(company.id, body.encf))?.status).toBe("rejected");

    expect((await auditOf(company.id)).filter((a) => a.code === "dgii_rejected")).toEqual([
      expect.objectContaining({
        actor: "alarm",
        action: "ALARM ledger",
        requestId: expect.stringMatching(/^alarm:/),
        detail: expect.stringMatching(new RegExp(`^${body.encf}: 1960: Monto no permitido`)),
      }),
    ]);
    const state = (await (await call(`/fe/recepcion/ecf/${body.encf}`, { headers: authed(token) })).json()) as {
      estado: string;
    };
    expect(state.estado).toBe("Rechazado");
  });

  it("the retry alarm sends a receipt recovered from contingency and finds it rejected", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(503);
    await clearFaults();
    await setFault({ mode: "reject", code: 615, message: "Secuencia vencida", secuenciaUtilizada: false });

    await until(
      async () => (await receiptRow(company.id, body.encf))?.status === "rejected",
      () => runRetryAlarms(company.id),
    );
    expect((await receiptRow(company.id, body.encf))?.status).toBe("rejected");
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "ecf")).toHaveLength(1);

    const rejections = (await auditOf(company.id)).filter((a) => a.code === "dgii_rejected");
    expect(rejections).toEqual([
      expect.objectContaining({
        actor: "alarm",
        action: "ALARM ledger",
        requestId: expect.stringMatching(/^alarm:/),
        detail: expect.stringContaining(`${body.encf}: 615: Secuencia vencida`),
      }),
    ]);
    // The contingency itself was audited by the request, as before.
    expect((await auditOf(company.id)).map((a) => a.code)).toContain("dgii_unavailable");
  });
});
