// Authentication as the API shows it: an API key and secret for a bearer token.
import { z } from "@hono/zod-openapi";

export const LoginBody = z
  .object({
    apiKey: z.string().min(1).max(200).openapi({ example: "ecf_test_…" }),
    apiSecret: z.string().min(1).max(200),
  })
  .openapi("LoginRequest");

export const LoginResponse = z
  .object({ token: z.string().openapi({ description: "HS256 JWT, valid 24 hours" }) })
  .openapi("LoginResponse");
