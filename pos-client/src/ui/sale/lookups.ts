// What Enter and the scanner asked for, looked up in the order asked. The queue belongs to the
// sale, not to one drawing of its screen: the app may redraw the sale screen while a lookup is
// still running (a tab switch, a pull that changed the cashiers), and that lookup then reports to
// the screen on display, so the cart on screen always shows the cart's data.

export interface Lookups<Screen> {
  /** The screen now on display: every lookup that finishes from now on reports to it. */
  shownOn(screen: Screen): void;
  /** Runs `lookup` after every earlier one, then hands what it found to the screen on display. */
  inTurn(lookup: () => Promise<(screen: Screen) => void>): void;
  /** Resolves once every lookup asked for so far has reported. */
  settled(): Promise<void>;
}

export function lookupQueue<Screen>(): Lookups<Screen> {
  let last = Promise.resolve();
  let shown: Screen | undefined;
  return {
    shownOn: (screen) => {
      shown = screen;
    },
    inTurn: (lookup) => {
      const step = async () => {
        const report = await lookup();
        if (shown) report(shown);
      };
      last = last.then(step, step);
    },
    settled: () => last,
  };
}
