// The hand-off of a verified, device-signed receipt to the issuing pipeline: archive the signed
// bytes in R2, record the receipt in its month object (source "device"), transmit to DGII and
// poll briefly. The answer is the API's own receipt answer, so a device and an API client read
// the same thing.
import { findReceipt, issuerLedger, receiptMonth } from "../ledger/client.ts";
import { receiptAnswerOf } from "../answers/receipt.ts";
import type { IssueAnswer } from "../answers/receipt-schema.ts";
import type { Receipt } from "../ledger/rows.ts";
import { recordSignedReceipt } from "../issuing/record.ts";
import type { Company } from "../db/tables.ts";

export type ReceiptAnswer = IssueAnswer;

/**
 * The receipt answer a device gets. A receipt the ledger holds but has not sent yet (recorded
 * from a batch, for its alarm to transmit) is En Proceso: DGII's verdict is on its way. The API
 * calls such a receipt Contingencia, which on a till means "not yet with the server".
 */
export function deviceAnswer(receipt: Receipt, options: { reenviado?: boolean } = {}): ReceiptAnswer {
  const body = receiptAnswerOf(receipt, options).body;
  const queued = receipt.status === "signed" && receipt.sendAttempts === 0 && !receipt.trackId;
  return queued ? { ...body, estado: "En Proceso", codigo: "3" } : body;
}

/** `xmlSha256` tells a retry of the same receipt from a different document under the same e-NCF. */
export async function submitSignedReceipt(
  env: Env,
  company: Company,
  xml: string,
  xmlSha256: string,
): Promise<ReceiptAnswer> {
  const outcome = await recordSignedReceipt(env, company, xml, { documentHash: xmlSha256, source: "device" });
  return deviceAnswer(outcome.receipt, { reenviado: outcome.reenviado });
}

/** The receipt's state now, for a device asking about one it uploaded earlier. */
export async function currentAnswer(env: Env, company: Company, encf: string): Promise<ReceiptAnswer | null> {
  const receipt = await findReceipt(env, company.id, encf);
  return receipt ? deviceAnswer(receipt) : null;
}

/** The state of many receipts: one RPC to the issuer object, one per month object holding any. */
export async function currentAnswers(env: Env, company: Company, encfs: string[]): Promise<ReceiptAnswer[]> {
  const months = await issuerLedger(env, company.id).index().monthsOf(encfs);
  const byMonth = new Map<string, string[]>();
  encfs.forEach((encf, i) => {
    const month = months[i];
    if (month) byMonth.set(month, [...(byMonth.get(month) ?? []), encf]);
  });
  const found = await Promise.all(
    [...byMonth].map(([month, list]) => receiptMonth(env, company.id, month).receipts().receiptsByEncf(list)),
  );
  const byEncf = new Map(found.flat().map((r) => [r.encf, r]));
  return encfs.flatMap((encf) => {
    const receipt = byEncf.get(encf);
    return receipt ? [deviceAnswer(receipt)] : [];
  });
}
