import createFetchClient from "openapi-fetch";
import type { paths } from "./generated/openapi.ts";
import { ProblemError } from "./problem-error.ts";
import { tokenExpiry } from "./token.ts";

/**
 * How the client authenticates:
 * - an API key and its secret, exchanged at POST /login for a 24-hour token, renewed before it expires;
 * - a till's device token (POST /devices/pair answers it), sent as it is;
 * - the administration secret (ADMIN_SECRET), for the /admin routes.
 */
export type Credentials = { apiKey: string; apiSecret: string } | { deviceToken: string } | { adminSecret: string };

export interface SessionOptions {
  baseUrl: string;
  credentials: Credentials | undefined;
  fetch: typeof globalThis.fetch;
  /** Log in again this many seconds before the token's `exp` (default 300). */
  renewBeforeSeconds: number;
  /** The clock, in milliseconds since the epoch (default Date.now); a test moves it forward. */
  now: () => number;
}

/**
 * The bearer token for each request. With an API key, one login at a time (concurrent requests
 * share it), repeated when the token is within `renewBeforeSeconds` of its `exp` or the worker
 * refused it.
 */
export class Session {
  private token: string | undefined;
  private expiresAt: number | undefined;
  private pending: Promise<string> | undefined;
  /** How many times this session has logged in. */
  logins = 0;

  constructor(private readonly options: SessionOptions) {}

  /** True when a refused token can be replaced by logging in again. */
  get renewable(): boolean {
    return this.options.credentials !== undefined && "apiKey" in this.options.credentials;
  }

  async bearer(): Promise<string | undefined> {
    const credentials = this.options.credentials;
    if (!credentials) return undefined;
    if ("deviceToken" in credentials) return credentials.deviceToken;
    if ("adminSecret" in credentials) return credentials.adminSecret;
    if (this.token && !this.expiring()) return this.token;
    this.pending ??= this.login(credentials).finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets `token` (the worker refused it) so the next bearer() logs in; a newer token is kept. */
  discard(token: string): void {
    if (this.token === token) this.token = undefined;
  }

  private expiring(): boolean {
    if (this.expiresAt === undefined) return false;
    return this.options.now() >= (this.expiresAt - this.options.renewBeforeSeconds) * 1000;
  }

  private async login(credentials: { apiKey: string; apiSecret: string }): Promise<string> {
    // A bare client: the login must not pass through the middleware that asks for a token.
    const bare = createFetchClient<paths>({ baseUrl: this.options.baseUrl, fetch: this.options.fetch });
    const { data, error, response } = await bare.POST("/login", {
      body: { apiKey: credentials.apiKey, apiSecret: credentials.apiSecret },
    });
    if (!data) throw ProblemError.of(response, error) ?? new Error(`POST /login answered ${response.status}`);
    this.logins++;
    this.token = data.token;
    this.expiresAt = tokenExpiry(data.token);
    return data.token;
  }
}
