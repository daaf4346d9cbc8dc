// A shift's life on the till: a cashier who typed the right PIN opens it with the float in the
// drawer; every sale and refund is rung up in it; closing takes the counted cash and writes the Z
// report. One shift is open at a time per till. Each change is queued for the server (sync/shifts.ts) in
// the same IndexedDB transaction that makes it.
import { formatMoney } from "@ecf/shared/money";
import { MONEY, parseNumber } from "@ecf/ui-kit";
import type { Cashier, PosDatabase, Sale, Shift } from "../db.ts";
import { pinMatches } from "./pin.ts";
import { clearPinFailures, pinWaitMs, recordPinFailure } from "./pin-attempts.ts";
import { zReport } from "./z-report.ts";

export class ShiftProblem extends Error {
  override name = "ShiftProblem";
}

/** The open shift of this till, if any. */
export async function currentShift(db: PosDatabase): Promise<Shift | undefined> {
  return db.shifts.where("state").equals("open").first();
}

/** An amount of cash as typed the Dominican way ("1,000.50"): 0 or more, at most 2 decimals. */
export function cashAmount(text: string, what: string): string {
  const parsed = parseNumber(text, MONEY(what));
  if (!parsed.ok) throw new ShiftProblem(parsed.error);
  return formatMoney(parsed.value);
}

export interface OpenShiftInput {
  cashier: Cashier;
  pin: string;
  openingFloat: string;
  deviceId?: string;
  now?: Date;
}

/** Opens a shift for a cashier whose PIN matches; refused while another shift is open. */
/** The PIN, unless this cashier must still wait after earlier wrong PINs (the wait grows with each). */
async function checkPin(db: PosDatabase, cashier: Cashier, pin: string, now: number): Promise<void> {
  const wait = await pinWaitMs(db, cashier.id, now);
  if (wait > 0) throw new ShiftProblem(`Demasiados PIN incorrectos: espere ${Math.ceil(wait / 1000)} segundos.`);
  if (await pinMatches(cashier, pin)) return clearPinFailures(db, cashier.id);
  await recordPinFailure(db, cashier.id, now);
  const next = await pinWaitMs(db, cashier.id, now);
  throw new ShiftProblem(
    next > 0
      ? `PIN incorrecto. Espere ${Math.ceil(next / 1000)} segundos antes de intentarlo de nuevo.`
      : "PIN incorrecto.",
  );
}

export async function openShift(db: PosDatabase, input: OpenShiftInput): Promise<Shift> {
  if (!input.cashier.active) throw new ShiftProblem(`${input.cashier.name} está inactivo.`);
  await checkPin(db, input.cashier, input.pin, (input.now ?? new Date()).getTime());
  const openingFloat = cashAmount(input.openingFloat, "Fondo de caja");
  const shift: Shift = {
    id: crypto.randomUUID(),
    cashierId: input.cashier.id,
    cashierName: input.cashier.name,
    openedAt: (input.now ?? new Date()).toISOString(),
    openingFloat,
    state: "open",
    ...(input.deviceId ? { deviceId: input.deviceId } : {}),
    sync: "pending",
    revision: 1,
  };
  return db.transaction("rw", db.shifts, async () => {
    const open = await currentShift(db);
    if (open) throw new ShiftProblem(`El turno de ${open.cashierName} sigue abierto: ciérrelo primero.`);
    await db.shifts.add(shift);
    return shift;
  });
}

/** The receipts rung up in a shift, in the order they were made. */
export async function salesOf(db: PosDatabase, shiftId: string): Promise<Sale[]> {
  return (await db.sales.where("shiftId").equals(shiftId).toArray()).sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0,
  );
}

/**
 * Closes the open shift with the cash counted in the drawer: the Z report is computed from the
 * shift's receipts and stored with it, in the same transaction as the reading, so no sale slips
 * in between.
 */
export async function closeShift(
  db: PosDatabase,
  shiftId: string,
  countedText: string,
  now = new Date(),
): Promise<Shift> {
  const countedCash = cashAmount(countedText, "Efectivo contado");
  return db.transaction("rw", db.shifts, db.sales, async () => {
    const shift = await db.shifts.get(shiftId);
    if (shift?.state !== "open") throw new ShiftProblem("Este turno ya está cerrado.");
    const sales = await salesOf(db, shiftId);
    const modified = sales.flatMap((s) => (s.modifies ? [s.modifies] : []));
    const originals = new Map((await db.sales.where("encf").anyOf(modified).toArray()).map((s) => [s.encf!, s]));
    const closed: Shift = {
      ...shift,
      state: "closed",
      closedAt: now.toISOString(),
      countedCash,
      report: zReport(shift.openingFloat, sales, originals, countedCash),
      sync: "pending",
      revision: shift.revision + 1,
    };
    await db.shifts.put(closed);
    return closed;
  });
}
