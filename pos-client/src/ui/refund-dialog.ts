// A return at the till, in the till's own dialog (no browser pop-ups): the receipt's lines with
// the quantity coming back for each (all of it by default), the amount of the credit note and what
// is still open on the receipt. Nothing is issued until the cashier confirms, once.
import { formatMoney } from "@ecf/shared/money";
import { formatNumber, h, money } from "@ecf/ui-kit";
import type { Sale } from "../db.ts";
import { cartTotals, type CartLine } from "../sale/document.ts";
import { setQuantity } from "../sale/line-edits.ts";

interface SignedItem {
  NombreItem: string;
  PrecioUnitarioItem: string;
  IndicadorFacturacion: string;
  UnidadMedida: string;
  IndicadorBienoServicio: string;
  CantidadItem: string;
  TablaSubDescuento?: { SubDescuentoPorcentaje?: string }[];
}

/** The receipt's lines as cart lines, at the document's own prices (included when the sale's were). */
export function linesOf(original: Sale): CartLine[] {
  const doc = original.document as {
    Encabezado: { IdDoc: { IndicadorMontoGravado?: string } };
    DetallesItems: SignedItem[];
  };
  return doc.DetallesItems.map((item) => ({
    product: {
      code: "",
      name: item.NombreItem,
      price: item.PrecioUnitarioItem,
      itbis:
        item.IndicadorFacturacion === "1"
          ? "18"
          : item.IndicadorFacturacion === "2"
            ? "16"
            : item.IndicadorFacturacion === "3"
              ? "0"
              : "E",
      unit: item.UnidadMedida,
      kind: item.IndicadorBienoServicio === "2" ? "2" : "1",
      priceIncludesItbis: doc.Encabezado.IdDoc.IndicadorMontoGravado === "1",
    },
    quantity: item.CantidadItem,
    discountPercent: item.TablaSubDescuento?.[0]?.SubDescuentoPorcentaje ?? "",
  }));
}

export interface RefundDialogOptions {
  /** What is still open on the receipt (the available-balance rule), as DGII text. */
  available: string;
  /** Issues the note for the chosen lines; its refusal (a Spanish message) is shown in the dialog. */
  issue: (lines: CartLine[]) => Promise<void>;
  close: () => void;
}

/** The dialog for a return of `original`. */
export function refundDialog(original: Sale, options: RefundDialogOptions): HTMLElement {
  const sold = linesOf(original);
  // What comes back per line; a line left at 0 is not returned.
  const back: CartLine[] = sold.map((l) => ({ ...l }));
  const error = h("p", { class: "error", role: "alert", id: "refund-error" });
  const amount = h("strong", { id: "refund-amount" });
  const chosen = () => back.filter((l) => l.quantity !== "0");
  const showAmount = () => {
    const lines = chosen();
    amount.textContent = money(lines.length ? formatMoney(cartTotals(lines, "34").total) : "0");
  };
  const rows = sold.map((line, i) => {
    const qty = h("input", {
      class: "refund-qty",
      inputmode: "decimal",
      value: formatNumber(line.quantity),
      "aria-label": `Devolver de ${line.product.name}`,
    });
    qty.addEventListener("change", () => {
      error.textContent = "";
      if (qty.value.trim() === "0") back[i]!.quantity = "0";
      else {
        const why = setQuantity(back[i]!, qty.value, line.quantity);
        if (why) error.textContent = why.replace(/no puede pasar de/, "no puede pasar de lo vendido,");
      }
      qty.value = formatNumber(back[i]!.quantity);
      showAmount();
    });
    return h(
      "tr",
      {},
      h("td", {}, line.product.name),
      h("td", { class: "num" }, formatNumber(line.quantity)),
      h("td", {}, qty),
    );
  });
  let issuing = false;
  const confirm = h("button", { type: "button", class: "primary", id: "refund-confirm" }, "Emitir nota de crédito");
  confirm.addEventListener("click", async () => {
    if (issuing) return;
    const lines = chosen();
    if (!lines.length) {
      error.textContent = "Indique al menos un artículo que se devuelve.";
      return;
    }
    issuing = true;
    confirm.disabled = true;
    error.textContent = "";
    try {
      await options.issue(lines);
    } catch (e) {
      error.textContent = e instanceof Error ? e.message : String(e);
    } finally {
      issuing = false;
      confirm.disabled = false;
    }
  });
  showAmount();
  return h(
    "section",
    { class: "refund-dialog", id: "refund-dialog", role: "dialog", "aria-label": `Devolución de ${original.encf}` },
    h("h2", {}, `Devolución de ${original.encf}`),
    h("p", {}, "Saldo disponible: ", h("span", { id: "refund-available" }, money(options.available))),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", {}, "Artículo"), h("th", {}, "Vendido"), h("th", {}, "Devuelve"))),
      h("tbody", {}, ...rows),
    ),
    h("p", {}, "Nota de crédito por ", amount),
    error,
    h(
      "div",
      { class: "actions" },
      confirm,
      h("button", { type: "button", id: "refund-cancel", onclick: () => options.close() }, "Cancelar"),
    ),
  );
}
