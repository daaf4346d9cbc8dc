// The optional authentication of DGII's emisor-receptor standard: a seed (SemillaModel) the
// sender signs with its certificate and trades for a bearer token. Seeds are single use and
// short-lived; only the SHA-256 of a token is stored.
import { buildSemilla, formatXsDateTime, parseSemilla, toBase64, verifyXml } from "@ecf/shared";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Context } from "hono";
import { database } from "../db/client.ts";
import { receiverSeeds, receiverSettings, receiverTokens } from "../db/schema-receiving.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../http/problem.ts";
import type { Company } from "../tenant/resolve.ts";

export const SEED_TTL_MS = 2 * 60 * 1000;
export const TOKEN_TTL_MS = 60 * 60 * 1000;

export interface ReceiverToken {
  token: string;
  /** yyyy-MM-ddTHH:mm:ssZ (DGII: universal sortable date/time). */
  expira: string;
  expedido: string;
}

const universal = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A fresh seed for the sender to sign; bound to the receiving company when the URL named one. */
export async function issueSeed(d1: D1Database, companyId: string | null, now: Date): Promise<string> {
  const valor = toBase64(crypto.getRandomValues(new Uint8Array(48)));
  await database(d1)
    .insert(receiverSeeds)
    .values({ valor, companyId, expiresAt: new Date(now.getTime() + SEED_TTL_MS).toISOString() });
  return buildSemilla({ valor, fecha: formatXsDateTime(now) });
}

const refused = (detail: string, code: string) => new ApiProblem("unauthorized", { detail, errors: [{ path: "/xml", code, message: detail }] });

/** Checks a signed seed (signature, certificate validity, seed unused and unexpired) and issues a token. */
export async function redeemSignedSeed(d1: D1Database, signedXml: string, companyId: string | null, now: Date): Promise<ReceiverToken> {
  let valor: string;
  try {
    valor = parseSemilla(signedXml).valor;
  } catch (error) {
    const detail = `The file is not a SemillaModel: ${(error as Error).message}`;
    throw new ApiProblem("bad_request", { detail, errors: [{ path: "/xml", code: "not_a_seed", message: detail }] });
  }
  const verified = await verifyXml(signedXml);
  if (!verified.ok) throw refused(`The seed's signature is not valid (${verified.reason}): ${verified.message}`, "bad_signature");
  const { certificate } = verified;
  if (certificate.notBefore.getTime() > now.getTime() || certificate.notAfter.getTime() < now.getTime()) {
    throw refused(`The signing certificate is not valid now (valid ${certificate.notBefore.toISOString()} to ${certificate.notAfter.toISOString()}).`, "certificate_not_valid");
  }

  const db = database(d1);
  // One conditional update: two concurrent redemptions of a seed cannot both succeed.
  const used = await db
    .update(receiverSeeds)
    .set({ usedAt: now.toISOString() })
    .where(and(eq(receiverSeeds.valor, valor), isNull(receiverSeeds.usedAt), gt(receiverSeeds.expiresAt, now.toISOString())))
    .returning({ companyId: receiverSeeds.companyId });
  const seed = used[0];
  if (!seed) throw refused("The seed is unknown, already used or expired; request a new one.", "seed_not_usable");
  if (companyId !== null && seed.companyId !== null && seed.companyId !== companyId) {
    throw refused("The seed was issued for another receiver.", "seed_not_usable");
  }

  const token = toBase64(crypto.getRandomValues(new Uint8Array(32))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const expires = new Date(now.getTime() + TOKEN_TTL_MS);
  await db.insert(receiverTokens).values({
    tokenHash: await sha256Hex(token),
    companyId: companyId ?? seed.companyId,
    holder: certificate.holderId ?? certificate.subject,
    expiresAt: expires.toISOString(),
  });
  return { token, expira: universal(expires), expedido: universal(now) };
}

export async function requiresAuthentication(d1: D1Database, companyId: string): Promise<boolean> {
  const row = await database(d1).query.receiverSettings.findFirst({ where: eq(receiverSettings.companyId, companyId) });
  return row?.requireAuthentication ?? false;
}

/** When the receiving company demands it, the request must carry a live token from validacioncertificado. */
export async function checkReceiverToken(c: Context<AppEnv>, company: Company, now: Date): Promise<void> {
  if (!(await requiresAuthentication(c.env.DB, company.id))) return;
  const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("Authorization")?.trim() ?? "");
  if (!match?.[1]) {
    throw new ApiProblem("unauthorized", { detail: `Receiver ${company.rnc} requires authentication: get a token from /fe/autenticacion/api/validacioncertificado.` });
  }
  const row = await database(c.env.DB).query.receiverTokens.findFirst({ where: eq(receiverTokens.tokenHash, await sha256Hex(match[1])) });
  if (!row || row.expiresAt <= now.toISOString()) throw new ApiProblem("unauthorized", { detail: "The token is unknown or expired." });
  if (row.companyId !== null && row.companyId !== company.id) throw new ApiProblem("unauthorized", { detail: "The token was issued for another receiver." });
}

/** Stores a company's receiver settings. */
export async function saveReceiverSettings(d1: D1Database, companyId: string, requireAuthentication: boolean): Promise<void> {
  await database(d1)
    .insert(receiverSettings)
    .values({ companyId, requireAuthentication, updatedAt: new Date().toISOString() })
    .onConflictDoUpdate({ target: receiverSettings.companyId, set: { requireAuthentication, updatedAt: new Date().toISOString() } });
}
