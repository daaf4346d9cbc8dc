import { isoDateFromDgii as isoDate, isRfceSummary, securityCode, timbreForSignedEcf, timbreUrl, xmlToEcf } from "@ecf/shared";
import { archiveImmutable, receiptXmlKey } from "../archive/r2.ts";
import { receiptMonth } from "../ledger/client.ts";
import type { Company } from "../db/schema.ts";
import type { PhaseTimes } from "./timing.ts";
import type { Receipt } from "../ledger/schema.ts";
import { pollDelays, transmitReceipt, type ReceiptStore } from "./transmit.ts";

type Json = Record<string, any>;

export interface IssueOutcome {
  receipt: Receipt;
  /** True when the receipt already existed and nothing was done again. */
  reenviado: boolean;
  /** Validation warnings of this request (e.g. a failed RNC check digit, an assumed TipoIngresos). */
  warnings?: { path: string; code: string; message: string; messageEs?: string }[];
}

export interface RecordOptions {
  /** What tells a retry of the same receipt from a different one with the same e-NCF. */
  documentHash: string;
  source: "api" | "device";
  /** Collects `storage` (R2 archive, ledger record) and `transmit` (everything with DGII). */
  times?: PhaseTimes;
}

/**
 * The second half of a receipt's life, shared by the API (which signs here) and paired devices
 * (which sign offline): archive the signed bytes in R2, record the receipt in its month object
 * (the e-NCF was numbered or admitted by the issuer object before), then transmit it and poll
 * briefly. One row per e-NCF: a second record of the same receipt returns the first
 * (`reenviado`), so a retry after a lost response never makes a second receipt.
 */
export async function recordSignedReceipt(env: Env, company: Company, signedXml: string, options: RecordOptions): Promise<IssueOutcome> {
  const document = xmlToEcf(signedXml) as Json;
  const idDoc = document.Encabezado.IdDoc as Json;
  const encf = String(idDoc.eNCF);

  const codigoSeguridad = securityCode(signedXml);
  const totales = document.Encabezado.Totales as Json;
  const comprador = (document.Encabezado.Comprador ?? {}) as Json;
  const fechaEmision = String(document.Encabezado.Emisor.FechaEmision);
  const fechaFirma = String(document.FechaHoraFirma);
  const rfce = isRfceSummary(document);
  // The timbre is read from the signed bytes, as DGII and the printed copy read it.
  const urlTimbre = timbreUrl(timbreForSignedEcf(signedXml, company.dgiiEnvironment));

  const storageStarted = performance.now();
  const archived = await archiveImmutable(env.ARCHIVE, receiptXmlKey(company.rnc, encf, fechaEmision), signedXml, "application/xml");
  const reference = (document.InformacionReferencia ?? {}) as Json;
  const month = receiptMonth(env, company.id, isoDate(fechaEmision).slice(0, 7));
  const recorded = await month.record({
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
    fechaHoraFirma: fechaFirma,
    timbreUrl: urlTimbre,
    xmlKey: archived.key,
    xmlSha256: archived.sha256,
    documentHash: options.documentHash,
    dgiiPath: rfce ? "rfce" : "ecf",
    status: "signed",
    source: options.source,
    ncfModificado: reference.NCFModificado ?? null,
    codigoModificacion: reference.CodigoModificacion ?? null,
  });
  options.times?.add("storage", performance.now() - storageStarted);
  if (recorded.existed) return { receipt: recorded.receipt, reenviado: true };
  const receipt = recorded.receipt;
  // A request polls only the first few delays; the month object's alarm finishes anything slower
  // (and anything this request does not finish because it dies: its claim lapses).
  const store: ReceiptStore = { update: (id, changes) => month.update(id, changes) };
  const transmitStarted = performance.now();
  const sent = await transmitReceipt(env, store, receipt, signedXml, { delays: pollDelays(env).slice(0, 3), times: options.times, company });
  options.times?.add("transmit", performance.now() - transmitStarted);
  const released = await month.release(sent.id);
  return { receipt: released ?? sent, reenviado: false };
}
