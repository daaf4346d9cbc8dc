// Shapes several areas share: the JSON media type, the path parameters that name a receipt or a
// record, DGII's environments.
import { z } from "@hono/zod-openapi";

/** A JSON request or response body of `schema`. */
export const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });

/** An e-NCF: E, the type, ten digits. */
export const ENCF_PATTERN = /^E\d{12}$/;

/** `{encf}` in a path. */
export const EncfParam = z.object({
  encf: z
    .string()
    .regex(ENCF_PATTERN, "expected an e-NCF such as E310000000001")
    .openapi({ param: { name: "encf", in: "path" }, example: "E310000000001" }),
});

/** `{id}` in a path: a record's id (issuer, device, key, endpoint, purchase). */
export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" } }),
});

/** DGII's environments: pre-certification, certification, production. */
export const DgiiEnvironment = z.enum(["testecf", "certecf", "ecf"]);
