// What the cashier may do to a cart line, with the reason in Spanish when it is refused: a
// quantity (more than 0, the XSD's 2 decimals, at most the configured maximum), a discount
// (0-100 %, 2 decimals), one more of a product. A refused edit leaves the line as it was.
import { add, compare, dec, isZero, type Decimal } from "@ecf/shared/money";
import { canonical, DEFAULT_MAX_QUANTITY, DISCOUNT, formatNumber, parseNumber, quantityRule } from "@ecf/ui-kit";
import type { CartLine } from "./document.ts";

/** Sets the line's quantity from what was typed; the refusal's reason, or undefined when set. */
export function setQuantity(line: CartLine, typed: string, max = DEFAULT_MAX_QUANTITY): string | undefined {
  const parsed = parseNumber(typed, quantityRule(max));
  if (!parsed.ok) return `${line.product.name}: ${lowerFirst(parsed.error)}`;
  line.quantity = canonical(parsed.value);
  return undefined;
}

/** Sets the line's discount in percent ("" or 0 = none). */
export function setDiscount(line: CartLine, typed: string): string | undefined {
  if (!typed.trim()) {
    line.discountPercent = "";
    return undefined;
  }
  const parsed = parseNumber(typed, DISCOUNT);
  if (!parsed.ok) return `${line.product.name}: ${lowerFirst(parsed.error)}`;
  line.discountPercent = isZero(parsed.value) ? "" : canonical(parsed.value);
  return undefined;
}

/** One more of the line's product (a tap or a scan), refused past the maximum quantity. */
export function addOne(line: CartLine, max = DEFAULT_MAX_QUANTITY): string | undefined {
  const next: Decimal = add(dec(line.quantity), dec("1"));
  if (compare(next, dec(max)) > 0) return `${line.product.name}: la cantidad no puede pasar de ${formatNumber(max)}.`;
  line.quantity = canonical(next);
  return undefined;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
