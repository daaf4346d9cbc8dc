// What the issuer does with the E32 its buyer exchanged for an E31 (the `creditoFiscalE32`
// setting; docs/buyers.md says which DGII rule each choice rests on). "none": the E32 stays as it
// is, the E31 referencing it with CodigoModificacion 5 is DGII's own record of the exchange.
// "credit_note": an E34 voiding the E32 in full (CodigoModificacion 1, "Anula el NCF modificado"),
// issued right after the E31 by the same path as every receipt, so the 607 carries the sale once.
// Its Idempotency-Key is named after the E32: one credit note per exchange, even when asked twice.
// The note is owed from the moment the E31 is recorded: that record queues a `credit_note` task in
// the E31's month object (ledger/month/task-types.ts), which the object's alarm runs after the
// request's own attempt had its chance, with back-off, until the note exists or 30 days pass.
import { dgiiDateOf, objAt, xmlToEcf, type JsonDocument } from "@ecf/shared";
import { and, eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { companyById } from "../db/companies.ts";
import { creditoFiscalRequests } from "../db/credito-fiscal-tables.ts";
import type { Company } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { issueReceipt } from "../issuing/issue.ts";
import { archivedXml } from "../issuing/transmit.ts";
import { acceptedNotesOf, findReceipt, writeAudit } from "../ledger/client.ts";
import type { CreditNotePayload, TaskContext, TaskOutcome } from "../ledger/month/task-types.ts";
import type { Receipt } from "../ledger/rows.ts";

/** The Idempotency-Key of the credit note voiding an exchanged E32. */
export const e32CreditNoteKey = (e32: string) => `credito-fiscal-nc:${e32}`;

/** An E34 of the E32's lines and totals, voiding it (CodigoModificacion 1). */
export function e32CreditNoteRequest(e32: JsonDocument, receipt: Receipt, e31: string) {
  const idDoc = (objAt(e32, "Encabezado", "IdDoc") ?? {}) as Record<string, unknown>;
  const encabezado = (objAt(e32, "Encabezado") ?? {}) as Record<string, unknown>;
  const keep = (names: string[]) =>
    Object.fromEntries(names.filter((n) => idDoc[n] !== undefined).map((n) => [n, idDoc[n]]));
  return {
    Encabezado: {
      IdDoc: { TipoeCF: "34", ...keep(["IndicadorMontoGravado", "TipoIngresos", "TipoPago"]) },
      ...(encabezado.Comprador ? { Comprador: encabezado.Comprador } : {}),
      Totales: encabezado.Totales,
    },
    DetallesItems: e32.DetallesItems,
    InformacionReferencia: {
      NCFModificado: receipt.encf,
      FechaNCFModificado: dgiiDateOf(receipt.issueDate),
      CodigoModificacion: "1",
      RazonModificacion: `Sustituido por la factura de credito fiscal ${e31}`,
    },
  };
}

/** Issues the E34 voiding `receipt` (the E32 exchanged for `e31`); a replay of its key is the same note. */
export async function issueE32CreditNote(
  env: Env,
  company: Company,
  e32: JsonDocument,
  receipt: Receipt,
  e31: string,
  now: Date,
) {
  const body = e32CreditNoteRequest(e32, receipt, e31);
  return issueReceipt(env, company, body, now, { idempotencyKey: e32CreditNoteKey(receipt.encf) });
}

/** The console's view of the note on the E32's request (the at-once path has none: a no-op). */
export async function recordCreditNote(
  env: Env,
  companyId: string,
  e32: string,
  note: { state: "owed" | "issued" | "failed"; e34: string | null },
): Promise<void> {
  await database(env.DB)
    .update(creditoFiscalRequests)
    .set({ creditNote: note.state, e34: note.e34 })
    .where(
      and(
        eq(creditoFiscalRequests.companyId, companyId),
        eq(creditoFiscalRequests.e32, e32),
        eq(creditoFiscalRequests.status, "issued"),
      ),
    );
}

/** The E34 voiding `e32` in full, issued by a request or by hand, once DGII accepted it. */
async function acceptedVoiding(env: Env, e32: Receipt) {
  return (await acceptedNotesOf(env, e32)).find((n) => n.tipoeCF === "34" && n.codigoModificacion === "1");
}

/** The owed note issued under its key (a replay when an earlier attempt issued it); its e-NCF. */
async function issueOwed(env: Env, payload: CreditNotePayload, now: Date): Promise<string | null> {
  const company = await companyById(env, payload.companyId);
  const receipt = await findReceipt(env, payload.companyId, payload.e32);
  if (!company || !receipt) throw new Error(`no issuer or no receipt ${payload.e32}`);
  // Past the key's life, the accepted note itself says it exists (as the E31 does for its E32).
  const voided = await acceptedVoiding(env, receipt);
  if (voided) return voided.encf;
  const e32 = xmlToEcf(await archivedXml(env, receipt));
  const note = await issueE32CreditNote(env, company, e32, receipt, payload.e31, now);
  return "stored" in note ? null : note.receipt.encf;
}

/**
 * The `credit_note` task: the E34 owed for an exchanged E32. Issued (or found issued): done.
 * Refused or failed (the quota or the E34 range used up, the ledger unreachable): tried again on
 * the task's back-off; past its deadline given up, in the audit log for the issuer to do by hand.
 */
export async function issueOwedCreditNote(
  payload: CreditNotePayload,
  context: TaskContext,
  pastDeadline: boolean,
): Promise<TaskOutcome> {
  const { env, now } = context;
  try {
    const e34 = await issueOwed(env, payload, now);
    await recordCreditNote(env, payload.companyId, payload.e32, { state: "issued", e34 });
    return { status: "done", result: { e34 } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!pastDeadline) return { status: "retry", result: { error: message.slice(0, 500) } };
    await writeAudit(env, payload.companyId, {
      actor: "alarm",
      action: "E34 voiding an E32 exchanged for crédito fiscal",
      code: "credit_note_failed",
      status: error instanceof ApiProblem ? error.status : 500,
      detail: `${payload.e32} (replaced by ${payload.e31}), given up: ${message}`.slice(0, 1000),
      requestId: `credit-note:${payload.e32}`,
    });
    await recordCreditNote(env, payload.companyId, payload.e32, { state: "failed", e34: null });
    return { status: "failed", result: { error: message.slice(0, 500) } };
  }
}
