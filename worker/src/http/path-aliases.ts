// Paths renamed in the API that still answer for one release (CHANGELOG.md): the request is
// served as if it had named the new path, and the old one is not in the OpenAPI document.
// The till-administration operations moved from /devices/{id}/… to /tills/{id}/…, because
// /devices/{id}/revoke could also be read as /devices/receipts/{encf} or /devices/shifts/{id}.

const ALIASES: readonly { method: string; from: RegExp; to: string }[] = [
  { method: "POST", from: /^\/devices\/([^/]+)\/(pairing-code|revoke)$/, to: "/tills/$1/$2" },
];

/** `request`, addressed to the path that replaced the one it names (itself when none did). */
export function withCurrentPath(request: Request): Request {
  const url = new URL(request.url);
  const alias = ALIASES.find((a) => a.method === request.method && a.from.test(url.pathname));
  if (!alias) return request;
  url.pathname = url.pathname.replace(alias.from, alias.to);
  return new Request(url, request);
}
