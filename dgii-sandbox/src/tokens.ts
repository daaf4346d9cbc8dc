// Session tokens: JWT-shaped like DGII's (HS256 under a per-process key), but the sandbox also
// keeps each one in memory, which is what makes it valid.
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { SandboxContext, SandboxEnv } from "./context.ts";
import type { Environment } from "./environments.ts";
import type { Audience, TokenRecord } from "./state.ts";

const KEY = randomBytes(32);
const base64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

export function issueToken(
  ctx: SandboxContext,
  env: Environment,
  audience: Audience,
  holderId: string | null,
  subject: string,
  fingerprint?: string,
): { token: string; record: TokenRecord } {
  const expedido = ctx.now();
  const expira = new Date(expedido.getTime() + ctx.config.tokenTtlMs);
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = base64url(
    JSON.stringify({
      sub: holderId ?? subject,
      jti: randomUUID(),
      env,
      nbf: Math.floor(expedido.getTime() / 1000),
      exp: Math.floor(expira.getTime() / 1000),
      iss: "DGII.FE.SANDBOX",
      aud: audience === "dgii" ? "USUARIOS.DGII.FE" : "EMISOR.RECEPTOR",
    }),
  );
  const signature = createHmac("sha256", KEY).update(`${header}.${payload}`).digest("base64url");
  const token = `${header}.${payload}.${signature}`;
  const record: TokenRecord = { env, audience, holderId, subject, fingerprint, expedido, expira };
  ctx.state.record({ t: "token", token, record });
  return { token, record };
}

/**
 * 401 as an ASP.NET Core service (which DGII's are) answers it: ProblemDetails JSON, plus the
 * RFC 6750 `WWW-Authenticate` challenge the DGII documents refer to.
 */
export function unauthorized(description: string): Response {
  return new Response(
    JSON.stringify({
      type: "https://tools.ietf.org/html/rfc7235#section-3.1",
      title: "Unauthorized",
      status: 401,
      detail: description,
      traceId: `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-00`,
    }),
    {
      status: 401,
      headers: {
        "content-type": "application/problem+json; charset=utf-8",
        "www-authenticate": `Bearer error="invalid_token", error_description="${description}"`,
      },
    },
  );
}

/**
 * Requires `Authorization: Bearer <token>` issued for this environment and audience and not
 * expired. With `optional`, a request without the header passes (receivers may declare no
 * authentication) but a header that is present must still be valid.
 */
export function requireToken(
  ctx: SandboxContext,
  env: Environment,
  audience: Audience = "dgii",
  optional = false,
): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    if (optional && header.trim() === "") return next();
    const match = /^bearer\s+(\S+)$/i.exec(header.trim());
    if (!match) return unauthorized("Se requiere el encabezado Authorization: Bearer {token}");
    const record = ctx.state.tokens.get(match[1]!);
    if (!record || record.audience !== audience) return unauthorized("El token no es válido");
    if (record.env !== env) return unauthorized(`El token no fue emitido para el ambiente ${env}`);
    if (record.expira.getTime() <= ctx.now().getTime()) return unauthorized("El token ha expirado");
    c.set("token", record);
    await next();
  };
}
