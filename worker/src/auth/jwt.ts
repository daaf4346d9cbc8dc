import { errors, jwtVerify, SignJWT } from "jose";
import type { TokenClaims } from "../env.ts";

/** Tokens live 24 hours; revoking the key ends them sooner (within a second: auth/middleware.ts). */
export const TOKEN_TTL_SECONDS = 24 * 60 * 60;
const ISSUER = "ecf-edge";

function secretKey(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret || secret.length < 16) throw new Error("JWT_SECRET is missing or shorter than 16 characters");
  return new TextEncoder().encode(secret);
}

export async function issueToken(
  claims: TokenClaims,
  secret: string,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
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
let verifying: { secret: string; key: Promise<CryptoKey>; verified: Map<string, VerifiedToken> } | undefined;
function verifierFor(secret: string): NonNullable<typeof verifying> {
  if (verifying?.secret !== secret) {
    verifying = {
      secret,
      key: crypto.subtle.importKey("raw", secretKey(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]),
      verified: new Map(),
    };
  }
  return verifying;
}

/**
 * Tokens whose signature this isolate has checked, with their expiry: a client sends the same token
 * on every request, and its bytes cannot say anything else the next time. (Revocation is the key
 * lookup's job, on every request.) The oldest are forgotten beyond VERIFIED_TOKENS.
 */
interface VerifiedToken {
  claims: TokenClaims;
  expiresAt: number;
}
const VERIFIED_TOKENS = 1000;

/**
 * Verifies signature (HS256 only: `none` and every other algorithm are refused), issuer and expiry;
 * a token without `exp` is refused (it would never expire, whoever signed it).
 */
export async function verifyToken(
  token: string,
  secret: string,
  now = Date.now(),
): Promise<TokenClaims | TokenFailure> {
  const verifier = verifierFor(secret);
  const known = verifier.verified.get(token);
  if (known) {
    if (known.expiresAt > now) return known.claims;
    verifier.verified.delete(token);
    return "expired";
  }
  try {
    const { payload } = await jwtVerify(token, await verifier.key, {
      algorithms: ["HS256"],
      issuer: ISSUER,
      requiredClaims: ["exp"],
      currentDate: new Date(now),
    });
    const { sub, own, oid, knd, exp } = payload as Record<string, unknown>;
    if (
      typeof sub !== "string" ||
      (own !== "company" && own !== "partner") ||
      typeof oid !== "string" ||
      (knd !== "test" && knd !== "live") ||
      typeof exp !== "number"
    ) {
      return "invalid";
    }
    const claims: TokenClaims = { keyId: sub, ownerType: own, ownerId: oid, kind: knd };
    if (verifier.verified.size >= VERIFIED_TOKENS) verifier.verified.delete(verifier.verified.keys().next().value!);
    verifier.verified.set(token, { claims, expiresAt: exp * 1000 });
    return claims;
  } catch (error) {
    return error instanceof errors.JWTExpired ? "expired" : "invalid";
  }
}
