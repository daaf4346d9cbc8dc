// From the cart to an e-CF JSON document: E32 by default, E31 when the buyer gives an RNC, E34 for
// a return. Amounts are exact decimals from the shared package; what can be derived (MontoItem,
// totals, dates, IndicadorNotaCredito) is completed by the shared validateEcf.
import {
  add,
  dec,
  formatDecimal,
  formatMoney,
  mul,
  percentOf,
  roundHalfUp,
  sub,
  ZERO,
  type Decimal,
} from "@ecf/shared/money";
import { computeTotals } from "@ecf/shared/totals";
import type { ItbisRate, Product } from "../db.ts";

export interface CartLine {
  product: Product;
  /** Quantity as typed, e.g. "2" or "1.5". */
  quantity: string;
  /** Line discount in percent ("10") or "" for none. */
  discountPercent: string;
}

export type PaymentMethod = "efectivo" | "tarjeta" | "transferencia" | "mixto";

/** TablaFormasPago codes: 1 cash, 2 cheque/transfer/deposit, 3 debit/credit card. */
export const FORMA_PAGO: Record<Exclude<PaymentMethod, "mixto">, string> = {
  efectivo: "1",
  transferencia: "2",
  tarjeta: "3",
};

export interface Payment {
  method: PaymentMethod;
  /** Amounts per method (mixed payments name several). */
  parts: { method: Exclude<PaymentMethod, "mixto">; amount: string }[];
  /** Cash handed over, for the change. */
  cashReceived?: string;
}

export interface Buyer {
  rnc?: string;
  name?: string;
}

export interface Emisor {
  rnc: string;
  legalName: string;
  tradeName?: string | null;
  address?: string | null;
}

const INDICADOR: Record<ItbisRate, string> = { "18": "1", "16": "2", "0": "3", E: "4" };
/** Scale of PrecioUnitarioItem (XSD Decimal20D1or4: up to 4 decimals). */
const UNIT_PRICE_SCALE = 4;

/** Lines taxed at 18 % or 16 %: the only ones IndicadorMontoGravado speaks of (formato-ecf field 7). */
const carriesItbis = (line: CartLine) => line.product.itbis === "18" || line.product.itbis === "16";

/**
 * A document has one IndicadorMontoGravado for all its lines. It is 1 (prices include ITBIS) when any
 * taxed line's price includes it: the shelf price is what the customer was told, so it is kept to
 * the cent, and the lines priced without ITBIS are converted instead (see documentPrice).
 */
export function pricesIncludeItbis(lines: readonly CartLine[]): boolean {
  return lines.some((l) => carriesItbis(l) && l.product.priceIncludesItbis === true);
}

/**
 * PrecioUnitarioItem as the document carries it. In a document with IndicadorMontoGravado 1 a
 * price without ITBIS becomes price × (1 + rate), rounded half up to the 4 decimals DGII allows
 * for a unit price: exact for prices in cents (100.00 → 118.0000), so the customer pays what the
 * price without ITBIS plus ITBIS comes to. The other way round (dividing a shelf price by 1.18)
 * would change the shelf price the customer saw, so it is never done. 0 %, exempt: no ITBIS either way.
 */
export function documentPrice(product: Product, incluido: boolean): Decimal {
  const price = dec(product.price);
  if (!incluido || product.priceIncludesItbis || (product.itbis !== "18" && product.itbis !== "16")) return price;
  return roundHalfUp(add(price, percentOf(price, dec(product.itbis))), UNIT_PRICE_SCALE);
}

/** Quantity × the document's unit price, rounded half up to cents (formato-ecf MontoItem). */
export function lineGross(line: CartLine, incluido = pricesIncludeItbis([line])): Decimal {
  return roundHalfUp(mul(dec(line.quantity), documentPrice(line.product, incluido)));
}

export function lineDiscount(line: CartLine, incluido = pricesIncludeItbis([line])): Decimal {
  if (!line.discountPercent || dec(line.discountPercent).coef === 0n) return ZERO;
  return roundHalfUp(percentOf(lineGross(line, incluido), dec(line.discountPercent)));
}

/** The DetallesItems of a cart, with the line discount as DescuentoMonto. */
export function detailItems(
  lines: readonly CartLine[],
  incluido = pricesIncludeItbis(lines),
): Record<string, unknown>[] {
  return lines.map((line, i) => {
    const discount = lineDiscount(line, incluido);
    const item: Record<string, unknown> = {
      NumeroLinea: String(i + 1),
      IndicadorFacturacion: INDICADOR[line.product.itbis],
      NombreItem: line.product.name,
      IndicadorBienoServicio: line.product.kind,
      CantidadItem: formatDecimal(dec(line.quantity)),
      UnidadMedida: line.product.unit,
      PrecioUnitarioItem: formatDecimal(documentPrice(line.product, incluido)),
    };
    if (discount.coef !== 0n) {
      item.DescuentoMonto = formatMoney(discount);
      item.TablaSubDescuento = [
        {
          TipoSubDescuento: "%",
          SubDescuentoPorcentaje: formatDecimal(dec(line.discountPercent)),
          MontoSubDescuento: formatMoney(discount),
        },
      ];
    }
    item.MontoItem = formatMoney(sub(lineGross(line, incluido), discount));
    return item;
  });
}

export interface DraftInput {
  tipoeCF: "31" | "32" | "34";
  encf: string;
  /** yyyy-MM-dd of the leased block (E31 prints it as FechaVencimientoSecuencia). */
  expiresOn: string;
  emisor: Emisor;
  buyer?: Buyer;
  lines: readonly CartLine[];
  payment?: Payment;
  /** E34: the receipt it credits. */
  reference?: { encf: string; fechaEmision: string; montoTotal: string };
}

const ddMMyyyy = (iso: string) => `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;

/** The e-CF document before completion and signing. */
export function draftDocument(input: DraftInput): Record<string, unknown> {
  const idDoc: Record<string, unknown> = { TipoeCF: input.tipoeCF, eNCF: input.encf };
  if (input.tipoeCF === "31") idDoc.FechaVencimientoSecuencia = ddMMyyyy(input.expiresOn);
  // Conditional on a line taxed at 18 % or 16 % (formato-ecf field 7).
  if (input.lines.some(carriesItbis)) idDoc.IndicadorMontoGravado = pricesIncludeItbis(input.lines) ? "1" : "0";
  idDoc.TipoIngresos = "01";
  idDoc.TipoPago = "1";
  const emisor: Record<string, unknown> = { RNCEmisor: input.emisor.rnc, RazonSocialEmisor: input.emisor.legalName };
  if (input.emisor.tradeName) emisor.NombreComercial = input.emisor.tradeName;
  emisor.DireccionEmisor = input.emisor.address || "N/D";
  const encabezado: Record<string, unknown> = { Version: "1.0", IdDoc: idDoc, Emisor: emisor };
  // A consumer sale still names the buyer area: DGII's own E32 samples say "CONSUMIDOR FINAL".
  const comprador: Record<string, unknown> = {};
  if (input.buyer?.rnc) comprador.RNCComprador = input.buyer.rnc;
  comprador.RazonSocialComprador = input.buyer?.name || "CONSUMIDOR FINAL";
  encabezado.Comprador = comprador;
  const doc: Record<string, unknown> = { Encabezado: encabezado, DetallesItems: detailItems(input.lines) };
  if (input.payment && input.tipoeCF !== "34") {
    idDoc.TablaFormasPago = input.payment.parts.map((p) => ({
      FormaPago: FORMA_PAGO[p.method],
      MontoPago: formatMoney(dec(p.amount)),
    }));
  }
  if (input.reference) {
    doc.InformacionReferencia = {
      NCFModificado: input.reference.encf,
      FechaNCFModificado: input.reference.fechaEmision,
      CodigoModificacion: "3",
    };
  }
  return doc;
}

export interface CartTotals {
  subtotal: Decimal;
  discount: Decimal;
  itbis: Decimal;
  total: Decimal;
}

/** The cart's totals, computed by the shared package exactly as the document will carry them. */
export function cartTotals(lines: readonly CartLine[], tipoeCF: "31" | "32" | "34" = "32"): CartTotals {
  if (lines.length === 0) return { subtotal: ZERO, discount: ZERO, itbis: ZERO, total: ZERO };
  const incluido = pricesIncludeItbis(lines);
  const doc = {
    Encabezado: { IdDoc: { TipoeCF: tipoeCF, IndicadorMontoGravado: incluido ? "1" : "0" } },
    DetallesItems: detailItems(lines, incluido),
  };
  const t = computeTotals(doc).Totales;
  const discount = lines.reduce((s, l) => add(s, lineDiscount(l, incluido)), ZERO);
  const itbis = t.TotalITBIS ? dec(t.TotalITBIS) : ZERO;
  const total = dec(t.MontoTotal);
  return { subtotal: add(sub(total, itbis), discount), discount, itbis, total };
}

/** Change to hand back for a cash payment, or null when the cash does not cover the total. */
export function changeFor(total: Decimal, cashReceived: string): Decimal | null {
  const diff = sub(dec(cashReceived || "0"), total);
  return diff.coef < 0n ? null : diff;
}
