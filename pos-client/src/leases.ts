// e-NCF numbering on the device: numbers come only from blocks the server leased to this device,
// are taken strictly forward, and a block is refilled when the type's stock falls to half a block.
import type { LocalLease, PosDatabase } from "./db.ts";

export const LEASE_SIZE = 200;

export interface TakenNumber {
  encf: string;
  number: number;
  /** FechaVencimientoSecuencia of the block, yyyy-MM-dd. */
  expiresOn: string;
}

export class NoNumbersError extends Error {
  override name = "NoNumbersError";
}

export function formatEncf(tipoeCF: string, number: number): string {
  return `E${tipoeCF}${String(number).padStart(10, "0")}`;
}

/** Adds a block the server leased. A block overlapping any number this device ever held is refused. */
export async function addLease(db: PosDatabase, lease: Omit<LocalLease, "id" | "next">): Promise<void> {
  await db.transaction("rw", db.leases, async () => {
    const same = await db.leases.where("[tipoeCF+rangeFrom]").between([lease.tipoeCF, 0], [lease.tipoeCF, Infinity]).toArray();
    if (same.some((l) => l.rangeFrom === lease.rangeFrom && l.rangeTo === lease.rangeTo)) return; // the same block again (pairing retried)
    if (same.some((l) => lease.rangeFrom <= l.rangeTo && l.rangeFrom <= lease.rangeTo)) {
      throw new Error(`Lease ${lease.tipoeCF} ${lease.rangeFrom}-${lease.rangeTo} overlaps a block this device already held`);
    }
    await db.leases.add({ ...lease, next: lease.rangeFrom });
  });
}

/** Numbers of this type still available on the device. */
export async function remaining(db: PosDatabase, tipoeCF: string, today: string): Promise<number> {
  const blocks = await db.leases.where("[tipoeCF+rangeFrom]").between([tipoeCF, 0], [tipoeCF, Infinity]).toArray();
  return blocks.filter((l) => l.expiresOn >= today).reduce((n, l) => n + Math.max(0, l.rangeTo - l.next + 1), 0);
}

/** True when the stock of a type is at or below half a block: time to ask for the next block. */
export async function needsRefill(db: PosDatabase, tipoeCF: string, today: string, blockSize = LEASE_SIZE): Promise<boolean> {
  return (await remaining(db, tipoeCF, today)) <= blockSize / 2;
}

/**
 * Takes the next number of a type, oldest block first, in one read-write transaction: two tabs
 * never get the same number and a number once taken is never handed out again, even if the
 * sale is abandoned (an unused number is voided with an ANECF, never reused).
 */
export async function takeNumber(db: PosDatabase, tipoeCF: string, today: string): Promise<TakenNumber> {
  return db.transaction("rw", db.leases, async () => {
    const blocks = await db.leases.where("[tipoeCF+rangeFrom]").between([tipoeCF, 0], [tipoeCF, Infinity]).toArray();
    const block = blocks.find((l) => l.next <= l.rangeTo && l.expiresOn >= today);
    if (!block) throw new NoNumbersError(`No quedan números e-NCF tipo ${tipoeCF} en este dispositivo; conéctese para recibir más.`);
    const number = block.next;
    await db.leases.update(block.id!, { next: number + 1 });
    return { encf: formatEncf(tipoeCF, number), number, expiresOn: block.expiresOn };
  });
}

/** Asks the server for the next block of every type running low; failures wait for the next try. */
export async function refillLeases(
  db: PosDatabase,
  tipos: readonly string[],
  lease: (tipoeCF: string, size: number) => Promise<Omit<LocalLease, "id" | "next">>,
  today: string,
): Promise<void> {
  for (const tipo of tipos) {
    if (await needsRefill(db, tipo, today)) await addLease(db, await lease(tipo, LEASE_SIZE));
  }
}
