import { env } from "cloudflare:workers";
import { call } from "./http.ts";

/** Calls the administration API with the environment's admin secret. */
export async function admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await call(path, {
    method,
    headers: {
      Authorization: `Bearer ${env.ADMIN_SECRET}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json as T;
}

let counter = 0;
/** A fresh 9-digit RNC per call, so tests never collide on the unique RNC. */
export function freshRnc(): string {
  counter++;
  return String(100_000_000 + (((Date.now() % 100_000) * 1000 + counter) % 899_999_999)).slice(0, 9);
}

export interface Credentials {
  keyId: string;
  apiKey: string;
  apiSecret: string;
}

/** An issuer from POST /admin/companies; `rnc` repeats its registryNumber for the tests' brevity. */
export async function createCompany(overrides: Record<string, unknown> = {}) {
  const company = await admin<{ id: string; registryNumber: string; name: string }>("POST", "/admin/companies", {
    name: "Prueba SRL",
    registryNumber: freshRnc(),
    dgiiServer: "testecf",
    invoiceLimitPerMonth: 100,
    ...overrides,
  });
  return { ...company, rnc: company.registryNumber };
}

export async function createKey(
  ownerType: "company" | "partner",
  ownerId: string,
  kind: "test" | "live" = "test",
): Promise<Credentials> {
  const key = await admin("POST", "/admin/keys", { ownerType, ownerId, kind });
  return { keyId: key.id, apiKey: key.apiKey, apiSecret: key.apiSecret };
}

export async function login(
  credentials: Pick<Credentials, "apiKey" | "apiSecret">,
  headers: Record<string, string> = {},
): Promise<Response> {
  return call("/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(credentials),
  });
}

export async function tokenFor(credentials: Credentials): Promise<string> {
  const res = await login(credentials);
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** A company with a test key, logged in. */
export async function companyWithToken(overrides: Record<string, unknown> = {}) {
  const company = await createCompany(overrides);
  const credentials = await createKey("company", company.id, overrides.dgiiServer === "ecf" ? "live" : "test");
  return { company, credentials, token: await tokenFor(credentials) };
}

export function authed(token: string, headers: Record<string, string> = {}) {
  return { Authorization: `Bearer ${token}`, ...headers };
}
