// e-NCF numbering on the device: numbers come only from blocks the server leased to this device,
// are taken strictly forward, and a block is refilled when the type's stock falls to half a block.
import { formatENcf } from "@ecf/shared/ids";
import { DEFAULT_LEASE_SIZE } from "@ecf/shared/pos-device";
import type { TipoeCF } from "@ecf/shared/tipos";
import type { LocalLease, PosDatabase } from "./db.ts";

export interface TakenNumber {
  encf: string;
  number: number;
  /** FechaVencimientoSecuencia of the block, yyyy-MM-dd. */
  expiresOn: string;
}

export class NoNumbersError extends Error {
  override name = "NoNumbersError";
}

/** Adds a block the server leased. A block overlapping any number this device ever held is refused. */
export async function addLease(db: PosDatabase, lease: Omit<LocalLease, "id" | "next">): Promise<void> {
  await db.transaction("rw", db.leases, async () => {
    const same = await db.leases
      .where("[tipoeCF+rangeFrom]")
      .between([lease.tipoeCF, 0], [lease.tipoeCF, Infinity])
      .toArray();
    if (same.some((l) => l.rangeFrom === lease.rangeFrom && l.rangeTo === lease.rangeTo)) return; // the same block again (pairing retried)
    if (same.some((l) => lease.rangeFrom <= l.rangeTo && l.rangeFrom <= lease.rangeTo)) {
      throw new Error(
        `Lease ${lease.tipoeCF} ${lease.rangeFrom}-${lease.rangeTo} overlaps a block this device already held`,
      );
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
export async function needsRefill(
  db: PosDatabase,
  tipoeCF: string,
  today: string,
  blockSize = DEFAULT_LEASE_SIZE,
): Promise<boolean> {
  return (await remaining(db, tipoeCF, today)) <= blockSize / 2;
}

/**
 * Takes the next number of a type, oldest block first, in one read-write transaction: two tabs
 * never get the same number and a number once taken is never handed out again, even if the
 * sale is abandoned (an unused number is voided with an ANECF, never reused).
 */
export async function takeNumber(
  db: PosDatabase,
  tipoeCF: string,
  today: string,
  now = new Date(),
): Promise<TakenNumber> {
  return db.transaction("rw", db.leases, db.settings, async () => {
    const blocks = await db.leases.where("[tipoeCF+rangeFrom]").between([tipoeCF, 0], [tipoeCF, Infinity]).toArray();
    const block = blocks.find((l) => l.next <= l.rangeTo && l.expiresOn >= today);
    if (!block)
      throw new NoNumbersError(
        `No quedan números e-NCF tipo ${tipoeCF} en este dispositivo; conéctese para recibir más.`,
      );
    const number = block.next;
    await db.leases.update(block.id!, { next: number + 1 });
    const encf = formatENcf(tipoeCF as TipoeCF, number);
    // In flight until its sale is recorded (or it is given up): a tab that dies in between leaves
    // it here, and recoverLostNumbers hands it over for voiding.
    const taken = (await db.setting<Record<string, string>>(TAKEN_ENCF)) ?? {};
    await db.setSetting(TAKEN_ENCF, { ...taken, [encf]: now.toISOString() });
    return { encf, number, expiresOn: block.expiresOn };
  });
}

/**
 * The number `takeNumber` would hand out next, without taking it: a sale is checked against it
 * before a number is spent, so that a refused sale leaves no gap in the sequence.
 */
export async function peekNumber(
  db: PosDatabase,
  tipoeCF: string,
  today: string,
): Promise<Omit<TakenNumber, "number"> | undefined> {
  const blocks = await db.leases.where("[tipoeCF+rangeFrom]").between([tipoeCF, 0], [tipoeCF, Infinity]).toArray();
  const block = blocks.find((l) => l.next <= l.rangeTo && l.expiresOn >= today);
  return block && { encf: formatENcf(tipoeCF as TipoeCF, block.next), expiresOn: block.expiresOn };
}

/** Numbers taken and not yet recorded with a sale: e-NCF → when taken (ISO). */
export const TAKEN_ENCF = "taken-encf";
/** Numbers taken and never used by a receipt, to be voided (ANECF), never reused. */
export const UNUSED_ENCF = "unused-encf";
/** Signing and recording take milliseconds; a number in flight longer than this was lost. */
export const LOST_AFTER_MS = 5 * 60_000;

/** A taken number will not be used (its issuance failed): remembered for voiding. */
export async function giveUpNumber(db: PosDatabase, encf: string): Promise<void> {
  await db.transaction("rw", db.settings, async () => {
    const { [encf]: _, ...taken } = (await db.setting<Record<string, string>>(TAKEN_ENCF)) ?? {};
    const unused = (await db.setting<string[]>(UNUSED_ENCF)) ?? [];
    await db.setSetting(TAKEN_ENCF, taken);
    if (!unused.includes(encf)) await db.setSetting(UNUSED_ENCF, [...unused, encf]);
  });
}

/**
 * Numbers taken so long ago that the tab that took them must have died before recording the
 * sale: remembered as unused for voiding. A number whose sale exists after all is just cleared.
 */
export async function recoverLostNumbers(
  db: PosDatabase,
  now = new Date(),
  lostAfterMs = LOST_AFTER_MS,
): Promise<string[]> {
  return db.transaction("rw", db.settings, db.sales, async () => {
    const taken = (await db.setting<Record<string, string>>(TAKEN_ENCF)) ?? {};
    const stale = Object.entries(taken)
      .filter(([, at]) => now.getTime() - Date.parse(at) >= lostAfterMs)
      .map(([encf]) => encf);
    if (!stale.length) return [];
    const used = new Set((await db.sales.where("encf").anyOf(stale).toArray()).map((s) => s.encf));
    const lost = stale.filter((encf) => !used.has(encf));
    const unused = (await db.setting<string[]>(UNUSED_ENCF)) ?? [];
    await db.setSetting(UNUSED_ENCF, [...unused, ...lost.filter((e) => !unused.includes(e))]);
    await db.setSetting(
      TAKEN_ENCF,
      Object.fromEntries(Object.entries(taken).filter(([encf]) => !stale.includes(encf))),
    );
    return lost;
  });
}

/** The largest block the server leases at once (worker MAX_LEASE_SIZE). */
export const MAX_LEASE_SIZE = 1000;
/** Blocks asked for per type in one round: a till far below its need catches up over a few rounds. */
const BLOCKS_PER_ROUND = 3;

/**
 * Asks the server for blocks of every type whose stock is at or below what the till needs
 * (`needed`: half a block by default; the till's own sales rate for a day offline, see
 * offline-capacity.ts), blocks as large as that need. Failures wait for the next try.
 */
export async function refillLeases<Tipo extends string>(
  db: PosDatabase,
  tipos: readonly Tipo[],
  lease: (tipoeCF: Tipo, size: number) => Promise<Omit<LocalLease, "id" | "next">>,
  today: string,
  needed: (tipoeCF: Tipo) => Promise<number> = async () => DEFAULT_LEASE_SIZE / 2,
): Promise<void> {
  for (const tipo of tipos) {
    const need = Math.max(DEFAULT_LEASE_SIZE / 2, await needed(tipo));
    const size = Math.min(MAX_LEASE_SIZE, Math.max(DEFAULT_LEASE_SIZE, need));
    for (let i = 0; i < BLOCKS_PER_ROUND && (await remaining(db, tipo, today)) <= need; i++)
      await addLease(db, await lease(tipo, size));
  }
}
