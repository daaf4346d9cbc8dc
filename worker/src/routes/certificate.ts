import { eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { forgetKeyLookups } from "../db/key-lookups.ts";
import { companies } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { adminRoute, problemSchema, tenantRoute } from "../http/openapi.ts";
import { readCertificateUpload, sealPrivateKey } from "../certificates/vault.ts";
import { newRouter } from "../http/router.ts";
import { IdParam } from "../http/schemas/common.ts";
import { CertificateForm, CertificateOut } from "../http/schemas/certificate.ts";
import { findCompany } from "./admin.ts";
import { retireCurrentCertificate } from "../devices/certificates.ts";
import { issuerLedger } from "../ledger/client.ts";

/** A .p12/.pfx larger than this is not a signing certificate. */
const MAX_CERTIFICATE_BYTES = 64 * 1024;

/** The same upload contract serves the company itself and the administrator. */
export function certificateRoute<P extends string>(path: P, admin = false) {
  return (admin ? adminRoute : tenantRoute)({
    method: "put",
    path,
    tags: [admin ? "Administration" : "Company"],
    summary: "Upload the signing certificate (.p12/.pfx and its password)",
    description: admin
      ? "The operator's form of PUT /company/certificate, for the issuer it names: the .p12/.pfx is opened with its password (legacy RC2/3DES files too), checked (RSA, not expired) and its private key kept only encrypted at rest."
      : "The certificate DGII's e-CF are signed with, as the issuer's .p12/.pfx and its password: it is opened and checked (RSA, not expired), its private key is kept only encrypted at rest, and it signs every receipt from now on; tills fetch it at their next check-in. Upload the renewed one before the old one expires.",
    request: {
      ...(admin ? { params: IdParam } : {}),
      body: { required: true, content: { "multipart/form-data": { schema: CertificateForm } } },
    },
    responses: {
      200: { description: "Stored", content: { "application/json": { schema: CertificateOut } } },
      400: problemSchema("Wrong password, expired, non-RSA key, or not a certificate"),
    },
  });
}

/** Reads, checks and stores a certificate; the private key is kept only encrypted at rest. */
export async function storeCertificate(env: Env, companyId: string, file: File, password: string, now: Date) {
  if (file.size > MAX_CERTIFICATE_BYTES) {
    throw new ApiProblem("bad_request", {
      detail: "The file is too large to be a .p12 certificate.",
      errors: [{ path: "/file", code: "not_pkcs12", message: "File too large." }],
    });
  }
  const certificate = await readCertificateUpload(new Uint8Array(await file.arrayBuffer()), password, now);
  const sealed = await sealPrivateKey(certificate.pkcs8, env.MASTER_KEY, companyId);
  const name = file.name || "certificate.p12";
  // Receipts tills signed offline with the previous certificate stay the issuer's.
  await retireCurrentCertificate(env.DB, companyId, certificate.derBase64, now);
  await database(env.DB)
    .update(companies)
    .set({
      certificateFileName: name,
      certificateKeyEncrypted: sealed,
      certificateDer: certificate.derBase64,
      certificateSubject: certificate.subject,
      certificateSerial: certificate.serialNumber,
      certificateNotAfter: certificate.notAfter,
    })
    .where(eq(companies.id, companyId));
  forgetKeyLookups();
  // The issuer's object tells of the new certificate's expiry even if the issuer issues nothing.
  const watched = { serial: certificate.serialNumber, notAfter: certificate.notAfter };
  await issuerLedger(env, companyId).numbering().watchCertificate(companyId, watched, now.toISOString());
  return {
    name,
    subject: certificate.subject,
    serialNumber: certificate.serialNumber,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
  };
}

/** Mounted after companyRoutes and adminRoutes, whose middleware authenticates these paths. */
export const certificateRoutes = newRouter()
  .openapi(certificateRoute("/company/certificate"), async (c) => {
    const form = c.req.valid("form");
    return c.json(await storeCertificate(c.env, c.get("tenant").id, form.file, form.password, new Date()), 200);
  })
  .openapi(certificateRoute("/admin/companies/{id}/certificate", true), async (c) => {
    const id = c.req.param("id");
    await findCompany(c.env.DB, id);
    const form = c.req.valid("form");
    return c.json(await storeCertificate(c.env, id, form.file, form.password, new Date()), 200);
  });
