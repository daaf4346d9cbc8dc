// The Z report of a shift, from the sales rung up in it: receipts by type, what the sales took by
// payment method, ITBIS, refunds (E34), and the cash the drawer should hold against what was
// counted. Exact decimals throughout; the one rounding (a refund's cash share of a mixed payment)
// is the shared package's half-up division.
import { add, dec, divide, formatMoney, mul, sub, ZERO, type Decimal } from "@ecf/shared/money";
import type { Sale, ShiftPaymentMethod, ZReport } from "../db.ts";
import type { Payment } from "../sale/document.ts";

/** The order the Z report lists payment methods in. */
export const PAYMENT_METHODS: readonly ShiftPaymentMethod[] = ["efectivo", "tarjeta", "transferencia"];

const tipoOf = (sale: Sale) => sale.encf?.slice(1, 3) ?? "";
const totalOf = (sale: Sale) => dec(sale.montoTotal ?? "0");
const itbisOf = (sale: Sale) =>
  dec((sale.document as { Encabezado?: { Totales?: { TotalITBIS?: string } } }).Encabezado?.Totales?.TotalITBIS ?? "0");
const partsOf = (sale: Sale) => (sale.payment as Payment | undefined)?.parts ?? [];

/**
 * The cash handed back for a refund: the refund's share of what the original took in cash (a
 * return goes back the way it was paid). An original this till does not have, or one without a
 * recorded payment, was paid from the drawer: all of it is cash.
 */
export function cashRefunded(refund: Sale, original: Sale | undefined): Decimal {
  const total = totalOf(refund);
  if (!original || partsOf(original).length === 0) return total;
  const cashPart = partsOf(original).find((p) => p.method === "efectivo");
  if (!cashPart) return ZERO;
  const originalTotal = totalOf(original);
  if (originalTotal.coef === 0n) return ZERO;
  return divide(mul(total, dec(cashPart.amount)), originalTotal);
}

/**
 * The Z report of a shift opened with `openingFloat`, over its receipts (`sales`), with the E34's
 * originals (`originals`, by e-NCF) for the cash refunded, and the cash the cashier counted.
 */
export function zReport(
  openingFloat: string,
  sales: readonly Sale[],
  originals: ReadonlyMap<string, Sale>,
  countedCash: string,
): ZReport {
  const byType = new Map<string, { count: number; total: Decimal }>();
  const byMethod = new Map<ShiftPaymentMethod, { count: number; total: Decimal }>();
  let [salesCount, refundCount] = [0, 0];
  let [salesTotal, itbisTotal, refundsTotal, refundsItbis, cashSales, cashRefunds] = [
    ZERO,
    ZERO,
    ZERO,
    ZERO,
    ZERO,
    ZERO,
  ];
  for (const sale of sales) {
    const tipo = tipoOf(sale);
    const type = byType.get(tipo) ?? { count: 0, total: ZERO };
    byType.set(tipo, { count: type.count + 1, total: add(type.total, totalOf(sale)) });
    if (tipo === "34") {
      refundCount++;
      refundsTotal = add(refundsTotal, totalOf(sale));
      refundsItbis = add(refundsItbis, itbisOf(sale));
      cashRefunds = add(cashRefunds, cashRefunded(sale, sale.modifies ? originals.get(sale.modifies) : undefined));
      continue;
    }
    salesCount++;
    salesTotal = add(salesTotal, totalOf(sale));
    itbisTotal = add(itbisTotal, itbisOf(sale));
    for (const part of partsOf(sale)) {
      const method = byMethod.get(part.method) ?? { count: 0, total: ZERO };
      byMethod.set(part.method, { count: method.count + 1, total: add(method.total, dec(part.amount)) });
      if (part.method === "efectivo") cashSales = add(cashSales, dec(part.amount));
    }
  }
  const expected = sub(add(dec(openingFloat), cashSales), cashRefunds);
  return {
    receipts: [...byType.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([tipoeCF, t]) => ({ tipoeCF, count: t.count, total: formatMoney(t.total) })),
    payments: PAYMENT_METHODS.flatMap((method) => {
      const m = byMethod.get(method);
      return m ? [{ method, count: m.count, total: formatMoney(m.total) }] : [];
    }),
    salesCount,
    salesTotal: formatMoney(salesTotal),
    itbisTotal: formatMoney(itbisTotal),
    refunds: { count: refundCount, total: formatMoney(refundsTotal), itbis: formatMoney(refundsItbis) },
    cashSales: formatMoney(cashSales),
    cashRefunds: formatMoney(cashRefunds),
    expectedCash: formatMoney(expected),
    countedCash: formatMoney(dec(countedCash)),
    difference: formatMoney(sub(dec(countedCash), expected)),
  };
}
