import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { validationHook } from "./errors.ts";

/** A new OpenAPIHono whose schema failures all become the same problem document. */
export function newRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}
