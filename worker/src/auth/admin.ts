import { createMiddleware } from "hono/factory";
import { ApiProblem } from "../errors/problem.ts";
import { constantTimeEqual } from "../crypto/credentials.ts";

/** The administration API answers only to `Authorization: Bearer <ADMIN_SECRET>`. */
export const requireAdmin = createMiddleware<{ Bindings: Env }>(async (c, next) => {
  const secret = c.env.ADMIN_SECRET;
  const given = /^Bearer\s+(\S+)$/.exec(c.req.header("Authorization") ?? "")?.[1];
  if (!secret || !given || !(await constantTimeEqual(given, secret))) {
    throw new ApiProblem("unauthorized", {
      detail: "The administration API needs 'Authorization: Bearer <ADMIN_SECRET>'.",
    });
  }
  await next();
});
