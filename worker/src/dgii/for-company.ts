import { certificateDerOf, signingKeyFor } from "../certificates/vault.ts";
import { ApiProblem } from "../http/problem.ts";
import type { Company } from "../tenant/resolve.ts";
import { DgiiClient } from "./client.ts";

export interface CompanySigner {
  key: CryptoKey;
  certificateDer: Uint8Array;
}

/** The issuer's signing key and certificate, or a clear 422 when none is registered. */
export async function signerFor(env: Env, company: Company): Promise<CompanySigner> {
  if (!company.certificateKeyEncrypted || !company.certificateDer) {
    throw new ApiProblem("unprocessable", {
      detail: `Issuer ${company.rnc} has no signing certificate; upload one with PUT /company/certificate.`,
      errors: [{ path: "", code: "certificate_missing", message: "No signing certificate." }],
    });
  }
  return {
    key: await signingKeyFor(company.certificateKeyEncrypted, env.MASTER_KEY, company.id),
    certificateDer: certificateDerOf(company.certificateDer),
  };
}

/** Timeouts come from the environment so tests can shorten them; 10 s by default. */
export function dgiiTimeoutMs(env: Env): number {
  const value = Number((env as unknown as Record<string, string | undefined>).DGII_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : 10_000;
}

export function dgiiClientFor(env: Env, company: Company, signer: CompanySigner): DgiiClient {
  return new DgiiClient(
    env,
    { environment: company.dgiiEnvironment, rnc: company.rnc, key: signer.key, certificateDer: signer.certificateDer, certificateSerial: company.certificateSerial ?? "" },
    { timeoutMs: dgiiTimeoutMs(env) },
  );
}
