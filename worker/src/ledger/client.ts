// The worker's (and the objects' own) way into an issuer's ledger: the IssuerLedger object by
// the issuer's id, its ReceiptMonth objects by id and month. Each method here is one RPC, or a
// fan-out of parallel RPCs, never a loop of sequential round trips.
import type { IssuerRpc } from "./issuer/issuer-rpc.ts";
import type { MonthRpc } from "./month/month-rpc.ts";
import type { AuditEntry, Purchase, Receipt } from "./rows.ts";

export type IssuerStub = DurableObjectStub<IssuerRpc>;
export type MonthStub = DurableObjectStub<MonthRpc>;

/** The issuer's own object. */
export function issuerLedger(env: Env, companyId: string): IssuerStub {
  return env.ISSUER_LEDGER.get(env.ISSUER_LEDGER.idFromName(companyId));
}

/** The object holding the issuer's receipts, purchases and audit entries of `month` (yyyy-MM). */
export function receiptMonth(env: Env, companyId: string, month: string): MonthStub {
  return env.RECEIPT_MONTH.get(env.RECEIPT_MONTH.idFromName(`${companyId}/${month}`));
}

/** A receipt by e-NCF: the issuer object says which month holds it, that month has it. */
export async function findReceipt(env: Env, companyId: string, encf: string): Promise<Receipt | null> {
  const month = await issuerLedger(env, companyId).index().monthOf(encf);
  return month ? receiptMonth(env, companyId, month).receipts().receipt(encf) : null;
}

/** The month object of a receipt we hold (its row says where: the issue date's month). */
export function monthOfReceipt(env: Env, receipt: Pick<Receipt, "companyId" | "issueDate">): MonthStub {
  return receiptMonth(env, receipt.companyId, receipt.issueDate.slice(0, 7));
}

/**
 * Credit and debit notes DGII accepted against a receipt, from every month since its own (a note
 * is issued after the receipt it modifies), asked in parallel.
 */
export async function acceptedNotesOf(env: Env, original: Receipt): Promise<Receipt[]> {
  const months = await issuerLedger(env, original.companyId).index().months(original.issueDate.slice(0, 7));
  const found = await Promise.all(
    months.map((month) => receiptMonth(env, original.companyId, month).receipts().acceptedNotesOf(original.encf)),
  );
  return found.flat();
}

/**
 * A purchase's id names its month (`2026-11.<uuid>`), so it is found with one RPC; ids moved from
 * D1 by ledger:migrate are plain UUIDs and are looked for in every month, in parallel.
 */
export function newPurchaseId(month: string): string {
  return `${month}.${crypto.randomUUID()}`;
}

export async function findPurchase(
  env: Env,
  companyId: string,
  id: string,
): Promise<{ purchase: Purchase; month: MonthStub } | null> {
  const named = /^(\d{4}-\d{2})\./.exec(id)?.[1];
  const months = named ? [named] : await issuerLedger(env, companyId).index().months();
  const found = await Promise.all(
    months.map(async (month) => ({
      month: receiptMonth(env, companyId, month),
      purchase: await receiptMonth(env, companyId, month).purchases().purchaseById(id),
    })),
  );
  const hit = found.find((f) => f.purchase);
  return hit?.purchase ? { purchase: hit.purchase, month: hit.month } : null;
}

/** Writes an audit entry to the month it happened in. Never throws: the audit must not undo the work. */
export async function writeAudit(
  env: Env,
  companyId: string,
  entry: Omit<AuditEntry, "companyId">,
  now = new Date(),
): Promise<void> {
  const month = auditMonth(now);
  try {
    await Promise.all([
      issuerLedger(env, companyId).index().noteMonth(month),
      receiptMonth(env, companyId, month)
        .purchases()
        .audit({ ...entry, companyId, createdAt: now.toISOString() }),
    ]);
  } catch (error) {
    console.error("audit log write failed", error);
  }
}

/** yyyy-MM of an instant in UTC (audit entries are kept by the UTC month they were written in). */
export const auditMonth = (now: Date) => now.toISOString().slice(0, 7);
