import { createRoute } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { constantTimeEqual, sha256Hex } from "../crypto/credentials.ts";
import { issueToken } from "../auth/jwt.ts";
import { clientAddress } from "../auth/client-address.ts";
import { clearFailures, loginScopes, longestWait, recordFailure } from "../auth/throttle.ts";
import { database } from "../db/client.ts";
import { apiKeys } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { newRouter } from "../http/router.ts";
import { problemSchema } from "../http/openapi.ts";
import { LoginBody, LoginResponse } from "../http/schemas/login.ts";

// Compared against when the key is unknown, so both failure paths cost the same.
const DUMMY_SECRET_HASH = "0".repeat(64);
const INVALID = "Invalid API key or secret.";
const tooMany = (wait: number) =>
  new ApiProblem("too_many_requests", {
    detail: `Too many failed logins; try again in ${wait} seconds.`,
    retryAfter: wait,
  });

export const loginRoutes = newRouter().openapi(
  createRoute({
    method: "post",
    path: "/login",
    tags: ["Authentication"],
    summary: "Exchange an API key and secret for a 24-hour token",
    description:
      "The first call of every integration: the key and secret an administrator created (POST /admin/keys) become an HS256 bearer token valid 24 hours; log in again before it expires. Wrong keys and wrong secrets get the same 401, and repeated failures are throttled (429 with Retry-After) per key and client address, so someone else's failures never lock out the right secret.",
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
    const { own, shared } = loginScopes(keyHash, clientAddress(c.req.raw.headers, c.env.BEHIND_CLOUDFLARE));

    // This caller's own failures may refuse it before the secret is even looked at.
    const [ownWait, sharedWait] = await Promise.all([longestWait(db, own, now), longestWait(db, shared, now)]);
    if (ownWait > 0) throw tooMany(ownWait);

    const key = await db.query.apiKeys.findFirst({ where: eq(apiKeys.keyHash, keyHash) });
    const secretMatches = await constantTimeEqual(await sha256Hex(apiSecret), key?.secretHash ?? DUMMY_SECRET_HASH);
    if (!key || !secretMatches || key.revokedAt) {
      await Promise.all([...own, ...shared].map(({ scope }) => recordFailure(db, scope, now)));
      // Others' failures (no address to tell callers apart) only ever turn a wrong secret's 401 into a 429.
      if (sharedWait > 0) throw tooMany(sharedWait);
      throw new ApiProblem("unauthorized", { detail: INVALID });
    }

    await Promise.all([
      ...[...own.slice(0, 1), ...shared].map(({ scope }) => clearFailures(db, scope)),
      db.update(apiKeys).set({ lastUsedAt: now.toISOString() }).where(eq(apiKeys.id, key.id)),
    ]);
    const { token } = await issueToken(
      { keyId: key.id, ownerType: key.ownerType, ownerId: key.ownerId, kind: key.kind },
      c.env.JWT_SECRET,
      now,
    );
    return c.json({ token }, 200);
  },
);
