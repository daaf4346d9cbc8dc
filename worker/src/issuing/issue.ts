import { ecfToXml, signEcfXml, validateEcf, type Problem } from "@ecf/shared";
import { and, eq } from "drizzle-orm";
import { sha256Hex } from "../auth/crypto.ts";
import { database } from "../db/client.ts";
import { receipts, sequences } from "../db/schema.ts";
import { signerFor } from "../dgii/for-company.ts";
import { ApiProblem } from "../http/problem.ts";
import type { Company } from "../tenant/resolve.ts";
import { drIsoDate } from "../time.ts";
import { dgiiDate, emisorProfile, modifiedReceiptFor, requestedEncf, requestedTipo, stableStringify, withoutAssignedFields } from "./document.ts";
import { releaseQuota, reserveQuota } from "./quota.ts";
import { allocateEncf, formatEncf, sequenceExpired } from "./sequences.ts";
import { recordSignedReceipt, type IssueOutcome } from "./record.ts";
import type { PhaseTimes } from "./timing.ts";
import type { Receipt } from "./transmit.ts";

/** Problems from the shared package become `errors[]` entries: path, code, message, and the rest. */
function problemItems(problems: Problem[]) {
  return problems.map((p) => ({ path: p.path, code: p.code, message: p.message, messageEs: p.messageEs, severity: p.severity, ...(p.rule ? { rule: p.rule } : {}), ...(p.details ? { details: p.details } : {}) }));
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

/**
 * A client that numbers its own receipts must use a number of an authorised, unexpired range that
 * nobody has been handed yet. Taking it moves the sequence past it in one conditional update, so
 * neither the API nor a device lease can ever hand it out again.
 */
async function takeClientEncf(env: Env, company: Company, encf: string, tipo: string, now: Date): Promise<{ encf: string; expiresOn: string }> {
  const path = "/Encabezado/IdDoc/eNCF";
  const match = /^E(\d{2})(\d{10})$/.exec(encf);
  if (!match || match[1] !== tipo) {
    throw new ApiProblem("validation_failed", { errors: [{ path, code: "invalid_format", message: `eNCF must be E${tipo} followed by 10 digits.` }] });
  }
  const number = Number(match[2]);
  const range = await database(env.DB).query.sequences.findFirst({ where: and(eq(sequences.companyId, company.id), eq(sequences.tipoeCF, tipo)) });
  if (!range || number < range.rangeFrom || number > range.rangeTo) {
    throw new ApiProblem("unprocessable", { detail: `e-NCF ${encf} is outside the authorised range.`, errors: [{ path, code: "encf_out_of_range", message: "Outside the authorised range." }] });
  }
  if (range.expiresOn < drIsoDate(now)) {
    throw new ApiProblem("unprocessable", { detail: `The range of e-NCF ${encf} expired on ${range.expiresOn}.`, errors: [{ path, code: "sequence_expired", message: "Range expired." }] });
  }
  const taken = await env.DB.prepare(`UPDATE sequences SET next_number = ?3 + 1 WHERE company_id = ?1 AND tipo_ecf = ?2 AND next_number <= ?3 RETURNING expires_on AS expiresOn`)
    .bind(company.id, tipo, number)
    .first<{ expiresOn: string }>();
  if (!taken) {
    throw new ApiProblem("conflict", {
      detail: `e-NCF ${encf} was already handed out (to this API or a device); use a number from ${formatEncf(tipo, range.nextNumber)} on, or let the service number it.`,
      errors: [{ path, code: "encf_used", message: "Already handed out." }],
    });
  }
  return { encf, expiresOn: taken.expiresOn };
}

/**
 * Issues one e-CF: validate → quota → number → XML → sign, then `recordSignedReceipt` archives,
 * records and transmits it. Throws ApiProblem for every client mistake.
 */
export async function issueReceipt(env: Env, company: Company, body: unknown, now: Date, times?: PhaseTimes): Promise<IssueOutcome> {
  const tipo = requestedTipo(body);
  // Identity of the document for resends: the fields the service assigns are left out.
  const requestHash = await sha256Hex(stableStringify(withoutAssignedFields(body)));
  const db = database(env.DB);
  const givenEncf = requestedEncf(body);

  // Cheap checks first, and the problems of the document all at once, before any number is used.
  const range = tipo ? await db.query.sequences.findFirst({ where: and(eq(sequences.companyId, company.id), eq(sequences.tipoeCF, tipo)) }) : undefined;
  // An expired range is the range's problem (422), not a past FechaVencimientoSecuencia the service
  // itself would put in the document; a resend of a receipt numbered before expiry still gets its answer.
  if (range && range.expiresOn < drIsoDate(now)) {
    const resend = givenEncf && (await db.query.receipts.findFirst({ where: and(eq(receipts.companyId, company.id), eq(receipts.encf, givenEncf)) }));
    if (!resend) throw sequenceExpired(tipo!, range.expiresOn);
  }
  const context = {
    now,
    eNCF: givenEncf ?? (tipo ? formatEncf(tipo, range?.nextNumber ?? 1) : undefined),
    fechaVencimientoSecuencia: range ? dgiiDate(range.expiresOn) : undefined,
    emisor: emisorProfile(company),
    modifiedReceipt: await modifiedReceiptFor(env.DB, env.ARCHIVE, company.id, body),
  };
  const validation = validateEcf(body, context);
  if (!validation.ok) {
    const errors = validation.problems.filter((p) => p.severity === "error");
    throw new ApiProblem("validation_failed", { detail: `The e-CF has ${errors.length} problem(s).`, errors: problemItems(validation.problems) });
  }
  const signer = await signerFor(env, company);

  if (givenEncf) {
    const existing = await db.query.receipts.findFirst({ where: and(eq(receipts.companyId, company.id), eq(receipts.encf, givenEncf)) });
    if (existing) return { receipt: resendOf(existing, [requestHash, await sha256Hex(stableStringify(body))]), reenviado: true };
  }

  const numberingStarted = performance.now();
  await reserveQuota(env.DB, company.id, company.invoiceLimitPerMonth, now);
  let encf: string;
  let expiresOn: string;
  try {
    const numbered = givenEncf ? await takeClientEncf(env, company, givenEncf, tipo!, now) : await allocateEncf(env.DB, company.id, tipo!, now);
    encf = numbered.encf;
    expiresOn = numbered.expiresOn;
    times?.add("storage", performance.now() - numberingStarted);
  } catch (error) {
    await releaseQuota(env.DB, company.id, now);
    throw error;
  }

  const document = validation.document as Json;
  const idDoc = document.Encabezado.IdDoc as Json;
  idDoc.eNCF = encf;
  if (idDoc.FechaVencimientoSecuencia !== undefined && expiresOn) idDoc.FechaVencimientoSecuencia = dgiiDate(expiresOn);

  const signedXml = await signEcfXml(ecfToXml(document), signer.key, signer.certificateDer);
  const recorded = await recordSignedReceipt(env, company, signedXml, { documentHash: requestHash, source: "api", claimed: true, now, times });
  const warnings = validation.problems.filter((p) => p.severity === "warning").map(({ path, code, message, messageEs }) => ({ path, code, message, messageEs }));
  return warnings.length ? { ...recorded, warnings } : recorded;
}
