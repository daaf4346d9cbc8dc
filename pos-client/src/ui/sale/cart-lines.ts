// The ticket: a row per line with its quantity and discount (both editable), its value and a button
// that removes it. A refused edit says why in the sale's message.
import { formatMoney, sub } from "@ecf/shared/money";
import { type Component, formatNumber, h, money } from "@ecf/ui-kit";
import type { Product } from "../../db.ts";
import { type CartLine, lineDiscount, lineGross, pricesIncludeItbis } from "../../sale/document.ts";
import { addOne, setDiscount, setQuantity } from "../../sale/line-edits.ts";
import type { SaleScreenState } from "../../sale/draft.ts";

export interface CartLines extends Component {
  /** Draws the lines again, then tells the screen the cart changed. */
  render(): void;
  /** One more of a product already in the cart, or a new line of one. */
  add(product: Product): void;
}

interface LineEdits {
  state: SaleScreenState;
  /** Where a refused quantity or discount says why. */
  message: HTMLElement;
  maxQuantity: string | undefined;
  render: () => void;
}

export function cartLines(
  state: SaleScreenState,
  message: HTMLElement,
  maxQuantity: string | undefined,
  changed: () => void,
): CartLines {
  const element = h("div", { class: "cart", id: "cart" });
  const edits: LineEdits = { state, message, maxQuantity, render: () => render() };
  const render = () => {
    element.replaceChildren(
      state.lines.length
        ? h("table", {}, head(), h("tbody", {}, ...state.lines.map((line, i) => lineRow(edits, line, i))))
        : h("p", { class: "empty" }, "Carrito vacío"),
    );
    changed();
  };
  const add = (p: Product) => {
    const line = state.lines.find((l) => l.product.code === p.code);
    message.textContent = line ? (addOne(line, maxQuantity) ?? "") : "";
    if (!line) state.lines.push({ product: p, quantity: "1", discountPercent: "" });
    render();
  };
  return { element, render, add };
}

const head = () =>
  h(
    "thead",
    {},
    h(
      "tr",
      {},
      h("th", {}, "Producto"),
      h("th", {}, "Cant."),
      h("th", {}, "Desc. %"),
      h("th", {}, "Valor"),
      h("th", {}, ""),
    ),
  );

function lineRow(edits: LineEdits, line: CartLine, i: number): HTMLElement {
  const { state, message } = edits;
  const qty = h("input", {
    class: "qty",
    inputmode: "decimal",
    value: formatNumber(line.quantity),
    "aria-label": `Cantidad de ${line.product.name}`,
  });
  qty.addEventListener("change", () => {
    message.textContent = setQuantity(line, qty.value, edits.maxQuantity) ?? "";
    edits.render();
  });
  const disc = h("input", {
    class: "disc",
    inputmode: "decimal",
    value: line.discountPercent ? formatNumber(line.discountPercent) : "",
    placeholder: "0",
    "aria-label": `Descuento de ${line.product.name}`,
  });
  disc.addEventListener("change", () => {
    message.textContent = setDiscount(line, disc.value) ?? "";
    edits.render();
  });
  const incluido = pricesIncludeItbis(state.lines);
  const net = sub(lineGross(line, incluido), lineDiscount(line, incluido));
  const remove = h(
    "button",
    {
      type: "button",
      "aria-label": `Quitar ${line.product.name}`,
      onclick: () => (state.lines.splice(i, 1), edits.render()),
    },
    "×",
  );
  return h(
    "tr",
    {},
    h("td", {}, line.product.name),
    h("td", {}, qty),
    h("td", {}, disc),
    h("td", { class: "num" }, money(formatMoney(net))),
    h("td", {}, remove),
  );
}
