// Hash routes (#/comprobantes/E310000000001): the worker serves one index.html, the hash picks the page.
export interface Route {
  /** The first segment: "hoy", "comprobantes", "invitacion"… */
  page: string;
  /** The segments after it, decoded. */
  params: string[];
  /** The query after "?" in the hash (#/comprobantes?tipo=31). */
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = "", search = ""] = hash.replace(/^#\/?/, "").split("?");
  const [page = "", ...params] = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { page, params, query: new URLSearchParams(search) };
}

export function go(hash: string): void {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent("hashchange"));
  else location.hash = hash;
}
