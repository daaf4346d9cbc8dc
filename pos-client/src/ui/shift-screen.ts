// The shift screens: a cashier picks their name, types the PIN (checked offline) and the opening
// float; closing asks for the counted cash; the Z report prints on the 80 mm roll like a receipt.
import { h, money } from "@ecf/ui-kit";
import type { PosDatabase, Shift } from "../db.ts";
import { dateTime, TIPO_NOMBRE } from "../format.ts";
import { closeShift, openShift, ShiftProblem, salesOf } from "../shift/shifts.ts";
import type { ZDetails } from "../shift/z-details.ts";
import type { GivenUpNumber } from "../sync/given-up.ts";

const PAGO: Record<string, string> = { efectivo: "Efectivo", tarjeta: "Tarjeta", transferencia: "Transferencia" };

const problemText = (error: unknown) =>
  error instanceof ShiftProblem
    ? error.message
    : `No se pudo: ${error instanceof Error ? error.message : String(error)}`;

/** Opening a shift: no sale is rung up before one is open. */
export async function openShiftScreen(
  db: PosDatabase,
  deviceId: string | undefined,
  opened: (shift: Shift) => void,
): Promise<HTMLElement> {
  const cashiers = (await db.cashiers.toArray())
    .filter((c) => c.active)
    .sort((a, b) => a.name.localeCompare(b.name, "es"));
  const error = h("p", { class: "error", role: "alert", id: "shift-error" });
  if (!cashiers.length) {
    return h(
      "section",
      { class: "shift", id: "shift-open" },
      h("h2", {}, "Abrir turno"),
      h(
        "p",
        { id: "shift-no-cashiers" },
        "No hay cajeros en este punto de venta: el administrador los crea en el servidor y llegan con el " +
          "catálogo (se necesita conexión una vez).",
      ),
    );
  }
  const cashier = h(
    "select",
    { id: "shift-cashier", "aria-label": "Cajero", "data-autofocus": true },
    ...cashiers.map((c) => h("option", { value: c.id }, c.name)),
  );
  const pin = h("input", {
    id: "shift-pin",
    type: "password",
    inputmode: "numeric",
    autocomplete: "off",
    maxlength: 12,
    required: true,
    "aria-label": "PIN",
  });
  const float = h("input", {
    id: "shift-float",
    inputmode: "decimal",
    autocomplete: "off",
    required: true,
    placeholder: "0.00",
    "aria-label": "Fondo de caja",
  });
  const button = h("button", { type: "submit", class: "primary big", id: "shift-open-button" }, "Abrir turno");
  const form = h(
    "form",
    { class: "shift", id: "shift-open" },
    h("h2", {}, "Abrir turno"),
    h("p", {}, "Para vender, el cajero abre su turno con su PIN y el efectivo inicial de la caja."),
    h("label", {}, "Cajero ", cashier),
    h("label", {}, "PIN ", pin),
    h("label", {}, "Fondo de caja (RD$) ", float),
    button,
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    button.disabled = true;
    try {
      const chosen = cashiers.find((c) => c.id === cashier.value)!;
      opened(await openShift(db, { cashier: chosen, pin: pin.value, openingFloat: float.value, deviceId }));
    } catch (e) {
      error.textContent = problemText(e);
      pin.value = "";
      pin.focus();
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** Closing the open shift: the cashier counts the drawer (blind: the expected amount shows only on the Z report). */
export async function closeShiftScreen(
  db: PosDatabase,
  shift: Shift,
  closed: (shift: Shift) => void,
): Promise<HTMLElement> {
  const receipts = (await salesOf(db, shift.id)).length;
  const counted = h("input", {
    id: "shift-counted",
    inputmode: "decimal",
    autocomplete: "off",
    required: true,
    placeholder: "0.00",
    "aria-label": "Efectivo contado",
    "data-autofocus": true,
  });
  const error = h("p", { class: "error", role: "alert", id: "shift-error" });
  const button = h(
    "button",
    { type: "submit", class: "primary big", id: "shift-close-button" },
    "Cerrar turno e imprimir Z",
  );
  const form = h(
    "form",
    { class: "shift", id: "shift-close" },
    h("h2", {}, `Turno de ${shift.cashierName}`),
    h(
      "p",
      {},
      `Abierto: ${dateTime(shift.openedAt)} · Fondo: ${money(shift.openingFloat)} · Comprobantes: ${receipts}`,
    ),
    h("label", {}, "Efectivo contado en caja (RD$) ", counted),
    button,
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    button.disabled = true;
    try {
      closed(await closeShift(db, shift.id, counted.value));
    } catch (e) {
      error.textContent = problemText(e);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

export interface ZReportHeader {
  companyName: string;
  rnc: string;
  deviceName: string;
}

/** The Z report on the 80 mm roll (the same print CSS as a receipt: only the ticket prints). */
export function zReportView(shift: Shift, header: ZReportHeader, details?: ZDetails): HTMLElement {
  const report = shift.report!;
  const row = (label: string, value: string, field?: string, cls = "") =>
    h(
      "div",
      { class: `row ${cls}`, ...(field ? { "data-field": field } : {}) },
      h("span", {}, label),
      h("span", {}, value),
    );
  const section = (title: string) => h("div", { class: "title" }, title);
  return h(
    "section",
    { class: "ticket z-report", id: "z-report", "data-shift-id": shift.id },
    h(
      "header",
      {},
      h("strong", {}, header.companyName),
      h("div", {}, `RNC ${header.rnc}`),
      h("div", {}, header.deviceName),
    ),
    section("REPORTE Z — CIERRE DE TURNO"),
    row("Cajero", shift.cashierName),
    row("Apertura", dateTime(shift.openedAt)),
    row("Cierre", dateTime(shift.closedAt!)),
    section("Comprobantes"),
    ...(report.receipts.length
      ? report.receipts.map((r) => row(`${TIPO_NOMBRE[r.tipoeCF] ?? `e-CF ${r.tipoeCF}`} (${r.count})`, money(r.total)))
      : [row("Ninguno", money("0"))]),
    section("Ventas por forma de pago"),
    ...report.payments.map((p) =>
      row(`${PAGO[p.method] ?? p.method} (${p.count})`, money(p.total), `pago-${p.method}`),
    ),
    row(`Total ventas (${report.salesCount})`, money(report.salesTotal), "salesTotal", "total"),
    ...(details
      ? [
          row("Ventas brutas", money(details.grossSales), "grossSales"),
          row("Ventas netas (menos devoluciones)", money(details.netSales), "netSales"),
        ]
      : []),
    row("Total ITBIS", money(report.itbisTotal), "itbisTotal"),
    row(`Devoluciones (${report.refunds.count})`, money(report.refunds.total), "refunds"),
    row("ITBIS devuelto", money(report.refunds.itbis)),
    ...(details ? zDetailRows(details, row, section) : []),
    section("Efectivo"),
    row("Fondo de caja", money(shift.openingFloat), "openingFloat"),
    row("+ Ventas en efectivo", money(report.cashSales), "cashSales"),
    row("− Devoluciones en efectivo", money(report.cashRefunds), "cashRefunds"),
    row("Esperado", money(report.expectedCash), "expectedCash"),
    row("Contado", money(report.countedCash), "countedCash"),
    row(report.difference.startsWith("-") ? "Faltante" : "Diferencia", money(report.difference), "difference", "total"),
  );
}

type Row = (label: string, value: string, field?: string, cls?: string) => HTMLElement;

/** The e-NCF ranges per type, the receipts still to send and the numbers to void. */
function zDetailRows(details: ZDetails, row: Row, section: (title: string) => HTMLElement): HTMLElement[] {
  return [
    section("Secuencias e-NCF usadas"),
    ...(details.ranges.length
      ? details.ranges.map((r) =>
          row(
            `E${r.tipoeCF} (${r.count})`,
            r.first === r.last ? r.first : `${r.first} – ${r.last}`,
            `range-${r.tipoeCF}`,
          ),
        )
      : [row("Ninguna", "")]),
    row("Comprobantes por enviar al servidor", String(details.pending), "pending"),
    ...(details.givenUp.length
      ? [
          section("Números no usados (ANECF)"),
          ...details.givenUp.map((n) =>
            row(
              n.encf,
              n.message ? `${GIVEN_UP_TEXT[n.estado]}: ${n.message}` : GIVEN_UP_TEXT[n.estado],
              `given-up-${n.encf}`,
            ),
          ),
        ]
      : []),
  ];
}

const GIVEN_UP_TEXT: Record<GivenUpNumber["estado"], string> = {
  "Por anular": "por anular",
  Anulado: "anulado",
  "No anulado": "no anulado",
};

const SYNC_TEXT: Record<Shift["sync"], string> = { pending: "Por enviar", sent: "Enviado", refused: "Rechazado" };

/** The till's last closed shifts: whether the server has each, and its Z report to print again. */
export async function shiftHistory(db: PosDatabase, show: (shift: Shift) => void): Promise<HTMLElement> {
  const closed = (await db.shifts.orderBy("openedAt").reverse().limit(20).toArray()).filter(
    (s) => s.state === "closed",
  );
  if (!closed.length) return h("section", { class: "shift-history", id: "shift-history" });
  return h(
    "section",
    { class: "shift-history", id: "shift-history" },
    h("h3", {}, "Turnos cerrados"),
    h(
      "table",
      { class: "history" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", {}, "Cajero"),
          h("th", {}, "Cierre"),
          h("th", {}, "Diferencia"),
          h("th", {}, "Servidor"),
          h("th", {}, ""),
        ),
      ),
      h(
        "tbody",
        {},
        ...closed.map((s) =>
          h(
            "tr",
            { "data-shift-id": s.id, "data-sync": s.sync },
            h("td", {}, s.cashierName),
            h("td", {}, dateTime(s.closedAt!)),
            h("td", { class: "num" }, money(s.report!.difference)),
            h(
              "td",
              { title: s.lastError ?? "" },
              s.sync === "refused" && s.lastError ? `${SYNC_TEXT[s.sync]}: ${s.lastError}` : SYNC_TEXT[s.sync],
            ),
            h("td", {}, h("button", { type: "button", onclick: () => show(s) }, "Ver Z")),
          ),
        ),
      ),
    ),
  );
}
