// What DGII's monthly formats (606 purchases, 607 sales) take from an e-CF, read once from the
// signed document and kept on its ledger row (`figures`), so a month's report never has to open
// thousands of XML files. Amounts are exact decimals written with exactly two places, as DGII
// writes them (the E32 summary sums them in SQL as integer cents on that promise).
import {
  add,
  decimal,
  distribute,
  formatMoney,
  objAt,
  objectsOf,
  parseDecimal,
  sub,
  textOf,
  ZERO,
  type Decimal,
} from "@ecf/shared";

export const FIGURES_VERSION = 1;

export interface FormaDePago {
  /** e-CF FormaPago code, "1".."8". */
  formaPago: string;
  montoPago: string;
}

export interface DocumentFigures {
  /** Layout of this object: rows written with another are read again from their XML. */
  v: typeof FIGURES_VERSION;
  /** The amount without taxes (MontoGravadoTotal + MontoExento), split into services and goods. */
  montoServicios: string;
  montoBienes: string;
  montoFacturado: string;
  /** TotalITBIS ("0.00" when the document has none). */
  itbisFacturado: string;
  /** TotalITBISRetenido and TotalISRRetencion as the document declares them; null when absent. */
  itbisRetenido: string | null;
  retencionRenta: string | null;
  /**
   * ISC específico + ad valorem; other additional taxes (002–005, and any part of
   * MontoImpuestoAdicional no ImpuestosAdicionales row breaks down); the legal tip (001).
   */
  isc: string;
  otrosImpuestos: string;
  /** The part of MontoImpuestoAdicional without a breakdown, counted in otrosImpuestos; absent when none (and on older rows). */
  otrosImpuestosSinDesglose?: string;
  propinaLegal: string;
  montoTotal: string;
  tipoIngresos: string | null;
  tipoPago: string | null;
  formasPago: FormaDePago[];
  ncfModificado: string | null;
  /** The counterparty as the document names it (Comprador). */
  rncComprador: string | null;
  identificadorExtranjero: string | null;
}

const PROPINA_LEGAL = "001";

function amount(holder: unknown, key: string): Decimal {
  return parseDecimal(textOf(holder, key)) ?? ZERO;
}

function optionalAmount(holder: unknown, key: string): string | null {
  const value = parseDecimal(textOf(holder, key));
  return value ? formatMoney(value) : null;
}

/** Cents of a non-negative amount already at two places or fewer. */
const cents = (value: Decimal) => {
  const c = BigInt(formatMoney(value).replace(".", ""));
  return c < 0n ? -c : c;
};

/**
 * Services and goods (606 columns 8 and 9): the document states the amount without taxes only as
 * a whole (MontoGravadoTotal + MontoExento, after global discounts and with ITBIS taken out of
 * prices that included it), and says per line whether it sold a good or a service
 * (IndicadorBienoServicio 1 or 2). The whole is split in proportion to the billed lines' MontoItem,
 * cent by cent so the parts add up to it exactly (the 606 checks 8 + 9 = 10). With no billed line
 * to weigh by, the whole counts as goods.
 */
function splitServicesGoods(document: unknown, facturado: Decimal): { servicios: Decimal; bienes: Decimal } {
  let servicios = 0n;
  let bienes = 0n;
  for (const item of objectsOf(document, "DetallesItems")) {
    // IndicadorFacturacion 0: not billed (MontoNoFacturable), no part of the amount.
    if (textOf(item, "IndicadorFacturacion") === "0") continue;
    const weight = cents(amount(item, "MontoItem"));
    if (textOf(item, "IndicadorBienoServicio") === "2") servicios += weight;
    else bienes += weight;
  }
  const whole = cents(facturado);
  if (servicios + bienes === 0n) return { servicios: ZERO, bienes: facturado };
  const [s, b] = distribute(whole, [servicios, bienes]);
  return { servicios: decimal(s!, 2), bienes: decimal(b!, 2) };
}

/** Reads the figures of an e-CF (the JSON form of its XML, as `xmlToEcf` or reception gives it). */
export function documentFigures(document: unknown): DocumentFigures {
  const idDoc = objAt(document, "Encabezado", "IdDoc");
  const totales = objAt(document, "Encabezado", "Totales");
  const comprador = objAt(document, "Encabezado", "Comprador");
  const facturado = add(amount(totales, "MontoGravadoTotal"), amount(totales, "MontoExento"));
  const { servicios, bienes } = splitServicesGoods(document, facturado);
  let isc = ZERO;
  let otros = ZERO;
  let propina = ZERO;
  for (const tax of objectsOf(totales, "ImpuestosAdicionales")) {
    isc = add(
      isc,
      add(
        amount(tax, "MontoImpuestoSelectivoConsumoEspecifico"),
        amount(tax, "MontoImpuestoSelectivoConsumoAdvalorem"),
      ),
    );
    const other = amount(tax, "OtrosImpuestosAdicionales");
    if (textOf(tax, "TipoImpuesto")?.padStart(3, "0") === PROPINA_LEGAL) propina = add(propina, other);
    else otros = add(otros, other);
  }
  // A total of additional taxes the rows do not explain (DGII accepts such an e-CF conditionally)
  // is still a tax the buyer paid: without it the payment columns would not add up to the amounts.
  const unexplained = sub(amount(totales, "MontoImpuestoAdicional"), add(isc, add(otros, propina)));
  const sinDesglose = unexplained.coef > 0n ? unexplained : null;
  if (sinDesglose) otros = add(otros, sinDesglose);
  return {
    v: FIGURES_VERSION,
    montoServicios: formatMoney(servicios),
    montoBienes: formatMoney(bienes),
    montoFacturado: formatMoney(facturado),
    itbisFacturado: formatMoney(amount(totales, "TotalITBIS")),
    itbisRetenido: optionalAmount(totales, "TotalITBISRetenido"),
    retencionRenta: optionalAmount(totales, "TotalISRRetencion"),
    isc: formatMoney(isc),
    otrosImpuestos: formatMoney(otros),
    ...(sinDesglose && { otrosImpuestosSinDesglose: formatMoney(sinDesglose) }),
    propinaLegal: formatMoney(propina),
    montoTotal: formatMoney(amount(totales, "MontoTotal")),
    tipoIngresos: textOf(idDoc, "TipoIngresos") ?? null,
    tipoPago: textOf(idDoc, "TipoPago") ?? null,
    formasPago: objectsOf(idDoc, "TablaFormasPago").flatMap((f) => {
      const forma = textOf(f, "FormaPago");
      return forma ? [{ formaPago: forma, montoPago: formatMoney(amount(f, "MontoPago")) }] : [];
    }),
    ncfModificado: textOf(objAt(document, "InformacionReferencia"), "NCFModificado") ?? null,
    rncComprador: textOf(comprador, "RNCComprador") ?? null,
    identificadorExtranjero: textOf(comprador, "IdentificadorExtranjero") ?? null,
  };
}

/** The stored figures of a row, or null when absent (or of another layout: its migration sets those back to NULL). */
export function readFigures(json: string | null): DocumentFigures | null {
  if (!json) return null;
  try {
    const figures = JSON.parse(json) as DocumentFigures;
    return figures.v === FIGURES_VERSION ? figures : null;
  } catch {
    return null;
  }
}

/** What a line's JSON says about how its figures were read, beside DGII's fields. */
export function figureNotes(figures: DocumentFigures): string[] {
  return figures.otrosImpuestosSinDesglose
    ? [
        `MontoImpuestoAdicional has ${figures.otrosImpuestosSinDesglose} without an ImpuestosAdicionales breakdown: reported as other taxes (otrosImpuestosTasas).`,
      ]
    : [];
}
