// 500 e-NCF allocations at once across the API and two devices' leases: every number is handed
// out once, and every number that will never be a receipt is listed for voiding.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { issuerLedger } from "../src/ledger/client.ts";
import { unwrap } from "../src/ledger/refusal.ts";
import { drIsoDate, drMonth } from "@ecf/shared";
import { admin, authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer } from "./support/issuing.ts";
import { nextNumber, numberedOf } from "./support/ledger.ts";

const numberOf = (encf: string) => Number(encf.slice(3));

describe("e-NCF allocation under concurrency", () => {
  it("500 parallel allocations (API receipts, numbers whose request died, two devices' leases): no duplicate, no unlisted gap", async () => {
    const { company, token } = await issuer();
    const devices = await Promise.all(
      ["Caja 1", "Caja 2"].map((name) =>
        admin<{ id: string }>("POST", `/admin/companies/${company.id}/devices`, { name }),
      ),
    );
    const ledger = issuerLedger(env, company.id);
    const now = new Date();
    const request = {
      tipoeCF: "32",
      month: drMonth(now),
      today: drIsoDate(now),
      quota: { month: drMonth(now), limit: 1000 },
      now: now.toISOString(),
    };

    // 100 receipts issued through the API, 300 numbers taken by requests that then died (numbered,
    // never recorded), and 2 × 50 leases of two numbers: 500 allocations, all in flight at once.
    const issued = Array.from({ length: 100 }, () => issue(token, issueRequest("32")));
    const orphans = Array.from({ length: 300 }, async () =>
      numberedOf(await unwrap(ledger.numbering().number(request))),
    );
    // The company's cap of leases a day is raised above the 50 each till takes here: this test is
    // about numbering under contention (device-lease-caps.test.ts holds the caps).
    const limits = { sharePercent: 25, perDay: 50 };
    const leases = devices.flatMap((d) =>
      Array.from({ length: 50 }, () => unwrap(ledger.leases().lease(d.id, "32", 2, request.today, limits))),
    );
    const [answers, orphaned, leased] = await Promise.all([
      Promise.all(issued),
      Promise.all(orphans),
      Promise.all(leases),
    ]);

    // Under this load some DGII calls time out: those receipts are signed in contingency (503), numbered all the same.
    expect(
      answers.filter(
        (a) =>
          !(a.status === 200 && a.body.estado === "Aceptado") &&
          !(a.status === 503 && a.body.estado === "Contingencia"),
      ),
    ).toEqual([]);
    const receiptNumbers = answers.map((a) => numberOf(a.body.encf));
    const orphanNumbers = orphaned.map((o) => o.number);
    const leasedNumbers = leased.flatMap((l) =>
      Array.from({ length: l.rangeTo - l.rangeFrom + 1 }, (_, i) => l.rangeFrom + i),
    );
    const all = [...receiptNumbers, ...orphanNumbers, ...leasedNumbers];
    expect(all).toHaveLength(100 + 300 + 200);
    expect(new Set(all).size).toBe(all.length); // no number handed out twice

    // Every number below the sequence's next one is a receipt, a lease or listed for voiding.
    const next = (await nextNumber(company.id, "32"))!;
    expect(next).toBe(all.length + 1);
    const unused = (await (await call("/company/sequences/32/unused", { headers: authed(token) })).json()) as {
      rangos: { tipoeCF: string; desde: string; hasta: string }[];
    };
    const listed = unused.rangos.flatMap((r) =>
      Array.from({ length: numberOf(r.hasta) - numberOf(r.desde) + 1 }, (_, i) => numberOf(r.desde) + i),
    );
    expect(listed.sort((a, b) => a - b)).toEqual([...orphanNumbers].sort((a, b) => a - b));
    expect(new Set([...receiptNumbers, ...leasedNumbers, ...listed]).size).toBe(next - 1);

    // The listed ranges are the body of a voiding; once DGII voided them nothing is left to list.
    for (let i = 0; i < unused.rangos.length; i += 10) {
      const voided = await call("/fe/anulacion", {
        method: "POST",
        headers: { ...authed(token), "Content-Type": "application/json" },
        body: JSON.stringify({ rangos: unused.rangos.slice(i, i + 10) }),
      });
      expect(voided.status, await voided.clone().text()).toBe(200);
    }
    const after = (await (await call("/company/sequences/32/unused", { headers: authed(token) })).json()) as {
      rangos: unknown[];
    };
    expect(after.rangos).toEqual([]);
  });
});
