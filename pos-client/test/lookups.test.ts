// The sale's lookup queue on its own: lookups held by promises the test settles, screens as plain
// records of what they were told. A lookup still running when a new screen is shown reports to
// the new one (the screen on display shows the cart's data), and lookups report in the order asked.
import { describe, expect, it } from "vitest";
import { lookupQueue } from "../src/ui/sale/lookups.ts";

interface Screen {
  name: string;
  shown: string[];
}

const screen = (name: string): Screen => ({ name, shown: [] });

/** A lookup the test finishes when it wants, finding `product`. */
function heldLookup(product: string) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const lookup = async () => {
    await held;
    return (s: Screen) => void s.shown.push(product);
  };
  return { lookup, release };
}

describe("the sale's lookups across redraws of its screen", () => {
  it("a lookup still running when the screen is redrawn reports to the redrawn screen", async () => {
    const queue = lookupQueue<Screen>();
    const first = screen("first");
    queue.shownOn(first);
    const queso = heldLookup("Queso");
    queue.inTurn(queso.lookup);
    const redrawn = screen("redrawn");
    queue.shownOn(redrawn);
    queso.release();
    await queue.settled();
    expect(redrawn.shown).toEqual(["Queso"]);
    expect(first.shown).toEqual([]);
  });

  it("lookups report in the order asked, whichever finishes first, and a failed one does not stop the next", async () => {
    const queue = lookupQueue<Screen>();
    const on = screen("on");
    queue.shownOn(on);
    const a = heldLookup("Arroz");
    const b = heldLookup("Pan");
    queue.inTurn(a.lookup);
    queue.inTurn(async () => {
      throw new Error("IndexedDB closed");
    });
    queue.inTurn(b.lookup);
    b.release();
    a.release();
    await queue.settled();
    expect(on.shown).toEqual(["Arroz", "Pan"]);
  });
});
