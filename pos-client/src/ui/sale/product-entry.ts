// The left of the sale screen: the search box (a scanner types into it too), what a scan or a typed
// code did not find, and the product grid a page at a time. A tile, Enter or a scan adds a product.
import type { Product } from "../../db.ts";
import { h } from "../dom.ts";
import { pageOf } from "../paging.ts";
import { productTiles } from "../product-results.ts";

/** Product tiles per page of the grid. */
export const RESULTS_PER_PAGE = 24;

/** A product whose code or one of whose barcodes is exactly what was typed or scanned. */
export const byCode = (products: readonly Product[], typed: string) =>
  products.find((p) => p.code === typed) ?? products.find((p) => p.barcodes?.includes(typed));

/** Every product the search matches, by name; the grid shows them a page at a time. */
function matching(products: Product[], typed: string): Product[] {
  const q = typed.trim().toLowerCase();
  return q
    ? products.filter(
        (p) => p.code.toLowerCase().includes(q) || p.name.toLowerCase().includes(q) || p.barcodes?.includes(q),
      )
    : products;
}

export interface ProductEntry {
  element: HTMLElement;
  /** The catalogue changed: the grid shows the new products, the search stays as typed. */
  showProducts(products: Product[]): void;
  /** A key from the window: Enter adds what was typed, Escape clears, typing elsewhere goes to the search. */
  key(e: KeyboardEvent): void;
  /** A scan is a code, never a name: only an exact code or barcode adds a product. */
  scanned(code: string): void;
}

const searchBox = () =>
  h("input", {
    id: "search",
    type: "search",
    placeholder: "Buscar por nombre o código (Enter agrega)",
    autocomplete: "off",
    "aria-label": "Buscar producto",
    "data-autofocus": true,
  });

export function productEntry(initial: Product[], add: (p: Product) => void): ProductEntry {
  let products = initial;
  let resultsPage = 0;
  const search = searchBox();
  const results = h("div", { class: "results", id: "results" });
  // What a scan (or a code typed + Enter) did not find; cleared by the next one.
  const scanMessage = h("p", { class: "error", role: "alert", id: "scan-error" });

  const matches = () => pageOf(matching(products, search.value), resultsPage, RESULTS_PER_PAGE).items;
  const renderResults = () => {
    const shown = pageOf(matching(products, search.value), resultsPage, RESULTS_PER_PAGE);
    resultsPage = shown.page;
    results.replaceChildren(
      ...productTiles(shown, add, (by) => {
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
  /** Adds what a search or a scan found, or says nothing matched; the search is ready for the next. */
  const addFound = (typed: string, found: Product | undefined, what: string) => {
    if (found) {
      add(found);
      scanMessage.textContent = "";
    } else if (typed) {
      scanMessage.textContent = `No hay ningún producto con ${what} «${typed}».`;
    }
    if (typed) {
      search.value = "";
      renderResults();
    }
    search.focus();
  };
  const addTyped = () => {
    const typed = search.value.trim();
    addFound(typed, typed ? (byCode(products, typed) ?? matches()[0]) : undefined, "el código o nombre");
  };
  const clear = () => {
    search.value = "";
    renderResults();
    search.focus();
  };
  renderResults();
  return {
    element: h("div", { class: "left" }, search, scanMessage, results),
    showProducts: (list) => {
      products = list;
      renderResults();
    },
    key: (e) => keyOnSearch(e, search, addTyped, clear),
    scanned: (text) => {
      const code = text.trim();
      addFound(code, byCode(products, code), "el código");
    },
  };
}

/** Keys that concern the search, whether the focus is on it or on the page itself (not on another field). */
function keyOnSearch(e: KeyboardEvent, search: HTMLInputElement, addTyped: () => void, clear: () => void): void {
  const target = e.target as HTMLElement | null;
  const onPage = !target || target === search || !target.closest("input, select, textarea, button, a");
  if (e.key === "Enter" && onPage) {
    // A plain Enter adds what was typed: a scanner (it types as a keyboard) sends a code or
    // barcode and Enter, which must add that exact product; otherwise the best match by name.
    e.preventDefault();
    addTyped();
  } else if (e.key === "Escape" && onPage) {
    clear();
  } else if (onPage && target !== search && e.key.length === 1 && !e.ctrlKey && !e.metaKey) {
    // Typing with the focus nowhere goes to the search box.
    search.focus();
  }
}
