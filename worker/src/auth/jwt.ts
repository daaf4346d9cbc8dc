import { errors, jwtVerify, SignJWT } from "jose";

/** Tokens live 24 hours; revoking the key ends them sooner (checked on every request). */
export const TOKEN_TTL_SECONDS = 24 * 60 * 60;
const ISSUER = "ecf-edge";

export interface TokenClaims {
  /** API key id. */
  keyId: string;
  ownerType: "company" | "partner";
  ownerId: string;
  kind: "test" | "live";
}

function secretKey(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret || secret.length < 16) throw new Error("JWT_SECRET is missing or shorter than 16 characters");
  return new TextEncoder().encode(secret);
}

export async function issueToken(claims: TokenClaims, secret: string, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + TOKEN_TTL_SECONDS;
  const token = await new SignJWT({ own: claims.ownerType, oid: claims.ownerId, knd: claims.kind })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.keyId)
    .setIssuer(ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secretKey(secret));
  return { token, expiresAt: new Date(exp * 1000) };
}

export type TokenFailure = "expired" | "invalid";

/** The HMAC key tokens are verified with, imported once per secret and isolate rather than on every request. */
let verifying: { secret: string; key: Promise<CryptoKey> } | undefined;
function verifyingKey(secret: string): Promise<CryptoKey> {
  if (verifying?.secret !== secret) {
    verifying = { secret, key: crypto.subtle.importKey("raw", secretKey(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]) };
  }
  return verifying.key;
}

/** Verifies signature (HS256 only: `none` and every other algorithm are refused), issuer and expiry. */
export async function verifyToken(token: string, secret: string): Promise<TokenClaims | TokenFailure> {
  try {
    const { payload } = await jwtVerify(token, await verifyingKey(secret), { algorithms: ["HS256"], issuer: ISSUER });
    const { sub, own, oid, knd } = payload as Record<string, unknown>;
    if (typeof sub !== "string" || (own !== "company" && own !== "partner") || typeof oid !== "string" || (knd !== "test" && knd !== "live")) {
      return "invalid";
    }
    return { keyId: sub, ownerType: own, ownerId: oid, kind: knd };
  } catch (error) {
    return error instanceof errors.JWTExpired ? "expired" : "invalid";
  }
}
