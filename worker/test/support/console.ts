// The console's people for tests: a company's owner invited through the admin API and signed in,
// and requests carrying the session's cookie (and its CSRF token on writes).
import { env } from "cloudflare:workers";
import { admin, createCompany } from "./accounts.ts";
import { call } from "./http.ts";

export interface ConsoleSessionBody {
  user: { id: string; email: string; name: string };
  company: { rnc: string; razonSocial: string } | null;
  role: "owner" | "accountant" | "manager" | null;
  companies: { rnc: string; razonSocial: string; role: string }[];
  csrfToken: string;
}

export interface Browser {
  cookie: string;
  csrfToken: string;
  session: ConsoleSessionBody;
}

let counter = 0;
export const freshEmail = (who = "usuario") => `${who}-${Date.now()}-${++counter}@empresa.com.do`;
export const PASSWORD = "una-clave-larga-1";

/** The `name=value` of a response's Set-Cookie, for the next request's Cookie header. */
export function cookieOf(res: Response): string {
  const header = res.headers.get("Set-Cookie") ?? "";
  return header.split(";")[0]!;
}

/** The token at the end of an invitation link. */
export const tokenOfLink = (link: string) => link.slice(link.lastIndexOf("/") + 1);

/** An invitation made by the administrator (the admin CLI's path); its link carries the token. */
export async function adminInvite(companyId: string, email: string, role = "owner") {
  return admin<{ id: string; link: string; emailSent: boolean; expiresAt: string }>(
    "POST",
    `/admin/companies/${companyId}/console-invitations`,
    { email, role },
  );
}

export async function accept(token: string, password = PASSWORD, name?: string): Promise<Response> {
  return call(`/console/invitations/${token}/accept`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ password, ...(name ? { name } : {}) }),
  });
}

export async function browserOf(res: Response): Promise<Browser> {
  if (res.status !== 200) throw new Error(`expected a session: ${res.status} ${await res.text()}`);
  const session = (await res.json()) as ConsoleSessionBody;
  return { cookie: cookieOf(res), csrfToken: session.csrfToken, session };
}

/** A user of `companyId` with `role`, invited and signed in. */
export async function consoleUser(companyId: string, role = "owner", email = freshEmail(role)): Promise<Browser> {
  const { link } = await adminInvite(companyId, email, role);
  return browserOf(await accept(tokenOfLink(link)));
}

/** A fresh company with a signed-in owner. */
export async function companyWithOwner() {
  const company = await createCompany();
  return { company, owner: await consoleUser(company.id, "owner") };
}

/** A request as the browser: its cookie, and the CSRF header on writes (unless `csrf` says otherwise). */
export function browse(
  browser: Pick<Browser, "cookie" | "csrfToken">,
  path: string,
  init: { method?: string; body?: unknown; csrf?: string | null; headers?: Record<string, string> } = {},
): Promise<Response> {
  const method = init.method ?? "GET";
  const headers: Record<string, string> = { Cookie: browser.cookie, ...init.headers };
  const csrf = init.csrf === undefined ? browser.csrfToken : init.csrf;
  if (method !== "GET" && csrf !== null) headers["X-CSRF-Token"] = csrf;
  let body: BodyInit | undefined;
  if (init.body !== undefined) {
    headers["Content-Type"] ??= "application/json";
    body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
  }
  return call(path, { method, headers, body });
}

export async function consoleLogin(email: string, password: string, headers: Record<string, string> = {}) {
  return call("/console/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ email, password }),
  });
}

/** Runs SQL on the D1 directory (to age a session or an invitation instead of waiting). */
export const d1 = (query: string, ...values: unknown[]) =>
  env.DB.prepare(query)
    .bind(...values)
    .run();
