// A barcode scanner as the page sees it: a keyboard that sends a code's keys and a suffix (Enter)
// in a burst, then the next code at once. Keys go through the Chrome DevTools Protocol's
// Input.dispatchKeyEvent, each stamped with the device's own time (`timestamp`), so the page sees
// the scanner's pace whatever this machine's load; the commands are pipelined (sent without waiting
// for each answer, in order), so nothing on the test side slows the burst down.
import type { CDPSession, Page } from "playwright-core";

const sessions = new WeakMap<Page, Promise<CDPSession>>();
const session = (page: Page) => {
  let s = sessions.get(page);
  if (!s) sessions.set(page, (s = page.context().newCDPSession(page)));
  return s;
};

interface KeyEvent {
  type: "keyDown" | "keyUp";
  key: string;
  code: string;
  text?: string;
  windowsVirtualKeyCode: number;
  timestamp: number;
}

function keyEvents(ch: string, timestamp: number): KeyEvent[] {
  const enter = ch === "\r";
  const key = enter ? "Enter" : ch;
  const code = enter ? "Enter" : /\d/.test(ch) ? `Digit${ch}` : `Key${ch.toUpperCase()}`;
  const windowsVirtualKeyCode = enter ? 13 : ch.toUpperCase().charCodeAt(0);
  return [
    { type: "keyDown", key, code, text: ch, windowsVirtualKeyCode, timestamp },
    { type: "keyUp", key, code, windowsVirtualKeyCode, timestamp },
  ];
}

/**
 * Scans `codes` one after another, each as its keys and Enter `gapMs` apart (0: no delay at all
 * between keystrokes, nor between one scan's Enter and the next scan's first key).
 */
export async function scanCodes(page: Page, codes: string[], gapMs = 0): Promise<void> {
  const cdp = await session(page);
  const start = Date.now() / 1000;
  const chars = codes.flatMap((c) => [...c, "\r"]);
  await Promise.all(
    chars
      .flatMap((ch, i) => keyEvents(ch, start + (i * gapMs) / 1000))
      .map((event) => cdp.send("Input.dispatchKeyEvent", event)),
  );
}

/** Keys typed at `gapMs` between them, without Enter: a person at the keyboard. */
export async function typeKeys(page: Page, text: string, gapMs: number): Promise<void> {
  const cdp = await session(page);
  const start = Date.now() / 1000;
  await Promise.all(
    [...text]
      .flatMap((ch, i) => keyEvents(ch, start + (i * gapMs) / 1000))
      .map((event) => cdp.send("Input.dispatchKeyEvent", event)),
  );
}

/** The cart on screen as [product, quantity shown] rows. */
export const cartRows = (page: Page) =>
  page.$$eval("#cart tbody tr", (rows) =>
    rows.map((r) => [r.querySelector("td")!.textContent, r.querySelector<HTMLInputElement>("input.qty")!.value]),
  );

/** Waits until the cart on screen is exactly `expected`; a failure shows the cart as it was. */
export async function waitForCart(page: Page, expected: string[][], timeout = 30_000): Promise<void> {
  try {
    await page.waitForFunction(
      (want) =>
        JSON.stringify(
          [...document.querySelectorAll("#cart tbody tr")].map((r) => [
            r.querySelector("td")!.textContent,
            r.querySelector<HTMLInputElement>("input.qty")!.value,
          ]),
        ) === want,
      JSON.stringify(expected),
      { timeout, polling: 50 },
    );
  } catch (error) {
    throw new Error(
      `cart is ${JSON.stringify(await cartRows(page))}, expected ${JSON.stringify(expected)}: ${String(error)}`,
    );
  }
}

/** Empties the cart with its own buttons (one "Quitar" per line). */
export async function emptyCart(page: Page): Promise<void> {
  for (;;) {
    const remove = await page.$('#cart button[aria-label^="Quitar"]');
    if (!remove) return;
    await remove.click();
  }
}
