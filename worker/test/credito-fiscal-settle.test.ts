// A crédito fiscal request always settles, and the E34 voiding an exchanged E32 is never lost:
// approving a request whose E32 got an E31 meanwhile (by the at-once path) issues the request with
// that E31, or declines it when that E31 names another buyer; an E34 refused right after the E31
// (the month's quota used up by the E31) stays owed, shown as such, and the month object's task
// issues it once the quota allows, exactly once however often the task runs.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer } from "./support/issuing.ts";
import { auditRows, everyMonthSql, runTaskAlarms, setInvoicesThisMonth } from "./support/ledger.ts";

type Json = Record<string, any>;
const BUYER = { rnc: "131880738", name: "DIRECCION GENERAL DE IMPUESTOS INTERNOS" };
const OTHER = { rnc: "101010632", name: "OTRA EMPRESA SRL" };
const LIMIT = 1000;
let token: string;
let rnc: string;
let companyId: string;

beforeAll(async () => {
  const created = await issuer({ invoiceLimitPerMonth: LIMIT });
  ({ token } = created);
  ({ rnc, id: companyId } = created.company);
  const started = await admin<{ importId: number }>("POST", "/admin/taxpayers/imports", { source: "prueba.zip" });
  const taxpayer = (id: string, legalName: string) => ({
    rnc: id,
    legalName,
    tradeName: null,
    activity: "GOBIERNO",
    status: "ACTIVO",
    paymentRegime: "NORMAL",
    registeredOn: "2000-01-01",
  });
  await admin("POST", `/admin/taxpayers/imports/${started.importId}/rows`, {
    rows: [taxpayer(BUYER.rnc, BUYER.name), taxpayer(OTHER.rnc, OTHER.name)],
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

const ask = (e32: { encf: string; code: string }, rncComprador = BUYER.rnc) =>
  call(`/r/${rnc}/${e32.encf}/credito-fiscal?c=${encodeURIComponent(e32.code)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ rncComprador }),
  });

const approve = (id: string) =>
  call(`/credito-fiscal/requests/${id}/approve`, { method: "POST", headers: authed(token) });

const requestNamed = async (id: string): Promise<Json> =>
  ((await (await call("/credito-fiscal/requests", { headers: authed(token) })).json()) as Json).items.find(
    (r: Json) => r.id === id,
  );

/** A request waiting for approval, then an E31 issued for its E32 by the at-once path. */
async function waitingThenIssuedAtOnce(asker: string, atOnceBuyer: string) {
  await settings({ creditoFiscalApproval: "approval", creditoFiscalE32: "none" });
  const e32 = await consumerReceipt();
  const asked = await ask(e32, asker);
  expect(asked.status).toBe(202);
  const { id } = (await asked.json()) as Json;
  await settings({ creditoFiscalApproval: "at_once" });
  const atOnce = await ask(e32, atOnceBuyer);
  expect(atOnce.status).toBe(201);
  const { encf: e31 } = (await atOnce.json()) as Json;
  await settings({ creditoFiscalApproval: "approval" });
  return { e32, id, e31 };
}

/** The E34 in the issuer's ledger that void `e32`. */
const creditNotesOf = async (e32: string) =>
  (
    await everyMonthSql(
      companyId,
      "SELECT encf, status FROM receipts WHERE tipo_ecf = '34' AND ncf_modificado = ?",
      e32,
    )
  ).map((row) => ({ encf: String(row.encf), status: String(row.status) }));

describe("a crédito fiscal request whose E32 got an E31 meanwhile", () => {
  it("is issued with that E31 when it names the same buyer, not left waiting", async () => {
    const { id, e31 } = await waitingThenIssuedAtOnce(BUYER.rnc, BUYER.rnc);
    const approved = await approve(id);
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as Json).request).toMatchObject({ status: "issued", e31 });
    expect(await requestNamed(id)).toMatchObject({ status: "issued", e31, decidedAt: expect.any(String) });
    expect((await approve(id)).status).toBe(409);
    const audited = await auditRows(companyId, "code = ?", "credito_fiscal_approved");
    expect(audited.map((row) => row.detail).join("\n")).toContain(`→ ${e31} (RNC ${BUYER.rnc}), issued before`);
  });

  it("is declined, saying why, when that E31 names another buyer", async () => {
    const { id, e31 } = await waitingThenIssuedAtOnce(BUYER.rnc, OTHER.rnc);
    const refused = await approve(id);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as Json).errors[0].code).toBe("already_issued");
    const settled = await requestNamed(id);
    expect(settled).toMatchObject({ status: "declined", e31: null });
    expect(settled.reason).toContain(`${e31} para este comprobante, a otro RNC o cédula (${OTHER.rnc})`);
  });
});

describe("the E34 owed for an exchanged E32", () => {
  it("refused right after the E31, stays owed and is issued once by the month's task", async () => {
    await settings({ creditoFiscalApproval: "approval", creditoFiscalE32: "credit_note" });
    const e32 = await consumerReceipt();
    const { id } = (await (await ask(e32)).json()) as Json;
    // The E31 takes the month's last receipt: the E34 right after it is refused (quota used up).
    await setInvoicesThisMonth(companyId, LIMIT - 1);
    const approved = await approve(id);
    expect(approved.status).toBe(200);
    const { request } = (await approved.json()) as Json;
    expect(request).toMatchObject({ status: "issued", creditNote: "owed", e34: null });
    expect(await creditNotesOf(e32.encf)).toEqual([]);
    const owed = await auditRows(companyId, "code = ?", "credit_note_owed");
    expect(owed.map((row) => row.detail).join("\n")).toContain(`${e32.encf} (replaced by ${request.e31})`);

    // Still refused: the task stays pending and tries again later.
    await runTaskAlarms(companyId);
    expect(await creditNotesOf(e32.encf)).toEqual([]);
    expect((await requestNamed(id)).creditNote).toBe("owed");

    await setInvoicesThisMonth(companyId, 0);
    await runTaskAlarms(companyId);
    const notes = await creditNotesOf(e32.encf);
    expect(notes).toHaveLength(1);
    expect(await requestNamed(id)).toMatchObject({ creditNote: "issued", e34: notes[0]!.encf });
    const [task] = await everyMonthSql(companyId, "SELECT status FROM tasks WHERE kind = 'credit_note'");
    expect(task).toMatchObject({ status: "done" });

    // Run again (as a crash before the task's settling would): the same key, the same one E34.
    await everyMonthSql(companyId, "UPDATE tasks SET status = 'pending' WHERE kind = 'credit_note'");
    await runTaskAlarms(companyId);
    expect(await creditNotesOf(e32.encf)).toEqual(notes.map((n) => ({ ...n, status: expect.any(String) })));
    expect((await requestNamed(id)).e34).toBe(notes[0]!.encf);
  });

  it("issued right after the E31 leaves its task nothing to issue", async () => {
    await settings({ creditoFiscalApproval: "approval", creditoFiscalE32: "credit_note" });
    const e32 = await consumerReceipt();
    const { id } = (await (await ask(e32)).json()) as Json;
    const { request } = (await (await approve(id)).json()) as Json;
    expect(request).toMatchObject({ creditNote: "issued", e34: expect.stringMatching(/^E34\d{10}$/) });
    await runTaskAlarms(companyId);
    expect((await creditNotesOf(e32.encf)).map((n) => n.encf)).toEqual([request.e34]);
  });
});
