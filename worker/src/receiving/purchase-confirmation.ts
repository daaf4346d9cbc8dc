// A received e-CF counts only once DGII knows it. Anyone can post an e-CF to our reception URL; a
// valid signature from an accredited certificate says who signed, not that the document was ever
// issued. So after reception the month object's alarm asks DGII (consultaestado, with the
// document's security code) with back-off: Aceptado / Aceptado Condicional confirm the purchase,
// Rechazado refuses it, and "not found" after CONFIRMATION_WINDOW_MS flags it not_found_at_dgii
// (a contingency e-CF may reach the buyer before DGII; the window covers DGII's deadline for it).
// Only a confirmed purchase enters the 606 or can be approved, unless the accountant overrides.
import type { DgiiResult } from "../dgii/client.ts";
import type { Company } from "../db/tables.ts";
import type { Purchase } from "../ledger/rows.ts";
import { findPurchase, writeAudit } from "../ledger/client.ts";
import { ApiProblem } from "../errors/problem.ts";

import type { DgiiPurchaseStatus } from "../ledger/month/estado-dgii.ts";
export type { DgiiPurchaseStatus };

/** How long DGII may not know a received e-CF before it is flagged: 72 h of contingency and a day. */
export const CONFIRMATION_WINDOW_MS = 4 * 86_400_000;
/** Waits between checks: soon after reception, then less and less often, then daily. */
export const CHECK_DELAYS_MS = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
];
/** After this long DGII is not asked again about a purchase it never confirmed or refused. */
export const STOP_CHECKING_AFTER_MS = 35 * 86_400_000;
/** Purchases asked about per alarm run (the rest are due again at once). */
export const CONFIRMATIONS_PER_RUN = 25;

/** Statuses a purchase counts with (606, approval, "confirmed" in reports). */
export const CONFIRMED: ReadonlySet<DgiiPurchaseStatus> = new Set(["confirmed", "conditional"]);

/** True when the purchase counts: DGII confirmed it, or the accountant overrode with a reason. */
export function purchaseCounts(purchase: Pick<Purchase, "dgiiStatus" | "dgiiOverrideReason">): boolean {
  return (
    CONFIRMED.has(purchase.dgiiStatus) || (purchase.dgiiStatus !== "rejected" && purchase.dgiiOverrideReason !== null)
  );
}

/** When to ask next after `checks` checks (null: stop), counted from the reception. */
export function nextCheckAt(checks: number, receivedAt: Date, now: Date): string | null {
  const at = now.getTime() + CHECK_DELAYS_MS[Math.min(checks, CHECK_DELAYS_MS.length - 1)]!;
  return at - receivedAt.getTime() > STOP_CHECKING_AFTER_MS ? null : new Date(at).toISOString();
}

export interface CheckOutcome {
  dgiiStatus: DgiiPurchaseStatus;
  dgiiNextCheckAt: string | null;
  /** What DGII said (or why it could not be asked), for the audit log. */
  detail: string;
}

/** The purchase's new state from DGII's answer (undefined: DGII could not be asked). */
export function judgeAnswer(
  purchase: Purchase,
  answer: DgiiResult | undefined,
  now: Date,
): Omit<CheckOutcome, "detail"> {
  const receivedAt = new Date(Date.parse(purchase.receivedAt) || now.getTime());
  const checks = purchase.dgiiChecks + 1;
  if (answer?.codigo === 1) return { dgiiStatus: "confirmed", dgiiNextCheckAt: null };
  if (answer?.codigo === 4) return { dgiiStatus: "conditional", dgiiNextCheckAt: null };
  if (answer?.codigo === 2) return { dgiiStatus: "rejected", dgiiNextCheckAt: null };
  // Not found (0), still in process (3) or no answer: ask again later; flag once the window passed.
  const unknownTooLong = answer?.codigo === 0 && now.getTime() - receivedAt.getTime() >= CONFIRMATION_WINDOW_MS;
  const dgiiStatus = unknownTooLong || purchase.dgiiStatus === "not_found_at_dgii" ? "not_found_at_dgii" : "pending";
  return { dgiiStatus, dgiiNextCheckAt: nextCheckAt(checks, receivedAt, now) };
}

/** Asks DGII about one purchase as `company` (the buyer) and judges the answer. */
export async function checkPurchaseAtDgii(
  env: Env,
  company: Company,
  purchase: Purchase,
  now: Date,
): Promise<CheckOutcome> {
  if (!purchase.securityCode) {
    return {
      dgiiStatus: purchase.dgiiStatus,
      dgiiNextCheckAt: null,
      detail: "No security code recorded: DGII cannot be asked.",
    };
  }
  let answer: DgiiResult | undefined;
  let detail: string;
  try {
    // The DGII client and the signer load with the first check, not when the month object starts.
    const { dgiiClientFor, signerFor } = await import("../dgii/for-company.ts");
    const client = dgiiClientFor(env, company, await signerFor(env, company));
    answer = await client.consultaEstadoOf(purchase.rncEmisor, purchase.encf, purchase.securityCode);
    detail = `consultaestado: codigo ${answer.codigo} (${answer.estado})`;
  } catch (error) {
    detail = `consultaestado failed: ${(error as Error).message}`.slice(0, 500);
  }
  return { ...judgeAnswer(purchase, answer, now), detail };
}

/** POST /compras/{id}/confirmacion-manual: counts an unconfirmed purchase, with the reason audited. */
export async function overrideConfirmation(
  env: Env,
  company: Company,
  id: string,
  reason: string,
  by: string,
  requestId: string,
  now: Date,
): Promise<Purchase> {
  const found = await findPurchase(env, company.id, id);
  if (!found) throw new ApiProblem("not_found", { detail: `No received e-CF ${id} for this company.` });
  if (found.purchase.dgiiStatus === "rejected") {
    throw new ApiProblem("conflict", {
      detail: `DGII rejected ${found.purchase.encf}: it is not a valid e-CF and cannot be counted.`,
      errors: [{ path: "", code: "rejected_at_dgii", message: "Rechazado by DGII." }],
    });
  }
  const after = await found.month.purchases().overridePurchaseConfirmation(id, { reason, by }, now);
  if (!after) throw new ApiProblem("conflict", { detail: `${found.purchase.encf} cannot be counted.` });
  await writeAudit(
    env,
    company.id,
    {
      actor: by,
      action: "POST /compras/{id}/confirmacion-manual",
      code: "purchase_confirmation_overridden",
      status: 200,
      detail: `${after.encf} from ${after.rncEmisor} (DGII: ${after.dgiiStatus}) counted by the accountant: ${reason}`,
      requestId,
    },
    now,
  );
  return after;
}
