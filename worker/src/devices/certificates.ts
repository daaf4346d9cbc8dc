// Which certificates may sign an issuer's device receipts. A till signs offline with the
// certificate it was given; if the issuer uploads a new one meanwhile, receipts already signed
// (and printed) with the previous one are still the issuer's: they were signed while it was the
// issuer's certificate. A certificate that never was the issuer's is always refused.
import { fromBase64, parseDgiiDateTime, type CertificateInfo } from "@ecf/shared";
import type { Company } from "../db/tables.ts";

/**
 * Records the issuer's current certificate as replaced at `now`, unless it is the same one being
 * uploaded again. Runs before the companies row takes the new certificate: should that update
 * fail, the history merely lists the still-current certificate too, which accepts nothing more.
 */
export async function retireCurrentCertificate(
  d1: D1Database,
  companyId: string,
  newDerBase64: string,
  now: Date,
): Promise<void> {
  await d1
    .prepare(
      `INSERT INTO company_certificates (company_id, certificate_der, certificate_serial, certificate_not_after, replaced_at)
       SELECT id, certificate_der, certificate_serial, certificate_not_after, ?3 FROM companies
       WHERE id = ?1 AND certificate_der IS NOT NULL AND certificate_der <> ?2`,
    )
    .bind(companyId, newDerBase64, now.toISOString())
    .run();
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

export type CertificateVerdict =
  | { ok: true }
  | { ok: false; code: "certificate_not_company" | "certificate_not_valid_then"; message: string };

/**
 * The signing certificate must be the issuer's current one, or one it had until after the
 * receipt's FechaHoraFirma; and it must have been within its own validity at that time.
 */
export async function certificateWasCompanys(
  d1: D1Database,
  company: Company,
  certificate: CertificateInfo,
  fechaHoraFirma: string,
): Promise<CertificateVerdict> {
  const signedAt = parseDgiiDateTime(fechaHoraFirma);
  if (!signedAt)
    return {
      ok: false,
      code: "certificate_not_company",
      message: `FechaHoraFirma '${fechaHoraFirma}' is not dd-MM-yyyy HH:mm:ss.`,
    };
  const current = company.certificateDer ? fromBase64(company.certificateDer) : null;
  let known = !!current && sameBytes(certificate.der, current);
  if (!known) {
    // Certificates replaced after the signing time, i.e. the issuer's when the receipt was signed.
    const { results } = await d1
      .prepare(`SELECT certificate_der AS der FROM company_certificates WHERE company_id = ?1 AND replaced_at > ?2`)
      .bind(company.id, signedAt.toISOString())
      .all<{ der: string }>();
    known = results.some((r) => {
      const der = fromBase64(r.der);
      return !!der && sameBytes(certificate.der, der);
    });
    if (!known) {
      return {
        ok: false,
        code: "certificate_not_company",
        message: "The receipt is signed with a certificate that was not the issuer's at its FechaHoraFirma.",
      };
    }
  }
  if (signedAt < certificate.notBefore || signedAt > certificate.notAfter) {
    return {
      ok: false,
      code: "certificate_not_valid_then",
      message: `The signing certificate was not valid at FechaHoraFirma ${fechaHoraFirma} (valid ${certificate.notBefore.toISOString()} to ${certificate.notAfter.toISOString()}).`,
    };
  }
  return { ok: true };
}
