// The product grid of the sale screen: a page of tiles (tap adds) and, for a long catalogue, the
// way to the other pages with where the cashier is.
import { h, money } from "@ecf/ui-kit";
import type { Product } from "../db.ts";
import type { Page } from "../sale/paging.ts";

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
