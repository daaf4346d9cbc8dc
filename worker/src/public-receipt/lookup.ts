// A receipt as its buyer reaches it: by the issuer's RNC, the e-NCF and the security code printed
// on the receipt (CodigoSeguridad), with no account. Whatever is wrong (no such issuer, no such
// e-NCF, a wrong code) the answer is the same 404, so the page tells a guesser nothing; wrong
// guesses are throttled per receipt (throttle.ts) before any code is compared.
import { constantTimeEqual } from "../crypto/credentials.ts";
import type { Company } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { findReceipt } from "../ledger/client.ts";
import type { Receipt } from "../ledger/rows.ts";
import { findReceivingCompany } from "../receiving/receiving-company.ts";

export interface PublicReceipt {
  company: Company;
  receipt: Receipt;
}

/** The one answer to every miss: it names neither the issuer nor the e-NCF. */
export function noSuchReceipt(): ApiProblem {
  return new ApiProblem("not_found", { detail: "No receipt answers this address." });
}

/** The receipt the link names, or undefined when the issuer, the e-NCF or the code is not right. */
export async function findPublicReceipt(
  env: Env,
  rnc: string,
  encf: string,
  codigoSeguridad: string,
): Promise<PublicReceipt | undefined> {
  const company = await findReceivingCompany(env.DB, rnc);
  if (!company) return undefined;
  const receipt = await findReceipt(env, company.id, encf);
  if (!receipt) return undefined;
  // A receipt voided before DGII ever saw it (ANECF) was never a receipt the buyer could hold.
  if (receipt.status === "voided") return undefined;
  return (await constantTimeEqual(receipt.securityCode, codigoSeguridad)) ? { company, receipt } : undefined;
}
