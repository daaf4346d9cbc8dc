// The hand-off of a verified, device-signed receipt to the issuing pipeline: archive the signed
// bytes in R2, record the receipt in D1 (source "device"), transmit to DGII and poll briefly. The
// answer is the API's own receipt answer, so a device and an API client read the same thing.
import { findReceipt } from "../ledger/client.ts";
import { answerFor, type IssueAnswer } from "../issuing/answer.ts";
import { recordSignedReceipt } from "../issuing/record.ts";
import type { Company } from "../db/schema.ts";

export type ReceiptAnswer = IssueAnswer;

/** `xmlSha256` tells a retry of the same receipt from a different document under the same e-NCF. */
export async function submitSignedReceipt(env: Env, company: Company, xml: string, xmlSha256: string): Promise<ReceiptAnswer> {
  const outcome = await recordSignedReceipt(env, company, xml, { documentHash: xmlSha256, source: "device" });
  return answerFor(outcome.receipt, { reenviado: outcome.reenviado }).body;
}

/** The receipt's state now, for a device asking about one it uploaded earlier. */
export async function currentAnswer(env: Env, company: Company, encf: string): Promise<ReceiptAnswer | null> {
  const receipt = await findReceipt(env, company.id, encf);
  return receipt ? answerFor(receipt).body : null;
}
