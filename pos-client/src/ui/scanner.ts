// The scanner's keys as their own stream. Whatever has the focus (the product search, a product
// tile, the charge button, a quantity, the RNC, a payment field), a burst of keys that ends in the
// scanner's suffix is a scan (scanner/bursts.ts tells it from typing): its characters are taken
// back out of every field they fell into (the focus may move during a burst, when the cart redraws
// under it), its suffix never reaches the page (no click, no change, no second charge), and the
// code goes to the one who asked, in the order scanned. Keys typed at a person's pace are left alone.
import { type BurstOptions, BurstDetector } from "../scanner/bursts.ts";

export interface ScannerOptions extends Partial<BurstOptions> {
  /** Whether a burst that began on `target` is a scan to take over (not on the shift's PIN form, say). */
  wanted?: (target: EventTarget | null) => boolean;
}

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

const field = (t: EventTarget | null): Field | undefined =>
  t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement ? t : undefined;

/**
 * Follows keydowns (in the capture phase, before the page sees them) and reports scans. Returns
 * true for the suffix that ended a scan: the caller has nothing more to do with that event.
 */
export class ScanDetector {
  private readonly bursts: BurstDetector;
  private readonly wanted: (target: EventTarget | null) => boolean;
  /** Where the current burst began. */
  private target: EventTarget | null = null;
  /** Each field the burst's characters reached, with its value before the first of them. */
  private readonly touched = new Map<Field, string>();

  constructor(
    private readonly onScan: (code: string) => void,
    options: ScannerOptions = {},
  ) {
    const { wanted, ...timing } = options;
    this.bursts = new BurstDetector(timing);
    this.wanted = wanted ?? (() => true);
  }

  keydown(e: KeyboardEvent): boolean {
    const verdict = this.bursts.key({ key: e.key, time: e.timeStamp, modified: e.ctrlKey || e.metaKey || e.altKey });
    if (verdict.kind === "starts") {
      this.target = e.target;
      this.touched.clear();
      this.note(e.target);
    }
    if (verdict.kind !== "scan" || !this.wanted(this.target)) return false;
    e.preventDefault();
    e.stopImmediatePropagation();
    this.restore();
    this.onScan(verdict.code);
    return true;
  }

  /** A character about to change a field: noted with the field's value before the burst reached it. */
  beforeinput(e: Event): void {
    if (this.bursts.inBurst) this.note(e.target);
  }

  private note(target: EventTarget | null): void {
    const f = field(target);
    if (f && !this.touched.has(f)) this.touched.set(f, f.value);
  }

  /**
   * Takes the scan's characters back out of the fields they were typed into, then commits each as
   * leaving it would: a quantity typed before the scan ("3") counts, the scanned digits do not.
   */
  private restore(): void {
    for (const [f, before] of this.touched) {
      if (f instanceof HTMLSelectElement) {
        // A select follows its "change"; a digit may have picked an option by its first letter.
        if (f.value !== before) (f.value = before), f.dispatchEvent(new Event("change", { bubbles: true }));
        continue;
      }
      if (f.value !== before) {
        f.value = before;
        // The screen's state follows its fields through "input": tell it the field is as it was.
        f.dispatchEvent(new Event("input", { bubbles: true }));
      }
      f.dispatchEvent(new Event("change", { bubbles: true }));
    }
    this.touched.clear();
  }
}

/** Listens on the window, ahead of every other key handler, until `signal` aborts. */
export function listenForScans(
  onScan: (code: string) => void,
  signal: AbortSignal,
  options: ScannerOptions = {},
): ScanDetector {
  const detector = new ScanDetector(onScan, options);
  addEventListener("keydown", (e) => void detector.keydown(e), { capture: true, signal });
  addEventListener("beforeinput", (e) => detector.beforeinput(e), { capture: true, signal });
  return detector;
}
