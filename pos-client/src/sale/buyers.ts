// Buyers by RNC: DGII's taxpayer registry when online (GET /devices/contribuyentes/{rnc}), and the
// buyers this till used or looked up recently, kept in IndexedDB so typing an RNC offline still
// fills the name.
import type { Taxpayer } from "../api.ts";
import type { Buyer, PosDatabase } from "../db.ts";

/** Buyers kept on the till; the least recently used go first. */
export const RECENT_BUYERS_MAX = 1_000;

/** The registry's answer for an RNC, null when it has none; throws when it cannot be asked. */
export type FindTaxpayer = (rnc: string) => Promise<Pick<Taxpayer, "legalName" | "status" | "active"> | null>;

export type BuyerLookup =
  /** A name to fill: from DGII's registry, or from the till's recent buyers (offline, or the registry unreachable). */
  | { kind: "found"; source: "registry" | "recent"; buyer: Buyer }
  /** The registry answered that it has no such RNC: the cashier types the name. */
  | { kind: "not-found" }
  /** Nothing known here and the registry could not be asked. */
  | { kind: "unknown" };

/** 9 digits (RNC) or 11 (cédula): the only forms the registry is asked about. */
export const isRegistryId = (rnc: string) => /^(\d{9}|\d{11})$/.test(rnc);

export async function recentBuyer(db: PosDatabase, rnc: string): Promise<Buyer | undefined> {
  return db.buyers.get(rnc);
}

/**
 * The buyer for an RNC. Online (`find` given) the registry is asked first, so a status that changed
 * is seen; its answer is remembered. Offline, or when the registry cannot be reached, the till's
 * recent buyers answer.
 */
export async function lookupBuyer(
  db: PosDatabase,
  rnc: string,
  find: FindTaxpayer | undefined,
  now = new Date(),
): Promise<BuyerLookup> {
  if (!isRegistryId(rnc)) return { kind: "unknown" };
  if (find) {
    try {
      const taxpayer = await find(rnc);
      if (taxpayer) {
        const buyer: Buyer = {
          rnc,
          name: taxpayer.legalName,
          status: taxpayer.status,
          active: taxpayer.active,
          usedAt: now.toISOString(),
        };
        await rememberBuyer(db, buyer);
        return { kind: "found", source: "registry", buyer };
      }
      // A buyer the cashier named before is still that name, even if the registry lacks it.
      const known = await recentBuyer(db, rnc);
      return known ? { kind: "found", source: "recent", buyer: known } : { kind: "not-found" };
    } catch {
      // The registry is unreachable: what the till knows answers.
    }
  }
  const known = await recentBuyer(db, rnc);
  return known ? { kind: "found", source: "recent", buyer: known } : { kind: "unknown" };
}

/**
 * Keeps a buyer (used on a receipt, or just looked up) and trims the list to RECENT_BUYERS_MAX. A
 * status the registry gave is kept when the same name is used again.
 */
export async function rememberBuyer(db: PosDatabase, buyer: Buyer): Promise<void> {
  await db.transaction("rw", db.buyers, async () => {
    const before = await db.buyers.get(buyer.rnc);
    const sameName = before && before.name === buyer.name;
    await db.buyers.put({
      ...(sameName && before.status !== undefined ? { status: before.status, active: before.active } : {}),
      ...buyer,
    });
    const extra = (await db.buyers.count()) - RECENT_BUYERS_MAX;
    if (extra > 0)
      await db.buyers.bulkDelete((await db.buyers.orderBy("usedAt").limit(extra).primaryKeys()) as string[]);
  });
}

/** The visible warning for a buyer the registry lists as not active ("" when there is none). */
export function inactiveWarning(buyer: Buyer): string {
  return buyer.active === false
    ? `Atención: el contribuyente está ${buyer.status ? buyer.status.toUpperCase() : "INACTIVO"} en la DGII (no activo).`
    : "";
}
