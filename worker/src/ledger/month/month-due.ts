// When a month object next has something to do: the earliest of its pending receipts (a held one
// when its holder's claim lapses), its purchases' next check with DGII, and its tasks (only the
// first pending task of each ordering key can run; the others wait behind it). Plain SQL: it runs
// on every change, and needs no building.
import { PENDING } from "./month-receipts.ts";

const NEXT_DUE_SQL = `SELECT
  (SELECT min(max(next_attempt_at, coalesce(claimed_until, ''))) FROM receipts
    WHERE status IN (${PENDING.map((s) => `'${s}'`).join(", ")}) AND next_attempt_at IS NOT NULL) AS next,
  (SELECT min(dgii_next_check_at) FROM purchases WHERE dgii_next_check_at IS NOT NULL) AS nextCheck,
  (SELECT min(max(t.next_attempt_at, coalesce(t.claimed_until, ''))) FROM tasks AS t
    WHERE t.status = 'pending'
      AND NOT EXISTS (SELECT 1 FROM tasks AS e
        WHERE e.ordering_key = t.ordering_key AND e.status = 'pending' AND e.position < t.position)) AS nextTask`;

/** The earliest instant (epoch ms) anything here is due, or null when nothing is. */
export function nextDueAt(storage: DurableObjectStorage): number | null {
  const { next, nextCheck, nextTask } = storage.sql
    .exec<{ next: string | null; nextCheck: string | null; nextTask: string | null }>(NEXT_DUE_SQL)
    .one();
  const earliest = [next, nextCheck, nextTask].filter((t): t is string => Boolean(t)).sort()[0];
  return earliest ? Date.parse(earliest) : null;
}
