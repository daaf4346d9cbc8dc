import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import { PROBLEM_CODES } from "./problem.ts";

/** The RFC 9457 problem document, as it appears in the OpenAPI document. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(PROBLEM_CODES),
    requestId: z.string(),
    instance: z.string(),
    errors: z.array(z.object({ path: z.string().openapi({ description: "JSON pointer into the request" }), code: z.string(), message: z.string() })),
  })
  .openapi("Problem");

export function problemSchema(description: string) {
  return { description, content: { "application/problem+json": { schema: ProblemSchema } } };
}

export const bearerSecurity = [{ bearerAuth: [] as string[] }];

export const adminSecurity = [{ adminAuth: [] as string[] }];

/** How a caller names the issuer it acts for; declared once, on every issuer-scoped operation. */
export const RNC_EMISOR_PARAMETER = {
  name: "X-RNC-Emisor",
  in: "header",
  required: false,
  description: "RNC or cédula of the issuer the request acts for: required with a partner's token, optional with a company's (its own RNC only).",
  schema: { type: "string", pattern: "^(\\d{9}|\\d{11})$", example: "131880681" },
} as const;

const TENANT_PROBLEMS = {
  400: problemSchema("A partner's token without X-RNC-Emisor (errors[].path /headers/X-RNC-Emisor)"),
  401: problemSchema("Missing, malformed, expired or revoked bearer token"),
  403: problemSchema("The caller does not act for the issuer named in X-RNC-Emisor, the issuer is inactive, or the key kind does not match its DGII environment"),
};

type Responses = RouteConfig["responses"];
type Described = { description: string };

/** Route-specific problems keep their description, with the shared meaning appended. */
function mergeProblems<T extends Responses, S extends Responses>(shared: T, own: S): T & S {
  const merged: Responses = { ...shared, ...own };
  for (const status of Object.keys(shared)) {
    const mine = own[status] as Described | undefined;
    if (mine && "description" in mine) merged[status] = { ...mine, description: `${mine.description}; or: ${(shared[status] as Described).description}` };
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
    security: bearerSecurity,
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
    responses: mergeProblems({ 401: problemSchema("Missing or wrong admin secret") }, route.responses as R["responses"]),
  });
}
