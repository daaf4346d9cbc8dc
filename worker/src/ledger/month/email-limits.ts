// How often one receipt may be e-mailed: a lost message can be sent again, an inbox cannot be
// flooded with the PDF and the XML. Counted over the month object's own email tasks, in the same
// single-threaded call that queues the next one, so two requests at once cannot both slip past.
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { tasks } from "./month-tables.ts";
import type { MonthDb } from "./month-receipts.ts";

/** Sendings of one receipt to one address within an hour. */
export const EMAILS_PER_ADDRESS_PER_HOUR = 3;
/** Sendings of one receipt, to any address, within a day. */
export const EMAILS_PER_RECEIPT_PER_DAY = 10;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What queueing a receipt's e-mail came to. */
export type EmailQueueing =
  | { outcome: "queued" }
  | { outcome: "no_receipt" }
  | { outcome: "limited"; retryAfter: number };

/** Seconds until this receipt may be e-mailed to `to` again; 0 when it may now. */
export function emailWait(db: MonthDb, encf: string, to: string, now: number): number {
  const sent = (windowMs: number, address: string | null) =>
    db
      .select({ at: tasks.createdAt })
      .from(tasks)
      .where(
        and(
          eq(tasks.kind, "email"),
          eq(tasks.orderingKey, `email:${encf}`),
          gt(tasks.createdAt, new Date(now - windowMs).toISOString()),
          address === null ? sql`1 = 1` : sql`lower(json_extract(${tasks.payload}, '$.to')) = ${address}`,
        ),
      )
      .orderBy(asc(tasks.createdAt))
      .all();
  const waitFor = (rows: { at: string }[], limit: number, windowMs: number) =>
    rows.length < limit
      ? 0
      : Math.max(1, Math.ceil((Date.parse(rows[rows.length - limit]!.at) + windowMs - now) / 1000));
  return Math.max(
    waitFor(sent(HOUR_MS, to.trim().toLowerCase()), EMAILS_PER_ADDRESS_PER_HOUR, HOUR_MS),
    waitFor(sent(DAY_MS, null), EMAILS_PER_RECEIPT_PER_DAY, DAY_MS),
  );
}
