import { and, eq, gte, inArray, lte } from "drizzle-orm";
import { database } from "../db/client.ts";
import { receipts } from "../db/schema.ts";
import { formatEncf } from "./sequences.ts";
import { claimReceipt, releaseClaim, type Receipt } from "./transmit.ts";

/** One range of a voiding request, as the client sent it. */
export interface VoidRange {
  tipoeCF: string;
  desde: string;
  hasta: string;
}

export type VoidProblem = {
  path: string;
  /** invalid_range (400); sequence_missing, encf_out_of_range, range_gap (422); encf_used, encf_leased, encf_busy (409). */
  code: string;
  message: string;
};

const numberOf = (encf: string) => Number(encf.slice(3));
const unsent = (r: Receipt) => r.sendAttempts === 0 && (r.status === "signed" || r.status === "contingency");

/**
 * Everything that can be said about the ranges before DGII is asked: well formed, inside the
 * authorised range, contiguous with the unused tail (a range starting above `next_number` would
 * skip the numbers in between without voiding them), not leased to a device, and holding no
 * number that was sent to DGII or judged.
 */
export async function checkVoidRanges(d1: D1Database, companyId: string, rangos: VoidRange[]): Promise<VoidProblem[]> {
  const problems: VoidProblem[] = [];
  for (const [i, r] of rangos.entries()) {
    const path = `/rangos/${i}`;
    const from = numberOf(r.desde);
    const to = numberOf(r.hasta);
    if (r.desde.slice(1, 3) !== r.tipoeCF || r.hasta.slice(1, 3) !== r.tipoeCF || from > to || from < 1) {
      problems.push({ path, code: "invalid_range", message: `The range must be of type ${r.tipoeCF}, from ≤ to.` });
      continue;
    }
    const overlapping = rangos.findIndex((o, j) => j < i && o.tipoeCF === r.tipoeCF && numberOf(o.desde) <= to && numberOf(o.hasta) >= from);
    if (overlapping >= 0) {
      problems.push({ path, code: "invalid_range", message: `Overlaps /rangos/${overlapping}.` });
      continue;
    }
    const sequence = await d1
      .prepare(`SELECT range_from AS rangeFrom, range_to AS rangeTo, next_number AS nextNumber FROM sequences WHERE company_id = ?1 AND tipo_ecf = ?2`)
      .bind(companyId, r.tipoeCF)
      .first<{ rangeFrom: number; rangeTo: number; nextNumber: number }>();
    if (!sequence) {
      problems.push({ path, code: "sequence_missing", message: `No authorised e-NCF range for type ${r.tipoeCF}.` });
      continue;
    }
    if (from < sequence.rangeFrom || to > sequence.rangeTo) {
      problems.push({ path, code: "encf_out_of_range", message: `Outside the authorised range ${formatEncf(r.tipoeCF, sequence.rangeFrom)}–${formatEncf(r.tipoeCF, sequence.rangeTo)}.` });
      continue;
    }
    if (from > sequence.nextNumber) {
      problems.push({
        path,
        code: "range_gap",
        message: `The unused numbers start at ${formatEncf(r.tipoeCF, sequence.nextNumber)}; a range starting above it would skip the numbers in between without voiding them. Start the range there.`,
      });
      continue;
    }
    const leases = await d1
      .prepare(`SELECT range_from AS rangeFrom, range_to AS rangeTo FROM device_leases WHERE company_id = ?1 AND tipo_ecf = ?2 AND range_from <= ?4 AND range_to >= ?3`)
      .bind(companyId, r.tipoeCF, from, to)
      .all<{ rangeFrom: number; rangeTo: number }>();
    for (const lease of leases.results) {
      problems.push({ path, code: "encf_leased", message: `${formatEncf(r.tipoeCF, lease.rangeFrom)}–${formatEncf(r.tipoeCF, lease.rangeTo)} is leased to a point-of-sale device, which may still use it offline.` });
    }
    for (const receipt of await receiptsIn(d1, companyId, r)) {
      if (!unsent(receipt)) problems.push({ path, code: "encf_used", message: `${receipt.encf} was already sent to DGII (or voided) and cannot be voided.` });
    }
  }
  return problems;
}

function receiptsIn(d1: D1Database, companyId: string, r: VoidRange): Promise<Receipt[]> {
  return database(d1).query.receipts.findMany({
    where: and(eq(receipts.companyId, companyId), eq(receipts.tipoeCF, r.tipoeCF), gte(receipts.encf, r.desde), lte(receipts.encf, r.hasta)),
  });
}

/** What a voiding holds while DGII is asked: the tail it took out of the sequence, the receipts it claimed. */
export interface VoidHold {
  /** Per range (same order): the `next_number` before and after, or null when the range lies wholly below it. */
  tails: ({ before: number; after: number } | null)[];
  /** Per range: the ids of the signed-but-unsent receipts it claimed. */
  claimed: string[][];
}

/**
 * Takes each range's unused tail out of the sequence (compare-and-set on `next_number`, so no
 * request or device can be handed those numbers meanwhile) and claims every signed-but-unsent
 * receipt in it (the queue and the sweeper then leave them alone). Returns the problems instead
 * when something changed since the checks; nothing is held then.
 */
export async function holdForVoiding(d1: D1Database, companyId: string, rangos: VoidRange[], now: Date): Promise<{ hold: VoidHold } | { problems: VoidProblem[] }> {
  const hold: VoidHold = { tails: [], claimed: [] };
  const problems: VoidProblem[] = [];
  for (const [i, r] of rangos.entries()) {
    const tail = await takeTail(d1, companyId, r);
    if (tail === "gap") {
      problems.push({ path: `/rangos/${i}`, code: "range_gap", message: "The unused numbers moved; send the request again." });
      break;
    }
    hold.tails.push(tail);
    const ids: string[] = [];
    hold.claimed.push(ids);
    // Re-read after taking the tail: no new receipt can appear in the range from here on.
    for (const receipt of await receiptsIn(d1, companyId, r)) {
      if (!unsent(receipt)) {
        problems.push({ path: `/rangos/${i}`, code: "encf_used", message: `${receipt.encf} was already sent to DGII and cannot be voided.` });
        continue;
      }
      const claimed = await claimReceipt(d1, receipt.id, now);
      if (!claimed) {
        problems.push({ path: `/rangos/${i}`, code: "encf_busy", message: `${receipt.encf} is being transmitted right now; ask again in a minute.` });
        continue;
      }
      ids.push(claimed.id);
      // Sent between the read and the claim: it is used now.
      if (!unsent(claimed)) problems.push({ path: `/rangos/${i}`, code: "encf_used", message: `${receipt.encf} was already sent to DGII and cannot be voided.` });
    }
  }
  if (problems.length) {
    await letGo(d1, companyId, rangos, hold, rangos.map(() => true));
    return { problems };
  }
  return { hold };
}

async function takeTail(d1: D1Database, companyId: string, r: VoidRange): Promise<{ before: number; after: number } | null | "gap"> {
  const from = numberOf(r.desde);
  const to = numberOf(r.hasta);
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await d1.prepare(`SELECT next_number AS nextNumber FROM sequences WHERE company_id = ?1 AND tipo_ecf = ?2`).bind(companyId, r.tipoeCF).first<{ nextNumber: number }>();
    if (!row || row.nextNumber < from) return "gap";
    if (row.nextNumber > to) return null;
    const moved = await d1
      .prepare(`UPDATE sequences SET next_number = ?4, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE company_id = ?1 AND tipo_ecf = ?2 AND next_number = ?3`)
      .bind(companyId, r.tipoeCF, row.nextNumber, to + 1)
      .run();
    if (moved.meta.changes === 1) return { before: row.nextNumber, after: to + 1 };
  }
  return "gap";
}

/**
 * Gives back what was held for the ranges flagged in `giveBack`: the claims always, and the tail
 * when nobody took a number after it (last range first, so consecutive ranges unwind in order).
 * A tail that cannot be given back stays out of the sequence below `next_number`, where a later
 * voiding can still reach it.
 */
export async function letGo(d1: D1Database, companyId: string, rangos: VoidRange[], hold: VoidHold, giveBack: boolean[]): Promise<void> {
  for (let i = hold.tails.length - 1; i >= 0; i--) {
    if (!giveBack[i]) continue;
    for (const id of hold.claimed[i] ?? []) await releaseClaim(d1, id);
    const tail = hold.tails[i];
    if (tail) {
      await d1
        .prepare(`UPDATE sequences SET next_number = ?3 WHERE company_id = ?1 AND tipo_ecf = ?2 AND next_number = ?4`)
        .bind(companyId, rangos[i]!.tipoeCF, tail.before, tail.after)
        .run();
    }
  }
}

/** The claimed receipts of the ranges DGII voided become Anulado, and are never sent. */
export async function markVoided(d1: D1Database, ids: string[], now: Date): Promise<number> {
  if (!ids.length) return 0;
  let count = 0;
  // D1 allows at most 100 bound parameters per statement.
  for (let i = 0; i < ids.length; i += 90) {
    const voided = await database(d1)
      .update(receipts)
      .set({ status: "voided", claimedUntil: null, nextAttemptAt: null, updatedAt: now.toISOString() })
      .where(and(inArray(receipts.id, ids.slice(i, i + 90)), eq(receipts.sendAttempts, 0)))
      .returning({ id: receipts.id });
    count += voided.length;
  }
  return count;
}

/**
 * Which ranges DGII refused in a partial answer (codigo "2"): those its messages name, by a bound
 * or by a used e-NCF inside them. Null when the messages name none, so nothing can be attributed.
 */
export function refusedRanges(rangos: VoidRange[], mensajes: readonly string[]): boolean[] | null {
  const named = mensajes.flatMap((m) => m.toUpperCase().match(/E\d{12}/g) ?? []);
  if (!named.length) return null;
  return rangos.map((r) => named.some((encf) => encf.slice(1, 3) === r.tipoeCF && encf >= r.desde && encf <= r.hasta));
}
