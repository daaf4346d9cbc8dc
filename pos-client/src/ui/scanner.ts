// A barcode scanner is a keyboard that types fast and presses Enter. Whatever has the focus (a
// product tile, the charge button, a quantity, the RNC, a payment field), a burst of keys that
// ends in Enter is a scan: its characters are taken back out of the field they fell into, its
// Enter never reaches the page (no click, no change, no second charge), and the code goes to the
// one who asked (the product search). Keys typed at a human pace are left alone.

export interface ScannerOptions {
  /** The longest pause between two keys of one scan (scanners send a key every 1-20 ms). */
  maxGapMs?: number;
  /** The shortest code taken as a scan: barcodes have 8 digits or more, product codes 4 or more. */
  minLength?: number;
  /**
   * Whether a burst that began on `target` is a scan to take over: not on another screen than the
   * sale, nor in the product search itself, whose own Enter already adds the code it holds.
   */
  wanted?: (target: EventTarget | null) => boolean;
}

export const SCANNER_DEFAULTS: Required<ScannerOptions> = { maxGapMs: 50, minLength: 4, wanted: () => true };

type Editable = HTMLInputElement | HTMLTextAreaElement;

/** Where a burst began: the field it fell into and its value before the first key. */
interface Burst {
  keys: string[];
  target: EventTarget | null;
  last: number;
  field?: Editable;
  valueBefore?: string;
}

const editable = (t: EventTarget | null): Editable | undefined =>
  t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement ? t : undefined;

/**
 * Follows keydowns (in the capture phase, before the page sees them) and reports scans. Returns
 * true for the Enter that ended a scan: the caller has nothing more to do with that event.
 */
export class ScanDetector {
  private burst: Burst | undefined;
  private readonly options: Required<ScannerOptions>;

  constructor(
    private readonly onScan: (code: string) => void,
    options: ScannerOptions = {},
  ) {
    this.options = { ...SCANNER_DEFAULTS, ...options };
  }

  keydown(e: KeyboardEvent): boolean {
    if (e.ctrlKey || e.metaKey || e.altKey) {
      this.burst = undefined;
      return false;
    }
    // Scanners hold Shift for capitals: it neither adds to nor ends a burst.
    if (e.key === "Shift") return false;
    const now = e.timeStamp;
    const continues = this.burst !== undefined && now - this.burst.last <= this.options.maxGapMs;
    if (e.key.length === 1) {
      if (!continues) {
        const field = editable(e.target);
        this.burst = { keys: [], target: e.target, last: now, field, valueBefore: field?.value };
      }
      this.burst!.keys.push(e.key);
      this.burst!.last = now;
      return false;
    }
    const burst = continues ? this.burst : undefined;
    this.burst = undefined;
    if (e.key !== "Enter" || !burst || burst.keys.length < this.options.minLength || !this.options.wanted(burst.target))
      return false;
    e.preventDefault();
    e.stopImmediatePropagation();
    restore(burst);
    this.onScan(burst.keys.join(""));
    return true;
  }
}

/**
 * Takes a scan's characters back out of the field they were typed into, then commits the field as
 * leaving it would: a quantity typed before the scan ("3") counts, the scanned digits do not.
 */
function restore(burst: Burst): void {
  const { field, valueBefore } = burst;
  if (!field || valueBefore === undefined) return;
  if (field.value !== valueBefore) {
    field.value = valueBefore;
    // The screen's state follows its fields through "input": tell it the field is as it was.
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }
  field.dispatchEvent(new Event("change", { bubbles: true }));
}

/** Listens on the window, ahead of every other key handler, until `signal` aborts. */
export function listenForScans(
  onScan: (code: string) => void,
  signal: AbortSignal,
  options: ScannerOptions = {},
): ScanDetector {
  const detector = new ScanDetector(onScan, options);
  addEventListener("keydown", (e) => void detector.keydown(e), { capture: true, signal });
  return detector;
}
