// A signed e-CF as an owner reads it: the buyer, the payment terms, the lines, and each total with
// the Spanish label DGII's printed copy uses. No DGII element name leaves this module: a total it
// has no words for is not shown (the printed copy and the XML carry everything).
import { add, dec, formatMoney, isZero, ZERO } from "@ecf/shared/money";

export interface ReceiptReading {
  buyer?: { id: string; name: string; email: string };
  /** Contado, Crédito or Gratuito; the due date and the term of a credit sale; each form of payment. */
  payment: { condicion: string; fechaLimite: string; termino: string; formas: [string, string][] };
  /** #, description, quantity, unit price, amount. */
  lines: string[][];
  /** [label, amount], in the order the printed copy gives them. */
  totals: [string, string][];
}

const CONDICION: Record<string, string> = { "1": "Contado", "2": "Crédito", "3": "Gratuito" };
const FORMA: Record<string, string> = {
  "1": "Efectivo",
  "2": "Cheque, transferencia o depósito",
  "3": "Tarjeta de débito o crédito",
  "4": "Venta a crédito",
  "5": "Bonos o certificados de regalo",
  "6": "Permuta",
  "7": "Nota de crédito",
  "8": "Otras formas de pago",
};
/** Totales' amounts with their printed label (ITBIS1-3 are rates, said in the labels instead). */
const TOTAL_LABELS: [string, string][] = [
  ["MontoGravadoI1", "Subtotal gravado 18 %"],
  ["MontoGravadoI2", "Subtotal gravado 16 %"],
  ["MontoGravadoI3", "Subtotal gravado 0 %"],
  ["MontoExento", "Exento"],
  ["TotalITBIS1", "ITBIS 18 %"],
  ["TotalITBIS2", "ITBIS 16 %"],
  ["TotalITBIS3", "ITBIS 0 %"],
  ["TotalITBIS", "Total ITBIS"],
  ["MontoImpuestoAdicional", "Otros impuestos"],
  ["MontoNoFacturable", "No facturable"],
  ["TotalITBISRetenido", "ITBIS retenido"],
  ["TotalISRRetencion", "ISR retenido"],
  ["MontoTotal", "Total"],
  ["ValorPagar", "Valor a pagar"],
];

export function readReceipt(xml: string): ReceiptReading {
  const doc = new DOMParser().parseFromString(xml, "application/xml");
  const first = (name: string, within: Element | Document = doc) => within.getElementsByTagName(name)[0];
  const text = (name: string, within: Element | Document = doc) => first(name, within)?.textContent?.trim() ?? "";
  const comprador = first("Comprador");
  const id = comprador ? text("RNCComprador", comprador) || text("IdentificadorExtranjero", comprador) : "";
  const name = comprador ? text("RazonSocialComprador", comprador) : "";
  const items = [...doc.getElementsByTagName("Item")];
  const lines = items.map((item) =>
    ["NumeroLinea", "NombreItem", "CantidadItem", "PrecioUnitarioItem", "MontoItem"].map((n) => text(n, item)),
  );
  const totales = first("Totales");
  const totals: [string, string][] = totales
    ? TOTAL_LABELS.filter(([element]) => first(element, totales)).map(([element, label]) => [
        label,
        text(element, totales),
      ])
    : [];
  const discounts = items.reduce((sum, item) => add(sum, dec(text("DescuentoMonto", item) || "0")), ZERO);
  const surcharges = items.reduce((sum, item) => add(sum, dec(text("RecargoMonto", item) || "0")), ZERO);
  const before = Math.max(
    0,
    totals.findIndex(([label]) => label === "Total"),
  );
  if (!isZero(surcharges)) totals.splice(before, 0, ["Recargos", formatMoney(surcharges)]);
  if (!isZero(discounts)) totals.splice(0, 0, ["Descuentos", formatMoney(discounts)]);
  const formas = [...doc.getElementsByTagName("FormaDePago")].map(
    (f) => [FORMA[text("FormaPago", f)] ?? "Otra", text("MontoPago", f)] as [string, string],
  );
  return {
    buyer: id || name ? { id, name, email: comprador ? text("CorreoComprador", comprador) : "" } : undefined,
    payment: {
      condicion: CONDICION[text("TipoPago")] ?? "",
      fechaLimite: text("FechaLimitePago"),
      termino: text("TerminoPago"),
      formas,
    },
    lines,
    totals,
  };
}
