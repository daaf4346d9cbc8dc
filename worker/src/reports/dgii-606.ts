// Formato 606, Compras de Bienes y Servicios (formato-606-607-608.txt §1): the month's purchases
// (the e-CF suppliers sent us, in the month of their FechaEmision) and the issuer's own E41
// (Compras), E43 (Gastos Menores) and E47 (Pagos al Exterior), which are purchases it documented
// itself. 23 fields per record. A record that lacks what the buyer must add (the classification,
// a payment date for a withholding) is listed as missing, and the file is not complete.
import { compare, dec, decimal, formatMoney, isZero, sub, ZERO } from "@ecf/shared";
import { type PurchasesHead, type ResolvedRow, TOTALLED_606 } from "../ledger/month/purchases-head-shape.ts";
import type { Purchase, Receipt } from "../ledger/rows.ts";
import type { SupplierDefault } from "../ledger/issuer/supplier-defaults.ts";
import {
  classificationGaps,
  formaPagoOfDocument,
  resolvePurchase,
  resolvedView,
  type Resolved606,
} from "../receiving/purchase-classification.ts";
import { purchaseCounts } from "../receiving/purchase-confirmation.ts";
import { figureNotes, type DocumentFigures } from "../ledger/month/document-figures.ts";

const notesOf = (figures: DocumentFigures) => {
  const notes = figureNotes(figures);
  return notes.length ? { notes } : {};
};
import {
  ColumnTotals,
  dgiiFileName,
  figuresPendingItem,
  recordLimitWarning,
  tipoId,
  txtAmount,
  txtDate,
  type FormatLine,
  type MissingItem,
  type MonthlyFormat,
} from "./dgii-txt.ts";

export const COLUMNS_606 = [
  "rncCedula",
  "tipoId",
  "tipoBienesServiciosComprados",
  "ncf",
  "ncfDocumentoModificado",
  "fechaComprobante",
  "fechaPago",
  "montoFacturadoServicios",
  "montoFacturadoBienes",
  "totalMontoFacturado",
  "itbisFacturado",
  "itbisRetenido",
  "itbisSujetoProporcionalidad",
  "itbisLlevadoCosto",
  "itbisPorAdelantar",
  "itbisPercibidoCompras",
  "tipoRetencionIsr",
  "montoRetencionRenta",
  "isrPercibidoCompras",
  "impuestoSelectivoConsumo",
  "otrosImpuestosTasas",
  "montoPropinaLegal",
  "formaPago",
] as const;
export type Column606 = (typeof COLUMNS_606)[number];

/** The issuer's own types that document a purchase; each is reported in the 606. */
export const OWN_PURCHASE_TYPES = ["41", "43", "47"] as const;

export interface Line606 extends FormatLine<Column606> {
  /** "purchase": a supplier's e-CF (its purchase id); "own": the issuer's own E41/E43/E47. */
  source: "purchase" | "own";
  id: string;
  encf: string;
  tipoeCF: string;
  /** What the record reports beside the document's figures, and where each value came from. */
  classification: ReturnType<typeof resolvedView>;
  /** How the figures were read where the document left something out (figureNotes); absent when nothing. */
  notes?: string[];
}

export type Report606 = MonthlyFormat<Column606, Line606, "606"> & {
  totals: Record<(typeof TOTALLED_606)[number], string>;
  /** Received e-CF left out, and why (a commercially rejected invoice is not a purchase). */
  excluded: { id: string; encf: string; rncEmisor: string; reason: string }[];
};

const PENDING = new Set(["signed", "in_process", "contingency"]);
const ACCEPTED = new Set(["accepted", "conditional"]);

/**
 * The issuer's own E41/E43/E47 fill themselves from their content: the counterparty (E41: the
 * seller, named in Comprador; E43 and E47: the issuer itself, §1 field 1), the payment date (the
 * document is issued when paying, so its FechaEmision), the payment form (TablaFormasPago, or cash
 * when paid at once), the withholdings it declares (E47's ISR goes to the 609, not here, §1
 * field 18). The kind of expense is not in the document: the counterparty's defaults give it, else
 * the type's usual one: E43 petty expenses and E47 payments abroad are 02 (trabajos, suministros y
 * servicios); an E41 buying only services is 02, else 09 (goods that become cost of sales). ISR
 * withheld on an E41 is on services only (formato-ecf field 117), so 02 (honorarios por servicios).
 */
export function resolveOwn(
  receipt: Receipt,
  figures: DocumentFigures,
  counterparty: SupplierDefault | null,
): Resolved606 {
  const sources: Resolved606["sources"] = {};
  const onlyServices = isZero(dec(figures.montoBienes)) && !isZero(dec(figures.montoServicios));
  const rule = receipt.tipoeCF === "41" && !onlyServices ? "09" : "02";
  const retencionRenta = receipt.tipoeCF === "47" ? ZERO : dec(figures.retencionRenta ?? "0");
  const itbisRetenido = dec(figures.itbisRetenido ?? "0");
  const formaDocumento = formaPagoOfDocument(figures, "01");
  const tipoBienesServicios = counterparty?.tipoBienesServicios ?? rule;
  sources.tipoBienesServicios = counterparty?.tipoBienesServicios ? "supplier" : "rule";
  sources.fechaPago = "document";
  const formaPago = formaDocumento ?? counterparty?.formaPago ?? null;
  if (formaPago) sources.formaPago = formaDocumento ? "document" : "supplier";
  if (figures.itbisRetenido) sources.itbisRetenido = "document";
  if (!isZero(retencionRenta)) sources.montoRetencionRenta = "document";
  const tipoRetencionIsr = isZero(retencionRenta) ? null : (counterparty?.tipoRetencionIsr ?? "02");
  if (tipoRetencionIsr) sources.tipoRetencionIsr = counterparty?.tipoRetencionIsr ? "supplier" : "rule";
  return {
    tipoBienesServicios,
    fechaPago: receipt.issueDate,
    formaPago,
    tipoRetencionIsr,
    itbisRetenido,
    montoRetencionRenta: retencionRenta,
    itbisAlCosto: ZERO,
    itbisProporcionalidad: ZERO,
    sources,
  };
}

/** The 23 fields of one record. */
export function fields606(
  rnc: string,
  ncf: string,
  issueDate: string,
  figures: DocumentFigures,
  r: Resolved606,
): Record<Column606, string> {
  const itbis = dec(figures.itbisFacturado);
  const withholdsIsr = !isZero(r.montoRetencionRenta);
  return {
    rncCedula: rnc,
    tipoId: tipoId(rnc),
    tipoBienesServiciosComprados: r.tipoBienesServicios ?? "",
    ncf,
    ncfDocumentoModificado: figures.ncfModificado ?? "",
    fechaComprobante: txtDate(issueDate),
    fechaPago: txtDate(r.fechaPago),
    montoFacturadoServicios: txtAmount(figures.montoServicios, "0.00"),
    montoFacturadoBienes: txtAmount(figures.montoBienes, "0.00"),
    totalMontoFacturado: txtAmount(figures.montoFacturado, "0.00"),
    itbisFacturado: txtAmount(itbis, "0.00"),
    itbisRetenido: txtAmount(r.itbisRetenido, ""),
    itbisSujetoProporcionalidad: txtAmount(r.itbisProporcionalidad, ""),
    itbisLlevadoCosto: txtAmount(r.itbisAlCosto, ""),
    // 15 = 11 − 14 (never below zero: 14 above 11 is listed as missing instead).
    itbisPorAdelantar: txtAmount(compare(r.itbisAlCosto, itbis) > 0 ? ZERO : sub(itbis, r.itbisAlCosto), "0.00"),
    itbisPercibidoCompras: "",
    // Column 17 only beside an ISR withholding (column 18).
    tipoRetencionIsr: withholdsIsr ? (r.tipoRetencionIsr ?? "") : "",
    montoRetencionRenta: txtAmount(r.montoRetencionRenta, ""),
    isrPercibidoCompras: "",
    impuestoSelectivoConsumo: txtAmount(figures.isc, ""),
    otrosImpuestosTasas: txtAmount(figures.otrosImpuestos, ""),
    montoPropinaLegal: txtAmount(figures.propinaLegal, ""),
    formaPago: r.formaPago ?? "",
  };
}

/** The counterparty of an own E41/E43/E47 (606 field 1). */
export function ownCounterparty(receipt: Receipt, figures: DocumentFigures, issuerRnc: string): string {
  return receipt.tipoeCF === "41" ? (figures.rncComprador ?? receipt.rncComprador ?? issuerRnc) : issuerRnc;
}

const UNCONFIRMED_REASON: Record<Purchase["dgiiStatus"], string> = {
  pending: "Not confirmed by DGII yet (consultaestado): it enters once DGII knows it as Aceptado.",
  not_found_at_dgii:
    "not_found_at_dgii: DGII does not know this e-CF. Override with POST /compras/{id}/confirmacion-manual.",
  rejected: "Rechazado by DGII: not a valid e-CF.",
  confirmed: "",
  conditional: "",
};

/** What the 606 says before its records: the header and what is missing. */
export function head606(rnc: string, periodo: string, recordCount: number, missing: MissingItem[]) {
  return {
    format: "606" as const,
    rnc,
    period: periodo,
    fileName: dgiiFileName("606", rnc, periodo),
    recordCount,
    complete: missing.length === 0,
    missing,
    warnings: recordLimitWarning("606", recordCount),
  };
}

/** The 606's sort key (DGII's tools list records in this order; ledger/month/format-order.ts pages by it). */
export function key606(line: Line606): string {
  return `${line.fields.fechaComprobante}|${line.fields.rncCedula}|${line.fields.ncf}`;
}

/** The sums of TOTALLED_606, kept while the records go by. */
export function totals606(): ColumnTotals<(typeof TOTALLED_606)[number]> {
  return new ColumnTotals(TOTALLED_606);
}

/** Why a received e-CF is left out of the 606, or null when it is a purchase. */
function exclusionReason(purchase: Pick<Purchase, "approvalStatus" | "dgiiStatus" | "dgiiOverrideReason">) {
  if (purchase.approvalStatus === "rejected") return "Rechazado comercialmente (ACECF): not a purchase of the buyer.";
  // Only an e-CF DGII knows (or one the accountant overrode) is a purchase: anyone can post one.
  if (!purchaseCounts(purchase)) return UNCONFIRMED_REASON[purchase.dgiiStatus];
  return null;
}

export type Excluded606 = Report606["excluded"][number];

/** A supplier's e-CF as a 606 record with what it lacks, or why it is left out. */
export function purchaseRecord606(
  purchase: Purchase,
  figures: DocumentFigures,
  defaults: ReadonlyMap<string, SupplierDefault>,
): { excluded: Excluded606 } | { line: Line606; missing: MissingItem[] } {
  const reason = exclusionReason(purchase);
  if (reason !== null) {
    return { excluded: { id: purchase.id, encf: purchase.encf, rncEmisor: purchase.rncEmisor, reason } };
  }
  const resolved = resolvePurchase(purchase, figures, defaults.get(purchase.rncEmisor) ?? null);
  const missing = classificationGaps(resolved, figures).map((gap) => ({
    ...gap,
    id: purchase.id,
    encf: purchase.encf,
    rnc: purchase.rncEmisor,
    fixWith: `PATCH /compras/${purchase.id}`,
  }));
  const line: Line606 = {
    source: "purchase",
    id: purchase.id,
    encf: purchase.encf,
    tipoeCF: purchase.tipoeCF,
    classification: resolvedView(resolved),
    fields: fields606(purchase.rncEmisor, purchase.encf, purchase.issueDate, figures, resolved),
    ...notesOf(figures),
  };
  return { line, missing };
}

const pendingItem = (encf: string, status: string): MissingItem => ({
  code: "pending_dgii",
  message: `${encf} is not final with DGII yet (${status}).`,
  encf,
});

/** An own E41/E43/E47 as a 606 record (null while not final, or not accepted) and what it lacks or waits for. */
export function ownRecord606(
  receipt: Receipt,
  figures: DocumentFigures,
  issuerRnc: string,
  defaults: ReadonlyMap<string, SupplierDefault>,
): { line: Line606 | null; missing: MissingItem[] } {
  if (PENDING.has(receipt.status)) return { line: null, missing: [pendingItem(receipt.encf, receipt.status)] };
  if (!ACCEPTED.has(receipt.status)) return { line: null, missing: [] };
  const counterparty = ownCounterparty(receipt, figures, issuerRnc);
  const resolved = resolveOwn(receipt, figures, defaults.get(counterparty) ?? null);
  const missing = classificationGaps(resolved, figures).map((gap) => ({
    ...gap,
    encf: receipt.encf,
    rnc: counterparty,
    fixWith: `PUT /proveedores/${counterparty}/clasificacion`,
  }));
  const line: Line606 = {
    source: "own",
    id: receipt.encf,
    encf: receipt.encf,
    tipoeCF: receipt.tipoeCF,
    classification: resolvedView(resolved),
    fields: fields606(counterparty, receipt.encf, receipt.issueDate, figures, resolved),
    ...notesOf(figures),
  };
  return { line, missing };
}

/** A row the month object resolved (ledger/month/month-purchases-head.ts) as `resolvePurchase`/`resolveOwn` give it. */
function resolvedOfRow(row: ResolvedRow): Resolved606 {
  const cents = (value: number) => decimal(BigInt(value), 2);
  return {
    tipoBienesServicios: row.tipoBienesServicios,
    fechaPago: row.fechaPago,
    formaPago: row.formaPago,
    tipoRetencionIsr: row.tipoRetencionIsr,
    itbisRetenido: cents(row.itbisRetenido),
    montoRetencionRenta: cents(row.montoRetencionRenta),
    itbisAlCosto: cents(row.itbisAlCosto),
    itbisProporcionalidad: ZERO,
    sources: {},
  };
}

/**
 * The month object's SQL pass (ledger/month/month-purchases-head.ts) as what the page-by-page pass over
 * purchaseRecord606 and ownRecord606 gave: the record count, what is missing (the purchases' in id
 * order, then the own documents' in e-NCF order, then the figures still to be read), the totals
 * and the purchases left out.
 */
export function summary606(head: PurchasesHead) {
  const missing: MissingItem[] = [];
  for (const row of head.incomplete)
    for (const gap of classificationGaps(resolvedOfRow(row), row))
      missing.push({ ...gap, id: row.id, encf: row.encf, rnc: row.rncEmisor, fixWith: `PATCH /compras/${row.id}` });
  for (const row of head.own) {
    if (PENDING.has(row.status)) missing.push(pendingItem(row.encf, row.status));
    else
      for (const gap of classificationGaps(resolvedOfRow(row), row))
        missing.push({
          ...gap,
          encf: row.encf,
          rnc: row.counterparty,
          fixWith: `PUT /proveedores/${row.counterparty}/clasificacion`,
        });
  }
  if (head.unread > 0) missing.push(figuresPendingItem(head.unread));
  const excluded = head.excluded.map((p) => ({
    id: p.id,
    encf: p.encf,
    rncEmisor: p.rncEmisor,
    reason: exclusionReason(p) ?? "",
  }));
  const totals = Object.fromEntries(
    TOTALLED_606.map((c) => [c, formatMoney(decimal(BigInt(head.cents[c]), 2))]),
  ) as Report606["totals"];
  return { count: head.count, missing, totals, excluded };
}
