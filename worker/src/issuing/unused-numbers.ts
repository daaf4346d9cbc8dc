// The numbers of a type that were handed out but will never be a receipt, to be voided with an
// ANECF (POST /fe/anulacion takes the answer as it is): a request that died between numbering and
// recording leaves one. Leased numbers are not listed (the device may still use them offline),
// nor voided ones, nor the unused tail (never handed out).
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import { encfOf } from "../ledger/issuer/encf-allocation.ts";

export interface UnusedRange {
  tipoeCF: string;
  desde: string;
  hasta: string;
}

/** [first, last] intervals of `whole` not covered by any of `covered` (both sorted or not). */
export function uncovered(whole: [number, number], covered: [number, number][]): [number, number][] {
  const holes: [number, number][] = [];
  let next = whole[0];
  for (const [first, last] of [...covered].sort((a, b) => a[0] - b[0])) {
    if (last < next) continue;
    if (first > whole[1]) break;
    if (first > next) holes.push([next, first - 1]);
    next = Math.max(next, last + 1);
  }
  if (next <= whole[1]) holes.push([next, whole[1]]);
  return holes;
}

export async function unusedNumbers(env: Env, companyId: string, tipoeCF: string): Promise<UnusedRange[]> {
  const { sequence, runs, covered } = await issuerLedger(env, companyId).voiding().numbersHandedOut(tipoeCF);
  if (!sequence || sequence.nextNumber <= sequence.rangeFrom) return [];
  const byMonth = new Map<string, [number, number][]>();
  for (const run of runs) byMonth.set(run.month, [...(byMonth.get(run.month) ?? []), [run.first, run.last]]);
  const held = await Promise.all(
    [...byMonth].map(([month, monthRuns]) => receiptMonth(env, companyId, month).receipts().heldIn(tipoeCF, monthRuns)),
  );
  const intervals = [...covered, ...held.flat()].map(([first, last]): [number, number] => [first!, last!]);
  return uncovered([sequence.rangeFrom, sequence.nextNumber - 1], intervals).map(([first, last]) => ({
    tipoeCF,
    desde: encfOf(tipoeCF, first),
    hasta: encfOf(tipoeCF, last),
  }));
}
