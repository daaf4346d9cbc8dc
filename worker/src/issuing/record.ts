import { isRfceSummary, securityCode, timbreUrl, xmlToEcf } from "@ecf/shared";
import { and, eq } from "drizzle-orm";
import { archiveImmutable, receiptXmlKey } from "../archive/r2.ts";
import { database } from "../db/client.ts";
import { printInBackground } from "../print/receipt-pdf.ts";
import { receipts } from "../db/schema.ts";
import type { Company } from "../tenant/resolve.ts";
import { isoDate } from "./document.ts";
import { countIssued } from "./quota.ts";
import type { PhaseTimes } from "./timing.ts";
import { pollDelays, releaseClaim, transmitReceipt, type Receipt } from "./transmit.ts";

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
  /** True when the e-NCF was just taken for this receipt (no earlier copy can exist). */
  claimed?: boolean;
  now?: Date;
  /** Collects `storage` (R2 archive, D1 record) and `transmit` (everything with DGII). */
  times?: PhaseTimes;
}

/**
 * The second half of a receipt's life, shared by the API (which signs here) and paired devices
 * (which sign offline): archive the signed bytes in R2, record the receipt in D1, then transmit
 * it and poll briefly. One row per issuer and e-NCF: a second upload of the same receipt returns
 * the first (`reenviado`), so a retry after a lost response never makes a second receipt.
 */
export async function recordSignedReceipt(env: Env, company: Company, signedXml: string, options: RecordOptions): Promise<IssueOutcome> {
  const now = options.now ?? new Date();
  const document = xmlToEcf(signedXml) as Json;
  const idDoc = document.Encabezado.IdDoc as Json;
  const encf = String(idDoc.eNCF);
  const db = database(env.DB);
  const findExisting = () => db.query.receipts.findFirst({ where: and(eq(receipts.companyId, company.id), eq(receipts.encf, encf)) });
  if (!options.claimed) {
    const existing = await findExisting();
    if (existing) return { receipt: existing, reenviado: true };
  }

  const codigoSeguridad = securityCode(signedXml);
  const totales = document.Encabezado.Totales as Json;
  const comprador = (document.Encabezado.Comprador ?? {}) as Json;
  const fechaEmision = String(document.Encabezado.Emisor.FechaEmision);
  const fechaFirma = String(document.FechaHoraFirma);
  const rfce = isRfceSummary(document);
  const urlTimbre = timbreUrl(
    rfce
      ? { form: "consultatimbrefc", environment: company.dgiiEnvironment, rncEmisor: company.rnc, encf, montoTotal: String(totales.MontoTotal), codigoSeguridad }
      : { form: "consultatimbre", environment: company.dgiiEnvironment, rncEmisor: company.rnc, rncComprador: comprador.RNCComprador ?? null, encf, fechaEmision, montoTotal: String(totales.MontoTotal), fechaFirma, codigoSeguridad },
  );

  const storageStarted = performance.now();
  const archived = await archiveImmutable(env.ARCHIVE, receiptXmlKey(company.rnc, encf, fechaEmision), signedXml, "application/xml");
  const reference = (document.InformacionReferencia ?? {}) as Json;
  const inserted = await db
    .insert(receipts)
    .values({
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
      // Held by this request while it transmits, so the sweeper leaves it alone.
      claimedUntil: new Date(now.getTime() + 60_000).toISOString(),
    })
    .onConflictDoNothing()
    .returning();
  const receipt = inserted[0];
  options.times?.add("storage", performance.now() - storageStarted);
  if (!receipt) return { receipt: (await findExisting())!, reenviado: true };
  // Every issued receipt gets its printed representation in the archive (in the background).
  printInBackground(env, receipt, signedXml);
  // The API reserved its quota before numbering; a device's receipt is counted on arrival.
  if (options.source === "device") await countIssued(env.DB, company.id, now);

  // A request polls only the first few delays; the queue finishes anything slower.
  const transmitStarted = performance.now();
  const sent = await transmitReceipt(env, receipt, signedXml, { delays: pollDelays(env).slice(0, 3), times: options.times });
  options.times?.add("transmit", performance.now() - transmitStarted);
  await releaseClaim(env.DB, sent.id);
  if (sent.status === "contingency" || sent.status === "in_process") await env.OUTBOX.send({ receiptId: sent.id });
  return { receipt: sent, reenviado: false };
}
