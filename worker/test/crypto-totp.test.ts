// TOTP as RFC 6238 defines it: its Appendix B test vectors (SHA1, the ASCII secret
// "12345678901234567890"), RFC 4648's base32, the ±1 step window and the no-replay rule.
import { describe, expect, it } from "vitest";
import { base32Decode, base32Encode, matchingStep, otpauthUri, timeStep, totpCode } from "../src/crypto/totp.ts";

const RFC_SECRET = new TextEncoder().encode("12345678901234567890");
/** RFC 6238 Appendix B, the SHA1 column: Unix time in seconds → the 8-digit TOTP. */
const VECTORS: [number, string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];
const at = (seconds: number) => new Date(seconds * 1000);

describe("TOTP (RFC 6238, HMAC-SHA1)", () => {
  it("gives the published 8-digit values, and their last 6 digits in 6-digit mode", async () => {
    for (const [seconds, expected] of VECTORS) {
      expect(await totpCode(RFC_SECRET, timeStep(at(seconds)), 8), String(seconds)).toBe(expected);
      expect(await totpCode(RFC_SECRET, timeStep(at(seconds))), String(seconds)).toBe(expected.slice(2));
    }
  });

  it("encodes and decodes base32 as RFC 4648 does (no padding)", () => {
    const bytes = new TextEncoder().encode("foobar");
    expect(base32Encode(bytes)).toBe("MZXW6YTBOI");
    expect(base32Encode(RFC_SECRET)).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    expect(base32Decode("gezd gnbv-gy3t qojq gezd gnbv gy3t qojq")).toEqual(RFC_SECRET);
    expect(base32Decode("MZXW6YTBOI======")).toEqual(bytes);
    expect(base32Decode("not base32!")).toBeNull();
    const random = crypto.getRandomValues(new Uint8Array(20));
    expect(base32Decode(base32Encode(random))).toEqual(random);
  });

  it("accepts the code of the step before, the current one and the next, nothing further", async () => {
    const now = at(1111111111);
    const step = timeStep(now);
    for (const offset of [-1, 0, 1])
      expect(await matchingStep(RFC_SECRET, await totpCode(RFC_SECRET, step + offset), now, null)).toBe(step + offset);
    for (const offset of [-3, -2, 2, 3])
      expect(await matchingStep(RFC_SECRET, await totpCode(RFC_SECRET, step + offset), now, null)).toBeNull();
    // As an app shows it, with a space in the middle.
    const shown = await totpCode(RFC_SECRET, step);
    expect(await matchingStep(RFC_SECRET, `${shown.slice(0, 3)} ${shown.slice(3)}`, now, null)).toBe(step);
    expect(await matchingStep(RFC_SECRET, "12345", now, null)).toBeNull();
    expect(await matchingStep(RFC_SECRET, "abcdef", now, null)).toBeNull();
  });

  it("never accepts a code of a step at or before the last one used", async () => {
    const now = at(1234567890);
    const step = timeStep(now);
    const code = await totpCode(RFC_SECRET, step);
    expect(await matchingStep(RFC_SECRET, code, now, step - 1)).toBe(step);
    expect(await matchingStep(RFC_SECRET, code, now, step)).toBeNull();
    expect(await matchingStep(RFC_SECRET, await totpCode(RFC_SECRET, step - 1), now, step)).toBeNull();
    expect(await matchingStep(RFC_SECRET, await totpCode(RFC_SECRET, step + 1), now, step)).toBe(step + 1);
  });

  it("writes the otpauth URI authenticator apps read", () => {
    expect(otpauthUri("GEZDGNBVGY3TQOJQ", "dueno@demo.do")).toBe(
      "otpauth://totp/ecf-edge:dueno%40demo.do?secret=GEZDGNBVGY3TQOJQ&issuer=ecf-edge&algorithm=SHA1&digits=6&period=30",
    );
  });
});
