import { dgiiDateOf as dgiiDate, drIsoDate, drMonth, ecfToXml, isoDateFromDgii as isoDate, signEcfXml, validateEcf, type Problem, type TotalsPolicy } from "@ecf/shared";
import { sha256Hex } from "../auth/crypto.ts";
import { signerFor } from "../dgii/for-company.ts";
import { ApiProblem } from "../http/problem.ts";
import { findReceipt, issuerLedger, receiptMonth, type IssuerStub } from "../ledger/client.ts";
import { idempotencyKeyInProgress, type IdempotencyRequest, type KeyHolder } from "../ledger/issuer-ledger.ts";
import { encfOf, sequenceExpired } from "../ledger/numbering.ts";
import { unwrap } from "../ledger/rpc.ts";
import type { Company } from "../db/schema.ts";
import { emisorProfile, modifiedReceiptFor, requestedEncf, requestedTipo, stableStringify, withoutAssignedFields } from "./document.ts";
import { recordSignedReceipt, type ContingencyAudit, type IssueOutcome } from "./record.ts";
import type { PhaseTimes } from "./timing.ts";
import type { Receipt } from "../ledger/schema.ts";

/** Problems from the shared package become `errors[]` entries: path, code, message, and the rest. */
function problemItems(problems: Problem[]) {
  return problems.map((p) => ({
    path: p.path,
    code: p.code,
    message: p.message,
    messageEs: p.messageEs,
    severity: p.severity,
    ...(p.rule ? { rule: p.rule } : {}),
    ...(p.details ? { details: p.details } : {}),
  }));
}

type Json = Record<string, any>;

export type { IssueOutcome };

/**
 * A resend of a receipt we have: the same request gets it back; a different document is a 409.
 * `hashes` are the request's identity now and as rows recorded before assigned fields were left
 * out of it (the whole body), so older receipts still match their resends.
 */
function resendOf(existing: Receipt, hashes: string[]): Receipt {
  if (!hashes.includes(existing.documentHash)) {
    throw new ApiProblem("conflict", {
      detail: `e-NCF ${existing.encf} was already used for a different document; it can never be reused.`,
      errors: [{ path: "/Encabezado/IdDoc/eNCF", code: "encf_used", message: "Already used by another document." }],
    });
  }
  return existing;
}

/** Days before a certificate's expiry when the integrator is told (certificate.expiring), once per certificate. */
const CERTIFICATE_NOTICE_DAYS = 15;

/** The issuer's own events, each sent once: the quota past 90 % this month, the certificate about to expire. */
async function noticeIssuerEvents(env: Env, company: Company, ledger: IssuerStub, quota: { used: number; limit: number } | null, now: Date): Promise<void> {
  const month = receiptMonth(env, company.id, drMonth(now));
  const timestamp = now.toISOString();
  if (quota) await month.emit(company.id, `quota:${drMonth(now)}`, { type: "quota.near_limit", timestamp, data: { rncEmisor: company.rnc, month: drMonth(now), ...quota } });
  const notAfter = company.certificateNotAfter ? Date.parse(company.certificateNotAfter) : NaN;
  const left = notAfter - now.getTime();
  if (left > 0 && left <= CERTIFICATE_NOTICE_DAYS * 86_400_000 && (await ledger.noticeOnce(`certificate.expiring:${company.certificateSerial}`))) {
    await month.emit(company.id, `certificate:${company.certificateSerial}`, {
      type: "certificate.expiring",
      timestamp,
      data: { rncEmisor: company.rnc, certificateSerial: company.certificateSerial, notAfter: company.certificateNotAfter },
    });
  }
}

/** An answer stored verbatim for an `Idempotency-Key` (keys moved from a 1.7 database). */
export type StoredAnswer = { status: number; response: string };

/**
 * How long a request may take from numbering its receipt to recording it (signing, the archive,
 * DGII's status: seconds). A key claimed longer ago whose receipt was never recorded belongs to a
 * request that died in between; the next request with the key takes it over.
 */
export const ABANDONED_CLAIM_MS = 5 * 60_000;

/**
 * A request whose `Idempotency-Key` another request holds gets the receipt that one numbered, as
 * it stands, with that request's warnings: a 409 until the receipt is recorded, and "abandoned"
 * when it never will be.
 */
async function keyHolderOutcome(env: Env, companyId: string, held: KeyHolder, now: Date): Promise<IssueOutcome | { stored: StoredAnswer } | "abandoned"> {
  if ("stored" in held) return held;
  const receipt = await receiptMonth(env, companyId, held.month).receipt(held.encf);
  if (receipt) return { receipt, reenviado: false, replayed: true, ...(held.warnings ? { warnings: held.warnings } : {}) };
  if (now.getTime() - Date.parse(held.claimedAt) > ABANDONED_CLAIM_MS) return "abandoned";
  throw idempotencyKeyInProgress();
}

/**
 * Issues one e-CF: validate → quota → number → XML → sign, then `recordSignedReceipt` archives,
 * records and transmits it. Throws ApiProblem for every client mistake.
 */
export async function issueReceipt(
  env: Env,
  company: Company,
  body: unknown,
  now: Date,
  options: { times?: PhaseTimes; totalsPolicy?: TotalsPolicy; contingencyAudit?: ContingencyAudit; idempotency?: IdempotencyRequest } = {},
): Promise<IssueOutcome | { stored: StoredAnswer }> {
  const { times, idempotency } = options;
  const tipo = requestedTipo(body);
  // Identity of the document for resends: the fields the service assigns are left out.
  const requestHash = await sha256Hex(stableStringify(withoutAssignedFields(body)));
  const ledger = issuerLedger(env, company.id);
  const givenEncf = requestedEncf(body);

  // Cheap checks first (who holds the key; the range), and the problems of the document all at
  // once, before any number is used.
  const peek = async () => (tipo || idempotency ? unwrap(ledger.checkIssue(tipo ?? null, idempotency ?? null)) : null);
  const check = times ? await times.time("storage", peek) : await peek();
  let abandoned: string | undefined;
  if (check?.held) {
    const outcome = await keyHolderOutcome(env, company.id, check.held, now);
    if (outcome !== "abandoned") return outcome;
    abandoned = "encf" in check.held ? check.held.encf : undefined;
  }
  const range = check?.sequence ?? null;
  // An expired range is the range's problem (422), not a past FechaVencimientoSecuencia the service
  // itself would put in the document; a resend of a receipt numbered before expiry still gets its answer.
  if (range && range.expiresOn < drIsoDate(now)) {
    const resend = givenEncf && (await findReceipt(env, company.id, givenEncf));
    if (!resend) throw sequenceExpired(tipo!, range.expiresOn);
  }
  const context = {
    now,
    eNCF: givenEncf ?? (tipo ? encfOf(tipo, range?.nextNumber ?? 1) : undefined),
    fechaVencimientoSecuencia: range ? dgiiDate(range.expiresOn) : undefined,
    emisor: emisorProfile(company),
    modifiedReceipt: await modifiedReceiptFor(env, company.id, body),
    // The request's choice, else the issuer's.
    totalsPolicy: options.totalsPolicy ?? company.totalsPolicy,
  };
  const validation = validateEcf(body, context);
  if (!validation.ok) {
    const errors = validation.problems.filter((p) => p.severity === "error");
    throw new ApiProblem("validation_failed", { detail: `The e-CF has ${errors.length} problem(s).`, errors: problemItems(validation.problems) });
  }
  const warnings = validation.problems.filter((p) => p.severity === "warning").map(({ path, code, message, messageEs }) => ({ path, code, message, messageEs }));
  const signer = await signerFor(env, company);

  if (givenEncf) {
    const existing = await findReceipt(env, company.id, givenEncf);
    if (existing) return { receipt: resendOf(existing, [requestHash, await sha256Hex(stableStringify(body))]), reenviado: true };
  }

  const document = validation.document as Json;
  const idDoc = document.Encabezado.IdDoc as Json;
  // One RPC: the quota unit, the number, its place in the index (the FechaEmision's month) and the key.
  const numberingStarted = performance.now();
  const numbering = await unwrap(
    ledger.number({
      tipoeCF: tipo!,
      givenEncf,
      month: isoDate(String(document.Encabezado.Emisor.FechaEmision)).slice(0, 7),
      today: drIsoDate(now),
      quota: { month: drMonth(now), limit: company.invoiceLimitPerMonth },
      now: now.toISOString(),
      idempotency: idempotency && { ...idempotency, warnings, abandoned },
    }),
  );
  times?.add("storage", performance.now() - numberingStarted);
  // A request with the same key numbered first (or took the abandoned claim over first).
  if (numbering.held) {
    const outcome = await keyHolderOutcome(env, company.id, numbering.held, now);
    if (outcome === "abandoned") throw idempotencyKeyInProgress();
    return outcome;
  }
  const { numbered } = numbering;
  try {
    await noticeIssuerEvents(env, company, ledger, numbered.quotaNearLimit, now);

    idDoc.eNCF = numbered.encf;
    if (idDoc.FechaVencimientoSecuencia !== undefined && numbered.expiresOn) idDoc.FechaVencimientoSecuencia = dgiiDate(numbered.expiresOn);

    const signedXml = await signEcfXml(ecfToXml(document), signer.key, signer.certificateDer);
    const recorded = await recordSignedReceipt(env, company, signedXml, { documentHash: requestHash, source: "api", times, contingencyAudit: options.contingencyAudit });
    return warnings.length ? { ...recorded, warnings } : recorded;
  } catch (error) {
    // This request claimed the key with its number. Once its receipt is recorded the key stays: it
    // answers that receipt. Before that, it is given back so a corrected retry works. (When the
    // month object cannot say, the key stays; its claim is taken over once abandoned.)
    if (idempotency) {
      const recorded = await receiptMonth(env, company.id, numbered.month)
        .receipt(numbered.encf)
        .catch(() => undefined);
      if (recorded === null) await ledger.releaseIdempotencyKey(idempotency.key, numbered.encf);
    }
    throw error;
  }
}
