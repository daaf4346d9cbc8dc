// A cashier's PIN checked in Chromium with the till's code: a scrypt hash the worker's code made
// (the same @ecf/shared/pin-kdf) matches the right PIN only, and equals what Node's own scrypt
// (OpenSSL, another implementation) derives; a PBKDF2 hash of before still matches. Prints what one
// check costs on this machine's Chromium: the cost of one guess in an offline search (docs/security.md).
import { execFileSync } from "node:child_process";
import { scryptSync } from "node:crypto";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPin, PIN_SCRYPT, type PinHash } from "@ecf/shared/pin-kdf";
import { servePage, type ServedPage } from "./support/serve-bundle.ts";
import type { PinPageResult } from "./support/pin-page.ts";

execFileSync("node", [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

let browser: Browser;
let page: ServedPage;

beforeAll(async () => {
  page = await servePage(fileURLToPath(new URL("./support/pin-page.ts", import.meta.url)));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
});

afterAll(async () => {
  await browser?.close();
  await page?.close();
});

async function checkInChromium(stored: PinHash, pin: string, wrong: string, runs: number): Promise<PinPageResult> {
  const tab = await browser.newPage();
  try {
    await tab.goto(page.url);
    await tab.waitForFunction(() => typeof (globalThis as { checkPins?: unknown }).checkPins === "function");
    return await tab.evaluate(
      ([s, p, w, n]) =>
        (
          globalThis as unknown as {
            checkPins: (a: PinHash, b: string, c: string, d: number) => Promise<PinPageResult>;
          }
        ).checkPins(s, p, w, n),
      [stored, pin, wrong, runs] as const,
    );
  } finally {
    await tab.close();
  }
}

describe("cashier PINs on a till (Chromium)", () => {
  it("a scrypt hash at today's cost: the right PIN only, the bits Node's scrypt derives; the cost of a guess", async () => {
    const stored = await hashPin("246813");
    expect(stored).toMatchObject({ algorithm: "scrypt", ...PIN_SCRYPT });
    const node = scryptSync("246813", Buffer.from(stored.salt, "base64"), 32, {
      N: stored.N,
      r: stored.r,
      p: stored.p,
      maxmem: 64 * 1024 * 1024,
    });
    expect(node.toString("base64")).toBe(stored.hash);

    const result = await checkInChromium(stored, "246813", "246814", 3);
    expect(result.userAgent).toMatch(/Chrome/);
    expect(result).toMatchObject({ right: true, wrong: false });
    const best = Math.min(...result.ms);
    const days = ((best / 1000) * 1e6) / 86_400;
    console.log(
      `PIN check in Chromium (scrypt N=${stored.N} r=${stored.r} p=${stored.p}, ${(128 * stored.N * stored.r) / 2 ** 20} MiB): ` +
        `${result.ms.map((ms) => ms.toFixed(0)).join(", ")} ms; best ${best.toFixed(0)} ms per guess, ` +
        `10^6 six-digit PINs = ${days.toFixed(1)} days on one such core`,
    );
  }, 120_000);

  it("a PBKDF2 hash of before (100k) still matches the right PIN only", async () => {
    const salt = crypto.getRandomValues(new Uint8Array(16));
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("135790"), "PBKDF2", false, [
      "deriveBits",
    ]);
    const bits = await crypto.subtle.deriveBits(
      { name: "PBKDF2", hash: "SHA-256", salt, iterations: 100_000 },
      key,
      256,
    );
    const stored: PinHash = {
      algorithm: "PBKDF2-SHA256",
      iterations: 100_000,
      salt: Buffer.from(salt).toString("base64"),
      hash: Buffer.from(bits).toString("base64"),
    };
    expect(await checkInChromium(stored, "135790", "135791", 1)).toMatchObject({ right: true, wrong: false });
  }, 120_000);
});
