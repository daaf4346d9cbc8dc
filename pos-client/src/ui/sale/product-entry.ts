// The left of the sale screen: the search box (a scanner types into it too), what a scan or a typed
// code did not find, and the product grid a page at a time. A tile, Enter or a scan adds a product.
// Products are looked up in IndexedDB as the cashier types (sale/product-search.ts), never all
// held in memory; what Enter and scans add is looked up in order, and `settled` waits for it.
import { type Component, h } from "@ecf/ui-kit";
import type { PosDatabase, Product } from "../../db.ts";
import { productByCode, searchProducts } from "../../sale/product-search.ts";
import { productTiles } from "../product-results.ts";

/** Product tiles per page of the grid. */
export const RESULTS_PER_PAGE = 24;

export interface ProductEntry extends Component {
  /** The catalogue changed: the grid shows the new products, the search stays as typed. */
  refresh(): void;
  /** Resolves once every Enter and scan so far has added its product (or said it found none). */
  settled(): Promise<void>;
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

const noProductsYet = () =>
  h("p", {}, "Aún no hay productos: llegan del catálogo de la empresa cuando el punto de venta tiene conexión.");

export function productEntry(db: PosDatabase, add: (p: Product) => void): ProductEntry {
  let resultsPage = 0;
  // Each search renders only if no later one started: answers may come back out of order.
  let searches = 0;
  let adding = Promise.resolve();
  const search = searchBox();
  const results = h("div", { class: "results", id: "results" });
  // What a scan (or a code typed + Enter) did not find; cleared by the next one.
  const scanMessage = h("p", { class: "error", role: "alert", id: "scan-error" });

  const renderResults = async () => {
    const mine = ++searches;
    const shown = await searchProducts(db, search.value, resultsPage, RESULTS_PER_PAGE);
    if (mine !== searches) return;
    resultsPage = shown.page;
    results.replaceChildren(
      ...productTiles(shown, add, (by) => {
        resultsPage += by;
        void renderResults();
      }),
    );
    if (!shown.total && !search.value.trim() && mine === searches) results.append(noProductsYet());
  };
  /** Counts the cashier's edits of the search box: a lookup clears it only if nothing was typed since. */
  let edits = 0;
  search.addEventListener("input", () => {
    edits++;
    scanMessage.textContent = "";
    resultsPage = 0;
    void renderResults();
  });
  /** Adds what a search or a scan found, or says nothing matched; the search is ready for the next. */
  const addFound = (typed: string, found: Product | undefined, what: string, editsThen = edits) => {
    if (found) {
      add(found);
      scanMessage.textContent = "";
    } else if (typed) {
      scanMessage.textContent = `No hay ningún producto con ${what} «${typed}».`;
    }
    // Cleared unless the cashier has typed since (the same name typed again is the next item, not this one).
    if (typed && editsThen === edits && search.value.trim() === typed) {
      search.value = "";
      void renderResults();
    }
    search.focus();
  };
  /** Looks up and adds in the order the cashier asked, one after another. */
  const inTurn = (step: () => Promise<void>) => {
    adding = adding.then(step, step);
  };
  const addTyped = () => {
    const typed = search.value.trim();
    const page = resultsPage;
    const editsThen = edits;
    inTurn(async () => {
      const found = typed
        ? ((await productByCode(db, typed)) ?? (await searchProducts(db, typed, page, RESULTS_PER_PAGE)).items[0])
        : undefined;
      addFound(typed, found, "el código o nombre", editsThen);
    });
  };
  const clear = () => {
    search.value = "";
    void renderResults();
    search.focus();
  };
  void renderResults();
  return {
    element: h("div", { class: "left" }, search, scanMessage, results),
    refresh: () => void renderResults(),
    settled: () => adding,
    key: (e) => keyOnSearch(e, search, addTyped, clear),
    scanned: (text) => {
      const code = text.trim();
      inTurn(async () => addFound(code, await productByCode(db, code), "el código"));
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
