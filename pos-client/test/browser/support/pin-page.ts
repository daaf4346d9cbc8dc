// Page entry bundled for Chromium: checks a PIN against its stored hash with the till's own code
// (shift/pin.ts), timing each check, as a cashier's sign-in does it offline.
import type { PinHash } from "@ecf/shared/pin-kdf";
import { pinMatches } from "../../../src/shift/pin.ts";

export interface PinPageResult {
  userAgent: string;
  right: boolean;
  wrong: boolean;
  /** Milliseconds per check, one per run. */
  ms: number[];
}

async function checkPins(stored: PinHash, pin: string, wrongPin: string, runs: number): Promise<PinPageResult> {
  const cashier = { id: "c", name: "Cajera", active: true, version: 1, pin: stored };
  const ms: number[] = [];
  let right = true;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    right = (await pinMatches(cashier, pin)) && right;
    ms.push(performance.now() - started);
  }
  return { userAgent: navigator.userAgent, right, wrong: await pinMatches(cashier, wrongPin), ms };
}

(globalThis as unknown as { checkPins: typeof checkPins }).checkPins = checkPins;
