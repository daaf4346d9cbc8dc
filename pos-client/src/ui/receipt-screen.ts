// The receipt on screen after a sale or from the history: the printed receipt, DGII's reason for a
// rejection, and its actions: print, a new sale, and a return (a credit note) while something is
// still open on it, in the till's own dialog.
import { h } from "@ecf/ui-kit";
import type { PosDatabase, Sale } from "../db.ts";
import { receiptView } from "../receipt/print.ts";
import type { CartLine } from "../sale/document.ts";
import { SaleProblem } from "../sale/issue.ts";
import { judgeRefund } from "../sale/refund.ts";
import { refundDialog } from "./refund-dialog.ts";
import type { TillIssuer } from "./till-issuer.ts";

export interface ReceiptScreenOptions {
  /** The till's name, printed on the receipt. */
  till: string;
  issuer: TillIssuer;
  newSale: () => void;
  /** A credit note was issued: the app shows it (and hands it to the sync). */
  issued: (note: Sale) => Promise<void>;
}

export async function receiptScreen(db: PosDatabase, sale: Sale, options: ReceiptScreenOptions): Promise<HTMLElement> {
  const actions = h(
    "div",
    { class: "actions no-print" },
    h("button", { type: "button", class: "primary", id: "print", onclick: () => print() }, "Imprimir"),
    h("button", { type: "button", id: "new-sale", onclick: () => options.newSale() }, "Nueva venta"),
    // Only while something is still open on it: a receipt fully credited offers no return.
    (await judgeRefund(db, sale, "0.01")).ok
      ? h(
          "button",
          { type: "button", id: "refund", onclick: () => void openRefund(db, sale, view, options) },
          "Devolución (nota de crédito)",
        )
      : null,
  );
  const reason =
    sale.estado === "Rechazado" && sale.mensajes?.length
      ? h(
          "p",
          { class: "error no-print" },
          `Rechazado: ${sale.mensajes.map((m) => `${m.codigo} ${m.valor}`).join(" · ")}`,
        )
      : null;
  const cashier = sale.shiftId ? (await db.shifts.get(sale.shiftId))?.cashierName : undefined;
  const printed = await receiptView(sale, { till: options.till, ...(cashier ? { cashier } : {}) });
  const view = h("div", { class: "receipt-screen" }, printed, reason, actions);
  return view;
}

/**
 * A return of a receipt (whole or chosen lines and quantities) in the till's own dialog: an E34
 * against it, never beyond what is still open on it (judgeRefund, again in issueReceipt).
 */
async function openRefund(db: PosDatabase, original: Sale, screen: HTMLElement, options: ReceiptScreenOptions) {
  // Marked before the first await: a second click meanwhile opens no second dialog.
  if (options.issuer.busy || screen.dataset.refunding) return;
  screen.dataset.refunding = "open";
  const verdict = await judgeRefund(db, original, "0.01");
  if (!verdict.ok) {
    delete screen.dataset.refunding;
    return;
  }
  const actions = screen.querySelector<HTMLElement>(".actions");
  const dialog = refundDialog(original, {
    available: verdict.available,
    close: () => {
      dialog.remove();
      delete screen.dataset.refunding;
      if (actions) actions.hidden = false;
    },
    issue: (lines) => issueRefund(original, lines, options),
  });
  if (actions) actions.hidden = true;
  screen.append(dialog);
  dialog.querySelector<HTMLInputElement>("input")?.focus();
}

/** Issues the credit note for the chosen lines; a refusal is thrown as a SaleProblem (Spanish). */
function issueRefund(original: Sale, lines: CartLine[], options: ReceiptScreenOptions): Promise<void> {
  // A second confirmation (or one while the first note is being signed) issues nothing.
  return options.issuer.once(async () => {
    try {
      await options.issued(await options.issuer.creditNote(original, lines));
    } catch (error) {
      throw error instanceof SaleProblem
        ? error
        : new SaleProblem(`No se pudo emitir la nota de crédito: ${String(error)}`);
    }
  });
}
