// The sale screen: search the catalogue by name or code, a cart with quantities and line discounts,
// the buyer (an RNC makes it an E31), totals from the shared package, and the payment.
import { formatMoney, sub } from "@ecf/shared/money";
import { verifyRncOrCedula } from "@ecf/shared/ids";
import type { PosDatabase, Product } from "../db.ts";
import { money } from "../format.ts";
import { type FindTaxpayer, inactiveWarning, isRegistryId, lookupBuyer, rememberBuyer } from "../sale/buyers.ts";
import {
  cartTotals,
  lineDiscount,
  lineGross,
  pricesIncludeItbis,
  type CartLine,
  type Payment,
  type PaymentMethod,
} from "../sale/document.ts";
import { formatNumber } from "../input/amounts.ts";
import { addOne, setDiscount, setQuantity } from "../sale/line-edits.ts";
import { cashChange, paymentFor } from "../sale/payment.ts";
import { ZERO_TOTAL_MESSAGES, zeroTotalVerdict } from "../sale/zero-total.ts";
import { h } from "./dom.ts";
import { pageOf } from "./paging.ts";
import { productTiles } from "./product-results.ts";

export interface SaleRequest {
  tipoeCF: "31" | "32";
  lines: CartLine[];
  buyer?: { rnc?: string; name?: string };
  payment: Payment;
}

export interface SaleScreenState {
  lines: CartLine[];
  rnc: string;
  buyerName: string;
  method: PaymentMethod;
  cash: string;
  card: string;
  transfer: string;
}

export const emptySale = (): SaleScreenState => ({
  lines: [],
  rnc: "",
  buyerName: "",
  method: "efectivo",
  cash: "",
  card: "",
  transfer: "",
});

/** The app forwards every window keydown to the sale screen on display as this event. */
export const SALE_KEY = "sale-key";
/** The app hands a scanned code to the sale screen on display (see scanner.ts). */
export const SALE_SCAN = "sale-scan";
/** The app tells the sale screen on display that the catalogue changed (it reloads its products in place). */
export const CATALOG_PULLED = "catalog-pulled";

export interface SaleScreenOptions {
  /** DGII's registry, asked when the till is online; without it only recent buyers fill the name. */
  findTaxpayer?: FindTaxpayer;
  /** The largest quantity a line may carry (the business's setting; 9,999 by default). */
  maxQuantity?: string;
  /** Told after every change to the cart, the buyer or the payment (the app keeps it across reloads). */
  changed?: (state: SaleScreenState) => void;
}

/** A product whose code or one of whose barcodes is exactly what was typed or scanned. */
/** Product tiles per page of the grid. */
export const RESULTS_PER_PAGE = 24;

export const byCode = (products: readonly Product[], typed: string) =>
  products.find((p) => p.code === typed) ?? products.find((p) => p.barcodes?.includes(typed));

export async function saleScreen(
  db: PosDatabase,
  state: SaleScreenState,
  charge: (req: SaleRequest) => Promise<void>,
  options: SaleScreenOptions = {},
): Promise<HTMLElement> {
  let products = await db.products.orderBy("name").toArray();
  const root = h("div", { class: "sale" });
  const search = h("input", {
    id: "search",
    type: "search",
    placeholder: "Buscar por nombre o código (Enter agrega)",
    autocomplete: "off",
    "aria-label": "Buscar producto",
    "data-autofocus": true,
  });
  const results = h("div", { class: "results", id: "results" });
  const cart = h("div", { class: "cart", id: "cart" });
  const totalsBox = h("div", { class: "totals", id: "totals" });
  const message = h("p", { class: "error", role: "alert", id: "sale-error" });
  // What a scan (or a code typed + Enter) did not find; cleared by the next one.
  const scanMessage = h("p", { class: "error", role: "alert", id: "scan-error" });

  /** Every product the search matches, by name; the grid shows them a page at a time. */
  const allMatches = () => {
    const q = search.value.trim().toLowerCase();
    return q
      ? products.filter(
          (p) => p.code.toLowerCase().includes(q) || p.name.toLowerCase().includes(q) || p.barcodes?.includes(q),
        )
      : products;
  };
  let resultsPage = 0;
  const matches = () => pageOf(allMatches(), resultsPage, RESULTS_PER_PAGE).items;
  const addToCart = (p: Product) => {
    const line = state.lines.find((l) => l.product.code === p.code);
    message.textContent = line ? (addOne(line, options.maxQuantity) ?? "") : "";
    if (!line) state.lines.push({ product: p, quantity: "1", discountPercent: "" });
    renderCart();
  };
  const renderResults = () => {
    const shown = pageOf(allMatches(), resultsPage, RESULTS_PER_PAGE);
    resultsPage = shown.page;
    results.replaceChildren(
      ...productTiles(shown, addToCart, (by) => {
        resultsPage += by;
        renderResults();
      }),
    );
    if (!products.length)
      results.append(
        h("p", {}, "Aún no hay productos: llegan del catálogo de la empresa cuando el punto de venta tiene conexión."),
      );
  };
  search.addEventListener("input", () => {
    scanMessage.textContent = "";
    resultsPage = 0;
    renderResults();
  });
  root.addEventListener(CATALOG_PULLED, async () => {
    products = await db.products.orderBy("name").toArray();
    renderResults();
  });
  // Keys arrive from the window (see SALE_KEY), so they work with the focus on the page itself.
  const onKey = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement | null;
    const onPage = !target || target === search || !target.closest("input, select, textarea, button, a");
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void doCharge();
    } else if (e.key === "Enter" && onPage) {
      // A plain Enter adds what was typed: a scanner (it types as a keyboard) sends a code or
      // barcode and Enter, which must add that exact product; otherwise the best match by name.
      e.preventDefault();
      const typed = search.value.trim();
      addFound(typed, typed ? (byCode(products, typed) ?? matches()[0]) : undefined, "el código o nombre");
    } else if (e.key === "Escape" && onPage) {
      search.value = "";
      renderResults();
      search.focus();
    } else if (onPage && target !== search && e.key.length === 1 && !e.ctrlKey && !e.metaKey) {
      // Typing with the focus nowhere goes to the search box.
      search.focus();
    }
  };
  root.addEventListener(SALE_KEY, (e) => onKey((e as CustomEvent<KeyboardEvent>).detail));
  // A scan is a code, never a name: only an exact code or barcode adds a product.
  root.addEventListener(SALE_SCAN, (e) => {
    const code = (e as CustomEvent<string>).detail.trim();
    addFound(code, byCode(products, code), "el código");
  });
  /** Adds what a search or a scan found, or says nothing matched; the search is ready for the next. */
  function addFound(typed: string, found: Product | undefined, what: string) {
    if (found) {
      addToCart(found);
      scanMessage.textContent = "";
    } else if (typed) {
      scanMessage.textContent = `No hay ningún producto con ${what} «${typed}».`;
    }
    if (typed) {
      search.value = "";
      renderResults();
    }
    search.focus();
  }

  const rnc = h("input", {
    id: "buyer-rnc",
    inputmode: "numeric",
    placeholder: "RNC o cédula (opcional: E31)",
    value: state.rnc,
    maxlength: 11,
    autocomplete: "off",
  });
  const buyerName = h("input", {
    id: "buyer-name",
    placeholder: "Nombre o razón social",
    value: state.buyerName,
    maxlength: 150,
    autocomplete: "off",
  });
  const buyerStatus = h("small", { class: "warn", id: "buyer-status", role: "status" });
  // The name last filled from an RNC: replaced by the next lookup, unlike a name the cashier typed.
  let filledName = "";
  let lookups = 0;
  const fillBuyer = async () => {
    const typed = state.rnc;
    const ticket = ++lookups;
    buyerStatus.textContent = "";
    // A name filled for another RNC is not this buyer's; a name the cashier typed stays.
    if (filledName && state.buyerName === filledName) buyerName.value = state.buyerName = filledName = "";
    if (!isRegistryId(typed)) return;
    const online = typeof navigator === "undefined" || navigator.onLine;
    const found = await lookupBuyer(db, typed, online ? options.findTaxpayer : undefined);
    // The cashier kept typing: this answer is for an RNC no longer there.
    if (ticket !== lookups || state.rnc !== typed) return;
    if (found.kind === "found") {
      if (!state.buyerName.trim() || state.buyerName === filledName) {
        buyerName.value = state.buyerName = filledName = found.buyer.name;
      }
      buyerStatus.textContent = inactiveWarning(found.buyer);
    } else if (found.kind === "not-found") {
      buyerStatus.textContent = "El RNC no figura en el registro de contribuyentes de la DGII: escriba el nombre.";
    }
  };
  rnc.addEventListener("input", () => {
    state.rnc = rnc.value.trim();
    renderTotals();
    void fillBuyer();
  });
  buyerName.addEventListener("input", () => {
    state.buyerName = buyerName.value;
    options.changed?.(state);
  });

  const method = h(
    "select",
    { id: "payment-method", "aria-label": "Forma de pago" },
    ...(
      [
        ["efectivo", "Efectivo"],
        ["tarjeta", "Tarjeta"],
        ["transferencia", "Transferencia"],
        ["mixto", "Mixto (efectivo, tarjeta, transferencia)"],
      ] as const
    ).map(([v, label]) => h("option", { value: v, selected: state.method === v }, label)),
  );
  const cash = h("input", {
    id: "cash",
    inputmode: "decimal",
    placeholder: "Efectivo recibido",
    value: state.cash,
    autocomplete: "off",
  });
  const card = h("input", {
    id: "card",
    inputmode: "decimal",
    placeholder: "Monto con tarjeta",
    value: state.card,
    autocomplete: "off",
  });
  const transfer = h("input", {
    id: "transfer",
    inputmode: "decimal",
    placeholder: "Monto por transferencia",
    value: state.transfer,
    autocomplete: "off",
  });
  const change = h("div", { class: "change", id: "change" });
  method.addEventListener("change", () => {
    state.method = method.value as PaymentMethod;
    renderTotals();
  });
  cash.addEventListener("input", () => {
    state.cash = cash.value.trim();
    renderTotals();
  });
  card.addEventListener("input", () => {
    state.card = card.value.trim();
    renderTotals();
  });
  transfer.addEventListener("input", () => {
    state.transfer = transfer.value.trim();
    renderTotals();
  });
  const chargeButton = h("button", { type: "button", class: "primary big", id: "charge" }, "Cobrar (Ctrl+Enter)");

  function tipo(): "31" | "32" {
    return state.rnc ? "31" : "32";
  }

  function renderCart() {
    if (!state.lines.length) {
      cart.replaceChildren(h("p", { class: "empty" }, "Carrito vacío"));
    } else {
      cart.replaceChildren(
        h(
          "table",
          {},
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
          ),
          h(
            "tbody",
            {},
            ...state.lines.map((line, i) => {
              const qty = h("input", {
                class: "qty",
                inputmode: "decimal",
                value: formatNumber(line.quantity),
                "aria-label": `Cantidad de ${line.product.name}`,
              });
              qty.addEventListener("change", () => {
                message.textContent = setQuantity(line, qty.value, options.maxQuantity) ?? "";
                renderCart();
              });
              const discountText = line.discountPercent ? formatNumber(line.discountPercent) : "";
              const disc = h("input", {
                class: "disc",
                inputmode: "decimal",
                value: discountText,
                placeholder: "0",
                "aria-label": `Descuento de ${line.product.name}`,
              });
              disc.addEventListener("change", () => {
                message.textContent = setDiscount(line, disc.value) ?? "";
                renderCart();
              });
              const incluido = pricesIncludeItbis(state.lines);
              const net = sub(lineGross(line, incluido), lineDiscount(line, incluido));
              return h(
                "tr",
                {},
                h("td", {}, line.product.name),
                h("td", {}, qty),
                h("td", {}, disc),
                h("td", { class: "num" }, money(formatMoney(net))),
                h(
                  "td",
                  {},
                  h(
                    "button",
                    {
                      type: "button",
                      "aria-label": `Quitar ${line.product.name}`,
                      onclick: () => (state.lines.splice(i, 1), renderCart()),
                    },
                    "×",
                  ),
                ),
              );
            }),
          ),
        ),
      );
    }
    renderTotals();
  }

  const payment = (totalText: string) => paymentFor(state, totalText);

  function renderTotals() {
    zeroConfirmed = false;
    options.changed?.(state);
    const t = cartTotals(state.lines, tipo());
    const total = formatMoney(t.total);
    const p = state.lines.length ? payment(total) : undefined;
    cash.hidden = !(state.method === "efectivo" || state.method === "mixto");
    card.hidden = state.method !== "mixto";
    transfer.hidden = state.method !== "mixto";
    const back = typeof p === "object" ? cashChange(p) : null;
    change.textContent = back ? `Cambio: ${money(formatMoney(back))}` : typeof p === "string" ? p : "";
    totalsBox.replaceChildren(
      h(
        "div",
        { class: "row" },
        h("span", {}, "Tipo"),
        h("span", { id: "tipo" }, tipo() === "31" ? "E31 Crédito fiscal" : "E32 Consumo"),
      ),
      h("div", { class: "row" }, h("span", {}, "Subtotal"), h("span", {}, money(formatMoney(t.subtotal)))),
      h("div", { class: "row" }, h("span", {}, "Descuentos"), h("span", {}, money(formatMoney(t.discount)))),
      h("div", { class: "row" }, h("span", {}, "ITBIS"), h("span", {}, money(formatMoney(t.itbis)))),
      h("div", { class: "row total" }, h("span", {}, "Total"), h("span", { id: "total" }, money(total))),
    );
  }

  // Ctrl+Enter does not care that the button is disabled: one charge at a time, per screen.
  let charging = false;
  // The cashier confirmed a RD$0.00 receipt; any change to the cart asks again.
  let zeroConfirmed = false;
  const zeroConfirmButton = () =>
    h(
      "button",
      { type: "button", id: "confirm-zero", onclick: () => ((zeroConfirmed = true), void doCharge()) },
      "Emitir sin cobro",
    );
  async function doCharge() {
    if (charging) return;
    message.textContent = "";
    if (!state.lines.length) {
      message.textContent = "El carrito está vacío.";
      return;
    }
    if (state.rnc) {
      const v = verifyRncOrCedula(state.rnc);
      if (!v.ok && v.reason === "format") {
        message.textContent = "El RNC debe tener 9 dígitos (o 11 una cédula).";
        return;
      }
      if (!state.buyerName.trim()) {
        message.textContent = "Una factura de crédito fiscal necesita la razón social del comprador.";
        return;
      }
    }
    const t = cartTotals(state.lines, tipo());
    const zero = zeroTotalVerdict(t.total, tipo(), zeroConfirmed);
    if (zero !== "fine") {
      message.replaceChildren(ZERO_TOTAL_MESSAGES[zero]);
      if (zero === "needs-confirmation") message.append(" ", zeroConfirmButton());
      return;
    }
    const p = payment(formatMoney(t.total));
    if (typeof p === "string") {
      message.textContent = p;
      return;
    }
    charging = true;
    chargeButton.disabled = true;
    try {
      const buyer = { rnc: state.rnc, name: state.buyerName.trim() };
      await charge({
        tipoeCF: tipo(),
        lines: state.lines,
        buyer: buyer.rnc || buyer.name ? { rnc: buyer.rnc || undefined, name: buyer.name || undefined } : undefined,
        payment: p,
      });
      // A buyer invoiced here fills itself the next time, online or not.
      if (buyer.rnc && buyer.name)
        await rememberBuyer(db, { rnc: buyer.rnc, name: buyer.name, usedAt: new Date().toISOString() }).catch(() => {});
    } catch (error) {
      message.textContent = error instanceof Error ? error.message : String(error);
    } finally {
      charging = false;
      chargeButton.disabled = false;
    }
  }
  chargeButton.addEventListener("click", () => void doCharge());

  renderResults();
  renderCart();
  const rncWarning = () => {
    const v = state.rnc ? verifyRncOrCedula(state.rnc) : null;
    return v && !v.ok && v.reason === "check_digit" ? "Advertencia: el dígito verificador no coincide." : "";
  };
  const warn = h("small", { class: "warn", id: "rnc-warning" }, rncWarning());
  rnc.addEventListener("input", () => (warn.textContent = rncWarning()));
  // Back on the screen with an RNC typed: its warning (not active, not registered) shows again.
  if (state.rnc) void fillBuyer();
  root.append(
    h("div", { class: "left" }, search, scanMessage, results),
    h(
      "div",
      { class: "right" },
      cart,
      h("fieldset", { class: "buyer" }, h("legend", {}, "Cliente"), rnc, warn, buyerName, buyerStatus),
      totalsBox,
      h("fieldset", { class: "payment" }, h("legend", {}, "Pago"), method, cash, card, transfer, change),
      message,
      chargeButton,
    ),
  );
  // The app focuses [data-autofocus] once the screen is attached (focus on a detached node is lost).
  return root;
}
