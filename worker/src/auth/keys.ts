// API keys: their material (shown once, stored as hashes) and their rows, created, listed and
// revoked the same way for the administrator (/admin/keys) and a company's owner (/company/api-keys).
import { and, eq, isNull } from "drizzle-orm";
import { database } from "../db/client.ts";
import { apiKeys, companies, partners } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { randomToken, sha256Hex } from "../crypto/credentials.ts";
import { forgetKeyLookups } from "../db/key-lookups.ts";

export type KeyKind = "test" | "live";

export interface NewKeyMaterial {
  /** Public id, safe to show and log: `key_test_…`. */
  id: string;
  /** The clear API key (`ecf_test_…`): shown once, stored only as a hash. */
  apiKey: string;
  /** The clear secret: shown once, stored only as a hash. */
  apiSecret: string;
  keyHash: string;
  secretHash: string;
}

/** The kind is visible in every prefix, so a live key pasted into a test setup is obvious. */
export async function generateKeyMaterial(kind: KeyKind): Promise<NewKeyMaterial> {
  const id = `key_${kind}_${randomToken(9)}`;
  const apiKey = `ecf_${kind}_${randomToken(24)}`;
  const apiSecret = randomToken(32);
  return { id, apiKey, apiSecret, keyHash: await sha256Hex(apiKey), secretHash: await sha256Hex(apiSecret) };
}

export interface KeyOwner {
  ownerType: "company" | "partner";
  ownerId: string;
}

/** A new key for an existing issuer or partner: the answer is the only time its key and secret are seen. */
export async function createApiKey(d1: D1Database, owner: KeyOwner, kind: KeyKind) {
  const db = database(d1);
  const found =
    owner.ownerType === "company"
      ? await db.query.companies.findFirst({ where: eq(companies.id, owner.ownerId) })
      : await db.query.partners.findFirst({ where: eq(partners.id, owner.ownerId) });
  if (!found)
    throw new ApiProblem("not_found", {
      detail: `No ${owner.ownerType} with id ${owner.ownerId}.`,
      errors: [{ path: "/ownerId", code: "not_found", message: "Unknown owner." }],
    });
  const material = await generateKeyMaterial(kind);
  await db.insert(apiKeys).values({
    id: material.id,
    kind,
    keyHash: material.keyHash,
    secretHash: material.secretHash,
    ...owner,
  });
  return {
    id: material.id,
    kind,
    ...owner,
    apiKey: material.apiKey,
    apiSecret: material.apiSecret,
    note: "Store the key and secret now: they are never shown again.",
  };
}

/** Keys (every one, or one owner's) oldest first, without their hashes. */
export async function listApiKeys(d1: D1Database, owner?: Partial<KeyOwner>) {
  const where = owner?.ownerId
    ? and(eq(apiKeys.ownerId, owner.ownerId), owner.ownerType ? eq(apiKeys.ownerType, owner.ownerType) : undefined)
    : undefined;
  const rows = await database(d1).query.apiKeys.findMany({ where, orderBy: apiKeys.createdAt });
  return rows.map(({ keyHash: _k, secretHash: _s, ...rest }) => rest);
}

/** A key by id, only if `owner` (when named) owns it: another owner's key is as unknown as a missing one. */
async function ownedKey(d1: D1Database, id: string, owner?: KeyOwner) {
  const key = await database(d1).query.apiKeys.findFirst({ where: eq(apiKeys.id, id) });
  if (!key || (owner && (key.ownerType !== owner.ownerType || key.ownerId !== owner.ownerId)))
    throw new ApiProblem("not_found", { detail: `No key with id ${id}.` });
  return key;
}

/**
 * Revokes a key (its tokens are refused within a second: other isolates reuse a lookup that long);
 * revoking a revoked key answers its first revocation time.
 */
export async function revokeApiKey(d1: D1Database, id: string, owner?: KeyOwner, now = new Date()) {
  const key = await ownedKey(d1, id, owner);
  const revokedAt = key.revokedAt ?? now.toISOString();
  await database(d1)
    .update(apiKeys)
    .set({ revokedAt })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)));
  forgetKeyLookups();
  return { id, revokedAt };
}

/** A new key of the same kind for the same owner, and the old one revoked. */
export async function rotateApiKey(d1: D1Database, id: string) {
  const key = await ownedKey(d1, id);
  const created = await createApiKey(d1, { ownerType: key.ownerType, ownerId: key.ownerId }, key.kind);
  await revokeApiKey(d1, id);
  return created;
}
