/**
 * Exact decimals for amounts, prices, quantities and exchange rates.
 *
 * A `Decimal` is an integer coefficient and a scale: `{ coef: 1234n, scale: 2 }` is 12.34. Every
 * operation is exact on bigints, so DGII's 16 integer digits (and more) never lose a cent. The only
 * place where digits are dropped is `roundHalfUp` (and `divide`, which rounds through it).
 * Values are read from their text (a JSON number through `String(n)`), never through float math.
 */
export interface Decimal {
  readonly coef: bigint;
  readonly scale: number;
}

/** DGII amounts carry 2 decimals (informe-tecnico §13). */
export const MONEY_SCALE = 2;

const EXPONENT_TEXT = /^([+-])?(\d+)(?:\.(\d*))?[eE]([+-]?\d+)$/;

/**
 * The parts of a plain decimal (`[+-]digits[.digits]`, at least one digit, no exponent, no
 * spaces): sign, integer digits as written, fraction digits as written. A scan, not a regex: every
 * amount of every document goes through here.
 */
export function splitPlainDecimal(text: string): [negative: boolean, int: string, frac: string] | undefined {
  const n = text.length;
  let i = 0;
  const first = text.charCodeAt(0);
  const negative = first === 45; // "-"
  if (negative || first === 43) i = 1; // "+"
  const intStart = i;
  while (i < n && isDigitCode(text.charCodeAt(i))) i++;
  const intEnd = i;
  let fracStart = i;
  if (i < n && text.charCodeAt(i) === 46) {
    fracStart = ++i;
    while (i < n && isDigitCode(text.charCodeAt(i))) i++;
  }
  if (i !== n || (intEnd === intStart && i === fracStart)) return undefined;
  return [negative, text.slice(intStart, intEnd), text.slice(fracStart, i)];
}

const isDigitCode = (c: number) => c >= 48 && c <= 57;

export function decimal(coef: bigint, scale = 0): Decimal {
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError(`bad scale ${scale}`);
  return { coef, scale };
}

export const ZERO: Decimal = decimal(0n, 0);

/**
 * Parses a decimal exactly from a string, a finite JSON number or a bigint. Returns undefined for
 * anything else (empty text, NaN, "1,5", objects...). Surrounding spaces are not accepted: DGII's
 * XSD patterns do not accept them either.
 */
export function parseDecimal(value: unknown): Decimal | undefined {
  if (typeof value === "bigint") return decimal(value, 0);
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === "string") {
    text = value;
  } else {
    return undefined;
  }
  if (text.length === 0 || text.length > 400) return undefined;
  const small = smallPlainDecimal(text);
  if (small) return small;
  // 16 digits and more: through the text.
  const plain = splitPlainDecimal(text);
  if (plain) {
    const [negative, int, frac] = plain;
    const coef = BigInt(int + frac);
    return decimal(negative ? -coef : coef, frac.length);
  }
  // JSON numbers such as 1e21 or 1.5e-7 print with an exponent.
  const m = EXPONENT_TEXT.exec(text);
  if (m) {
    const [, sign, int = "", frac = "", expText = "0"] = m;
    const exp = Number(expText);
    if (Math.abs(exp) > 100) return undefined;
    let coef = BigInt(int + frac);
    if (sign === "-") coef = -coef;
    const scale = frac.length - exp;
    return scale >= 0 ? decimal(coef, scale) : decimal(coef * 10n ** BigInt(-scale), 0);
  }
  return undefined;
}

/**
 * A plain decimal of at most 15 digits (nearly every amount), read in one scan: up to 15 digits
 * the coefficient is an integer a double holds exactly. Undefined for anything else.
 */
function smallPlainDecimal(text: string): Decimal | undefined {
  const n = text.length;
  const first = text.charCodeAt(0);
  const negative = first === 45; // "-"
  let i = negative || first === 43 ? 1 : 0; // "+"
  let coef = 0;
  let digits = 0;
  let scale = -1;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      coef = coef * 10 + (c - 48);
      digits++;
    } else if (c === 46 && scale < 0) scale = digits;
    else return undefined;
  }
  if (digits === 0 || digits > 15) return undefined;
  const big = BigInt(coef);
  return decimal(negative ? -big : big, scale < 0 ? 0 : digits - scale);
}

/** Like parseDecimal, but throws on bad input (for literals in code and tests). */
export function dec(value: string | number | bigint): Decimal {
  const d = parseDecimal(value);
  if (!d) throw new RangeError(`not a decimal: ${String(value)}`);
  return d;
}

const POW10: bigint[] = Array.from({ length: 40 }, (_, i) => 10n ** BigInt(i));

function pow10(n: number): bigint {
  return POW10[n] ?? 10n ** BigInt(n);
}

/** The same value with at least `scale` decimals (never drops digits). */
export function rescale(a: Decimal, scale: number): Decimal {
  if (scale <= a.scale) return a;
  return decimal(a.coef * pow10(scale - a.scale), scale);
}

/** `a`'s coefficient at `scale` (≥ its own). */
function coefAt(a: Decimal, scale: number): bigint {
  return scale === a.scale ? a.coef : a.coef * pow10(scale - a.scale);
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return decimal(coefAt(a, scale) + coefAt(b, scale), scale);
}

export function sub(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return decimal(coefAt(a, scale) - coefAt(b, scale), scale);
}

export function sum(values: readonly Decimal[]): Decimal {
  return values.reduce(add, ZERO);
}

/** Exact product: the scales add up. */
export function mul(a: Decimal, b: Decimal): Decimal {
  return decimal(a.coef * b.coef, a.scale + b.scale);
}

export function neg(a: Decimal): Decimal {
  return decimal(-a.coef, a.scale);
}

export function abs(a: Decimal): Decimal {
  return a.coef < 0n ? neg(a) : a;
}

export function compare(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const x = coefAt(a, scale);
  const y = coefAt(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function eq(a: Decimal, b: Decimal): boolean {
  return compare(a, b) === 0;
}

export function isZero(a: Decimal): boolean {
  return a.coef === 0n;
}

export function max(a: Decimal, b: Decimal): Decimal {
  return compare(a, b) >= 0 ? a : b;
}

export function min(a: Decimal, b: Decimal): Decimal {
  return compare(a, b) <= 0 ? a : b;
}

/**
 * Integer division of n by d (d > 0), rounding half away from zero. The one rounding rule of the
 * package: every other rounding goes through here.
 */
function divRoundHalfUp(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new RangeError("divisor must be positive");
  const negative = n < 0n;
  const m = negative ? -n : n;
  let q = m / d;
  if ((m % d) * 2n >= d) q += 1n;
  return negative ? -q : q;
}

/**
 * DGII's rounding (informe-tecnico §13): keep `scale` decimals; if the next digit is 5 or more the
 * last kept digit goes up by one (750.5276 → 750.53, 750.5212 → 750.52). Negative amounts (only
 * MontoNoFacturable, MontoPeriodo, ValorPagar may be negative) round symmetrically, away from zero,
 * so that -x always rounds to -(round x).
 */
export function roundHalfUp(a: Decimal, scale = MONEY_SCALE): Decimal {
  if (a.scale <= scale) return rescale(a, scale);
  return decimal(divRoundHalfUp(a.coef, pow10(a.scale - scale)), scale);
}

/** a / b rounded half-up to `scale` decimals (used for amounts ÷ TipoCambio and ÷ (1 + rate)). */
export function divide(a: Decimal, b: Decimal, scale = MONEY_SCALE): Decimal {
  if (b.coef === 0n) throw new RangeError("division by zero");
  // a/b = (a.coef / 10^as) / (b.coef / 10^bs); scaled by 10^scale.
  let n = a.coef * pow10(scale + b.scale);
  let d = b.coef * pow10(a.scale);
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  return decimal(divRoundHalfUp(n, d), scale);
}

/** Multiplies by a percentage given as a whole-number rate (18 → ×0.18), exact. */
export function percentOf(a: Decimal, percent: Decimal): Decimal {
  return mul(a, decimal(percent.coef, percent.scale + 2));
}

/** Drops trailing zeros beyond `minScale` (value unchanged). */
export function normalize(a: Decimal, minScale = 0): Decimal {
  let { coef, scale } = a;
  while (scale > minScale && coef % 10n === 0n) {
    coef /= 10n;
    scale--;
  }
  return decimal(coef, scale);
}

/**
 * Formats as plain decimal text, never with an exponent. With `scale` the value is padded to that
 * many decimals; it must not have more (round first): formatting never rounds.
 */
export function formatDecimal(a: Decimal, scale?: number): string {
  let v = a;
  if (scale !== undefined) {
    if (a.scale > scale) {
      const n = normalize(a, scale);
      if (n.scale > scale) throw new RangeError(`formatDecimal would drop digits of ${formatDecimal(a)}`);
      v = n;
    } else {
      v = rescale(a, scale);
    }
  }
  const negative = v.coef < 0n;
  const digits = (negative ? -v.coef : v.coef).toString().padStart(v.scale + 1, "0");
  const int = digits.slice(0, digits.length - v.scale);
  const frac = digits.slice(digits.length - v.scale);
  return (negative ? "-" : "") + int + (v.scale > 0 ? "." + frac : "");
}

/** An amount rounded half-up to 2 decimals, as DGII text ("1234.50"). */
export function formatMoney(a: Decimal): string {
  return formatDecimal(roundHalfUp(a, MONEY_SCALE), MONEY_SCALE);
}

/** Minor units (cents) of an amount already at ≤ 2 decimals; throws if rounding would be needed. */
export function toMinorUnits(a: Decimal): bigint {
  if (a.scale > MONEY_SCALE && !eq(a, roundHalfUp(a))) throw new RangeError("amount has more than 2 decimals");
  return roundHalfUp(a).coef;
}

export function fromMinorUnits(cents: bigint): Decimal {
  return decimal(cents, MONEY_SCALE);
}

/** Number of integer digits (for the XSD's 16-integer-digit limit). */
export function integerDigits(a: Decimal): number {
  const m = a.coef < 0n ? -a.coef : a.coef;
  const int = m / pow10(a.scale);
  return int === 0n ? 1 : int.toString().length;
}

/** Number of decimals actually written (trailing zeros count: "1.50" has 2). */
export function fractionDigits(a: Decimal): number {
  return a.scale;
}

/**
 * Splits `total` minor units into parts proportional to `weights`, so that the parts add up to
 * `total` exactly (dinero.js `distribute`). Each part gets the floor of its exact share; the
 * remaining units go one at a time to the parts with the largest remainders (earliest first on a
 * tie), so every part stays within one unit of its exact share and a zero weight gets zero.
 */
export function distribute(total: bigint, weights: readonly bigint[]): bigint[] {
  if (weights.some((w) => w < 0n)) throw new RangeError("weights must not be negative");
  const weightSum = weights.reduce((a, b) => a + b, 0n);
  if (weightSum === 0n) {
    if (total !== 0n) throw new RangeError("cannot distribute a non-zero total over zero weights");
    return weights.map(() => 0n);
  }
  const sign = total < 0n ? -1n : 1n;
  const t = total * sign;
  const parts = weights.map((w) => (t * w) / weightSum);
  const remainders = weights.map((w, i) => ({ i, r: (t * w) % weightSum }));
  let left = t - parts.reduce((a, b) => a + b, 0n);
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left === 0n) break;
    parts[i] = (parts[i] ?? 0n) + 1n;
    left--;
  }
  return parts.map((p) => p * sign);
}
