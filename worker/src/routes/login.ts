import { createRoute } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { constantTimeEqual, sha256Hex } from "../auth/crypto.ts";
import { issueToken } from "../auth/jwt.ts";
import { clearFailures, MAX_FAILURES_PER_ADDRESS, MAX_FAILURES_PER_KEY, recordFailure, retryAfterSeconds } from "../auth/throttle.ts";
import { database } from "../db/client.ts";
import { apiKeys } from "../db/schema.ts";
import { ApiProblem } from "../http/problem.ts";
import { newRouter } from "../http/router.ts";
import { problemSchema } from "../http/openapi.ts";
import { LoginBody, LoginResponse } from "../http/schemas/login.ts";

// Compared against when the key is unknown, so both failure paths cost the same.
const DUMMY_SECRET_HASH = "0".repeat(64);
const INVALID = "Invalid API key or secret.";

export const loginRoutes = newRouter().openapi(
  createRoute({
    method: "post",
    path: "/login",
    tags: ["Authentication"],
    summary: "Exchange an API key and secret for a 24-hour token",
    description:
      "The first call of every integration: the key and secret an administrator created (POST /admin/keys) become an HS256 bearer token valid 24 hours; log in again before it expires. Wrong keys and wrong secrets get the same 401, and repeated failures per key or address are throttled (429 with Retry-After).",
    request: { body: { required: true, content: { "application/json": { schema: LoginBody } } } },
    responses: {
      200: { description: "A bearer token", content: { "application/json": { schema: LoginResponse } } },
      400: problemSchema("Malformed body"),
      401: problemSchema("Unknown key or wrong secret (same answer for both)"),
      429: problemSchema("Too many failed attempts for this key or address"),
    },
  }),
  async (c) => {
    const { apiKey, apiSecret } = c.req.valid("json");
    const db = database(c.env.DB);
    const now = new Date();
    const keyHash = await sha256Hex(apiKey);
    const keyScope = `key:${keyHash}`;
    const addressScope = `ip:${c.req.header("CF-Connecting-IP") ?? "unknown"}`;

    const wait = Math.max(await retryAfterSeconds(db, keyScope, MAX_FAILURES_PER_KEY, now), await retryAfterSeconds(db, addressScope, MAX_FAILURES_PER_ADDRESS, now));
    if (wait > 0) {
      throw new ApiProblem("too_many_requests", { detail: `Too many failed logins; try again in ${wait} seconds.`, retryAfter: wait });
    }

    const key = await db.query.apiKeys.findFirst({ where: eq(apiKeys.keyHash, keyHash) });
    const secretMatches = await constantTimeEqual(await sha256Hex(apiSecret), key?.secretHash ?? DUMMY_SECRET_HASH);
    if (!key || !secretMatches || key.revokedAt) {
      await Promise.all([recordFailure(db, keyScope, now), recordFailure(db, addressScope, now)]);
      throw new ApiProblem("unauthorized", { detail: INVALID });
    }

    await Promise.all([clearFailures(db, keyScope), db.update(apiKeys).set({ lastUsedAt: now.toISOString() }).where(eq(apiKeys.id, key.id))]);
    const { token } = await issueToken({ keyId: key.id, ownerType: key.ownerType, ownerId: key.ownerId, kind: key.kind }, c.env.JWT_SECRET, now);
    return c.json({ token }, 200);
  },
);
