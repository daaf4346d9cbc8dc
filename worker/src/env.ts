import type { RequestIdVariables } from "hono/request-id";

/** Hono's environment for this worker: bindings from wrangler.toml, request-scoped variables. */
export interface AppEnv {
  Bindings: Env;
  Variables: RequestIdVariables;
}
