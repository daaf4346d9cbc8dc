import { z } from "@hono/zod-openapi";
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
