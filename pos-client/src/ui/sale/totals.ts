// The totals of the cart: the type of receipt, subtotal, discounts, ITBIS and the total to charge.
import { formatMoney } from "@ecf/shared/money";
import { type Component, h, money } from "@ecf/ui-kit";
import type { CartTotals } from "../../sale/document.ts";

export interface TotalsBox extends Component {
  show(totals: CartTotals, tipo: "31" | "32"): void;
}

const row = (label: string, value: HTMLElement | string, cls = "row") =>
  h("div", { class: cls }, h("span", {}, label), typeof value === "string" ? h("span", {}, value) : value);

export function totalsBox(): TotalsBox {
  const element = h("div", { class: "totals", id: "totals" });
  const show = (t: CartTotals, tipo: "31" | "32") =>
    element.replaceChildren(
      row("Tipo", h("span", { id: "tipo" }, tipo === "31" ? "E31 Crédito fiscal" : "E32 Consumo")),
      row("Subtotal", money(formatMoney(t.subtotal))),
      row("Descuentos", money(formatMoney(t.discount))),
      row("ITBIS", money(formatMoney(t.itbis))),
      row("Total", h("span", { id: "total" }, money(formatMoney(t.total))), "row total"),
    );
  return { element, show };
}
