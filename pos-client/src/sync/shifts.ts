// Shifts reach the server as receipts do: queued on the till (the shift row's `sync`), sent with
// PUT /devices/shifts/{id} in every sync round (sync/runner.ts; a change kicks one at once),
// retried until answered. The server takes a repeat as the same upload, so sending again after a
// lost answer changes nothing.
import { ProblemError } from "@ecf/client";
import { problemHead } from "@ecf/ui-kit";
import type { PosDatabase, Shift } from "../db.ts";

/** What PUT /devices/shifts/{id} takes for a shift as it stands. */
export function shiftUpload(shift: Shift) {
  return {
    cashierId: shift.cashierId,
    cashierName: shift.cashierName,
    openedAt: shift.openedAt,
    openingFloat: shift.openingFloat,
    ...(shift.state === "closed"
      ? { closedAt: shift.closedAt, countedCash: shift.countedCash, report: shift.report }
      : {}),
  };
}

/** How the till hands a shift over (DeviceApi.putShift with the token of the shift's pairing; a test hands its own). */
export type PutShift = (shift: Shift, body: ReturnType<typeof shiftUpload>) => Promise<unknown>;

export interface ShiftSyncReport {
  sent: number;
  refused: number;
  /** Why the round stopped early (network, server), if it did: the rest waits for the next round. */
  retryLater?: string;
}

/**
 * Sends every shift whose current state the server does not have yet, oldest first. A 4xx answer
 * (the server will never take this state) marks it refused with the reason; a network failure or
 * a 5xx ends the round, to be tried again.
 */
export async function syncShifts(db: PosDatabase, put: PutShift): Promise<ShiftSyncReport> {
  const report: ShiftSyncReport = { sent: 0, refused: 0 };
  const waiting = (await db.shifts.where("sync").equals("pending").toArray()).sort((a, b) =>
    a.openedAt < b.openedAt ? -1 : 1,
  );
  for (const shift of waiting) {
    try {
      await put(shift, shiftUpload(shift));
      if (await settle(db, shift, { sync: "sent", lastError: undefined })) report.sent++;
    } catch (error) {
      // Only a problem document speaks for the shift; a proxy's error page does not.
      if (
        error instanceof ProblemError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.status !== 401 &&
        error.status !== 408 &&
        error.status !== 429
      ) {
        const reasons = error.errors.map((e) => e.message).join(" ");
        if (await settle(db, shift, { sync: "refused", lastError: `${problemHead(error)} ${reasons}`.trim() }))
          report.refused++;
        continue;
      }
      report.retryLater = error instanceof Error ? error.message : String(error);
      break;
    }
  }
  return report;
}

/** Records the answer unless the shift changed meanwhile (closed while its opening was on its way). */
async function settle(db: PosDatabase, sent: Shift, changes: Pick<Shift, "sync" | "lastError">): Promise<boolean> {
  return db.transaction("rw", db.shifts, async () => {
    const now = await db.shifts.get(sent.id);
    if (!now || now.revision !== sent.revision) return false;
    await db.shifts.put({ ...now, ...changes });
    return true;
  });
}
