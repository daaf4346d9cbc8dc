// Amounts the Dominican way, comma thousands and dot decimals ("1,234.50"), in both apps: one parser
// for every field (price, quantity, discount, cash, float, counted cash) and one formatter, so what
// is printed is also read back. A refusal says, in Spanish, what was wrong.
import {
  compare,
  dec,
  formatDecimal,
  formatMoney,
  integerDigits,
  normalize,
  parseDecimal,
  rescale,
  type Decimal,
} from "@ecf/shared/money";

/** What a field accepts. The digit limits are the XSD's for the element the value ends up in. */
export interface NumberRule {
  /** The field, as the message names it ("La cantidad", "El efectivo recibido"). */
  what: string;
  /** At most this many decimals (XSD fractionDigits). */
  decimals: number;
  /** At most this many integer digits (XSD pattern: 16 for amounts, quantities and prices). */
  integerDigits: number;
  /** "positive": more than 0 (XSD minExclusive 0); "zero-or-more": 0 allowed. */
  sign: "positive" | "zero-or-more";
  /** An upper bound of the business (a configured maximum quantity, 100 %). */
  max?: Decimal;
}

export type Parsed = { ok: true; value: Decimal } | { ok: false; error: string };

/** Monetary amounts: MontoPago, the float, counted cash (XSD: 16 integer digits, 2 decimals). */
export const MONEY = (what: string): NumberRule => ({ what, decimals: 2, integerDigits: 16, sign: "zero-or-more" });
/** A shelf price (PrecioUnitarioItem: up to 4 decimals). */
export const PRICE: NumberRule = { what: "El precio", decimals: 4, integerDigits: 16, sign: "zero-or-more" };
/** A line discount in percent (SubDescuentoPorcentaje: 2 decimals), at most 100. */
export const DISCOUNT: NumberRule = {
  what: "El descuento",
  decimals: 2,
  integerDigits: 3,
  sign: "zero-or-more",
  max: dec("100"),
};

/** The largest quantity one line may carry unless the business configures another. */
export const DEFAULT_MAX_QUANTITY = "9999";

/** CantidadItem (XSD: more than 0, 2 decimals) up to a configured maximum. */
export function quantityRule(max: string = DEFAULT_MAX_QUANTITY): NumberRule {
  return { what: "La cantidad", decimals: 2, integerDigits: 16, sign: "positive", max: dec(max) };
}

const GROUPED = /^\d{1,3}(,\d{3})+$/;
const PLAIN = /^\d+$/;

/**
 * Reads what was typed under `rule`. Accepted: "1234.5", "1,234.50", "1,000", ".5" is not (a
 * digit before the dot). Refused with a reason: exponents, a comma used for decimals, misplaced
 * grouping, signs, letters, too many decimals or digits, out of range.
 */
export function parseNumber(typed: string, rule: NumberRule): Parsed {
  const text = typed.trim();
  const fail = (why: string): Parsed => ({ ok: false, error: `${rule.what}: ${why}` });
  if (text === "") return fail("escriba un número.");
  if (/[eE]/.test(text) && /\d/.test(text))
    return fail(`«${text}» lleva un exponente; escriba el número completo, p. ej. 1,000.`);
  if (text.startsWith("-")) return fail("no puede ser negativo.");
  const [int = "", frac, extra] = text.split(".");
  if (extra !== undefined) return fail(`«${text}» tiene más de un punto decimal.`);
  if (/,\d{1,2}$/.test(text) && !text.includes(".")) {
    return fail(`«${text}»: los decimales van con punto y la coma separa los miles (p. ej. 1,234.50).`);
  }
  if (!(PLAIN.test(int) || GROUPED.test(int)) || (frac !== undefined && !/^\d+$/.test(frac))) {
    return fail(
      `«${text}» no es un número; use dígitos, coma para los miles y punto para los decimales (p. ej. 1,234.50).`,
    );
  }
  const value = parseDecimal(int.replaceAll(",", "") + (frac !== undefined ? `.${frac}` : ""));
  if (!value) return fail(`«${text}» no es un número.`);
  if (normalize(value).scale > rule.decimals) return fail(`admite a lo sumo ${rule.decimals} decimales.`);
  if (integerDigits(value) > rule.integerDigits) return fail(`admite a lo sumo ${rule.integerDigits} dígitos enteros.`);
  if (rule.sign === "positive" && value.coef === 0n) return fail("debe ser mayor que cero.");
  if (rule.max && compare(value, rule.max) > 0) return fail(`no puede pasar de ${formatNumber(rule.max)}.`);
  return { ok: true, value: normalize(value) };
}

/** The canonical text of a parsed value, as documents carry it ("1234.5"). */
export function canonical(value: Decimal): string {
  return formatDecimal(value);
}

/**
 * A number the Dominican way, with comma thousands: "1234.5" → "1,234.5"; with `decimals` padded
 * to that many ("1,234.50"). Exact (bigint digits), never through a float.
 */
export function formatNumber(value: Decimal | string, decimals?: number): string {
  const d = typeof value === "string" ? dec(value) : value;
  const text = formatDecimal(decimals === undefined ? normalize(d) : rescale(normalize(d), decimals));
  const negative = text.startsWith("-");
  const [int = "0", frac] = text.replace("-", "").split(".");
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "-" : ""}${grouped}${frac !== undefined ? `.${frac}` : ""}`;
}

/** "1234.5" → "RD$1,234.50", rounded half up to cents (the shared package's rounding); "—" for no amount. */
export function money(amount: string | null | undefined): string {
  if (amount === null || amount === undefined || amount === "") return "—";
  const cents = formatMoney(dec(amount));
  const negative = cents.startsWith("-");
  return `${negative ? "-" : ""}RD$${formatNumber(cents.replace("-", ""), 2)}`;
}
