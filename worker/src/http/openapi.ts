import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import { PROBLEM_CODES, statusOf, type ProblemCode, type ProblemInit } from "../errors/problem.ts";
import { problemBody } from "./problem.ts";

/** One problem inside `errors[]`: what the API answers, the validator's fields included. */
const ProblemItemSchema = z.object({
  path: z.string().openapi({ description: "JSON pointer into the request" }),
  code: z.string(),
  message: z.string(),
  messageEs: z.string().optional().openapi({ description: "The message in Spanish (every e-CF validation problem)" }),
  severity: z.enum(["error", "warning"]).optional(),
  rule: z
    .string()
    .optional()
    .openapi({ description: "Where the rule comes from: a DGII document and its field, or the JSON mapping" }),
  details: z.record(z.string(), z.unknown()).optional().openapi({ description: "Data that explains the problem" }),
});

/** The RFC 9457 problem document, as it appears in the OpenAPI document; bilingual, always. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    titleEs: z.string().openapi({ description: "The title in Spanish" }),
    detailEs: z
      .string()
      .openapi({ description: "The detail in Spanish, or what the code means when none was written" }),
    code: z.enum(PROBLEM_CODES),
    requestId: z.string(),
    instance: z.string(),
    errors: z.array(ProblemItemSchema),
    // Extension members (RFC 9457 §3.2) some codes carry.
    limit: z.number().int().optional().openapi({ description: "quota_exceeded: the monthly receipt limit" }),
    month: z.string().optional().openapi({ description: "quota_exceeded: the month (AAAA-MM) whose quota is used up" }),
    currentVersion: z
      .number()
      .int()
      .optional()
      .openapi({ description: "precondition_failed: the version the record is at now" }),
    problemCount: z
      .number()
      .int()
      .optional()
      .openapi({ description: "How many problems were found, all listed or not" }),
    deviceRevoked: z.boolean().optional().openapi({ description: "unauthorized: the device was revoked" }),
  })
  .openapi("Problem");

export function problemSchema(description: string) {
  return { description, content: { "application/problem+json": { schema: ProblemSchema } } };
}

/** An API client's bearer token, or a console user's session cookie (the same principal, its role enforced). */
export const bearerSecurity: Record<string, string[]>[] = [{ bearerAuth: [] }, { consoleSession: [] }];

export const adminSecurity = [{ adminAuth: [] as string[] }];

/** How a caller names the issuer it acts for; declared once, on every issuer-scoped operation. */
export const RNC_EMISOR_PARAMETER = {
  name: "X-RNC-Emisor",
  in: "header",
  required: false,
  description:
    "RNC or cédula of the issuer the request acts for: required with a partner's token, optional with a company's (its own RNC only).",
  schema: { type: "string", pattern: "^(\\d{9}|\\d{11})$", example: "131880681" },
} as const;

const TENANT_PROBLEMS = {
  400: problemSchema("A partner's token without X-RNC-Emisor (errors[].path /headers/X-RNC-Emisor)"),
  401: problemSchema("Missing, malformed, expired or revoked bearer token"),
  403: problemSchema(
    "The caller does not act for the issuer named in X-RNC-Emisor, the issuer is inactive, or the key kind does not match its DGII environment",
  ),
};

type Responses = RouteConfig["responses"];
type Described = { description: string };

/** Route-specific problems keep their description, with the shared meaning appended. */
function mergeProblems<T extends Responses, S extends Responses>(shared: T, own: S): T & S {
  const merged: Responses = { ...shared, ...own };
  for (const status of Object.keys(shared)) {
    const mine = own[status] as Described | undefined;
    if (mine && "description" in mine)
      merged[status] = {
        ...mine,
        description: `${mine.description}; or: ${(shared[status] as Described).description}`,
      };
  }
  return merged as T & S;
}

/**
 * An operation that acts for one issuer (behind requireAuth and resolveTenant): the bearer scheme,
 * the X-RNC-Emisor header, and the 400/401/403 problems the tenant check answers with.
 */
export function tenantRoute<R extends RouteConfig>(route: R) {
  return createRoute({
    ...route,
    // A bearer token or a console session, unless the operation names its own (console only).
    security: route.security ?? bearerSecurity,
    // OpenAPI 3.0 and 3.1 parameter objects form a union that does not spread; the values are plain JSON.
    parameters: [...((route.parameters ?? []) as object[]), RNC_EMISOR_PARAMETER] as RouteConfig["parameters"],
    responses: mergeProblems(TENANT_PROBLEMS, route.responses as R["responses"]),
  });
}

/** An administration operation: the admin secret as bearer, and its 401. */
export function adminRoute<R extends RouteConfig>(route: R) {
  return createRoute({
    ...route,
    security: adminSecurity,
    responses: mergeProblems(
      { 401: problemSchema("Missing or wrong admin secret") },
      route.responses as R["responses"],
    ),
  });
}

/**
 * An example of every problem code, shown on each `application/problem+json` response of the
 * code's status (a shared component each, under components.examples). Exhaustive over
 * PROBLEM_CODES, so a new code cannot go without one.
 */
const PROBLEM_EXAMPLE: Record<ProblemCode, ProblemInit> = {
  validation_failed: {
    detail: "The e-CF has 2 problem(s).",
    errors: [
      {
        path: "/DetallesItems/0/PrecioUnitarioItem",
        code: "invalid_format",
        message: "PrecioUnitarioItem has more than 4 decimal places (values are never rounded here)",
        messageEs: "PrecioUnitarioItem tiene más de 4 decimales (los valores no se redondean)",
        severity: "error",
        rule: "xsd:fractionDigits (PrecioUnitarioItem)",
      },
      {
        path: "/Encabezado/Comprador/RNCComprador",
        code: "required",
        message: "RNCComprador is required in an e-CF of type 31",
        messageEs: "RNCComprador es obligatorio en un e-CF tipo 31",
        severity: "error",
        rule: "formato-ecf: RNCComprador (31: 1)",
      },
    ],
  },
  malformed_json: {
    detail: "The request body is not valid JSON.",
    errors: [{ path: "", code: "malformed_json", message: "The request body is not valid JSON." }],
  },
  bad_request: {
    detail: "A partner's request must name the issuer in the X-RNC-Emisor header.",
    errors: [
      { path: "/headers/X-RNC-Emisor", code: "required", message: "X-RNC-Emisor is required for partner keys." },
    ],
  },
  unauthorized: { detail: "The token has expired; log in again." },
  forbidden: { detail: "Key 7b0c4a2e belongs to issuer 131880681; it cannot act for 130862346." },
  not_found: { detail: "No receipt E310000000042 for issuer 131880681." },
  method_not_allowed: { detail: "DELETE is not allowed here." },
  conflict: {
    detail: "e-NCF E310000000500 was already used for a different document; it can never be reused.",
    errors: [{ path: "/Encabezado/IdDoc/eNCF", code: "encf_used", message: "Already used by another document." }],
  },
  in_progress: {
    detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
    errors: [{ path: "/headers/Idempotency-Key", code: "idempotency_key_in_progress", message: "In progress." }],
    retryAfter: 2,
  },
  precondition_failed: {
    detail: 'Product 0b6f… is at version 8; If-Match named "7". Read it again and reapply the change.',
    errors: [{ path: "/headers/If-Match", code: "stale", message: 'The current ETag is "8".' }],
    extensions: { currentVersion: 8 },
  },
  payload_too_large: { detail: "The body exceeds 2097152 bytes." },
  unsupported_media_type: { detail: "Send the e-CF as application/json." },
  unprocessable: {
    detail: "No authorised e-NCF range is registered for type 31; register one with PUT /company/sequences/31.",
    errors: [{ path: "/Encabezado/IdDoc/TipoeCF", code: "sequence_missing", message: "No e-NCF range for type 31." }],
  },
  precondition_required: {
    detail:
      'Send If-Match with the ETag read from GET /products/{id} (e.g. If-Match: "7"), so a change made meanwhile is not overwritten.',
    errors: [{ path: "/headers/If-Match", code: "required", message: "If-Match is required." }],
  },
  quota_exceeded: {
    detail: "The monthly limit of 1000 receipts for 2026-11 has been reached.",
    extensions: { limit: 1000, month: "2026-11" },
  },
  too_many_requests: { detail: "Too many failed logins; try again in 60 seconds." },
  dgii_unavailable: { detail: "ANECF not sent: DGII did not answer within 10000 ms." },
  internal_error: { detail: "An unexpected error occurred. Quote the request id when reporting it." },
  invalid_rnc: {
    detail: "131-88068-1 is not an RNC (9 digits) or a cédula (11 digits).",
    errors: [{ path: "/rnc", code: "invalid_rnc", message: "Expected 9 or 11 digits." }],
  },
  taxpayer_not_found: {
    detail: "RNC 131880682 is not in DGII's taxpayer registry (imported 2026-11-20T04:10:00.000Z).",
  },
  csrf_failed: {
    detail: "A request signed in by the console's cookie must send the session's csrfToken in X-CSRF-Token.",
  },
  expired: { detail: "This invitation expired on 2026-11-27T18:00:00.000Z; ask the owner for a new one." },
  console_session_required: {
    detail: "API keys are managed by the company's owner signed in to the console, never with an API key.",
  },
};

const CODES_BY_STATUS = new Map<number, ProblemCode[]>();
for (const code of PROBLEM_CODES)
  CODES_BY_STATUS.set(statusOf(code), [...(CODES_BY_STATUS.get(statusOf(code)) ?? []), code]);

const exampleName = (code: ProblemCode) =>
  `Problem${code.replace(/(^|[_-])([a-z])/g, (_, _s, ch: string) => ch.toUpperCase())}`;

interface Operation {
  operationId?: string;
  responses?: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { examples?: unknown; example?: unknown }> }
  >;
}
interface Document {
  paths?: object;
  webhooks?: object;
  components?: { examples?: object };
}

/** Adds the problem examples of its status to every problem response that has none. */
export function withProblemExamples<D extends Document>(document: D): D {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => [method, exemplified(operation as Operation)]),
    );
  }
  // Only the examples some response shows: an unused component is noise to every linter.
  const shown = new Set(JSON.stringify(paths).match(/#\/components\/examples\/Problem\w+/g) ?? []);
  const examples: Record<string, unknown> = {};
  for (const code of PROBLEM_CODES) {
    if (!shown.has(`#/components/examples/${exampleName(code)}`)) continue;
    examples[exampleName(code)] = {
      summary: code,
      value: problemBody(code, "3f2b8c1e-5d4a-4e6f-9b7c-2a1d0e9f8c7b", "/fe/recepcion/ecf", PROBLEM_EXAMPLE[code]),
    };
  }
  return {
    ...document,
    paths,
    components: { ...document.components, examples: { ...document.components?.examples, ...examples } },
  };
}

/** A copy of `operation` whose problem responses carry the examples of their status. */
function exemplified(operation: Operation): Operation {
  if (typeof operation !== "object" || operation === null || !operation.responses) return operation;
  const responses: NonNullable<Operation["responses"]> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    // Every 429 and 503 says when to try again (problemResponse and the contingency answer set it).
    const withRetry =
      status === "429" || status === "503"
        ? { ...response, headers: { ...response.headers, "Retry-After": RETRY_AFTER_HEADER } }
        : response;
    const media = withRetry.content?.["application/problem+json"];
    const codes = CODES_BY_STATUS.get(Number(status));
    if (!media || !codes || media.examples || media.example) {
      responses[status] = withRetry;
      continue;
    }
    const examples = Object.fromEntries(
      codes.map((code) => [code, { $ref: `#/components/examples/${exampleName(code)}` }]),
    );
    responses[status] = {
      ...withRetry,
      content: { ...withRetry.content, "application/problem+json": { ...media, examples } },
    };
  }
  return { ...operation, responses };
}

const RETRY_AFTER_HEADER = {
  description:
    "Seconds until trying again makes sense: the ledger's next attempt for a receipt in contingency, the next month for a full quota, the throttle's wait",
  schema: { type: "integer", minimum: 1 },
};

/**
 * Gives every operation without one an operationId made of its method and path, the way an
 * SDK generator names a call: `GET /fe/recepcion/ecf/{encf}/pdf` → `getFeRecepcionEcfByEncfPdf`.
 * Method and path identify an operation, so the names are unique. A webhook (a request the
 * service sends) is named by its event: `receipt.accepted` → `webhookReceiptAccepted`.
 */
export function withOperationIds<D extends Document>(document: D): D {
  const named = (items: Record<string, Record<string, unknown>>, idOf: (method: string, key: string) => string) => {
    const out: Record<string, Record<string, unknown>> = {};
    for (const [key, item] of Object.entries(items)) {
      out[key] = Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          if (typeof operation !== "object" || operation === null || (operation as Operation).operationId)
            return [method, operation];
          return [method, { operationId: idOf(method, key), ...(operation as Operation) }];
        }),
      );
    }
    return out;
  };
  return {
    ...document,
    paths: named((document.paths ?? {}) as Record<string, Record<string, unknown>>, operationIdOf),
    ...(document.webhooks
      ? {
          webhooks: named(document.webhooks as Record<string, Record<string, unknown>>, (_m, event) =>
            operationIdOf("webhook", event),
          ),
        }
      : {}),
  };
}

export function operationIdOf(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .flatMap((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment);
      return parameter ? ["by", ...parameter[1]!.split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/);
    })
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}
