// Everything the receiver sends back (ARECF, ACECF) is signed with the receiving company's own
// certificate, the one it issues with.
import { signEcfXml } from "@ecf/shared";
import { certificateDerOf, signingKeyFor } from "../certificates/vault.ts";
import { ApiProblem } from "../errors/problem.ts";
import type { Company } from "../db/tables.ts";

/** Signs one of our canonical documents (built by @ecf/shared) as `company`. */
export async function signAsCompany(env: Env, company: Company, xml: string): Promise<string> {
  if (!company.certificateKeyEncrypted || !company.certificateDer) {
    throw new ApiProblem("unprocessable", {
      detail: `Company ${company.rnc} has no signing certificate, so it cannot sign its answer.`,
      errors: [
        { path: "", code: "certificate_missing", message: "Upload a certificate with PUT /company/certificate." },
      ],
    });
  }
  const key = await signingKeyFor(company.certificateKeyEncrypted, env.MASTER_KEY, company.id);
  return signEcfXml(xml, key, certificateDerOf(company.certificateDer, company.id));
}
