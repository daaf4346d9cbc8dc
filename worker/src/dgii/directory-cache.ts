// DGII's directory answers (consultadirectorio), remembered per isolate. A listing changes rarely,
// so an entry is kept DGII_DIRECTORY_TTL_MS (10 minutes); "not listed" is kept only
// DGII_DIRECTORY_NEGATIVE_TTL_MS (30 s), so a buyer DGII has just added is a receiver almost at once.
import type { DirectoryEntry } from "./directory.ts";

export interface DirectoryTtls {
  listedMs: number;
  notListedMs: number;
}

export class DirectoryCache {
  readonly #answers = new Map<string, { entry: DirectoryEntry | undefined; until: number }>();

  /** The remembered answer for `key` at `now`: `{ entry }` (possibly "not listed"), or undefined when none is fresh. */
  lookup(key: string, now: number): { entry: DirectoryEntry | undefined } | undefined {
    const cached = this.#answers.get(key);
    return cached && cached.until > now ? { entry: cached.entry } : undefined;
  }

  remember(key: string, entry: DirectoryEntry | undefined, now: number, ttls: DirectoryTtls): void {
    this.#answers.set(key, { entry, until: now + (entry ? ttls.listedMs : ttls.notListedMs) });
  }
}
