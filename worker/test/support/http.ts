import { SELF } from "cloudflare:test";

/** Calls the worker under test (through its real fetch handler) at a path. */
export function call(path: string, init?: RequestInit): Promise<Response> {
  return SELF.fetch(`http://ecf.test${path}`, init);
}

/** POSTs a JSON body (or raw text when `body` is a string) to the worker. */
export function postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return call(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
