// The optional authentication of DGII's emisor-receptor standard: a seed (SemillaModel) the
// sender signs with its certificate and trades for a bearer token. Seeds are single use and
// short-lived; only the SHA-256 of a token is stored.
//
// Binding: DGII's directory publishes, per taxpayer, its reception, commercial-approval and
// (optional) authentication URLs (descripcion-tecnica, "Consulta Directorio de Servicios"), and a
// sender authenticates at the authentication URL of the receiver it is about to send to
// ("autenticándose previamente en caso de haber especificado dicha URL"). Here each company's
// published URLs carry its /{rnc} prefix, so a token is for the receiver whose URL issued it. A
// token from the bare path names no receiver and never opens a company that requires
// authentication; such a company publishes, and is reached through, its /{rnc} URLs.
//
// Seeds are stateless (an HMAC over expiry, receiver and randomness): an unauthenticated
// GET semilla writes nothing. A row is written only when a validly signed seed is redeemed (to
// make it single use), and expired seed and token rows are purged on each redemption.
import { buildSemilla, formatXsDateTime, fromBase64, parseSemilla, toBase64, verifyXml } from "@ecf/shared";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { sha256Hex } from "../crypto/credentials.ts";
import { database } from "../db/client.ts";
import { receiverSeeds, receiverSettings, receiverTokens } from "../db/receiving-tables.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";
import type { Company } from "../db/tables.ts";
import { checkSignerTrust } from "./signer-trust.ts";

export const SEED_TTL_MS = 2 * 60 * 1000;
export const TOKEN_TTL_MS = 60 * 60 * 1000;
/** Expired rows removed per redemption: bounded work, still faster than rows can be created. */
const PURGE_BATCH = 200;

export interface ReceiverToken {
  token: string;
  /** yyyy-MM-ddTHH:mm:ssZ (DGII: universal sortable date/time). */
  expira: string;
  expedido: string;
  /** The receiver the token opens (null: issued on the bare path, opens none that requires it). */
  companyId: string | null;
}

const universal = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
const base64url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromBase64url = (text: string) =>
  fromBase64(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));

const seedKeys = new Map<string, Promise<CryptoKey>>();
function seedKey(secret: string): Promise<CryptoKey> {
  let key = seedKeys.get(secret);
  if (!key) {
    // Domain-separated from the API's JWTs that use the same secret.
    key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(`receiver-seed:${secret}`),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    seedKeys.set(secret, key);
  }
  return key;
}

interface SeedClaims {
  expiresAt: Date;
  companyId: string | null;
}

/** A fresh seed for the sender to sign; bound to the receiving company when the URL named one. */
export async function issueSeed(env: Pick<Env, "JWT_SECRET">, companyId: string | null, now: Date): Promise<string> {
  const payload = `${now.getTime() + SEED_TTL_MS}.${companyId ?? "-"}.${base64url(crypto.getRandomValues(new Uint8Array(24)))}`;
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", await seedKey(env.JWT_SECRET), new TextEncoder().encode(payload)),
  );
  return buildSemilla({
    valor: `${base64url(new TextEncoder().encode(payload))}.${base64url(mac)}`,
    fecha: formatXsDateTime(now),
  });
}

/** The claims of a seed this platform issued, or undefined for anything else. */
async function readSeed(env: Pick<Env, "JWT_SECRET">, valor: string): Promise<SeedClaims | undefined> {
  const [payloadPart, macPart, extra] = valor.split(".");
  if (!payloadPart || !macPart || extra !== undefined) return undefined;
  const payload = fromBase64url(payloadPart);
  const mac = fromBase64url(macPart);
  if (!payload || !mac) return undefined;
  if (
    !(await crypto.subtle.verify("HMAC", await seedKey(env.JWT_SECRET), new Uint8Array(mac), new Uint8Array(payload)))
  )
    return undefined;
  const [expires, company] = new TextDecoder().decode(payload).split(".");
  const expiresMs = Number(expires);
  if (!Number.isSafeInteger(expiresMs) || !company) return undefined;
  return { expiresAt: new Date(expiresMs), companyId: company === "-" ? null : company };
}

const refused = (detail: string, code: string) =>
  new ApiProblem("unauthorized", { detail, errors: [{ path: "/xml", code, message: detail }] });

/** Removes expired seed and token rows (a bounded batch of each). */
export async function purgeExpiredReceiverAuth(d1: D1Database, now: Date): Promise<void> {
  const at = now.toISOString();
  await d1.batch([
    d1
      .prepare(
        "DELETE FROM receiver_seeds WHERE valor IN (SELECT valor FROM receiver_seeds WHERE expires_at < ? LIMIT ?)",
      )
      .bind(at, PURGE_BATCH),
    d1
      .prepare(
        "DELETE FROM receiver_tokens WHERE token_hash IN (SELECT token_hash FROM receiver_tokens WHERE expires_at < ? LIMIT ?)",
      )
      .bind(at, PURGE_BATCH),
  ]);
}

/** Checks a signed seed (signature, a trusted certificate valid now, seed ours, unused and unexpired) and issues a token. */
export async function redeemSignedSeed(
  env: Pick<Env, "DB" | "JWT_SECRET" | "TRUSTED_CA_PEM" | "TRUST_ANY_CERTIFICATE_AUTHORITY" | "DGII_TARGET">,
  signedXml: string,
  companyId: string | null,
  now: Date,
): Promise<ReceiverToken> {
  let valor: string;
  try {
    valor = parseSemilla(signedXml).valor;
  } catch (error) {
    const detail = `The file is not a SemillaModel: ${(error as Error).message}`;
    throw new ApiProblem("bad_request", { detail, errors: [{ path: "/xml", code: "not_a_seed", message: detail }] });
  }
  const seed = await readSeed(env, valor);
  if (!seed || seed.expiresAt.getTime() <= now.getTime())
    throw refused("The seed is unknown, already used or expired; request a new one.", "seed_not_usable");
  if (companyId !== null && seed.companyId !== null && seed.companyId !== companyId)
    throw refused("The seed was issued for another receiver.", "seed_not_usable");
  const verified = await verifyXml(signedXml);
  if (!verified.ok)
    throw refused(`The seed's signature is not valid (${verified.reason}): ${verified.message}`, "bad_signature");
  const { certificate } = verified;
  // A token only for a certificate an accredited authority issued, valid now: anyone can make a
  // self-signed certificate with any name in it.
  const trust = await checkSignerTrust(env, certificate.der, now, signedXml);
  if (!trust.ok) {
    throw refused(
      `The signing certificate is not trusted (${trust.reason}): ${trust.message}.`,
      trust.reason === "certificate_not_valid" ? "certificate_not_valid" : "certificate_not_trusted",
    );
  }

  await purgeExpiredReceiverAuth(env.DB, now);
  const db = database(env.DB);
  // The primary key makes the seed single use: of two concurrent redemptions only one inserts.
  const used = await db
    .insert(receiverSeeds)
    .values({ valor, companyId: seed.companyId, expiresAt: seed.expiresAt.toISOString(), usedAt: now.toISOString() })
    .onConflictDoNothing()
    .returning({ valor: receiverSeeds.valor });
  if (used.length === 0)
    throw refused("The seed is unknown, already used or expired; request a new one.", "seed_not_usable");

  const token = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const expires = new Date(now.getTime() + TOKEN_TTL_MS);
  const boundTo = companyId ?? seed.companyId;
  await db.insert(receiverTokens).values({
    tokenHash: await sha256Hex(token),
    companyId: boundTo,
    holder: certificate.holderId ?? certificate.subject,
    expiresAt: expires.toISOString(),
  });
  return { token, expira: universal(expires), expedido: universal(now), companyId: boundTo };
}

export async function requiresAuthentication(d1: D1Database, companyId: string): Promise<boolean> {
  const row = await database(d1).query.receiverSettings.findFirst({ where: eq(receiverSettings.companyId, companyId) });
  return row?.requireAuthentication ?? false;
}

const unauthorized = (detail: string, code: string) =>
  new ApiProblem("unauthorized", { detail, errors: [{ path: "/headers/Authorization", code, message: detail }] });

/** The live token the request carries (Authorization: Bearer), undefined when it carries none; 401 for an unknown or expired one. */
export async function presentedToken(c: Context<AppEnv>, now: Date): Promise<{ companyId: string | null } | undefined> {
  const header = c.req.header("Authorization")?.trim();
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match?.[1]) throw unauthorized("Send the token as 'Authorization: Bearer {token}'.", "malformed_token");
  const row = await database(c.env.DB).query.receiverTokens.findFirst({
    where: eq(receiverTokens.tokenHash, await sha256Hex(match[1])),
  });
  if (!row || row.expiresAt <= now.toISOString())
    throw unauthorized("The token is unknown or expired.", "token_not_valid");
  return { companyId: row.companyId };
}

/**
 * When the receiving company demands it, the request must carry a live token issued at that
 * company's authentication URL (/{rnc}/fe/autenticacion/...): see the binding note above.
 */
export async function checkReceiverToken(c: Context<AppEnv>, company: Company, now: Date): Promise<void> {
  if (!(await requiresAuthentication(c.env.DB, company.id))) return;
  const token = await presentedToken(c, now);
  if (!token) {
    throw unauthorized(
      `Receiver ${company.rnc} requires authentication: get a token from /${company.rnc}/fe/autenticacion/api/validacioncertificado.`,
      "token_required",
    );
  }
  if (token.companyId !== company.id) {
    throw unauthorized(
      token.companyId === null
        ? `The token was not issued for receiver ${company.rnc}: authenticate at /${company.rnc}/fe/autenticacion/api/validacioncertificado.`
        : "The token was issued for another receiver.",
      "token_other_receiver",
    );
  }
}

/** Stores a company's receiver settings. */
export async function saveReceiverSettings(
  d1: D1Database,
  companyId: string,
  requireAuthentication: boolean,
): Promise<void> {
  await database(d1)
    .insert(receiverSettings)
    .values({ companyId, requireAuthentication, updatedAt: new Date().toISOString() })
    .onConflictDoUpdate({
      target: receiverSettings.companyId,
      set: { requireAuthentication, updatedAt: new Date().toISOString() },
    });
}
