/**
 * The `Totales` and `OtraMoneda` blocks of an e-CF, computed from its detail lines and global
 * discounts/surcharges as formato-ecf (fields 92-137) and informe-tecnico (§12-15) describe them.
 *
 * Everything is exact (bigint decimals); amounts are rounded half-up to 2 decimals once, where DGII
 * defines the amount (a line, a per-rate total, a per-tax total), through `roundHalfUp`.
 */
import { ITBIS_RATES, UNIDAD_GRANEL, impuestoAdicional, type ImpuestoAdicional } from "./catalogs.ts";
import {
  ZERO,
  add,
  dec,
  distribute,
  divide,
  formatDecimal,
  formatMoney,
  isZero,
  mul,
  percentOf,
  roundHalfUp,
  sub,
  sum,
  type Decimal,
  decimal,
  fromMinorUnits,
} from "./money.ts";
import { obligationOf } from "./obligations.ts";
import { codeOf, decimalOf, objAt, objectsOf, textOf, type JsonObject } from "./totals-read.ts";
import { isTipoeCF, type TipoeCF } from "./tipos.ts";

/** The computed `Totales` block; every amount as DGII text ("1234.50"). Keys in XSD order. */
export interface Totales {
  MontoGravadoTotal?: string;
  MontoGravadoI1?: string;
  MontoGravadoI2?: string;
  MontoGravadoI3?: string;
  MontoExento?: string;
  ITBIS1?: string;
  ITBIS2?: string;
  ITBIS3?: string;
  TotalITBIS?: string;
  TotalITBIS1?: string;
  TotalITBIS2?: string;
  TotalITBIS3?: string;
  MontoImpuestoAdicional?: string;
  ImpuestosAdicionales?: ImpuestoAdicionalTotal[];
  MontoTotal: string;
  MontoNoFacturable?: string;
  MontoPeriodo?: string;
  SaldoAnterior?: string;
  MontoAvancePago?: string;
  ValorPagar?: string;
  TotalITBISRetenido?: string;
  TotalISRRetencion?: string;
  TotalITBISPercepcion?: string;
  TotalISRPercepcion?: string;
}

export interface ImpuestoAdicionalTotal {
  TipoImpuesto: string;
  TasaImpuestoAdicional: string;
  MontoImpuestoSelectivoConsumoEspecifico?: string;
  MontoImpuestoSelectivoConsumoAdvalorem?: string;
  OtrosImpuestosAdicionales?: string;
}

export interface OtraMoneda {
  TipoMoneda: string;
  TipoCambio: string;
  MontoGravadoTotalOtraMoneda?: string;
  MontoGravado1OtraMoneda?: string;
  MontoGravado2OtraMoneda?: string;
  MontoGravado3OtraMoneda?: string;
  MontoExentoOtraMoneda?: string;
  TotalITBISOtraMoneda?: string;
  TotalITBIS1OtraMoneda?: string;
  TotalITBIS2OtraMoneda?: string;
  TotalITBIS3OtraMoneda?: string;
  MontoImpuestoAdicionalOtraMoneda?: string;
  ImpuestosAdicionalesOtraMoneda?: ImpuestoAdicionalOtraMonedaTotal[];
  MontoTotalOtraMoneda?: string;
}

export interface ImpuestoAdicionalOtraMonedaTotal {
  TipoImpuestoOtraMoneda: string;
  TasaImpuestoAdicionalOtraMoneda: string;
  MontoImpuestoSelectivoConsumoEspecificoOtraMoneda?: string;
  MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda?: string;
  OtrosImpuestosAdicionalesOtraMoneda?: string;
}

export interface ComputedTotals {
  Totales: Totales;
  OtraMoneda?: OtraMoneda;
}

/** One detail line as the totals see it. */
export interface LineTotals {
  index: number;
  /** IndicadorFacturacion: "0" non-billable, "1" 18 %, "2" 16 %, "3" 0 %, "4" exempt. */
  indicador: string;
  /** round(quantity × price) − DescuentoMonto + RecargoMonto, when quantity and price are readable. */
  computedMontoItem?: Decimal;
  /** The amount the totals use: the line's own MontoItem when sent, else the computed one. */
  montoItem: Decimal;
  descuentoMonto?: Decimal;
  recargoMonto?: Decimal;
}

export interface TotalsOptions {
  /**
   * "document" (default) sums the MontoItem values written in the lines; "recomputed" sums
   * quantity × price per line as DGII's format check does (for the global tolerance check).
   */
  basis?: "document" | "recomputed";
  /**
   * Current ISC específico rates by tax code ("006".."022"): DGII adjusts them quarterly, so the
   * catalog's values are only a snapshot. A rate the client writes in Totales wins over both.
   */
  tasas?: Readonly<Record<string, string>>;
}

const ONE = dec("1");
const GRANEL_MARKUP = dec("1.30");

/** 18 → 1.18 */
function onePlusPercent(rate: Decimal): Decimal {
  return add(ONE, decimal(rate.coef, rate.scale + 2));
}

function money(d: Decimal): string {
  return formatMoney(d);
}

/** Sum of a 2-decimal leaf over table rows. */
function sumOf(rows: readonly JsonObject[], key: string): Decimal | undefined {
  const values = rows.map((r) => decimalOf(r, key)).filter((d): d is Decimal => d !== undefined);
  return values.length ? roundHalfUp(sum(values)) : undefined;
}

/** A sub-discount/surcharge row's amount: its own Monto…, or price × % × quantity. */
function subAmount(
  row: JsonObject,
  montoKey: string,
  pctKey: string,
  typeKey: string,
  price?: Decimal,
  qty?: Decimal,
): Decimal | undefined {
  const monto = decimalOf(row, montoKey);
  if (monto) return monto;
  const pct = decimalOf(row, pctKey);
  if (codeOf(row, typeKey) === "%" && pct && price && qty) return roundHalfUp(mul(percentOf(price, pct), qty));
  return undefined;
}

/** The sum of a line's sub-discounts (or sub-surcharges), when its table has any with an amount. */
function sumOfSubAmounts(
  item: JsonObject,
  table: string,
  montoKey: string,
  pctKey: string,
  typeKey: string,
  price?: Decimal,
  qty?: Decimal,
): Decimal | undefined {
  const rows = objectsOf(item, table);
  if (rows.length === 0) return undefined;
  const amounts = rows
    .map((r) => subAmount(r, montoKey, pctKey, typeKey, price, qty))
    .filter((d): d is Decimal => d !== undefined);
  return amounts.length ? sum(amounts) : undefined;
}

export function lineTotals(item: JsonObject, index: number, options: TotalsOptions = {}): LineTotals {
  const qty = decimalOf(item, "CantidadItem");
  const price = decimalOf(item, "PrecioUnitarioItem");
  const descuentoMonto =
    decimalOf(item, "DescuentoMonto") ??
    sumOfSubAmounts(
      item,
      "TablaSubDescuento",
      "MontoSubDescuento",
      "SubDescuentoPorcentaje",
      "TipoSubDescuento",
      price,
      qty,
    );
  const recargoMonto =
    decimalOf(item, "RecargoMonto") ??
    sumOfSubAmounts(item, "TablaSubRecargo", "MontoSubRecargo", "SubRecargoPorcentaje", "TipoSubRecargo", price, qty);
  let gross = qty && price ? mul(qty, price) : undefined;
  if (gross && descuentoMonto) gross = sub(gross, descuentoMonto);
  if (gross && recargoMonto) gross = add(gross, recargoMonto);
  const computedMontoItem = gross && roundHalfUp(gross);
  const sent = decimalOf(item, "MontoItem");
  const montoItem =
    (options.basis === "recomputed" ? (computedMontoItem ?? sent) : (sent ?? computedMontoItem)) ?? ZERO;
  const line: LineTotals = { index, indicador: codeOf(item, "IndicadorFacturacion") ?? "", montoItem };
  if (computedMontoItem) line.computedMontoItem = computedMontoItem;
  if (descuentoMonto) line.descuentoMonto = descuentoMonto;
  if (recargoMonto) line.recargoMonto = recargoMonto;
  return line;
}

interface GlobalAdjustment {
  kind: "D" | "R";
  bucket: string;
  amount: Decimal;
  norma1007: boolean;
}

/** Global discounts/surcharges (section D) with their amounts (Monto… or % of their bucket). */
function globalAdjustments(doc: unknown, lines: readonly LineTotals[]): GlobalAdjustment[] {
  const out: GlobalAdjustment[] = [];
  const buckets = new Set(lines.map((l) => l.indicador));
  for (const row of objectsOf(doc, "DescuentosORecargos")) {
    const kind = codeOf(row, "TipoAjuste");
    if (kind !== "D" && kind !== "R") continue;
    // Without an explicit indicator, a document whose lines share one rate leaves no doubt.
    const bucket = codeOf(row, "IndicadorFacturacionDescuentooRecargo") ?? (buckets.size === 1 ? [...buckets][0]! : "");
    let amount = decimalOf(row, "MontoDescuentooRecargo");
    if (!amount) {
      const valor = decimalOf(row, "ValorDescuentooRecargo");
      if (valor && codeOf(row, "TipoValor") === "%") {
        const base = sum(lines.filter((l) => l.indicador === bucket).map((l) => l.montoItem));
        amount = roundHalfUp(percentOf(base, valor));
      } else if (valor) amount = valor;
    }
    if (!amount) continue;
    out.push({ kind, bucket, amount, norma1007: codeOf(row, "IndicadorNorma1007") === "1" });
  }
  return out;
}

interface TaxAccumulator {
  tax: ImpuestoAdicional;
  tasa: Decimal;
  amount: Decimal;
}

/** The rate used for an additional tax: the client's (Totales), the caller's, or the catalog's. */
function tasaFor(doc: unknown, tax: ImpuestoAdicional, options: TotalsOptions): Decimal {
  for (const row of objectsOf(objAt(doc, "Encabezado", "Totales"), "ImpuestosAdicionales")) {
    const code = impuestoAdicional(textOf(row, "TipoImpuesto"))?.codigo;
    const t = decimalOf(row, "TasaImpuestoAdicional");
    if (code === tax.codigo && t) return t;
  }
  const override = options.tasas?.[tax.codigo];
  return override !== undefined ? dec(override) : dec(tax.tasa);
}

/** The ISC and other additional taxes of the document, per tax code, plus the ISC per rate bucket. */
function additionalTaxes(
  doc: unknown,
  items: readonly JsonObject[],
  lines: readonly LineTotals[],
  adjustments: readonly GlobalAdjustment[],
  montoGravadoIncluido: boolean,
  options: TotalsOptions,
): { taxes: TaxAccumulator[]; iscByBucket: Map<string, Decimal> } {
  const byCode = new Map<string, TaxAccumulator>();
  const iscByBucket = new Map<string, Decimal>();
  const shares = globalShares(lines, adjustments, montoGravadoIncluido);
  items.forEach((item, i) => {
    const line = lines[i]!;
    for (const { tax, tasa, amount } of lineAdditionalTaxes(doc, item, line.montoItem, shares, options)) {
      const acc = byCode.get(tax.codigo) ?? { tax, tasa, amount: ZERO };
      acc.amount = add(acc.amount, amount);
      byCode.set(tax.codigo, acc);
      if (tax.kind !== "otro") iscByBucket.set(line.indicador, add(iscByBucket.get(line.indicador) ?? ZERO, amount));
    }
  });
  const taxes = [...byCode.values()]
    .sort((a, b) => a.tax.codigo.localeCompare(b.tax.codigo))
    .map((t) => ({ ...t, amount: roundHalfUp(t.amount) }));
  return { taxes, iscByBucket };
}

/** What the "other" taxes of every line share: the global discounts and surcharges, over Σ MontoItem. */
interface GlobalShares {
  totalItems: Decimal;
  discount: Decimal;
  surcharge: Decimal;
  montoGravadoIncluido: boolean;
}

function globalShares(
  lines: readonly LineTotals[],
  adjustments: readonly GlobalAdjustment[],
  montoGravadoIncluido: boolean,
): GlobalShares {
  return {
    totalItems: sum(lines.map((l) => l.montoItem)),
    // A Norma 10-07 discount is not considered (formato-ecf field 109 e).
    discount: sum(adjustments.filter((a) => a.kind === "D" && !a.norma1007).map((a) => a.amount)),
    surcharge: sum(adjustments.filter((a) => a.kind !== "D").map((a) => a.amount)),
    montoGravadoIncluido,
  };
}

/** The figures of a detail line its additional taxes are computed from. */
interface TaxedLine {
  montoItem: Decimal;
  qty: Decimal;
  cantidadReferencia: Decimal;
  subcantidad: Decimal;
  grados: Decimal;
  price: Decimal | undefined;
  precioReferencia: Decimal | undefined;
  granel: boolean;
}

function taxedLine(item: JsonObject, montoItem: Decimal): TaxedLine {
  return {
    montoItem,
    qty: decimalOf(item, "CantidadItem") ?? ZERO,
    cantidadReferencia: decimalOf(item, "CantidadReferencia") ?? ONE,
    subcantidad: decimalOf(objectsOf(item, "TablaSubcantidad")[0], "Subcantidad") ?? ONE,
    grados: decimalOf(item, "GradosAlcohol") ?? ZERO,
    price: decimalOf(item, "PrecioUnitarioItem"),
    precioReferencia: decimalOf(item, "PrecioUnitarioReferencia"),
    granel: codeOf(item, "UnidadMedida") === UNIDAD_GRANEL,
  };
}

/**
 * One line's additional taxes in code order, so the específico comes before the ad valorem that
 * takes it off its base. An "other" tax's amount is left unrounded: it is rounded once per code.
 */
function lineAdditionalTaxes(
  doc: unknown,
  item: JsonObject,
  montoItem: Decimal,
  shares: GlobalShares,
  options: TotalsOptions,
): TaxAccumulator[] {
  const codes = objectsOf(item, "TablaImpuestoAdicional")
    .map((r) => impuestoAdicional(textOf(r, "TipoImpuesto")))
    .filter((t): t is ImpuestoAdicional => t !== undefined);
  if (codes.length === 0) return [];
  const line = taxedLine(item, montoItem);
  const out: TaxAccumulator[] = [];
  let especifico: { amount: Decimal; tasa: Decimal } | undefined;
  for (const tax of [...codes].sort((a, b) => a.codigo.localeCompare(b.codigo))) {
    const tasa = tasaFor(doc, tax, options);
    const amount =
      tax.kind === "otro"
        ? otherTaxAmount(tax, tasa, line, shares)
        : tax.kind === "isc_especifico"
          ? iscEspecificoAmount(tax, tasa, line)
          : iscAdvaloremAmount(tax, tasa, line, especifico);
    if (amount === undefined) continue;
    if (tax.kind === "isc_especifico") especifico = { amount, tasa };
    out.push({ tax, tasa, amount });
  }
  return out;
}

/**
 * An "other" tax (codes 001-005) on the line amount, net of ITBIS when prices include it (codes
 * 001-004). Global discounts/surcharges reach it in proportion to MontoItem (formato-ecf field
 * 109 e/f): discounts for codes 001-004, surcharges for 001, 002 and 004 only; 005 (first
 * registration) gets neither.
 */
function otherTaxAmount(tax: ImpuestoAdicional, tasa: Decimal, line: TaxedLine, shares: GlobalShares): Decimal {
  const n = Number(tax.codigo);
  let base = line.montoItem;
  if (shares.montoGravadoIncluido && n <= 4) base = divide(base, onePlusPercent(dec(ITBIS_RATES["1"])), 10);
  if (!isZero(shares.totalItems)) {
    // this line's share (MontoItem / Σ MontoItem) of the global discounts and surcharges
    const share = (amount: Decimal) => divide(mul(amount, line.montoItem), shares.totalItems, 10);
    if (n <= 4 && !isZero(shares.discount)) base = sub(base, share(shares.discount));
    if ((n === 1 || n === 2 || n === 4) && !isZero(shares.surcharge)) base = add(base, share(shares.surcharge));
  }
  return percentOf(base, tasa);
}

/**
 * The specific ISC: by degrees of alcohol for codes up to 018, by quantity for the others; bulk
 * goods carry none (formato-ecf 107 b).
 */
function iscEspecificoAmount(tax: ImpuestoAdicional, tasa: Decimal, line: TaxedLine): Decimal | undefined {
  if (line.granel) return undefined;
  const { qty, cantidadReferencia, subcantidad, grados } = line;
  return Number(tax.codigo) <= 18
    ? roundHalfUp(
        mul(mul(mul(mul(tasa, decimal(grados.coef, grados.scale + 2)), cantidadReferencia), subcantidad), qty),
      )
    : roundHalfUp(mul(mul(qty, cantidadReferencia), tasa));
}

/**
 * The ad valorem ISC: of bulk goods (codes up to 035) on the marked-up price; otherwise on the
 * reference price with the ITBIS, the line's specific ISC per unit and the ad valorem itself taken out.
 */
function iscAdvaloremAmount(
  tax: ImpuestoAdicional,
  tasa: Decimal,
  line: TaxedLine,
  especifico: { amount: Decimal; tasa: Decimal } | undefined,
): Decimal | undefined {
  const n = Number(tax.codigo);
  const { qty, price, precioReferencia } = line;
  if (n <= 35 && line.granel) {
    if (!price) return undefined;
    return roundHalfUp(mul(mul(mul(price, GRANEL_MARKUP), decimal(tasa.coef, tasa.scale + 2)), qty));
  }
  if (!precioReferencia) return undefined;
  const units = mul(qty, line.cantidadReferencia);
  const sinItbis = divide(precioReferencia, onePlusPercent(dec(ITBIS_RATES["1"])), 10);
  const especificoUnitario =
    n <= 35 ? (especifico && !isZero(units) ? divide(especifico.amount, units, 10) : ZERO) : (especifico?.tasa ?? ZERO);
  const base = divide(sub(sinItbis, especificoUnitario), onePlusPercent(tasa), 10);
  return roundHalfUp(mul(percentOf(base, tasa), units));
}

function tipoOf(doc: unknown): TipoeCF | undefined {
  const t = textOf(objAt(doc, "Encabezado", "IdDoc"), "TipoeCF");
  return isTipoeCF(t) ? t : undefined;
}

/** An E34 that only corrects text (CodigoModificacion 2): total 0.00 and nothing else (DGII 1930/1960). */
export function isTextCorrectionNote(doc: unknown): boolean {
  return tipoOf(doc) === "34" && textOf(objAt(doc, "InformacionReferencia"), "CodigoModificacion") === "2";
}

function allowed(tipo: TipoeCF | undefined, path: string): boolean {
  return tipo === undefined || (obligationOf(path, tipo) ?? 0) !== 0;
}

/** Full computation, also exposing the per-line figures validation needs. */
export function computeTotalsDetailed(
  doc: unknown,
  options: TotalsOptions = {},
  known?: LineTotals[],
): ComputedTotals & { lines: LineTotals[] } {
  const tipo = tipoOf(doc);
  const items = objectsOf(doc, "DetallesItems");
  // `known`: the lines' figures on the document basis, computed by a caller that just read them.
  const lines =
    known && known.length === items.length && options.basis !== "recomputed"
      ? known
      : items.map((item, i) => lineTotals(item, i, options));
  if (isTextCorrectionNote(doc)) return { Totales: { MontoTotal: "0.00" }, lines };

  const incluido = codeOf(objAt(doc, "Encabezado", "IdDoc"), "IndicadorMontoGravado") === "1";
  const adjustments = globalAdjustments(doc, lines);
  const base = taxableBases(lines, adjustments, incluido);
  const has = (k: string) => lines.some((l) => l.indicador === k) || base.has(k);
  const { taxes, iscByBucket } = additionalTaxes(doc, items, lines, adjustments, incluido, options);
  const charged = incluido ? chargedWithItbis(lines, adjustments, iscByBucket) : undefined;
  const figures = taxFigures(base, has, iscByBucket, taxes, charged);

  // Built in XSD order; MontoTotal is set in its place below.
  const t = {} as Totales;
  writeTaxTotals(t, tipo, figures);
  // formato-ecf 110: Monto Gravado Total + Monto Exento + Total ITBIS + Monto Impuesto Adicional.
  const { montoGravadoTotal, exento, totalItbis, montoImpuestoAdicional } = figures;
  const montoTotal = sum([
    montoGravadoTotal ?? ZERO,
    exento ?? ZERO,
    totalItbis ?? ZERO,
    montoImpuestoAdicional ?? ZERO,
  ]);
  t.MontoTotal = money(montoTotal);
  const noFacturable = has("0") ? roundHalfUp(base.get("0") ?? ZERO) : undefined;
  const totales = objAt(doc, "Encabezado", "Totales");
  writeAmountsDue(t, tipo, { montoTotal, noFacturable, adjustments, sent: totales });
  writeWithholdingTotals(t, tipo, items);
  carryPerceptionTotals(t, tipo, totales);

  const result: ComputedTotals & { lines: LineTotals[] } = { Totales: t, lines };
  const om = otraMoneda(doc, t);
  if (om) result.OtraMoneda = om;
  return result;
}

/**
 * Base per IndicadorFacturacion bucket: Σ MontoItem − global discounts + global surcharges.
 * With prices including ITBIS the item sum is first divided by (1 + rate); the global
 * discounts are already net of ITBIS (formato-ecf 93 c, 94 c).
 */
function taxableBases(
  lines: readonly LineTotals[],
  adjustments: readonly GlobalAdjustment[],
  incluido: boolean,
): Map<string, Decimal> {
  const base = new Map<string, Decimal>();
  for (const l of lines) base.set(l.indicador, add(base.get(l.indicador) ?? ZERO, l.montoItem));
  if (incluido) {
    for (const k of ["1", "2"] as const) {
      const b = base.get(k);
      if (b) base.set(k, divide(b, onePlusPercent(dec(ITBIS_RATES[k])), 10));
    }
  }
  for (const a of adjustments) {
    if (a.kind === "D" && a.norma1007) continue; // Norma 10-07: not taken off the taxable amount
    base.set(a.bucket, (a.kind === "D" ? sub : add)(base.get(a.bucket) ?? ZERO, a.amount));
  }
  return base;
}

/**
 * With prices including ITBIS, what the customer was charged per taxed bucket (Σ MontoItem), for
 * the buckets where that amount is the whole story: no global discount or surcharge and no ISC
 * (both change the ITBIS base on their own terms). See `itbisOfCharged`.
 */
function chargedWithItbis(
  lines: readonly LineTotals[],
  adjustments: readonly GlobalAdjustment[],
  iscByBucket: ReadonlyMap<string, Decimal>,
): Map<"1" | "2", Decimal> {
  const charged = new Map<"1" | "2", Decimal>();
  for (const k of ["1", "2"] as const) {
    if (adjustments.some((a) => a.bucket === k) || iscByBucket.has(k)) continue;
    const inBucket = lines.filter((l) => l.indicador === k);
    if (inBucket.length) charged.set(k, roundHalfUp(sum(inBucket.map((l) => l.montoItem))));
  }
  return charged;
}

/**
 * The ITBIS of an amount charged with ITBIS included: the charged amount less its taxable part,
 * so that MontoGravado + ITBIS is what the customer paid, to the cent. formato-ecf computes the
 * ITBIS as round(MontoGravado × rate), which can fall a cent short of the shelf price (275.50 →
 * 233.47 + 42.02 = 275.49); the difference to that formula is at most 0.01, far inside DGII's
 * global tolerance of ±1.00 per line (informe-tecnico §12), and it is where the rounding cent
 * belongs: the price the customer saw is the fact, its split is derived.
 */
export function itbisOfCharged(charged: Decimal, gravado: Decimal): Decimal {
  return sub(roundHalfUp(charged), gravado);
}

/** The rounded amounts of the tax part of Totales, per ITBIS rate and in sum. */
interface TaxFigures {
  perRate: Partial<Record<"1" | "2" | "3", { gravado: Decimal; itbis: Decimal }>>;
  exento?: Decimal;
  montoGravadoTotal?: Decimal;
  totalItbis?: Decimal;
  montoImpuestoAdicional?: Decimal;
  taxes: TaxAccumulator[];
}

function taxFigures(
  base: Map<string, Decimal>,
  has: (k: string) => boolean,
  iscByBucket: Map<string, Decimal>,
  taxes: TaxAccumulator[],
  charged?: ReadonlyMap<string, Decimal>,
): TaxFigures {
  const gravado: Decimal[] = [];
  const itbis: Decimal[] = [];
  const perRate: TaxFigures["perRate"] = {};
  for (const k of ["1", "2", "3"] as const) {
    if (!has(k)) continue;
    const rate = dec(ITBIS_RATES[k]);
    const g = roundHalfUp(base.get(k) ?? ZERO);
    // ISC (codes 006-039) is part of the ITBIS base (formato-ecf field 101).
    const paid = charged?.get(k);
    const tax = paid ? itbisOfCharged(paid, g) : roundHalfUp(percentOf(add(g, iscByBucket.get(k) ?? ZERO), rate));
    perRate[k] = { gravado: g, itbis: tax };
    gravado.push(g);
    itbis.push(tax);
  }
  return {
    perRate,
    exento: has("4") ? roundHalfUp(base.get("4") ?? ZERO) : undefined,
    montoGravadoTotal: gravado.length ? sum(gravado) : undefined,
    totalItbis: itbis.length ? sum(itbis) : undefined,
    montoImpuestoAdicional: taxes.length ? sum(taxes.map((x) => x.amount)) : undefined,
    taxes,
  };
}

/** MontoGravado*, MontoExento, the ITBIS rates and amounts, and the additional taxes, in XSD order. */
function writeTaxTotals(t: Totales, tipo: TipoeCF | undefined, f: TaxFigures): void {
  const { perRate } = f;
  if (f.montoGravadoTotal && allowed(tipo, "Encabezado/Totales/MontoGravadoTotal"))
    t.MontoGravadoTotal = money(f.montoGravadoTotal);
  for (const k of ["1", "2", "3"] as const) {
    const p = perRate[k];
    if (p && allowed(tipo, `Encabezado/Totales/MontoGravadoI${k}`)) t[`MontoGravadoI${k}`] = money(p.gravado);
  }
  if (f.exento && allowed(tipo, "Encabezado/Totales/MontoExento")) t.MontoExento = money(f.exento);
  for (const k of ["1", "2", "3"] as const) {
    if (perRate[k] && allowed(tipo, `Encabezado/Totales/ITBIS${k}`)) t[`ITBIS${k}`] = ITBIS_RATES[k];
  }
  if (f.totalItbis && allowed(tipo, "Encabezado/Totales/TotalITBIS")) t.TotalITBIS = money(f.totalItbis);
  for (const k of ["1", "2", "3"] as const) {
    const p = perRate[k];
    if (p && allowed(tipo, `Encabezado/Totales/TotalITBIS${k}`)) t[`TotalITBIS${k}`] = money(p.itbis);
  }
  if (f.montoImpuestoAdicional && allowed(tipo, "Encabezado/Totales/MontoImpuestoAdicional")) {
    t.MontoImpuestoAdicional = money(f.montoImpuestoAdicional);
    t.ImpuestosAdicionales = f.taxes.map((x) => {
      const row: ImpuestoAdicionalTotal = { TipoImpuesto: x.tax.codigo, TasaImpuestoAdicional: formatDecimal(x.tasa) };
      if (x.tax.kind === "isc_especifico") row.MontoImpuestoSelectivoConsumoEspecifico = money(x.amount);
      else if (x.tax.kind === "isc_advalorem") row.MontoImpuestoSelectivoConsumoAdvalorem = money(x.amount);
      else row.OtrosImpuestosAdicionales = money(x.amount);
      return row;
    });
  }
}

interface AmountsDueInput {
  montoTotal: Decimal;
  noFacturable?: Decimal;
  adjustments: readonly GlobalAdjustment[];
  /** The Totales the client sent. */
  sent: JsonObject | undefined;
}

/** MontoNoFacturable, MontoPeriodo, SaldoAnterior, MontoAvancePago and ValorPagar. */
function writeAmountsDue(t: Totales, tipo: TipoeCF | undefined, input: AmountsDueInput): void {
  const { montoTotal, noFacturable, sent } = input;
  if (noFacturable && allowed(tipo, "Encabezado/Totales/MontoNoFacturable")) t.MontoNoFacturable = money(noFacturable);
  // MontoPeriodo and ValorPagar are optional (code 3): emitted when they tell something MontoTotal
  // does not (a non-billable amount, an advance, a previous balance, a Norma 10-07 discount) or
  // when the client asked for them by sending them.
  if (noFacturable || decimalOf(sent, "MontoPeriodo")) t.MontoPeriodo = money(add(montoTotal, noFacturable ?? ZERO));

  const saldoAnterior = decimalOf(sent, "SaldoAnterior");
  const avance = decimalOf(sent, "MontoAvancePago");
  if (saldoAnterior) t.SaldoAnterior = money(saldoAnterior);
  if (avance) t.MontoAvancePago = money(avance);
  // formato-ecf 115: MontoTotal − MontoAvancePago ± SaldoAnterior (− Norma 10-07 discounts).
  const norma1007 = sum(input.adjustments.filter((a) => a.kind === "D" && a.norma1007).map((a) => a.amount));
  if (saldoAnterior || avance || !isZero(norma1007) || decimalOf(sent, "ValorPagar")) {
    t.ValorPagar = money(sub(add(sub(montoTotal, avance ?? ZERO), saldoAnterior ?? ZERO), norma1007));
  }
}

/** TotalITBISRetenido and TotalISRRetencion: the lines' withholdings summed. */
function writeWithholdingTotals(t: Totales, tipo: TipoeCF | undefined, items: readonly JsonObject[]): void {
  const retenciones = items.map((item) => objAt(item, "Retencion")).filter((r): r is JsonObject => r !== undefined);
  const withholding: [keyof Totales, string][] = [
    ["TotalITBISRetenido", "MontoITBISRetenido"],
    ["TotalISRRetencion", "MontoISRRetenido"],
  ];
  for (const [total, lineKey] of withholding) {
    const s = sumOf(retenciones, lineKey);
    if (s && allowed(tipo, `Encabezado/Totales/${total}`)) (t as unknown as Record<string, string>)[total] = money(s);
  }
}

/**
 * Perception (régimen de percepción) is not in force; the lines have no amounts for it, so the
 * totals are only carried over when a client sends them.
 */
function carryPerceptionTotals(t: Totales, tipo: TipoeCF | undefined, sent: JsonObject | undefined): void {
  for (const key of ["TotalITBISPercepcion", "TotalISRPercepcion"] as const) {
    const v = decimalOf(sent, key);
    if (v && allowed(tipo, `Encabezado/Totales/${key}`)) t[key] = money(v);
  }
}

/**
 * The `Totales` (and, when the document names another currency and its rate, `OtraMoneda`)
 * computed from the document's lines. Fields that do not apply (no such lines, or prohibited for
 * the type) are left out; `MontoDescuentosGlobales`/`MontoRecargosGlobales` are never emitted.
 */
export function computeTotals(doc: unknown, options: TotalsOptions = {}): ComputedTotals {
  const { Totales, OtraMoneda } = computeTotalsDetailed(doc, options);
  return OtraMoneda ? { Totales, OtraMoneda } : { Totales };
}

/**
 * Splits `total` (already converted and rounded) over DOP parts so the converted parts add up to it
 * exactly; parts are proportional to the DOP amounts (dinero.js distribute).
 */
function convertParts(
  total: Decimal,
  parts: readonly (Decimal | undefined)[],
  convertOne: (p: Decimal) => Decimal,
): (Decimal | undefined)[] {
  const present = parts.map((p) => (p ? roundHalfUp(p).coef : 0n));
  const totalUnits = roundHalfUp(total).coef;
  // Negative parts (or none to carry a non-zero total) only come from a document already refused
  // for its amounts: convert each part on its own rather than fail.
  if (present.some((w) => w < 0n) || (totalUnits !== 0n && present.every((w) => w === 0n))) {
    return parts.map((p) => (p ? convertOne(p) : undefined));
  }
  const shares = distribute(totalUnits, present);
  return parts.map((p, i) => (p ? fromMinorUnits(shares[i]!) : undefined));
}

/**
 * `OtraMoneda`: each DOP total divided by TipoCambio, rounded half-up to 2 decimals; the per-rate
 * parts are handed the rounding remainder so that they add up to their total exactly, and
 * MontoTotalOtraMoneda is the sum of its converted parts (formato-ecf 137).
 */
export function otraMoneda(doc: unknown, t: Totales): OtraMoneda | undefined {
  const om = objAt(doc, "Encabezado", "OtraMoneda");
  const tipoMoneda = textOf(om, "TipoMoneda");
  const tipoCambio = decimalOf(om, "TipoCambio");
  if (!tipoMoneda || !tipoCambio || tipoCambio.coef <= 0n) return undefined;
  const tipo = tipoOf(doc);
  const conv = (s: string | undefined) => (s === undefined ? undefined : divide(dec(s), tipoCambio, 2));
  const d = (s: string | undefined) => (s === undefined ? undefined : dec(s));
  const one = (p: Decimal) => divide(p, tipoCambio, 2);
  const out: OtraMoneda = {
    TipoMoneda: tipoMoneda,
    TipoCambio: formatDecimal(tipoCambio, Math.max(tipoCambio.scale, 2)),
  };
  const ok = (path: string) => allowed(tipo, `Encabezado/OtraMoneda/${path}`);

  const gravadoTotal = conv(t.MontoGravadoTotal);
  const [g1, g2, g3] = gravadoTotal
    ? convertParts(gravadoTotal, [d(t.MontoGravadoI1), d(t.MontoGravadoI2), d(t.MontoGravadoI3)], one)
    : [];
  const exento = conv(t.MontoExento);
  const itbisTotal = conv(t.TotalITBIS);
  const [i1, i2, i3] = itbisTotal
    ? convertParts(itbisTotal, [d(t.TotalITBIS1), d(t.TotalITBIS2), d(t.TotalITBIS3)], one)
    : [];
  const adicionalTotal = conv(t.MontoImpuestoAdicional);
  const taxRows = t.ImpuestosAdicionales ?? [];
  const taxAmounts = taxRows.map((r) =>
    d(
      r.MontoImpuestoSelectivoConsumoEspecifico ??
        r.MontoImpuestoSelectivoConsumoAdvalorem ??
        r.OtrosImpuestosAdicionales,
    ),
  );
  const taxConverted = adicionalTotal ? convertParts(adicionalTotal, taxAmounts, one) : [];

  const set = (key: keyof OtraMoneda, v: Decimal | undefined) => {
    if (v && ok(key)) (out as unknown as Record<string, string>)[key] = money(v);
  };
  set("MontoGravadoTotalOtraMoneda", gravadoTotal);
  set("MontoGravado1OtraMoneda", g1);
  set("MontoGravado2OtraMoneda", g2);
  set("MontoGravado3OtraMoneda", g3);
  set("MontoExentoOtraMoneda", exento);
  set("TotalITBISOtraMoneda", itbisTotal);
  set("TotalITBIS1OtraMoneda", i1);
  set("TotalITBIS2OtraMoneda", i2);
  set("TotalITBIS3OtraMoneda", i3);
  set("MontoImpuestoAdicionalOtraMoneda", adicionalTotal);
  if (adicionalTotal && ok("ImpuestosAdicionalesOtraMoneda")) {
    out.ImpuestosAdicionalesOtraMoneda = taxRows.map((r, i) => {
      const row: ImpuestoAdicionalOtraMonedaTotal = {
        TipoImpuestoOtraMoneda: r.TipoImpuesto,
        TasaImpuestoAdicionalOtraMoneda: r.TasaImpuestoAdicional,
      };
      const v = money(taxConverted[i] ?? ZERO);
      if (r.MontoImpuestoSelectivoConsumoEspecifico) row.MontoImpuestoSelectivoConsumoEspecificoOtraMoneda = v;
      else if (r.MontoImpuestoSelectivoConsumoAdvalorem) row.MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda = v;
      else row.OtrosImpuestosAdicionalesOtraMoneda = v;
      return row;
    });
  }
  const total = sum([gravadoTotal, exento, itbisTotal, adicionalTotal].filter((x): x is Decimal => x !== undefined));
  if (ok("MontoTotalOtraMoneda")) out.MontoTotalOtraMoneda = money(total);
  return out;
}
