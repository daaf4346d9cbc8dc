// An API key's lookup (its revocation, its company, the events its endpoints hear), reused for a
// moment per isolate. A client sends its token on every request: a burst of them reads D1 once a
// second per key, not once per request. A change to a key, a company or a webhook endpoint made
// through this isolate forgets every lookup at once; other isolates see it within
// KEY_LOOKUP_REUSE_MS.

/** How long an isolate answers a key's lookup from what it read (ms). */
export const KEY_LOOKUP_REUSE_MS = 1000;
const REUSED_LOOKUPS = 1000;

/**
 * Lookups this isolate read, by key id, with the time each read began. Only answers are kept,
 * never a read in flight (it belongs to the request that started it).
 */
const recent = new Map<string, { readAt: number; lookup: unknown }>();
/** Counts forgetKeyLookups calls: a read that began before one may predate the change, and is not kept. */
let forgotten = 0;

/** Forgets every lookup: called after any change to a key, a company or a webhook endpoint. */
export function forgetKeyLookups(): void {
  recent.clear();
  forgotten++;
}

/** `read()`'s answer for this key, or the one read less than KEY_LOOKUP_REUSE_MS ago. */
export async function reusedKeyLookup<T>(keyId: string, read: () => Promise<T>): Promise<T> {
  const readAt = Date.now();
  const known = recent.get(keyId);
  if (known && readAt - known.readAt < KEY_LOOKUP_REUSE_MS) return known.lookup as T;
  const forgottenBefore = forgotten;
  const lookup = await read();
  if (forgotten === forgottenBefore) {
    recent.delete(keyId);
    if (recent.size >= REUSED_LOOKUPS) recent.delete(recent.keys().next().value!);
    recent.set(keyId, { readAt, lookup });
  }
  return lookup;
}
