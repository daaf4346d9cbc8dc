// The bar's word on shifts: whose shift is open, and a closed shift the server does not have yet,
// with why (refused, or waiting for the server to answer), so a closed shift never goes missing
// from the back office's /reports/turnos unnoticed.
import { h } from "@ecf/ui-kit";
import type { PosDatabase, Shift } from "../db.ts";

export interface ShiftIndicator {
  elements: HTMLElement[];
  showShift(shift: Shift | undefined): void;
  /** Reads again which closed shifts wait (after each sync round). */
  showUnsent(): Promise<void>;
}

export function shiftIndicator(db: PosDatabase): ShiftIndicator {
  const open = h("span", { class: "shift-status", id: "shift-status" });
  const unsent = h("span", { class: "shift-sync warn", id: "shift-sync", role: "status" });
  return {
    elements: [open, unsent],
    showShift: (shift) => {
      open.textContent = shift ? `Turno: ${shift.cashierName}` : "Sin turno abierto";
    },
    showUnsent: async () => {
      unsent.textContent = await unsentShiftsText(db);
    },
  };
}

/**
 * What the bar says of closed shifts the server does not have yet: a refusal with its reason (the
 * Turno tab lists them all), or that they go once the server answers. Empty when all are handed over.
 */
export async function unsentShiftsText(db: PosDatabase): Promise<string> {
  const closed = await db.shifts
    .where("sync")
    .anyOf("pending", "refused")
    .filter((s) => s.state === "closed")
    .toArray();
  const refused = closed.find((s) => s.sync === "refused");
  if (refused) return `Turno de ${refused.cashierName} rechazado por el servidor: ${refused.lastError ?? ""}`.trim();
  if (!closed.length) return "";
  const what = closed.length === 1 ? "Turno cerrado sin enviar" : `${closed.length} turnos cerrados sin enviar`;
  return `${what}: se envía cuando el servidor responda.`;
}
