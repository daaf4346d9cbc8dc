// No till can lease a whole range: each lease takes at most the company's share of the numbers
// left (25 % by default), a till takes at most so many leases of a type a day, and the range's last
// numbers stay the API's. A range that runs low shows in GET /company/me and sends range.low.
import { describe, expect, it } from "vitest";
import { admin, authed, companyWithToken } from "./support/accounts.ts";
import { call, postJson } from "./support/http.ts";
import { drMonth } from "@ecf/shared";
import { allocate, issuerSql, monthSql } from "./support/ledger.ts";
import { browse, consoleUser, d1 } from "./support/console.ts";

type Lease = { tipoeCF: string; rangeFrom: number; rangeTo: number };
const size = (l: Lease) => l.rangeTo - l.rangeFrom + 1;

/** A company without a certificate (a till pairs, leases, and signs nothing here) and a paired till. */
async function tillOn(rangeTo: number) {
  const { company, token } = await companyWithToken();
  await admin("PUT", `/admin/companies/${company.id}/sequences/32`, { rangeFrom: 1, rangeTo, expiresOn: "2099-12-31" });
  const created = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
    name: "Caja 1",
  });
  // No publicKey: the till gets its token and leases, and no key (the company has none anyway).
  const res = await postJson("/devices/pair", { pairingCode: created.pairingCode });
  return { company, token, res };
}

const lease = (deviceToken: string, n: number) =>
  postJson("/devices/leases", { tipoeCF: "32", size: n }, authed(deviceToken));
const codeOf = async (res: Response) => ((await res.json()) as { errors: { code: string }[] }).errors[0]?.code;

describe("a till's lease limits", () => {
  it("are the owner's setting: an owner lowers them, a manager cannot, and the next lease obeys", async () => {
    const { company, res } = await tillOn(100_000);
    const { token: till } = (await res.json()) as { token: string };
    const owner = await consoleUser(company.id, "owner");
    const manager = await consoleUser(company.id, "manager");
    expect(await (await browse(manager, "/devices/lease-limits")).json()).toEqual({ sharePercent: 25, perDay: 20 });
    const refused = await browse(manager, "/devices/lease-limits", { method: "PATCH", body: { perDay: 500 } });
    expect(refused.status).toBe(403);
    const changed = await browse(owner, "/devices/lease-limits", { method: "PATCH", body: { perDay: 2 } });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({ sharePercent: 25, perDay: 2 });
    expect((await browse(owner, "/devices/lease-limits", { method: "PATCH", body: { sharePercent: 90 } })).status).toBe(
      400,
    );
    // The pairing's lease and one more; the third of the day is refused.
    expect((await lease(till, 10)).status).toBe(201);
    expect(await codeOf(await lease(till, 10))).toBe("lease_cap_reached");
  });

  it("three 1,000-number leases on a 2,500-number range leave the API numbers to issue", async () => {
    const { company, token, res } = await tillOn(2500);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string; leases: Lease[] };
    expect(body.leases.map(size)).toEqual([200]);
    let remaining = 2500 - 200;
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const got = await lease(body.token, 1000);
      expect(got.status).toBe(201);
      const l = (await got.json()) as Lease;
      expect(size(l)).toBeLessThanOrEqual(Math.floor((remaining * 25) / 100));
      sizes.push(size(l));
      remaining -= size(l);
    }
    expect(sizes.every((s) => s < 1000)).toBe(true);
    expect(remaining).toBeGreaterThan(500);
    // The API still numbers.
    expect((await allocate(company.id, "32")).number).toBeGreaterThan(0);
    const seqs = (await (await call("/company/sequences", { headers: authed(token) })).json()) as {
      sequences: { tipoeCF: string; remaining: number }[];
    };
    expect(seqs.sequences.find((s) => s.tipoeCF === "32")!.remaining).toBe(remaining - 1);
  });

  it("no till leases past the day's count, nor the range's last numbers", async () => {
    const { company } = await tillOn(100_000);
    await d1("UPDATE companies SET device_leases_per_day = 3 WHERE id = ?", company.id);
    const created = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
      name: "Caja 3",
    });
    const { token } = (await (await postJson("/devices/pair", { pairingCode: created.pairingCode })).json()) as {
      token: string;
    };
    // The pairing took the first lease of the day; two more, then the cap.
    expect((await lease(token, 10)).status).toBe(201);
    expect((await lease(token, 10)).status).toBe(201);
    const capped = await lease(token, 10);
    expect(capped.status).toBe(422);
    expect(await codeOf(capped)).toBe("lease_cap_reached");

    // A small range: each lease a quarter of what is left, until only the API's last numbers remain.
    const small = await tillOn(12);
    const pairedSmall = (await small.res.json()) as { token: string; leases: Lease[] };
    expect(pairedSmall.leases.map(size)).toEqual([3]);
    const sizes: number[] = [];
    for (;;) {
      const got = await lease(pairedSmall.token, 200);
      if (got.status !== 201) {
        expect(await codeOf(got)).toBe("lease_share_reached");
        break;
      }
      sizes.push(size((await got.json()) as Lease));
    }
    // 12 → 3 leased (9 left) → 2 (7) → 1 (6) → 1 (5) → 1 (4) → 1 (3): 3 × 25 % rounds to nothing.
    expect(sizes).toEqual([2, 1, 1, 1, 1]);
    expect((await allocate(small.company.id, "32")).number).toBe(10);
  });

  it("a range that runs low is a warning of GET /company/me, and range.low is sent once", async () => {
    const { company, token } = await tillOn(400);
    const me = (await (await call("/company/me", { headers: authed(token) })).json()) as {
      warnings: { code: string }[];
    };
    expect(me.warnings.map((w) => w.code)).not.toContain("range_low");
    // The API issued most of the range meanwhile: 36 of 400 numbers are left.
    await issuerSql(company.id, "UPDATE sequences SET next_number = 365 WHERE tipo_ecf = '32'");
    const created = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
      name: "Caja 4",
    });
    expect((await postJson("/devices/pair", { pairingCode: created.pairingCode })).status).toBe(200);
    const low = (await (await call("/company/me", { headers: authed(token) })).json()) as {
      warnings: { code: string }[];
    };
    expect(low.warnings.map((w) => w.code)).toContain("range_low");
    // Another lease, still low: the notice is not repeated.
    const created2 = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
      name: "Caja 5",
    });
    expect((await postJson("/devices/pair", { pairingCode: created2.pairingCode })).status).toBe(200);
    const events = await monthSql(
      company.id,
      drMonth(new Date()),
      "SELECT payload FROM tasks WHERE kind = 'event' AND payload LIKE '%range.low%'",
    );
    expect(events).toHaveLength(1);
  });
});
