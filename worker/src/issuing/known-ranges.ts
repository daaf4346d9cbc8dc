// Each issuer's e-NCF ranges as this isolate last saw them (read before a document or answered
// by its numbering), so issuing can validate a document without asking the issuer object for its
// range first: one ledger round trip fewer per receipt. Only ever a guess: the numbering write
// refuses a document validated against an expiry that is no longer the range's, and the request
// then reads the range and validates again.
import type { Sequence } from "../ledger/rows.ts";

export interface KnownRange {
  /** FechaVencimientoSecuencia, ISO yyyy-MM-dd. */
  expiresOn: string;
  /** The number the next receipt will probably get (only a stand-in until it is numbered). */
  nextNumber: number;
}

/** Enough for every issuer an isolate serves at once; past it the map starts again. */
const MAX_KNOWN = 10_000;
const known = new Map<string, KnownRange>();

const keyOf = (companyId: string, tipoeCF: string) => `${companyId}:${tipoeCF}`;

export function knownRange(companyId: string, tipoeCF: string): KnownRange | undefined {
  return known.get(keyOf(companyId, tipoeCF));
}

export function rememberRange(companyId: string, tipoeCF: string, range: KnownRange | Sequence | null): void {
  const key = keyOf(companyId, tipoeCF);
  if (!range) {
    known.delete(key);
    return;
  }
  if (known.size >= MAX_KNOWN && !known.has(key)) known.clear();
  known.set(key, { expiresOn: range.expiresOn, nextNumber: range.nextNumber });
}
