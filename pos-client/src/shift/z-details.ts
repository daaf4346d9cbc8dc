// What the Z report says beyond the figures the server keeps (worker/src/http/schemas/shifts.ts): the
// e-NCF ranges the shift used per type, gross and net sales, the shift's receipts still waiting to
// reach the server, and the numbers given up on this till, voided with an ANECF (sync/given-up.ts)
// or still to void. Read when the report is shown, so "still waiting" is true at that moment.
import { dec, formatMoney, sub } from "@ecf/shared/money";
import type { PosDatabase, Sale, Shift } from "../db.ts";
import { givenUpNumbers, type GivenUpNumber } from "../sync/given-up.ts";
import { salesOf } from "./shifts.ts";

export interface EncfRange {
  tipoeCF: string;
  first: string;
  last: string;
  count: number;
}

export interface ZDetails {
  ranges: EncfRange[];
  grossSales: string;
  /** Gross sales less refunds (E34). */
  netSales: string;
  /** Receipts of the shift not yet received by the server. */
  pending: number;
  /** e-NCF this till took and will never use: still to void, and those settled since the shift opened. */
  givenUp: GivenUpNumber[];
}

/** Per type, the lowest and highest e-NCF the shift used and how many. */
export function encfRanges(sales: readonly Sale[]): EncfRange[] {
  const byType = new Map<string, string[]>();
  for (const s of sales)
    if (s.encf) byType.set(s.encf.slice(1, 3), [...(byType.get(s.encf.slice(1, 3)) ?? []), s.encf]);
  return [...byType.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([tipoeCF, encfs]) => {
      const sorted = [...encfs].sort();
      return { tipoeCF, first: sorted[0]!, last: sorted.at(-1)!, count: sorted.length };
    });
}

export async function zDetails(db: PosDatabase, shift: Shift): Promise<ZDetails> {
  const report = shift.report!;
  const sales = await salesOf(db, shift.id);
  const ids = new Set(sales.map((s) => s.id));
  const waiting = await db.outbox.where("state").anyOf("pending", "sending").toArray();
  return {
    ranges: encfRanges(sales),
    grossSales: report.salesTotal,
    netSales: formatMoney(sub(dec(report.salesTotal), dec(report.refunds.total))),
    pending: waiting.filter((e) => ids.has(e.saleId)).length,
    givenUp: await givenUpNumbers(db, shift.openedAt),
  };
}
