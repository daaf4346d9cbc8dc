// One page of a long list (a catalogue of thousands of products): which items, and where it is.
export interface Page<T> {
  items: T[];
  /** 0-based, clamped to the pages there are. */
  page: number;
  pages: number;
  total: number;
}

export function pageOf<T>(list: readonly T[], page: number, size: number): Page<T> {
  const pages = Math.max(1, Math.ceil(list.length / size));
  const at = Math.min(Math.max(0, page), pages - 1);
  return { items: list.slice(at * size, at * size + size), page: at, pages, total: list.length };
}
