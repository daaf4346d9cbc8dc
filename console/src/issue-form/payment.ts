// The payment terms of a hand-made invoice: contado, crédito (a term in days that sets
// FechaLimitePago, which stays editable) or gratuito, and up to seven FormaPago rows (how the
// buyer pays or is to pay). A single row left without an amount takes the invoice's total.
import { canonical, MONEY, parseNumber } from "@ecf/ui-kit";
import { field, h } from "../dom.ts";
import { day, parseDay } from "../format.ts";
import type { FieldErrors, FieldProblem } from "./field-errors.ts";

export const FORMAS = [
  ["1", "Efectivo"],
  ["2", "Cheque, transferencia o depósito"],
  ["3", "Tarjeta de débito o crédito"],
  ["4", "Venta a crédito"],
  ["5", "Bonos o certificados de regalo"],
  ["6", "Permuta"],
  ["8", "Otras formas de pago"],
] as const;

const IDDOC = "/Encabezado/IdDoc";

interface FormaRow {
  forma: HTMLSelectElement;
  monto: HTMLInputElement;
  row: HTMLElement;
}

export interface PaymentForm {
  box: HTMLElement;
  /** The IdDoc's payment fields for an invoice of `montoTotal`, or the problems of what is unreadable. */
  read(montoTotal: string): { fields: Record<string, unknown>; problems: FieldProblem[] };
  bind(errors: FieldErrors): void;
}

/** dd-MM-yyyy of the day `days` after `from` (Santo Domingo's calendar). */
export function dueDay(days: number, from = new Date()): string {
  return day(new Date(from.getTime() + days * 86_400_000).toISOString());
}

export function paymentForm(now: () => Date = () => new Date()): PaymentForm {
  const tipo = h(
    "select",
    { name: "condicion" },
    h("option", { value: "1" }, "Contado"),
    h("option", { value: "2" }, "Crédito"),
    h("option", { value: "3" }, "Gratuito (entrega sin cobro)"),
  );
  const days = h("input", { name: "plazo", inputmode: "numeric", value: "30" });
  const due = h("input", { name: "vence", inputmode: "numeric", placeholder: "dd-mm-aaaa" });
  const creditBox = h(
    "div",
    { class: "credit", hidden: true },
    field("Plazo en días", days),
    field("Fecha límite de pago", due, "dd-mm-aaaa; se calcula del plazo"),
  );
  const { rows, formsBox, bindRows } = formaRows();
  const sync = () => {
    creditBox.hidden = tipo.value !== "2";
    formsBox.hidden = tipo.value === "3";
    if (tipo.value === "2" && /^\d{1,4}$/.test(days.value.trim())) due.value = dueDay(Number(days.value), now());
  };
  tipo.addEventListener("change", sync);
  days.addEventListener("input", sync);
  const box = h(
    "fieldset",
    { class: "payment" },
    h("legend", {}, "Pago"),
    field("Condición", tipo),
    creditBox,
    formsBox,
  );
  const read = (montoTotal: string) => {
    const problems: FieldProblem[] = [];
    const fields: Record<string, unknown> = { TipoPago: tipo.value };
    if (tipo.value === "2") {
      const fecha = parseDay(due.value);
      if (fecha) fields.FechaLimitePago = day(fecha);
      else problems.push({ path: `${IDDOC}/FechaLimitePago`, messageEs: "Escriba la fecha como dd-mm-aaaa." });
      if (/^\d{1,4}$/.test(days.value.trim())) fields.TerminoPago = `${Number(days.value)} días`;
    }
    if (tipo.value !== "3") {
      const formas = rows.map((r, i) => {
        if (rows.length === 1 && !r.monto.value.trim()) return { FormaPago: r.forma.value, MontoPago: montoTotal };
        const parsed = parseNumber(r.monto.value, MONEY("El monto"));
        if (!parsed.ok) problems.push({ path: `${IDDOC}/TablaFormasPago/${i}/MontoPago`, messageEs: parsed.error });
        return { FormaPago: r.forma.value, MontoPago: parsed.ok ? canonical(parsed.value) : r.monto.value };
      });
      fields.TablaFormasPago = formas;
    }
    return { fields, problems };
  };
  const bind = (errors: FieldErrors) => {
    errors.bind(tipo, `${IDDOC}/TipoPago`);
    errors.bind(due, `${IDDOC}/FechaLimitePago`);
    errors.bind(days, `${IDDOC}/TerminoPago`);
    bindRows(errors);
    errors.bind(tipo, `${IDDOC}/TablaFormasPago`);
  };
  return { box, read, bind };
}

/** The FormaPago rows (up to seven, DGII's limit); rows added later are bound like the first. */
function formaRows() {
  const rows: FormaRow[] = [];
  const rowsBox = h("div", { class: "formas" });
  let boundTo: FieldErrors | undefined;
  const bindRow = (errors: FieldErrors, r: FormaRow, i: number) => {
    errors.bind(r.forma, `${IDDOC}/TablaFormasPago/${i}`, `${IDDOC}/TablaFormasPago/${i}/FormaPago`);
    errors.bind(r.monto, `${IDDOC}/TablaFormasPago/${i}/MontoPago`);
  };
  const addRow = () => {
    if (rows.length >= 7) return;
    const n = rows.length + 1;
    const forma = h("select", { name: `forma-${n}` }, ...FORMAS.map(([v, t]) => h("option", { value: v }, t)));
    const monto = h("input", { name: `monto-forma-${n}`, inputmode: "decimal" });
    const row = h("div", { class: "forma" }, field(`Forma de pago ${n}`, forma), field(`Monto ${n} en RD$`, monto));
    rows.push({ forma, monto, row });
    rowsBox.append(row);
    if (boundTo) bindRow(boundTo, rows[n - 1]!, n - 1);
  };
  addRow();
  const formsBox = h(
    "div",
    {},
    rowsBox,
    h("button", { type: "button", onclick: addRow }, "Agregar forma de pago"),
    h("small", {}, "Con una sola forma sin monto, se toma el total."),
  );
  const bindRows = (errors: FieldErrors) => {
    boundTo = errors;
    rows.forEach((r, i) => bindRow(errors, r, i));
  };
  return { rows, formsBox, bindRows };
}
