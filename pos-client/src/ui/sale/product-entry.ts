// The left of the sale screen: the search box, what a scan or a typed code did not find, and the
// product grid a page at a time. A tile, Enter or a scan adds a product. Scans arrive apart from
// typing (ui/scanner.ts takes their keys back out of the search box, or wherever they fell).
// Products are looked up in IndexedDB as the cashier types (sale/product-search.ts), never all
// held in memory; what Enter and scans add is looked up in order (the sale's queue, lookups.ts, so
// that a lookup outlives a redraw of the screen and lands in the one on display), and `settled`
// waits for it.
import { type Component, h } from "@ecf/ui-kit";
import type { PosDatabase, Product } from "../../db.ts";
import { productByCode, searchProducts } from "../../sale/product-search.ts";
import { productGrid, RESULTS_PER_PAGE } from "../product-results.ts";
import { type Lookups, lookupQueue } from "./lookups.ts";

export interface ProductEntry extends Component {
  /** The catalogue changed: the grid shows the new products, the search stays as typed. */
  refresh(): void;
  /** Resolves once every Enter and scan so far has added its product (or said it found none). */
  settled(): Promise<void>;
  /** A key from the window: Enter adds what was typed, Escape clears, typing elsewhere goes to the search. */
  key(e: KeyboardEvent): void;
  /** A scan is a code, never a name: only an exact code or barcode adds a product. */
  scanned(code: string): void;
  /** This drawing is the one on display: lookups still running report to it from now on. */
  attached(): void;
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

/** One drawing of the entry, as a finished lookup reports to it. */
export interface EntryOnScreen {
  addFound(typed: string, found: Product | undefined, editsThen: number): void;
  addScanned(code: string, found: Product | undefined): void;
}

export function productEntry(
  db: PosDatabase,
  add: (p: Product) => void,
  lookups: Lookups<EntryOnScreen> = lookupQueue(),
): ProductEntry {
  const search = searchBox();
  const grid = productGrid(db, add, () => search.value);
  const notFound = notFoundMessage();
  const say = notFound.say;
  /** Counts the cashier's edits of the search box: a lookup clears it only if nothing was typed since. */
  let edits = 0;
  search.addEventListener("input", () => {
    edits++;
    grid.show(true);
  });
  /** Adds what a search found, or says nothing matched; the search is ready for the next. */
  const addFound = (typed: string, found: Product | undefined, editsThen: number) => {
    if (found) {
      add(found);
      say("");
    } else if (typed) {
      say(`No hay ningún producto con el código o nombre «${typed}».`);
    }
    // Cleared unless the cashier has typed since (the same name typed again is the next item, not this one).
    if (typed && editsThen === edits && search.value.trim() === typed) {
      search.value = "";
      grid.show(true);
    }
    search.focus();
  };
  const addTyped = () => {
    const typed = search.value.trim();
    const page = grid.page;
    const editsThen = edits;
    lookups.inTurn(async () => {
      const found = typed
        ? ((await productByCode(db, typed)) ?? (await searchProducts(db, typed, page, RESULTS_PER_PAGE)).items[0])
        : undefined;
      return (shown) => shown.addFound(typed, found, editsThen);
    });
  };
  /** A scan adds its product and leaves the focus where it is (the cashier may be typing an RNC). */
  const addScanned = (code: string, found: Product | undefined) => (found ? add(found) : notFound.scanned(code));
  const clear = () => {
    say("");
    search.value = "";
    grid.show(true);
    search.focus();
  };
  grid.show(true);
  return {
    element: h("div", { class: "left" }, search, notFound.element, grid.element),
    refresh: () => grid.show(),
    settled: () => lookups.settled(),
    // Not at construction: the app may build a drawing and drop it when a newer render wins.
    attached: () => lookups.shownOn({ addFound, addScanned }),
    key: (e) => keyOnSearch(e, search, addTyped, clear),
    scanned: (text) => {
      const code = text.trim();
      if (code)
        lookups.inTurn(async () => {
          const found = await productByCode(db, code);
          return (shown) => shown.addScanned(code, found);
        });
    },
  };
}

/**
 * What a code typed + Enter did not find, or the codes scanned that matched no product (each named
 * once, however often scanned); a scanned product that is found does not hide them, the cashier's
 * next search or Escape does.
 */
function notFoundMessage() {
  const element = h("p", { class: "error", role: "alert", id: "scan-error" });
  const unknownScans = new Set<string>();
  return {
    element,
    say: (text: string) => {
      unknownScans.clear();
      element.textContent = text;
    },
    scanned: (code: string) => {
      unknownScans.add(code);
      const codes = [...unknownScans].map((c) => `«${c}»`).join(", ");
      element.textContent =
        unknownScans.size === 1
          ? `No hay ningún producto con el código ${codes}.`
          : `No hay ningún producto con los códigos ${codes}.`;
    },
  };
}

/** Keys that concern the search, whether the focus is on it or on the page itself (not on another field). */
function keyOnSearch(e: KeyboardEvent, search: HTMLInputElement, addTyped: () => void, clear: () => void): void {
  const target = e.target as HTMLElement | null;
  const onPage = !target || target === search || !target.closest("input, select, textarea, button, a");
  if (e.key === "Enter" && onPage) {
    // A plain Enter adds what was typed: the product of that exact code or barcode, otherwise the
    // best match by name. (A scan's Enter never gets here: the scanner's stream takes it.)
    e.preventDefault();
    addTyped();
  } else if (e.key === "Escape" && onPage) {
    clear();
  } else if (onPage && target !== search && e.key.length === 1 && !e.ctrlKey && !e.metaKey) {
    // Typing with the focus nowhere goes to the search box.
    search.focus();
  }
}
