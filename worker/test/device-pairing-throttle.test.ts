// The pairing code is the one unauthenticated way to a till's token and signing material, so wrong
// codes are throttled: per source address before the code is looked at, and over all sources for
// wrong codes only, so that others' guessing never refuses a till that types the right code.
import { describe, expect, it } from "vitest";
import { MAX_PAIRING_FAILURES, MAX_PAIRING_FAILURES_PER_ADDRESS } from "../src/auth/throttle.ts";
import { admin } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issuer } from "./support/issuing.ts";

const pairFrom = (pairingCode: string, address: string) =>
  call("/devices/pair", {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": address },
    body: JSON.stringify({ pairingCode }),
  });

async function newDevice(): Promise<string> {
  const { company } = await issuer();
  return (await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, { name: "Caja" }))
    .pairingCode;
}

describe("POST /devices/pair, throttled", () => {
  it("an address that sent too many wrong codes gets 429, even with the right one; another address pairs", async () => {
    const code = await newDevice();
    for (let i = 0; i < MAX_PAIRING_FAILURES_PER_ADDRESS; i++)
      expect((await pairFrom(`WXYZ-${String(2000 + i).slice(0, 4)}`, "10.40.0.1")).status).toBe(401);
    const refused = await pairFrom(code, "10.40.0.1");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { code: string }).code).toBe("too_many_requests");
    expect((await pairFrom(code, "10.40.0.2")).status).toBe(200);
  });

  it("past the cap over all sources, wrong codes get 429 from any address; a right code still pairs", async () => {
    const code = await newDevice();
    for (let i = 0; i < MAX_PAIRING_FAILURES; i++) {
      const res = await pairFrom("ABCD-EFGH", `10.41.${i >> 8}.${i & 255}`);
      expect([401, 429]).toContain(res.status);
    }
    expect((await pairFrom("ABCD-EFGH", "10.42.0.1")).status).toBe(429);
    expect((await pairFrom(code, "10.42.0.2")).status).toBe(200);
  });
});
