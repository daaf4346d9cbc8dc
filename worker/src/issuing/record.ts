import {
  isoDateFromDgii as isoDate,
  isRfceSummary,
  securityCode,
  timbreForEcf,
  timbreForSignedEcf,
  timbreUrl,
  xmlToEcf,
  type JsonDocument,
} from "@ecf/shared";
import { archiveImmutable, receiptXmlKey } from "../archive/r2.ts";
import { documentFigures } from "../ledger/month/document-figures.ts";
import { auditMonth, receiptMonth } from "../ledger/client.ts";
import type { Company } from "../db/tables.ts";
import type { DgiiMessage } from "../dgii/errors.ts";
import type { PhaseTimes } from "./timing.ts";
import type { AuditEntry, NewReceipt, Receipt } from "../ledger/rows.ts";
import type { ValidationWarning } from "../answers/receipt-schema.ts";
import type { NewTask } from "../ledger/month/task-types.ts";
import type { EventType } from "@ecf/shared/webhook-events";
import { dgiiStatusFor } from "../dgii/for-company.ts";
import {
  pollDelays,
  transmitReceipt,
  UNAVAILABLE_MENSAJES,
  unavailableMensajes,
  type ReceiptStore,
} from "./transmit.ts";

type Json = Record<string, any>;

/** `work`, its time added to `phase` when the request collects times. */
async function timed<T>(times: PhaseTimes | undefined, phase: string, work: () => Promise<T>): Promise<T> {
  return times ? times.time(phase, work) : work();
}

export interface IssueOutcome {
  receipt: Receipt;
  /** True when the receipt already existed and nothing was done again. */
  reenviado: boolean;
  /** Validation warnings of this request (e.g. a failed RNC check digit, an assumed TipoIngresos). */
  warnings?: ValidationWarning[];
  /** True when the request's audit entry (`RecordOptions.contingencyAudit`) was written with the receipt. */
  audited?: boolean;
  /** True when this is the receipt an earlier request with the same `Idempotency-Key` issued. */
  replayed?: boolean;
}

/** The audit entry a request writes for a receipt of its own left in contingency. */
export type ContingencyAudit = (
  encf: string,
  mensajes: readonly DgiiMessage[],
) => Omit<AuditEntry, "companyId" | "createdAt">;

export interface RecordOptions {
  /** What tells a retry of the same receipt from a different one with the same e-NCF. */
  documentHash: string;
  source: "api" | "device";
  /**
   * The document the signed XML was serialized from, when the caller built it (the API): what
   * `xmlToEcf` would read back from the signed bytes, so they are not parsed again.
   */
  document?: JsonDocument;
  /** Collects `storage` (R2 archive, ledger record) and `transmit` (everything with DGII). */
  times?: PhaseTimes;
  /**
   * The request's audit entry should the receipt be left in contingency: written in the same
   * transaction as the receipt when both belong in one month object (the audit log is kept by UTC
   * month, receipts by FechaEmision's), saving the request the two ledger writes of its own.
   */
  contingencyAudit?: ContingencyAudit;
  /**
   * The event types some webhook endpoint hearing the issuer is subscribed to, as the request read
   * them: the receipt's changes made by the request queue no other event. Unset: every event.
   */
  subscribedEvents?: readonly EventType[];
  /** Follow-up work the receipt owes (an exchanged E32's credit note), queued in its record. */
  followUp?: NewTask[];
}

export interface ArchivedReceipt {
  /** The month object it belongs in (its FechaEmision's, yyyy-MM). */
  month: string;
  row: NewReceipt;
}

/**
 * The signed bytes archived in R2 (immutable) and the ledger row that describes them, read from
 * the signed document: what has to exist before a receipt is recorded, however it is sent.
 */
export async function archiveSignedReceipt(
  env: Env,
  company: Company,
  signedXml: string,
  options: Pick<RecordOptions, "documentHash" | "source" | "document">,
): Promise<ArchivedReceipt> {
  const document = (options.document ?? xmlToEcf(signedXml)) as Json;
  const idDoc = document.Encabezado.IdDoc as Json;
  const encf = String(idDoc.eNCF);
  const totales = document.Encabezado.Totales as Json;
  const comprador = (document.Encabezado.Comprador ?? {}) as Json;
  const fechaEmision = String(document.Encabezado.Emisor.FechaEmision);
  const reference = (document.InformacionReferencia ?? {}) as Json;
  const codigoSeguridad = securityCode(signedXml);
  // The timbre is read from the signed bytes, as DGII and the printed copy read it (or from the
  // document they were serialized from, which holds the same leaves).
  const timbre = options.document
    ? timbreForEcf(document, codigoSeguridad, company.dgiiEnvironment)
    : timbreForSignedEcf(signedXml, company.dgiiEnvironment);
  const archived = await archiveImmutable(
    env.ARCHIVE,
    receiptXmlKey(company.rnc, encf, fechaEmision),
    signedXml,
    "application/xml",
  );
  const row: NewReceipt = {
    id: crypto.randomUUID(),
    companyId: company.id,
    encf,
    tipoeCF: String(idDoc.TipoeCF),
    issueDate: isoDate(fechaEmision),
    rncComprador: comprador.RNCComprador ?? null,
    razonSocialComprador: comprador.RazonSocialComprador ?? null,
    montoTotal: String(totales.MontoTotal),
    totalItbis: totales.TotalITBIS !== undefined ? String(totales.TotalITBIS) : null,
    securityCode: codigoSeguridad,
    fechaHoraFirma: String(document.FechaHoraFirma),
    timbreUrl: timbreUrl(timbre),
    xmlKey: archived.key,
    xmlSha256: archived.sha256,
    documentHash: options.documentHash,
    dgiiPath: isRfceSummary(document) ? "rfce" : "ecf",
    status: "signed",
    source: options.source,
    ncfModificado: reference.NCFModificado ?? null,
    codigoModificacion: reference.CodigoModificacion ?? null,
    // What the 606/607 take from it, read now while the document is parsed anyway.
    figures: JSON.stringify(documentFigures(document)),
  };
  return { month: isoDate(fechaEmision).slice(0, 7), row };
}

/**
 * The second half of a receipt's life, shared by the API (which signs here) and paired devices
 * (which sign offline): archive the signed bytes in R2, record the receipt in its month object
 * (the e-NCF was numbered or admitted by the issuer object before), then transmit it and poll
 * briefly. One row per e-NCF: a second record of the same receipt returns the first
 * (`reenviado`), so a retry after a lost response never makes a second receipt.
 */
export async function recordSignedReceipt(
  env: Env,
  company: Company,
  signedXml: string,
  options: RecordOptions,
): Promise<IssueOutcome> {
  const { times } = options;
  const storageStarted = performance.now();
  // Part of storage, timed apart too (as the record below): where a receipt's wait goes.
  const archived = await timed(times, "archive", () => archiveSignedReceipt(env, company, signedXml, options));
  const month = receiptMonth(env, company.id, archived.month);
  times?.add("storage", performance.now() - storageStarted);
  // DGII's status service first (its answer is remembered a few seconds per isolate): when it
  // says down, the receipt is recorded straight in contingency for the alarm, in one round trip.
  const dgii = await timed(times, "transmit", () =>
    dgiiStatusFor(env, company, times && ((_what, ms) => times.add("dgii", ms))),
  );
  if (!dgii.up) {
    const now = new Date();
    const audit =
      options.contingencyAudit && auditMonth(now) === archived.month
        ? {
            ...options.contingencyAudit(archived.row.encf, UNAVAILABLE_MENSAJES),
            companyId: company.id,
            createdAt: now.toISOString(),
          }
        : undefined;
    const recorded = await timed(times, "storage", () =>
      timed(times, "record", () =>
        month.receipts().recordInContingency(archived.row, unavailableMensajes(), {
          audit,
          subscribedEvents: options.subscribedEvents,
          dgiiDownUntil: dgii.until,
          followUp: options.followUp,
        }),
      ),
    );
    return {
      receipt: recorded.receipt,
      reenviado: recorded.existed,
      audited: audit !== undefined && !recorded.existed,
    };
  }
  const recorded = await timed(times, "storage", () =>
    timed(times, "record", () => month.receipts().record(archived.row, options.followUp)),
  );
  if (recorded.existed) return { receipt: recorded.receipt, reenviado: true };
  const receipt = recorded.receipt;
  // A request polls only the first few delays; the month object's alarm finishes anything slower
  // (and anything this request does not finish because it dies: its claim lapses).
  const store: ReceiptStore = { advance: (id, step) => month.receipts().advance(id, step, options.subscribedEvents) };
  const sent = await timed(times, "transmit", () =>
    transmitReceipt(env, store, receipt, signedXml, {
      delays: pollDelays(env).slice(0, 3),
      times,
      company,
      dgiiUp: dgii.up,
    }),
  );
  const released = await month.receipts().release(sent.id);
  return { receipt: released ?? sent, reenviado: false };
}

export type BackgroundRecord = { receipt: Receipt; existed: boolean } | { failed: string };

/**
 * Many signed receipts recorded for the ledger to transmit in the background (the month object's
 * alarm sends them, as it sends a receipt whose request died): each archived in R2, then one RPC
 * per month object records that month's receipts in the order given, months in order of first
 * appearance. The first failure stops the recording: nothing after a receipt that failed is
 * recorded, so the order holds when the caller sends the failed ones again. One row per e-NCF:
 * a receipt already recorded comes back as it is (`existed`).
 */
export async function recordForBackground(
  env: Env,
  company: Company,
  receipts: { xml: string; documentHash: string }[],
): Promise<BackgroundRecord[]> {
  const archived = await Promise.allSettled(
    receipts.map((r) => archiveSignedReceipt(env, company, r.xml, { documentHash: r.documentHash, source: "device" })),
  );
  const results: BackgroundRecord[] = receipts.map(() => ({
    failed: "Not recorded: an earlier receipt of the batch failed.",
  }));
  const firstFailure = archived.findIndex((a) => a.status === "rejected");
  const ready = (firstFailure === -1 ? archived : archived.slice(0, firstFailure)).map(
    (a) => (a as PromiseFulfilledResult<ArchivedReceipt>).value,
  );
  if (firstFailure !== -1)
    results[firstFailure] = {
      failed: `Archive failed: ${String((archived[firstFailure] as PromiseRejectedResult).reason)}`,
    };
  for (const month of new Set(ready.map((a) => a.month))) {
    const indexes = ready.flatMap((a, i) => (a.month === month ? [i] : []));
    try {
      const recorded = await receiptMonth(env, company.id, month)
        .receipts()
        .recordForAlarm(indexes.map((i) => ready[i]!.row));
      indexes.forEach((index, k) => (results[index] = recorded[k]!));
    } catch (error) {
      for (const i of indexes)
        results[i] = { failed: `Record failed: ${error instanceof Error ? error.message : String(error)}` };
      break;
    }
  }
  return results;
}
