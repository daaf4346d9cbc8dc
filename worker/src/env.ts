import type { RequestIdVariables } from "hono/request-id";
import type { Company } from "./db/tables.ts";
import type { ConsoleRole } from "./db/console-tables.ts";
import type { LiveSession } from "./console/sessions.ts";
import type { ProblemCode } from "./errors/problem.ts";
import type { RoundTrips } from "./ledger/round-trips.ts";
import type { EventType } from "@ecf/shared/webhook-events";

/** What a verified token says: the API key and its owner. */
export interface TokenClaims {
  /** API key id. */
  keyId: string;
  ownerType: "company" | "partner";
  ownerId: string;
  kind: "test" | "live";
}

/**
 * Who a request acts as: the claims of its verified token, or a console user acting for its
 * session's current company. Declared here, with the context variables, so that env.ts imports
 * nothing from the auth middleware that sets them.
 */
export type Principal = TokenClaims & {
  /** Set for a console session: the user and its role in the current company. */
  console?: { userId: string; role: ConsoleRole };
};

/** Hono's environment for this worker: bindings from wrangler.toml, request-scoped variables. */
export interface AppEnv {
  Bindings: Env;
  Variables: RequestIdVariables & {
    /** Who is calling: set by `requireAuth`. */
    principal: Principal;
    /** The console session behind the cookie: set by the console routes' session check. */
    consoleSession: LiveSession;
    /** The issuer every query and write is scoped to: set by `resolveTenant`. */
    tenant: Company;
    /** A company key's own company (null: none), read by `requireAuth` with the key; `resolveTenant` uses it. */
    keyCompany: Company | null;
    /**
     * The event types some webhook endpoint hearing that company is subscribed to, read with the
     * key (a company's key only). Unset: not known, so every event is queued for the endpoints.
     */
    subscribedEvents?: readonly EventType[];
    /** Set when a problem response is produced, so the audit middleware can record it. */
    problem: { code: ProblemCode; detail: string };
    /** A failure that is not an HTTP error (DGII rejected the receipt, DGII unreachable). */
    auditEvent: { code: string; detail: string };
    /** Storage round trips of this request so far (D1, ledger RPCs, R2), for Server-Timing. */
    roundTrips: RoundTrips;
  };
}
