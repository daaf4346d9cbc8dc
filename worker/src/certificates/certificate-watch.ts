// The certificate.expiring notice: once per certificate at 15 days before its notAfter (the
// interface's recommended renewal lead time) and once more at 3. Sent by whichever comes first,
// the issuing path (issuing/issue.ts) or the IssuerLedger object's alarm, which is kept set for
// the current certificate's next mark so that an issuer that issues nothing is told too. Both
// claim the notice with the object's noticeOnce, so it is never sent twice.
import { drMonth } from "@ecf/shared/dgii-time";
import { companyById } from "../db/companies.ts";
import type { Company } from "../db/tables.ts";
import { receiptMonth } from "../ledger/client.ts";

/** Days before a certificate's expiry when the integrator is told, in the order they come. */
export const CERTIFICATE_NOTICE_DAYS = [15, 3] as const;
export type NoticeMark = (typeof CERTIFICATE_NOTICE_DAYS)[number];

const DAY_MS = 86_400_000;

/** The certificate a notice is about: the issuer's current one, as D1 has it. */
export type NoticedCertificate = Pick<Company, "id" | "rnc" | "certificateSerial" | "certificateNotAfter">;

/** The nearest notice mark a certificate with `msLeft` to live has reached, or null (none yet, or expired). */
export function certificateNoticeMark(msLeft: number): NoticeMark | null {
  if (!(msLeft > 0)) return null;
  const reached = CERTIFICATE_NOTICE_DAYS.filter((days) => msLeft <= days * DAY_MS);
  return reached.length ? reached[reached.length - 1]! : null;
}

/**
 * The once-only key of a certificate's notice at `mark`. The stored serial is the subject's
 * serialNumber (the holder's RNC), the same on every renewal, so the expiry tells a renewed
 * certificate from the one it replaces (1.8.0's key, the serial alone, would silence every renewal).
 */
export function certificateNoticeKey(
  certificate: { serial: string | null; notAfter: string | null },
  mark: NoticeMark,
): string {
  return `certificate.expiring:${certificate.serial}:${certificate.notAfter}:${mark}`;
}

/**
 * When the next notice of a certificate is due (epoch ms): the first mark not yet given that the
 * current one has not superseded (a certificate with 2 days left is told only of the 3), `now`
 * when it is already reached; null when every notice was given or the certificate has expired.
 */
export function nextNoticeAt(
  certificate: { serial: string | null; notAfter: string | null },
  now: Date,
  given: (key: string) => boolean,
): number | null {
  const notAfter = certificate.notAfter ? Date.parse(certificate.notAfter) : Number.NaN;
  if (!(notAfter > now.getTime())) return null;
  const current = certificateNoticeMark(notAfter - now.getTime());
  for (const days of CERTIFICATE_NOTICE_DAYS) {
    if (current !== null && days > current) continue;
    if (given(certificateNoticeKey(certificate, days))) continue;
    return Math.max(notAfter - days * DAY_MS, now.getTime());
  }
  return null;
}

/**
 * Sends the notice of the mark `company`'s certificate has reached at `now`, if `claim` says it
 * is the first to (the IssuerLedger's noticeOnce); `unclaim` gives the claim back when the event
 * could not be queued, so a retry sends it. True when this call sent it.
 */
export async function noticeCertificateExpiring(
  env: Env,
  company: NoticedCertificate,
  now: Date,
  notice: { claim(key: string): boolean | Promise<boolean>; unclaim(key: string): void | Promise<void> },
): Promise<boolean> {
  const notAfter = company.certificateNotAfter ? Date.parse(company.certificateNotAfter) : Number.NaN;
  const mark = certificateNoticeMark(notAfter - now.getTime());
  if (mark === null) return false;
  const key = certificateNoticeKey({ serial: company.certificateSerial, notAfter: company.certificateNotAfter }, mark);
  if (!(await notice.claim(key))) return false;
  try {
    await receiptMonth(env, company.id, drMonth(now))
      .followUp()
      .emit(company.id, `certificate:${company.certificateSerial}`, {
        type: "certificate.expiring",
        timestamp: now.toISOString(),
        data: {
          rncEmisor: company.rnc,
          certificateSerial: company.certificateSerial,
          notAfter: company.certificateNotAfter,
          withinDays: mark,
        },
      });
  } catch (error) {
    await notice.unclaim(key);
    throw error;
  }
  return true;
}

/** What the watch needs of the IssuerLedger object (objects/issuer-ledger.ts) it runs in. */
export interface CertificateWatchHost {
  env: Env;
  /** The object's clock (a test sets it to a day near a certificate's expiry). */
  clock: () => Date;
  /** The issuer this object belongs to, as given when a certificate was watched (null: none was). */
  companyId(): string | null;
  rememberCompany(companyId: string): void;
  noticeOnce(key: string): boolean;
  noticeGiven(key: string): boolean;
  forgetNotice(key: string): void;
  /** The month the event goes to holds something now: listed with the issuer's months. */
  noteMonth(month: string): void;
  /** Sets the object's alarm, or deletes it (null). */
  setAlarm(at: number | null): Promise<void>;
}

/**
 * Sets the alarm for a certificate just stored (a first one, or a renewal): the next mark of the
 * new certificate replaces whatever the previous one's was.
 */
export function watchCertificate(
  host: CertificateWatchHost,
  companyId: string,
  certificate: { serial: string | null; notAfter: string | null },
  now: Date,
): Promise<void> {
  host.rememberCompany(companyId);
  return host.setAlarm(nextNoticeAt(certificate, now, (key) => host.noticeGiven(key)));
}

/**
 * The alarm's run: the issuer's current certificate (read from D1, so a certificate replaced
 * since the alarm was set is the one judged), its reached notice sent unless already sent, and
 * the alarm set again for the next one.
 */
export async function runCertificateWatch(host: CertificateWatchHost, now: Date): Promise<void> {
  const companyId = host.companyId();
  const company = companyId ? await companyById(host.env, companyId) : undefined;
  if (!company) return host.setAlarm(null);
  const sent = await noticeCertificateExpiring(host.env, company, now, {
    claim: (key) => host.noticeOnce(key),
    unclaim: (key) => host.forgetNotice(key),
  });
  if (sent) host.noteMonth(drMonth(now));
  const certificate = { serial: company.certificateSerial, notAfter: company.certificateNotAfter };
  await host.setAlarm(nextNoticeAt(certificate, now, (key) => host.noticeGiven(key)));
}
