// What every route shares: state, faults, the injected checks, timing and the clock.
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import type { DocumentChecks } from "./checks.ts";
import type { FaultSet } from "./faults.ts";
import type { SandboxSigner } from "./signer.ts";
import type { SandboxState, TokenRecord } from "./state.ts";

export interface SandboxConfig {
  /** How long a reception reads as En Proceso before its final state is visible. */
  processingMs: number;
  /** Token lifetime (DGII: one hour). */
  tokenTtlMs: number;
  /** How long an issued seed can be exchanged for a token. */
  seedTtlMs: number;
}

export interface SandboxContext {
  state: SandboxState;
  faults: FaultSet;
  checks: DocumentChecks;
  config: SandboxConfig;
  now: () => Date;
  /** The sandbox's signing identity, made on first use. */
  signer: () => Promise<SandboxSigner>;
}

/** Hono environment: node-server bindings when served over HTTP, absent under `app.request()`. */
export interface SandboxEnv {
  Bindings: Partial<HttpBindings>;
  Variables: { token: TokenRecord; fault: string };
}

/** Query parameters by name, ignoring case: DGII documents both `TrackId` and `trackid`. */
export function queryParam(c: Context, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of new URL(c.req.url).searchParams) {
    if (key.toLowerCase() === wanted) return value.trim();
  }
  return undefined;
}
