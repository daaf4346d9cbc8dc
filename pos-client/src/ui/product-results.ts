// The product grid of the sale screen: a page of tiles (tap adds) and, for a long catalogue, the
// way to the other pages with where the cashier is. It follows the search box as the cashier types.
import { h, money } from "@ecf/ui-kit";
import type { PosDatabase, Product } from "../db.ts";
import type { Page } from "../sale/paging.ts";
import { searchProducts } from "../sale/product-search.ts";

/** Product tiles per page of the grid. */
export const RESULTS_PER_PAGE = 24;

export interface ProductGrid {
  element: HTMLElement;
  /** Shows what `text()` matches now, from the first page when the text changed. */
  show(fromFirstPage?: boolean): void;
  /** The page on display (Enter on a name adds the first product of it). */
  readonly page: number;
}

/**
 * One search at a time, for the text as it is when it starts: keys typed (or scanned) while one
 * runs are folded into one more after it, rather than a search per key (a scan is 14 keys).
 */
export function productGrid(db: PosDatabase, add: (p: Product) => void, text: () => string): ProductGrid {
  const element = h("div", { class: "results", id: "results" });
  let page = 0;
  let searching = false;
  let again = false;
  const draw = (shown: Page<Product>, typed: string) => {
    page = shown.page;
    element.replaceChildren(...productTiles(shown, add, (by) => show(false, page + by)));
    if (!shown.total && !typed.trim()) element.append(noProductsYet());
  };
  const show = async (fromFirstPage = false, at = fromFirstPage ? 0 : page) => {
    page = at;
    again = true;
    if (searching) return;
    searching = true;
    try {
      while (again) {
        again = false;
        const typed = text();
        const shown = await searchProducts(db, typed, page, RESULTS_PER_PAGE);
        if (!again) draw(shown, typed);
      }
    } finally {
      searching = false;
    }
  };
  return {
    element,
    show: (fromFirstPage) => void show(fromFirstPage),
    get page() {
      return page;
    },
  };
}

const noProductsYet = () =>
  h("p", {}, "Aún no hay productos: llegan del catálogo de la empresa cuando el punto de venta tiene conexión.");

export function productTiles(
  shown: Page<Product>,
  add: (p: Product) => void,
  turn: (by: number) => void,
): HTMLElement[] {
  const tiles: HTMLElement[] = shown.items.map((p) =>
    h(
      "button",
      { type: "button", class: "product", "data-code": p.code, onclick: () => add(p) },
      h("span", {}, p.name),
      h("small", {}, `${p.code} · ${money(p.price)}`),
    ),
  );
  if (shown.pages <= 1) return tiles;
  const pager = h(
    "nav",
    { class: "pages", "aria-label": "Páginas de productos" },
    h(
      "button",
      { type: "button", id: "results-prev", disabled: shown.page === 0, onclick: () => turn(-1) },
      "‹ Anterior",
    ),
    h("span", { id: "results-page" }, `Página ${shown.page + 1} de ${shown.pages} (${shown.total} productos)`),
    h(
      "button",
      { type: "button", id: "results-next", disabled: shown.page === shown.pages - 1, onclick: () => turn(1) },
      "Siguiente ›",
    ),
  );
  return [...tiles, pager];
}
