// The API as the console calls it: the typed @ecf/client, authenticated by the session cookie
// (credentials "same-origin") with the session's CSRF token on every request that changes something.
import { createClient, type EcfClient, ProblemError } from "@ecf/client";
import { problemText } from "@ecf/ui-kit";

let csrfToken: string | undefined;

/** The session's CSRF token, sent as X-CSRF-Token from now on (undefined after logout). */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** fetch with the cookie and, on a request that changes something, the CSRF header. */
export function sessionFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, { ...init, credentials: "same-origin" });
  if (csrfToken && !SAFE_METHODS.has(request.method)) request.headers.set("X-CSRF-Token", csrfToken);
  return globalThis.fetch(request);
}

/** The typed client of the whole API, with no key of its own: the cookie is the principal. */
export const api: EcfClient = createClient({
  baseUrl: location.origin,
  fetch: (input, init) => sessionFetch(input, init),
  // Issuing by hand is one click: a lost answer is sent again with the same Idempotency-Key.
  networkRetries: 2,
});

/** A report's JSON page (its operation also answers CSV, so the generated type admits a string). */
export function jsonOf<T>(data: T): Exclude<T, string> | undefined {
  return typeof data === "string" ? undefined : (data as Exclude<T, string>);
}

/** Runs `work`; a failure is not thrown but read out in `status` (the form's status line) as problemText words it. */
export async function reportingTo(status: HTMLElement, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (e) {
    status.textContent = problemText(e);
  }
}

/** A file the API answers (XML, PDF, TXT, ZIP) saved under `name` by the browser. */
export async function download(path: string, name: string, accept?: string): Promise<void> {
  const response = await sessionFetch(path, accept ? { headers: { Accept: accept } } : undefined);
  const problem = await ProblemError.from(response);
  if (problem) throw problem;
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
