import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import { serializeBody } from "./body.ts";
import { IDEMPOTENT_OPERATIONS } from "./generated/idempotent-operations.ts";
import type { paths } from "./generated/openapi.ts";
import { type Credentials, Session } from "./credentials.ts";
import { PROBLEM_MEDIA_TYPE, ProblemError } from "./problem-error.ts";

export interface ClientOptions {
  /** The worker's origin, e.g. http://127.0.0.1:8787. */
  baseUrl: string;
  credentials?: Credentials;
  /** The issuer the calls act for, sent as X-RNC-Emisor (required with a partner's key). */
  rnc?: string;
  /** The fetch to send with (default globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
  /** Log in again this many seconds before the token's `exp` (default 300). */
  renewBeforeSeconds?: number;
  /** The clock, in milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /**
   * A call that carries an Idempotency-Key and never got the service's answer (the connection
   * failed, or a proxy in between answered 502/503/504 without the service's problem+json) is
   * sent again this many times with the same key (default 3), waiting `retryDelayMs` doubled at
   * each attempt: the worker answers a repeated key with the receipt the first attempt issued, so
   * nothing is issued twice. The service's own 503 (a receipt in Contingencia, a problem+json) is an answer and is
   * never sent again.
   */
  networkRetries?: number;
  /** The wait before the first resend, in milliseconds (default 250); each next one doubles it, with jitter. */
  retryDelayMs?: number;
  /** Told of each resend of a call whose answer was lost, before it is sent (e.g. to count them). */
  onRetry?: (retry: LostAnswerRetry) => void;
  /**
   * Put a fresh Idempotency-Key on the operations that take one when the call sets none (default
   * true). Off, such a call without its own key is sent without one (the worker then keeps no
   * answer to replay; a benchmark of the bare issuing path wants that).
   */
  idempotencyKeys?: boolean;
}

/** One resend of a call whose answer was lost. */
export interface LostAnswerRetry {
  /** 1 for the first resend. */
  attempt: number;
  method: string;
  url: string;
  /** What came back instead of an answer: the fetch's error, or "HTTP 503" from a proxy. */
  reason: string;
}

export type EcfClient = Client<paths> & {
  /** The authentication state: `logins` counts the logins so far. */
  readonly session: Session;
};

const IDEMPOTENT = new Set(IDEMPOTENT_OPERATIONS);

/**
 * The typed openapi-fetch client for the ecf-edge API, with what every call needs: the bearer
 * (logging in with an API key, and again before the token expires or when the worker refuses
 * it), X-RNC-Emisor, an Idempotency-Key on the operations that take one (unless the call sets
 * its own), and problem+json answers thrown as ProblemError instead of returned.
 */
export function createClient(options: ClientOptions): EcfClient {
  const fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const session = new Session({
    baseUrl: options.baseUrl,
    credentials: options.credentials,
    fetch,
    renewBeforeSeconds: options.renewBeforeSeconds ?? 300,
    now: options.now ?? Date.now,
  });
  const client = createFetchClient<paths>({ baseUrl: options.baseUrl, fetch, bodySerializer: serializeBody });
  // An untouched copy of each request that may have to be sent again (a refused token, a lost
  // connection), by openapi-fetch's request id; dropped once its answer is in.
  const resendable = new Map<string, { copy: Request; bearer: string | undefined }>();
  const networkRetries = options.networkRetries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 250;

  /**
   * Sends `copy` (with its Idempotency-Key) again after `failure`, with back-off, until the
   * service answers or the attempts run out: the service's answer, or the last failure (a proxy's
   * response is returned, a network error thrown).
   */
  async function resendLost(copy: Request, failure: unknown): Promise<Response> {
    let last = failure;
    for (let attempt = 1; attempt <= networkRetries; attempt++) {
      options.onRetry?.({
        attempt,
        method: copy.method,
        url: copy.url,
        reason: last instanceof Response ? `HTTP ${last.status}` : String(last),
      });
      // Full jitter: clients that lost their answers in the same burst do not come back together.
      await new Promise((resolve) =>
        setTimeout(resolve, retryDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2)),
      );
      try {
        const answer = await fetch(copy.clone());
        if (!isLostAnswer(answer) || attempt === networkRetries) return answer;
        await answer.body?.cancel();
        last = answer;
      } catch (error) {
        last = error;
      }
    }
    if (last instanceof Response) return last;
    throw last instanceof Error ? last : new Error(String(last));
  }

  const middleware: Middleware = {
    async onRequest({ request, schemaPath, id }) {
      // A call that sets its own Authorization keeps it (and is not logged in again on a 401).
      const bearer = request.headers.has("Authorization") ? undefined : await session.bearer();
      if (bearer) request.headers.set("Authorization", `Bearer ${bearer}`);
      if (options.rnc && !request.headers.has("X-RNC-Emisor")) request.headers.set("X-RNC-Emisor", options.rnc);
      const idempotent = IDEMPOTENT.has(`${request.method} ${schemaPath}`);
      if (idempotent && options.idempotencyKeys !== false && !request.headers.has("Idempotency-Key"))
        request.headers.set("Idempotency-Key", crypto.randomUUID());
      if (idempotent || session.renewable) resendable.set(id, { copy: request.clone(), bearer });
      return request;
    },

    async onError({ id, error }) {
      const copy = resendable.get(id)?.copy;
      // Only a call the worker can recognise again (its Idempotency-Key) is sent twice.
      if (!copy?.headers.has("Idempotency-Key")) {
        resendable.delete(id);
        return error instanceof Error ? error : new Error(String(error));
      }
      try {
        return sameRealm(await resendLost(copy, error));
      } catch (last) {
        return last instanceof Error ? last : new Error(String(last));
      } finally {
        resendable.delete(id);
      }
    },

    async onResponse({ response, id }) {
      const kept = resendable.get(id);
      resendable.delete(id);
      let answer = response;
      // A proxy's 502/503/504 instead of the service's answer: the same call again, same key.
      if (kept?.copy.headers.has("Idempotency-Key") && isLostAnswer(answer)) {
        await answer.body?.cancel();
        answer = await resendLost(kept.copy, answer);
      }
      // Our token refused before its `exp` (a clock off, a rotated secret): one new login, one resend.
      if (answer.status === 401 && kept?.bearer && session.renewable) {
        session.discard(kept.bearer);
        kept.copy.headers.set("Authorization", `Bearer ${await session.bearer()}`);
        answer = await fetch(kept.copy);
      }
      const problem = await ProblemError.from(answer);
      if (problem) throw problem;
      return answer === response ? undefined : sameRealm(answer);
    },
  };
  client.use(middleware);
  return Object.assign(client, { session });
}

/**
 * A 502, 503 or 504 that is not JSON: something between the client and the service answered
 * (wrangler dev's proxy says "Your worker restarted mid-request" in plain text, a load balancer
 * shows its gateway page), so whether the service did the work is unknown. The service's own 503
 * is always JSON: a receipt in Contingencia (application/json) or a problem+json.
 */
export function isLostAnswer(response: Response): boolean {
  if (response.status !== 502 && response.status !== 503 && response.status !== 504) return false;
  const type = (response.headers.get("Content-Type") ?? "").toLowerCase().split(";")[0]!.trim();
  return type !== "application/json" && type !== PROBLEM_MEDIA_TYPE;
}

/**
 * openapi-fetch takes a middleware's response only if it is an instance of the global Response,
 * and some servers in the same process replace that global (@hono/node-server does): an answer
 * of the fetch is re-wrapped, its body streamed through, not read.
 */
function sameRealm(response: Response): Response {
  return isGlobalResponse(response) ? response : new Response(response.body, response);
}

// A boolean, not a type guard: the foreign response is a Response to TypeScript all the same.
const isGlobalResponse = (response: Response): boolean => response instanceof Response;
