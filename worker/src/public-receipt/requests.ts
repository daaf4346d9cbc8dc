// A buyer's crédito fiscal request when the issuer wants to decide first (its
// `creditoFiscalApproval` setting "approval"): the request is checked as the at-once path checks
// it, stored, and waits for an owner or accountant. Approving issues the E31 exactly as the at-once
// path does (credito-fiscal.ts), so one E31 per E32 still holds; an approval first claims the
// request (pending → issuing, one conditional UPDATE), so of two approvals at once one issues
// and the other is refused. A request always settles: an E31 issued for its E32 meanwhile (the
// at-once path, or by hand) settles it as issued or declined, never back to waiting. Each
// decision is written in the issuer's audit log.
import { and, desc, eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { type CreditoFiscalRequestRow, creditoFiscalRequests } from "../db/credito-fiscal-tables.ts";
import type { Company } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { findReceipt, writeAudit } from "../ledger/client.ts";
import type { Receipt } from "../ledger/rows.ts";
import { type CreditoFiscalAsk, checkCreditoFiscal, type Exchange, exchangeE32 } from "./credito-fiscal.ts";
import type { PublicReceipt } from "./lookup.ts";

/** Who decided, for the audit log and the request: the console user's or key's id. */
export interface Decider {
  actor: string | null;
  requestId: string;
}

const alreadyAsked = (e32: string) =>
  new ApiProblem("conflict", {
    detail: `A crédito fiscal request for ${e32} is already waiting for the issuer, or was approved.`,
    errors: [{ path: "/encf", code: "already_requested", message: "Ya hay una solicitud para este comprobante." }],
  });

const notPending = (id: string) =>
  new ApiProblem("conflict", {
    detail: `The crédito fiscal request ${id} is no longer waiting (approved, rejected, or being approved).`,
    errors: [{ path: "/id", code: "already_decided", message: "Esta solicitud ya fue decidida." }],
  });

/** The E32's request still waiting or approved, if any (the buyer's page shows it). */
export async function openRequestFor(env: Env, companyId: string, e32: string) {
  const rows = await database(env.DB)
    .select()
    .from(creditoFiscalRequests)
    .where(and(eq(creditoFiscalRequests.companyId, companyId), eq(creditoFiscalRequests.e32, e32)))
    .orderBy(desc(creditoFiscalRequests.createdAt));
  return rows.find((row) => row.status !== "declined");
}

/** Stores the buyer's request (checked as the at-once path checks it) to wait for a decision. */
export async function storeRequest(env: Env, found: PublicReceipt, ask: CreditoFiscalAsk) {
  const { company, receipt } = found;
  await checkCreditoFiscal(env, receipt, ask.rncComprador);
  const [row] = await database(env.DB)
    .insert(creditoFiscalRequests)
    .values({
      id: crypto.randomUUID(),
      companyId: company.id,
      e32: receipt.encf,
      rncComprador: ask.rncComprador,
      email: ask.email ?? null,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw alreadyAsked(receipt.encf);
  return row;
}

/** The issuer's requests, the waiting ones first, newest first. */
export async function listRequests(env: Env, companyId: string, status?: CreditoFiscalRequestRow["status"]) {
  const where = status
    ? and(eq(creditoFiscalRequests.companyId, companyId), eq(creditoFiscalRequests.status, status))
    : eq(creditoFiscalRequests.companyId, companyId);
  const rows = await database(env.DB)
    .select()
    .from(creditoFiscalRequests)
    .where(where)
    .orderBy(desc(creditoFiscalRequests.createdAt))
    .limit(500);
  return rows.sort((a, b) => Number(b.status === "pending") - Number(a.status === "pending"));
}

/** Moves a waiting request to `to`, or refuses: no such request (404) or already decided (409). */
async function claim(env: Env, companyId: string, id: string, to: CreditoFiscalRequestRow["status"], set = {}) {
  const db = database(env.DB);
  const [row] = await db
    .update(creditoFiscalRequests)
    .set({ status: to, ...set })
    .where(
      and(
        eq(creditoFiscalRequests.id, id),
        eq(creditoFiscalRequests.companyId, companyId),
        eq(creditoFiscalRequests.status, "pending"),
      ),
    )
    .returning();
  if (row) return row;
  const exists = await db
    .select({ id: creditoFiscalRequests.id })
    .from(creditoFiscalRequests)
    .where(and(eq(creditoFiscalRequests.id, id), eq(creditoFiscalRequests.companyId, companyId)));
  if (exists.length === 0)
    throw new ApiProblem("not_found", { detail: `No crédito fiscal request ${id} for this issuer.` });
  throw notPending(id);
}

const audit = (env: Env, company: Company, who: Decider, code: string, detail: string, action: string) =>
  writeAudit(env, company.id, { actor: who.actor, action, code, status: 200, detail, requestId: who.requestId });

/** The request's decision, recorded with who took it (only the claim's holder writes it). */
async function settle(env: Env, id: string, who: Decider, now: Date, set: Partial<CreditoFiscalRequestRow>) {
  const [row] = await database(env.DB)
    .update(creditoFiscalRequests)
    .set({ ...set, decidedBy: who.actor, decidedAt: now.toISOString() })
    .where(eq(creditoFiscalRequests.id, id))
    .returning();
  return row!;
}

/**
 * Why a request cannot be settled by the E31 issued before for its E32 (by the at-once path or
 * by hand): DGII rejected it, or it names another buyer. (Undefined: it is what the buyer asked.)
 */
function unlikeAsked(row: CreditoFiscalRequestRow, existing: Receipt | null): string | undefined {
  if (!existing) return "Ya se emitió una factura de crédito fiscal para este comprobante.";
  if (existing.status === "rejected")
    return `La DGII rechazó la factura de crédito fiscal ${existing.encf} ya emitida para este comprobante.`;
  if (existing.rncComprador !== row.rncComprador)
    return `Ya se emitió la factura de crédito fiscal ${existing.encf} para este comprobante, a otro RNC o cédula (${existing.rncComprador ?? "ninguno"}).`;
  return undefined;
}

/**
 * An E31 already exists for the request's E32: the request is settled, never left waiting. That
 * E31 is what the buyer asked for when it names the same buyer and DGII has not rejected it: the
 * request is issued with it. Otherwise it is declined, saying why, and the approval refused (409).
 */
async function settleWithExisting(
  env: Env,
  company: Company,
  row: CreditoFiscalRequestRow,
  existing: Receipt | null,
  who: Decider,
  now: Date,
) {
  const action = `POST /credito-fiscal/requests/${row.id}/approve`;
  const reason = unlikeAsked(row, existing);
  if (reason || !existing) {
    await settle(env, row.id, who, now, { status: "declined", reason: reason ?? null });
    await audit(
      env,
      company,
      who,
      "credito_fiscal_rejected",
      `${row.e32} (RNC ${row.rncComprador}): ${reason}`,
      action,
    );
    throw new ApiProblem("conflict", {
      detail: `A crédito fiscal invoice was already issued for ${row.e32}; the request is declined.`,
      errors: [{ path: "/id", code: "already_issued", message: `${reason} La solicitud quedó rechazada.` }],
    });
  }
  const settled = await settle(env, row.id, who, now, { status: "issued", e31: existing.encf });
  const detail = `${row.e32} → ${existing.encf} (RNC ${row.rncComprador}), issued before`;
  await audit(env, company, who, "credito_fiscal_approved", detail, action);
  return { request: settled, e31: existing };
}

/** Approves a waiting request: its E31 is issued as the at-once path issues it (or was already). */
export async function approveRequest(env: Env, company: Company, id: string, who: Decider, now: Date) {
  const row = await claim(env, company.id, id, "issuing");
  let exchange: Exchange;
  try {
    const receipt = await findReceipt(env, company.id, row.e32);
    if (!receipt) throw new ApiProblem("not_found", { detail: `No receipt ${row.e32} for this issuer.` });
    exchange = await exchangeE32(env, { company, receipt }, { ...row, email: row.email ?? undefined }, now);
  } catch (error) {
    // Not issued (refused, or DGII's answer failed): the request waits again for a decision.
    await database(env.DB)
      .update(creditoFiscalRequests)
      .set({ status: "pending" })
      .where(eq(creditoFiscalRequests.id, id));
    throw error;
  }
  if ("existing" in exchange) return settleWithExisting(env, company, row, exchange.existing, who, now);
  const { issued: e31, creditNote } = exchange;
  const approved = await settle(env, id, who, now, {
    status: "issued",
    e31: e31.encf,
    ...(creditNote ? { creditNote: creditNote.state, e34: creditNote.e34 } : {}),
  });
  const detail = `${row.e32} → ${e31.encf} (RNC ${row.rncComprador})`;
  await audit(env, company, who, "credito_fiscal_approved", detail, `POST /credito-fiscal/requests/${id}/approve`);
  return { request: approved, e31 };
}

/** Rejects a waiting request, recording why. */
export async function rejectRequest(env: Env, company: Company, id: string, reason: string, who: Decider, now: Date) {
  const row = await claim(env, company.id, id, "declined", {
    reason,
    decidedBy: who.actor,
    decidedAt: now.toISOString(),
  });
  const detail = `${row.e32} (RNC ${row.rncComprador}): ${reason}`;
  await audit(env, company, who, "credito_fiscal_rejected", detail, `POST /credito-fiscal/requests/${id}/reject`);
  return row;
}
