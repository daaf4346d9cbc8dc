// A barcode scanner is a keyboard: it sends a code's characters a few milliseconds apart and a
// suffix key (Enter, or Tab on scanners set up that way), then the next code at once. A person
// never types four characters and Enter at that pace. This is the pure core that tells the two
// apart, key by key, from each key's own time stamp (the event's, not the clock's when it is
// handled): it holds no DOM and no clock, so it can be tested with any timing.

export interface BurstOptions {
  /** The longest pause between two keys of one scan (scanners send a key every 0-20 ms). */
  maxGapMs: number;
  /** The shortest code taken as a scan: barcodes have 8 digits or more, product codes 4 or more. */
  minLength: number;
  /** The keys a scanner ends a code with. */
  suffixes: readonly string[];
}

export const BURST_DEFAULTS: BurstOptions = { maxGapMs: 50, minLength: 4, suffixes: ["Enter", "Tab"] };

/** A key as the detector needs it: `key` as KeyboardEvent spells it, `time` in milliseconds. */
export interface BurstKey {
  key: string;
  time: number;
  /** Ctrl, Alt or Meta held: a shortcut, never part of a scan. */
  modified?: boolean;
}

/**
 * What a key is: `starts` a character that may begin a scan (what it falls into may have to be
 * put back), `continues` the next character of one, `scan` the suffix ending one (`code` is what
 * was scanned), `other` anything else (typing, a shortcut, a suffix after a person's keys).
 */
export type BurstVerdict =
  | { kind: "starts" }
  | { kind: "continues" }
  | { kind: "scan"; code: string }
  | { kind: "other" };

export class BurstDetector {
  private chars: string[] = [];
  private last = Number.NEGATIVE_INFINITY;
  private readonly options: BurstOptions;

  constructor(options: Partial<BurstOptions> = {}) {
    this.options = { ...BURST_DEFAULTS, ...options };
  }

  /** Whether characters of a possible scan are being received. */
  get inBurst(): boolean {
    return this.chars.length > 0;
  }

  key({ key, time, modified }: BurstKey): BurstVerdict {
    // Scanners hold Shift for capitals: it neither adds to nor ends a burst.
    if (key === "Shift") return this.inBurst ? { kind: "continues" } : { kind: "other" };
    const inTime = this.inBurst && time - this.last <= this.options.maxGapMs;
    if (modified) return this.drop();
    if (key.length === 1) {
      const starts = !inTime;
      if (starts) this.chars = [];
      this.chars.push(key);
      this.last = time;
      return { kind: starts ? "starts" : "continues" };
    }
    const code = this.chars.join("");
    this.drop();
    if (inTime && this.options.suffixes.includes(key) && code.length >= this.options.minLength)
      return { kind: "scan", code };
    return { kind: "other" };
  }

  private drop(): { kind: "other" } {
    this.chars = [];
    this.last = Number.NEGATIVE_INFINITY;
    return { kind: "other" };
  }
}
