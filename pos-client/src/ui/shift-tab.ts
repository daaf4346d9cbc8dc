// The Turno tab (the open shift's closing form, or the opening form, and the closed shifts), and the
// Z report of a closed shift on screen, to print, in place of the tab.
import { h } from "@ecf/ui-kit";
import type { PosDatabase, Shift } from "../db.ts";
import type { Session } from "../session.ts";
import { zDetails } from "../shift/z-details.ts";
import { closeShiftScreen, openShiftScreen, shiftHistory, zReportView } from "./shift-screen.ts";

export interface ShiftTabOptions {
  /** The pairing a new shift is opened under. */
  deviceId: string | undefined;
  /** A shift was opened or closed. */
  changed: (shift: Shift) => void;
  /** The cashier asked for a closed shift's Z report. */
  showZ: (shift: Shift) => void;
}

export async function shiftTab(
  db: PosDatabase,
  shift: Shift | undefined,
  options: ShiftTabOptions,
): Promise<HTMLElement> {
  return h(
    "div",
    { class: "shift-tab" },
    shift
      ? await closeShiftScreen(db, shift, options.changed)
      : await openShiftScreen(db, options.deviceId, options.changed),
    await shiftHistory(db, options.showZ),
  );
}

/** A closed shift's Z report with its header, and what comes next: print it or open another shift. */
export async function zScreen(
  db: PosDatabase,
  shift: Shift,
  session: Session,
  nextShift: () => void,
): Promise<HTMLElement> {
  const details = await zDetails(db, shift);
  const company = session.company;
  return h(
    "div",
    { class: "receipt-screen" },
    zReportView(
      shift,
      { companyName: company.tradeName ?? company.name, rnc: company.registryNumber, deviceName: session.deviceName },
      details,
    ),
    h(
      "div",
      { class: "actions no-print" },
      h("button", { type: "button", class: "primary", id: "print", onclick: () => print() }, "Imprimir"),
      h("button", { type: "button", id: "next-shift", onclick: () => nextShift() }, "Abrir otro turno"),
    ),
  );
}
