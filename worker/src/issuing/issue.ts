import {
  dgiiDateOf as dgiiDate,
  drIsoDate,
  drMonth,
  ecfToXml,
  isoDateFromDgii as isoDate,
  signEcfXml,
  validateEcf,
  type Problem,
  type TotalsPolicy,
} from "@ecf/shared";
import { signerFor } from "../dgii/for-company.ts";
import { ApiProblem } from "../errors/problem.ts";
import { findReceipt, issuerLedger, receiptMonth, type IssuerStub } from "../ledger/client.ts";
import {
  IN_PROGRESS_RETRY_SECONDS,
  idempotencyKeyInProgress,
  type IdempotencyRequest,
  type KeyHolder,
} from "../ledger/issuer/idempotency.ts";
import type { Numbered } from "../ledger/issuer/receipt-numbering.ts";
import { encfOf, sequenceExpired } from "../ledger/issuer/encf-allocation.ts";
import { unwrap } from "../ledger/refusal.ts";
import type { Company } from "../db/tables.ts";
import { emisorProfile, modifiedReceiptFor, requestHashes, requestedEncf, requestedTipo } from "./document.ts";
import { recordSignedReceipt, type ContingencyAudit, type IssueOutcome } from "./record.ts";
import type { PhaseTimes } from "./timing.ts";
import type { Receipt } from "../ledger/rows.ts";
import type { ValidationWarning } from "../answers/receipt-schema.ts";
import { knownRange, rememberRange, type KnownRange } from "./known-ranges.ts";
import type { EventType } from "@ecf/shared/webhook-events";
import type { NewTask } from "../ledger/month/task-types.ts";
import { noticeCertificateExpiring } from "../certificates/certificate-watch.ts";

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

/** The issuer's own events, each sent once: the quota past 90 % this month, the certificate about to expire. */
async function noticeIssuerEvents(
  env: Env,
  company: Company,
  ledger: IssuerStub,
  quota: { used: number; limit: number } | null,
  now: Date,
): Promise<void> {
  if (quota)
    await receiptMonth(env, company.id, drMonth(now))
      .followUp()
      .emit(company.id, `quota:${drMonth(now)}`, {
        type: "quota.near_limit",
        timestamp: now.toISOString(),
        data: { rncEmisor: company.rnc, month: drMonth(now), ...quota },
      });
  // Whichever comes first, this or the object's alarm, sends it (certificates/certificate-watch.ts).
  await noticeCertificateExpiring(env, company, now, {
    claim: (key) => ledger.numbering().noticeOnce(key),
    unclaim: (key) => ledger.numbering().forgetNotice(key),
  });
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
 * it stands, with that request's warnings: a 409 in_progress until the receipt is recorded and no
 * longer held by the request transmitting it (`claimedUntil`), and "abandoned" when it never will be.
 */
async function keyHolderOutcome(
  env: Env,
  companyId: string,
  held: KeyHolder,
  now: Date,
): Promise<IssueOutcome | { stored: StoredAnswer } | "abandoned"> {
  if ("stored" in held) return held;
  const receipt = await receiptMonth(env, companyId, held.month).receipts().receipt(held.encf);
  const heldUntil = receipt?.claimedUntil ? Date.parse(receipt.claimedUntil) : 0;
  if (heldUntil > now.getTime())
    throw idempotencyKeyInProgress(Math.min(IN_PROGRESS_RETRY_SECONDS, Math.ceil((heldUntil - now.getTime()) / 1000)));
  if (receipt)
    return { receipt, reenviado: false, replayed: true, ...(held.warnings ? { warnings: held.warnings } : {}) };
  if (now.getTime() - Date.parse(held.claimedAt) > ABANDONED_CLAIM_MS) return "abandoned";
  throw idempotencyKeyInProgress();
}

/** A document validated and ready to number: the range it was validated against, and its signer. */
interface Prepared {
  document: Json;
  range: KnownRange | null;
  warnings: ValidationWarning[];
  signer: Awaited<ReturnType<typeof signerFor>>;
  /** The e-NCF of an abandoned claim on the request's key, which this request takes over. */
  abandoned: string | undefined;
}

/** Everything one issuing request knows before it numbers: read once, passed to each step. */
interface IssueRequest {
  env: Env;
  company: Company;
  body: unknown;
  now: Date;
  options: IssueOptions;
  tipo: string | undefined;
  givenEncf: string | undefined;
  today: string;
  /** Identity of the document for resends (the fields the service assigns left out), and of the request. */
  hashes: { document: string; request: string };
  idempotency: IdempotencyRequest | undefined;
  ledger: IssuerStub;
  inStorage: <T>(work: () => Promise<T>) => Promise<T>;
}

export interface IssueOptions {
  times?: PhaseTimes;
  totalsPolicy?: TotalsPolicy;
  contingencyAudit?: ContingencyAudit;
  /** The request's `Idempotency-Key`, claimed with the receipt's number. */
  idempotencyKey?: string;
  subscribedEvents?: readonly EventType[];
  /** Follow-up work the receipt owes once numbered as `encf`, queued in the same write that records it. */
  followUp?: (encf: string) => NewTask[];
}

type Answered = { answer: IssueOutcome | { stored: StoredAnswer } };

/**
 * The issuer object's range for the document's type and who holds the request's key, read in one
 * RPC: those answer before the document's problems. An expired range is the range's problem
 * (422), not a past FechaVencimientoSecuencia the service itself would put in the document; a
 * resend of a receipt numbered before expiry still gets its answer.
 */
async function checkRangeAndKey(
  req: IssueRequest,
): Promise<{ range: KnownRange | null; abandoned: string | undefined } | Answered> {
  const { env, company, tipo, idempotency, ledger, now, givenEncf, today } = req;
  const check = await req.inStorage(() => unwrap(ledger.numbering().checkIssue(tipo ?? null, idempotency ?? null)));
  if (tipo) rememberRange(company.id, tipo, check.sequence);
  let abandoned: string | undefined;
  if (check.held) {
    const outcome = await keyHolderOutcome(env, company.id, check.held, now);
    if (outcome !== "abandoned") return { answer: outcome };
    abandoned = "encf" in check.held ? check.held.encf : undefined;
  }
  const range = check.sequence;
  if (range && range.expiresOn < today) {
    const resend = givenEncf && (await findReceipt(env, company.id, givenEncf));
    if (!resend) throw sequenceExpired(tipo!, range.expiresOn);
  }
  return { range, abandoned };
}

/**
 * The document validated against its range, with every problem at once, before any number is
 * used; or the answer the request gets without one (its key's receipt, a resend). The range is
 * the one this isolate remembers (`remembered`, unexpired), else the issuer object's: a document
 * that fails against a remembered range is looked at again the long way.
 */
async function prepare(req: IssueRequest, remembered: KnownRange | undefined): Promise<Prepared | Answered> {
  const { env, company, body, now, tipo, givenEncf } = req;
  let range: KnownRange | null = remembered ?? null;
  let abandoned: string | undefined;
  if (!remembered && (tipo || req.idempotency)) {
    const checked = await checkRangeAndKey(req);
    if ("answer" in checked) return checked;
    ({ range, abandoned } = checked);
  }
  const validation = validateEcf(body, {
    now,
    eNCF: givenEncf ?? (tipo ? encfOf(tipo, range?.nextNumber ?? 1) : undefined),
    fechaVencimientoSecuencia: range ? dgiiDate(range.expiresOn) : undefined,
    emisor: emisorProfile(company),
    modifiedReceipt: await modifiedReceiptFor(env, company.id, body),
    // A request may make the issuer's policy stricter, never relax it: relaxing is the owner's setting.
    totalsPolicy: req.options.totalsPolicy === "strict" ? "strict" : company.totalsPolicy,
  });
  if (!validation.ok) {
    if (remembered) return prepare(req, undefined);
    const errors = validation.problems.filter((p) => p.severity === "error");
    throw new ApiProblem("validation_failed", {
      detail: `The e-CF has ${errors.length} problem(s).`,
      errors: problemItems(validation.problems),
    });
  }
  const warnings = validation.problems
    .filter((p) => p.severity === "warning")
    .map(({ path, code, message, messageEs }) => ({ path, code, message, messageEs }));
  const signer = await signerFor(env, company);
  if (givenEncf) {
    const existing = await findReceipt(env, company.id, givenEncf);
    if (existing)
      return { answer: { receipt: resendOf(existing, [req.hashes.document, req.hashes.request]), reenviado: true } };
  }
  return { document: validation.document as Json, range, warnings, signer, abandoned };
}

/** One RPC: the quota unit, the number, its place in the index (the FechaEmision's month) and the key. */
function numberOnce(req: IssueRequest, prepared: Prepared) {
  const { document, range, warnings, abandoned } = prepared;
  const { company, now, idempotency } = req;
  const numbering = () =>
    unwrap(
      req.ledger.numbering().number({
        tipoeCF: req.tipo!,
        givenEncf: req.givenEncf,
        month: isoDate(String(document.Encabezado.Emisor.FechaEmision)).slice(0, 7),
        today: req.today,
        quota: { month: drMonth(now), limit: company.invoiceLimitPerMonth },
        now: now.toISOString(),
        idempotency: idempotency && { ...idempotency, warnings, abandoned },
        rangeExpiresOn: range?.expiresOn,
      }),
    );
  // Part of storage, and timed apart too: the issuer object's share of a receipt's wait.
  return req.inStorage(() => (req.options.times ? req.options.times.time("number", numbering) : numbering()));
}

/**
 * Numbers the prepared document: a request with the same key that numbered first gets its
 * receipt; a range renewed under the request is prepared again (three tries).
 */
async function numberDocument(
  req: IssueRequest,
  first: Prepared,
): Promise<{ prepared: Prepared; numbered: Numbered } | Answered> {
  let prepared = first;
  for (let attempt = 1; ; attempt++) {
    const numbering = await numberOnce(req, prepared);
    if (numbering.held) {
      // A request with the same key numbered first: its receipt. If that request died before
      // recording it, this one takes the claim over, unless it found the claim abandoned already
      // and another request took it over first.
      const outcome = await keyHolderOutcome(req.env, req.company.id, numbering.held, req.now);
      if (outcome !== "abandoned") return { answer: outcome };
      if (prepared.abandoned !== undefined || !("encf" in numbering.held)) throw idempotencyKeyInProgress();
      prepared.abandoned = numbering.held.encf;
    } else if ("rangeChanged" in numbering) {
      // The range is not the one the document was validated against (renewed meanwhile).
      if (attempt === 3) throw rangeChanged();
      const again = await prepare(req, undefined);
      if ("answer" in again) return again;
      prepared = again;
    } else {
      const { numbered } = numbering;
      rememberRange(req.company.id, req.tipo!, { expiresOn: numbered.expiresOn, nextNumber: numbered.number + 1 });
      return { prepared, numbered };
    }
  }
}

function rangeChanged(): ApiProblem {
  return new ApiProblem("conflict", {
    detail: "The e-NCF range changed while the document was being numbered; send it again.",
    errors: [{ path: "/Encabezado/IdDoc/TipoeCF", code: "range_changed", message: "The range changed; send again." }],
  });
}

/** The numbered document as XML, signed, then archived, recorded and transmitted (recordSignedReceipt). */
async function signAndRecord(req: IssueRequest, prepared: Prepared, numbered: Numbered): Promise<IssueOutcome> {
  const { env, company, options } = req;
  const { document, warnings, signer } = prepared;
  await noticeIssuerEvents(env, company, req.ledger, numbered.quotaNearLimit, req.now);
  const idDoc = document.Encabezado.IdDoc as Json;
  idDoc.eNCF = numbered.encf;
  if (idDoc.FechaVencimientoSecuencia !== undefined && numbered.expiresOn)
    idDoc.FechaVencimientoSecuencia = dgiiDate(numbered.expiresOn);
  const signedXml = await signEcfXml(ecfToXml(document), signer.key, signer.certificateDer);
  const recorded = await recordSignedReceipt(env, company, signedXml, {
    documentHash: req.hashes.document,
    source: "api",
    // What the signed bytes read back as (a validated document round-trips exactly): not parsed again.
    document,
    times: options.times,
    contingencyAudit: options.contingencyAudit,
    subscribedEvents: options.subscribedEvents,
    followUp: options.followUp?.(numbered.encf),
  });
  return warnings.length ? { ...recorded, warnings } : recorded;
}

/**
 * This request claimed the key with its number. Once its receipt is recorded the key stays: it
 * answers that receipt. Before that, it is given back so a corrected retry works. (When the month
 * object cannot say, the key stays; its claim is taken over once abandoned.)
 */
async function giveBackKeyIfUnrecorded(req: IssueRequest, numbered: Numbered): Promise<void> {
  if (!req.idempotency) return;
  const recorded = await receiptMonth(req.env, req.company.id, numbered.month)
    .receipts()
    .receipt(numbered.encf)
    .catch(() => undefined);
  if (recorded === null) await req.ledger.numbering().releaseIdempotencyKey(req.idempotency.key, numbered.encf);
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
  options: IssueOptions = {},
): Promise<IssueOutcome | { stored: StoredAnswer }> {
  const { times } = options;
  const hashes = await requestHashes(body);
  const req: IssueRequest = {
    env,
    company,
    body,
    now,
    options,
    tipo: requestedTipo(body),
    givenEncf: requestedEncf(body),
    today: drIsoDate(now),
    hashes,
    idempotency: options.idempotencyKey ? { key: options.idempotencyKey, requestHash: hashes.request } : undefined,
    ledger: issuerLedger(env, company.id),
    inStorage: (work) => (times ? times.time("storage", work) : work()),
  };
  const known = req.tipo ? knownRange(company.id, req.tipo) : undefined;
  const prepared = await prepare(req, known && known.expiresOn >= req.today ? known : undefined);
  if ("answer" in prepared) return prepared.answer;
  const numbering = await numberDocument(req, prepared);
  if ("answer" in numbering) return numbering.answer;
  try {
    return await signAndRecord(req, numbering.prepared, numbering.numbered);
  } catch (error) {
    await giveBackKeyIfUnrecorded(req, numbering.numbered);
    throw error;
  }
}
