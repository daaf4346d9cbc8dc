// Formato 607, Ventas de Bienes y Servicios (formato-606-607-608.txt §2), for issuers that still
// file it: every e-CF of the month DGII accepted, one record each (credit-fiscal, government,
// special regimes, exports, debit and credit notes), except consumer invoices (E32) under
// 250,000, which the Oficina Virtual takes as a summary: their totals are given beside the file
// and they do not count in its header.
//
// Open points decided here:
// - The 250,000 line is the one the receipt was sent by (RFCE or whole e-CF), i.e. MontoTotal
//   with taxes, as the e-CF rules draw it; notes are always listed one by one.
// - Columns 21/22: Bonos (FormaPago 5) before Permuta (6), as in DGII's template.
// - Payment forms: a sale on credit (TipoPago 2) is Venta a Crédito for its MontoTotal, whatever
//   forms it says the buyer is to pay by; otherwise the TablaFormasPago, each form in its column
//   (7, nota de crédito, has none), and without a table TipoPago 1 (contado) in Efectivo; a free
//   delivery (3) and credit notes leave 17–23 empty.
// - Withholding by the buyer (10, 12): what the issuer recorded (PATCH /ventas/{encf}), else what
//   the e-CF declares; its date (7) only the issuer knows, so without it the record is missing.
// - e-NCF (13 characters) in column 3: there is no other number to give.
import { add, dec, decimal, formatMoney, ZERO, type Decimal } from "@ecf/shared";
import type { Receipt } from "../ledger/rows.ts";
import type { SalesHead } from "../ledger/month/month-sales-head.ts";
import type { RfceSums } from "../ledger/month/monthly-rows.ts";
import { figureNotes, type DocumentFigures, type FormaDePago } from "../ledger/month/document-figures.ts";
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

export const COLUMNS_607 = [
  "rncCedulaPasaporte",
  "tipoIdentificacion",
  "numeroComprobanteFiscal",
  "numeroComprobanteFiscalModificado",
  "tipoIngreso",
  "fechaComprobante",
  "fechaRetencion",
  "montoFacturado",
  "itbisFacturado",
  "itbisRetenidoTerceros",
  "itbisPercibido",
  "retencionRentaTerceros",
  "isrPercibido",
  "impuestoSelectivoConsumo",
  "otrosImpuestosTasas",
  "montoPropinaLegal",
  "efectivo",
  "chequeTransferenciaDeposito",
  "tarjetaDebitoCredito",
  "ventaCredito",
  "bonosCertificadosRegalo",
  "permuta",
  "otrasFormasVentas",
] as const;
export type Column607 = (typeof COLUMNS_607)[number];

/** Columns 17–23, in order. */
export const PAYMENT_COLUMNS = [
  "efectivo",
  "chequeTransferenciaDeposito",
  "tarjetaDebitoCredito",
  "ventaCredito",
  "bonosCertificadosRegalo",
  "permuta",
  "otrasFormasVentas",
] as const satisfies readonly Column607[];
type PaymentColumn = (typeof PAYMENT_COLUMNS)[number];

/** The e-CF's FormaPago → its 607 column (7, nota de crédito, has none). */
const PAYMENT_COLUMN_OF: Record<string, PaymentColumn | undefined> = {
  "1": "efectivo",
  "2": "chequeTransferenciaDeposito",
  "3": "tarjetaDebitoCredito",
  "4": "ventaCredito",
  "5": "bonosCertificadosRegalo",
  "6": "permuta",
  "8": "otrasFormasVentas",
};

/** The e-CF types a 607 reports (the issuer's E41, E43 and E47 are purchases: 606). */
export const SALES_TYPES = ["31", "32", "33", "34", "44", "45", "46"] as const;

export interface Line607 extends FormatLine<Column607> {
  encf: string;
  tipoeCF: string;
  /** How the figures were read where the document left something out (figureNotes); absent when nothing. */
  notes?: string[];
}

export interface ConsumerSummary {
  /** E32 under 250,000 accepted in the month. */
  count: number;
  montoFacturado: string;
  itbisFacturado: string;
  impuestoSelectivoConsumo: string;
  otrosImpuestosTasas: string;
  montoPropinaLegal: string;
  montoTotal: string;
  formasPago: Record<PaymentColumn, string>;
}

export type Report607 = MonthlyFormat<Column607, Line607, "607"> & {
  consumptionSummary: ConsumerSummary;
  totals: { montoFacturado: string; itbisFacturado: string };
};

/**
 * The amounts of columns 17–23. Linear in its inputs, so the E32 summary gets the same answer
 * from the month's sums per form as the records get one by one.
 */
export function paymentAmounts(
  formas: readonly FormaDePago[],
  tipoPago: string | null,
  montoTotal: Decimal,
): Record<PaymentColumn, Decimal> {
  const out = Object.fromEntries(PAYMENT_COLUMNS.map((c) => [c, ZERO])) as Record<PaymentColumn, Decimal>;
  if (tipoPago === "2") {
    // A sale on credit is a Venta a Crédito: its FormaPago rows are "el método en que se pagará".
    out.ventaCredito = montoTotal;
  } else if (formas.length) {
    for (const f of formas) {
      const column = PAYMENT_COLUMN_OF[f.formaPago];
      if (column) out[column] = add(out[column], dec(f.montoPago));
    }
  } else if (tipoPago === "1") {
    out.efectivo = montoTotal;
  }
  return out;
}

/** Column 1 and 2: the buyer's RNC or cédula, else its foreign identifier (type 3). */
function buyerId(receipt: Receipt, figures: DocumentFigures): { id: string; tipo: string } {
  const rnc = figures.rncComprador ?? receipt.rncComprador;
  if (rnc) return { id: rnc, tipo: tipoId(rnc) };
  if (figures.identificadorExtranjero) return { id: figures.identificadorExtranjero, tipo: "3" };
  return { id: "", tipo: "" };
}

export function fields607(receipt: Receipt, figures: DocumentFigures): Record<Column607, string> {
  const buyer = buyerId(receipt, figures);
  const creditNote = receipt.tipoeCF === "34";
  const payments = creditNote ? null : paymentAmounts(figures.formasPago, figures.tipoPago, dec(figures.montoTotal));
  return {
    rncCedulaPasaporte: buyer.id,
    tipoIdentificacion: buyer.tipo,
    numeroComprobanteFiscal: receipt.encf,
    numeroComprobanteFiscalModificado: figures.ncfModificado ?? "",
    tipoIngreso: (figures.tipoIngresos ?? "01").padStart(2, "0"),
    fechaComprobante: txtDate(receipt.issueDate),
    fechaRetencion: txtDate(receipt.fechaRetencion),
    montoFacturado: txtAmount(figures.montoFacturado, "0.00"),
    itbisFacturado: txtAmount(figures.itbisFacturado, "0.00"),
    itbisRetenidoTerceros: txtAmount(receipt.itbisRetenidoTerceros ?? figures.itbisRetenido, ""),
    itbisPercibido: "",
    retencionRentaTerceros: txtAmount(receipt.retencionRentaTerceros ?? figures.retencionRenta, ""),
    isrPercibido: "",
    impuestoSelectivoConsumo: txtAmount(figures.isc, ""),
    otrosImpuestosTasas: txtAmount(figures.otrosImpuestos, ""),
    montoPropinaLegal: txtAmount(figures.propinaLegal, ""),
    ...(Object.fromEntries(PAYMENT_COLUMNS.map((c) => [c, payments ? txtAmount(payments[c], "") : ""])) as Record<
      PaymentColumn,
      string
    >),
  };
}

/** Integer cents (SQLite's exact sum, as text) as an amount. */
const cents = (text: string): Decimal => decimal(BigInt(text), 2);

/** The summary of the consumer invoices from the month object's sums (exact cents). */
export function consumerSummary(sums: RfceSums): ConsumerSummary {
  const money = (c: string) => formatMoney(cents(c));
  let formas = paymentAmounts(
    sums.byFormaPago.map((f) => ({ formaPago: f.formaPago, montoPago: formatMoney(cents(f.cents)) })),
    null,
    ZERO,
  );
  for (const t of sums.byTipoPago) {
    const more = paymentAmounts([], t.tipoPago, cents(t.cents));
    formas = Object.fromEntries(PAYMENT_COLUMNS.map((c) => [c, add(formas[c], more[c])])) as Record<
      PaymentColumn,
      Decimal
    >;
  }
  return {
    count: sums.count,
    montoFacturado: money(sums.cents.montoFacturado),
    itbisFacturado: money(sums.cents.itbisFacturado),
    impuestoSelectivoConsumo: money(sums.cents.isc),
    otrosImpuestosTasas: money(sums.cents.otrosImpuestos),
    montoPropinaLegal: money(sums.cents.propinaLegal),
    montoTotal: money(sums.cents.montoTotal),
    formasPago: Object.fromEntries(PAYMENT_COLUMNS.map((c) => [c, formatMoney(formas[c])])) as Record<
      PaymentColumn,
      string
    >,
  };
}

const PENDING = new Set(["signed", "in_process", "contingency"]);
const ACCEPTED = new Set(["accepted", "conditional"]);

function pendingItem(encf: string, status: string): MissingItem {
  return { code: "pending_dgii", message: `${encf} is not final with DGII yet (${status}).`, encf };
}

function retentionDateItem(encf: string): MissingItem {
  return {
    code: "retention_date_missing",
    message: `The buyer withholds on ${encf}: the Fecha de Retención is required.`,
    encf,
    field: "fechaRetencion",
    fixWith: `PATCH /ventas/${encf}`,
  };
}

/**
 * The month object's aggregates (ledger/month/month-sales-head.ts) as what the page-by-page pass over
 * record607 gave: the record count, what is missing in e-NCF order (then the figures still to be
 * read), the totals, and the E32 sums.
 */
export function summary607(head: SalesHead) {
  const missing = head.missing.map((m) =>
    m.kind === "pending_dgii" ? pendingItem(m.encf, m.status) : retentionDateItem(m.encf),
  );
  const unread = head.unread + head.rfce.withoutFigures;
  if (unread > 0) missing.push(figuresPendingItem(unread));
  const totals = {
    montoFacturado: formatMoney(cents(head.cents.montoFacturado)),
    itbisFacturado: formatMoney(cents(head.cents.itbisFacturado)),
  };
  return { count: head.count, missing, totals, rfce: head.rfce };
}

/** What the 607 says before its records: the header and what is missing. */
export function head607(rnc: string, periodo: string, recordCount: number, missing: MissingItem[]) {
  return {
    format: "607" as const,
    rnc,
    period: periodo,
    fileName: dgiiFileName("607", rnc, periodo),
    recordCount,
    complete: missing.length === 0,
    missing,
    warnings: recordLimitWarning("607", recordCount),
  };
}

/** The 607's `totals` summed record by record (the file takes them from SQL, summary607; a test compares the two). */
export function totals607(): ColumnTotals<"montoFacturado" | "itbisFacturado"> {
  return new ColumnTotals(["montoFacturado", "itbisFacturado"] as const);
}

/**
 * A sale as a 607 record (null while not final, not accepted, or an accepted E32 sent as RFCE,
 * which the summary sums) and what it lacks or waits for.
 */
export function record607(
  receipt: Receipt,
  figures: DocumentFigures,
): { line: Line607 | null; missing: MissingItem[] } {
  if (PENDING.has(receipt.status)) return { line: null, missing: [pendingItem(receipt.encf, receipt.status)] };
  if (!ACCEPTED.has(receipt.status)) return { line: null, missing: [] };
  if (receipt.tipoeCF === "32" && receipt.dgiiPath === "rfce") return { line: null, missing: [] };
  const fields = fields607(receipt, figures);
  const missing: MissingItem[] = [];
  if ((fields.itbisRetenidoTerceros || fields.retencionRentaTerceros) && !fields.fechaRetencion) {
    missing.push(retentionDateItem(receipt.encf));
  }
  const notes = figureNotes(figures);
  return { line: { encf: receipt.encf, tipoeCF: receipt.tipoeCF, fields, ...(notes.length && { notes }) }, missing };
}
