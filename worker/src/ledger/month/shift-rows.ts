// The shifts table of a ReceiptMonth object: the till's upsert (a closed shift is final) and the
// report's keyset slice. Runs inside the object, one event at a time, so read-then-write is atomic.
import { and, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type * as monthTables from "./month-tables.ts";
import { shifts } from "./month-tables.ts";

type MonthDb = DrizzleSqliteDODatabase<typeof monthTables>;
export type Shift = typeof shifts.$inferSelect;
export type NewShift = typeof shifts.$inferInsert;

export type PutShiftOutcome =
  | { kind: "created" | "updated" | "unchanged"; shift: Shift }
  | { kind: "conflict"; shift: Shift; path: string; message: string };

/** Fixed when the shift is opened: a later upload that changes one is not the same shift. */
const FIXED = [
  ["deviceId", ""],
  ["cashierId", "/cashierId"],
  ["cashierName", "/cashierName"],
  ["openedAt", "/openedAt"],
  ["openingFloat", "/openingFloat"],
] as const;

/**
 * Stores a till's upload of a shift: new → created; the same upload again → unchanged; an open
 * shift closed now → updated; anything else (a closed shift changed, a fixed field changed,
 * another till's id) → conflict, and nothing is written.
 */
export function putShift(db: MonthDb, row: NewShift): PutShiftOutcome {
  const existing = db.select().from(shifts).where(eq(shifts.id, row.id)).get();
  if (!existing) return { kind: "created", shift: db.insert(shifts).values(row).returning().get() };
  if (existing.payload === row.payload && existing.deviceId === row.deviceId)
    return { kind: "unchanged", shift: existing };
  for (const [field, path] of FIXED) {
    if (existing[field] !== row[field]) {
      const message =
        field === "deviceId"
          ? "This shift id belongs to another till."
          : `${field} is fixed when the shift is opened (it was ${existing[field]}).`;
      return { kind: "conflict", shift: existing, path, message };
    }
  }
  if (existing.closedAt)
    return {
      kind: "conflict",
      shift: existing,
      path: "",
      message: `The shift was closed at ${existing.closedAt}; a closed shift is final.`,
    };
  // Still open and not closed by this upload: what it says is what is stored already.
  if (!row.closedAt) return { kind: "unchanged", shift: existing };
  const closed = db
    .update(shifts)
    .set({ ...row, updatedAt: new Date().toISOString() })
    .where(eq(shifts.id, row.id))
    .returning()
    .get()!;
  return { kind: "updated", shift: closed };
}

export interface ShiftSliceQuery {
  /** Santo Domingo days, inclusive. */
  from?: string;
  until?: string;
  deviceId?: string;
  /** The last (day|device|openedAt, id) of the previous page. */
  after?: [string, string];
  limit: number;
}

/** The key the report orders by (day, till, opening time), then the id; also the cursor's. */
export const shiftSortKey = (s: Pick<Shift, "businessDay" | "deviceId" | "openedAt">) =>
  `${s.businessDay}|${s.deviceId}|${s.openedAt}`;

/** One month's shifts after the cursor, in report order, and how many match across all pages. */
export function shiftSlice(db: MonthDb, query: ShiftSliceQuery): { rows: Shift[]; total: number } {
  const filter: SQL[] = [];
  if (query.from) filter.push(gte(shifts.businessDay, query.from));
  if (query.until) filter.push(lte(shifts.businessDay, query.until));
  if (query.deviceId) filter.push(eq(shifts.deviceId, query.deviceId));
  const page = [...filter];
  if (query.after) {
    const [day, device, openedAt] = query.after[0].split("|");
    page.push(
      sql`(${shifts.businessDay}, ${shifts.deviceId}, ${shifts.openedAt}, ${shifts.id}) > (${day}, ${device}, ${openedAt}, ${query.after[1]})`,
    );
  }
  const rows = db
    .select()
    .from(shifts)
    .where(and(...page))
    .orderBy(shifts.businessDay, shifts.deviceId, shifts.openedAt, shifts.id)
    .limit(query.limit)
    .all();
  const total = db
    .select({ n: sql<number>`count(*)` })
    .from(shifts)
    .where(and(...filter))
    .get()?.n;
  return { rows, total: Number(total ?? 0) };
}
