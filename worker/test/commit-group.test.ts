// One issuer's ceiling lifted by group commit (issue 35, worker/src/ledger/commit-group.ts): the numberings (and
// the contingency records) that reach an object while its previous group commits run together as the next group,
// one storage commit for all, each call in a transaction of its own. Every call still answers only after its own
// writes are durable, so exactly-once is as it was: a request that dies between numbering and recording leaves
// what it left when each numbering committed alone.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drIsoDate, drMonth } from "@ecf/shared";
import { afterEach, describe, expect, it } from "vitest";
import { CommitGroup } from "../src/ledger/commit-group.ts";
import { issuerLedger } from "../src/ledger/client.ts";
import type { NumberRequest } from "../src/ledger/issuer/receipt-numbering.ts";
import { refuse } from "../src/errors/refusal.ts";
import { sha256Hex } from "@ecf/shared/sha256";
import { stableStringify } from "../src/issuing/document.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, received, setFault } from "./support/issuing.ts";
import { abandonClaims, issuerSql, monthSql, nextNumber } from "./support/ledger.ts";

afterEach(clearFaults);

function numbering(key: string | undefined, overrides: Partial<NumberRequest> = {}): NumberRequest {
  const now = new Date();
  return {
    tipoeCF: "31",
    month: drMonth(now),
    today: drIsoDate(now),
    quota: { month: drMonth(now), limit: 1000 },
    now: now.toISOString(),
    ...(key ? { idempotency: { key, requestHash: `hash-${key}` } } : {}),
    ...overrides,
  };
}

describe("a commit group in a Durable Object", () => {
  it("a lone call commits at once; the calls that arrive meanwhile commit together; a refused or failed one takes back only its writes", async () => {
    const stub = env.ISSUER_LEDGER.get(env.ISSUER_LEDGER.idFromName(`commit-group-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (_instance, state) => {
      state.storage.sql.exec("CREATE TABLE written (n INTEGER PRIMARY KEY)");
      const commits: number[][] = [];
      let group: number[] = [];
      // The object's real storage; only its commits are counted, with the calls each one carried.
      const storage = new Proxy(state.storage, {
        get(target, property) {
          if (property === "sync")
            return async () => {
              commits.push(group);
              group = [];
              await target.sync();
            };
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const commitGroup = new CommitGroup(storage, (n: number) => {
        group.push(n);
        state.storage.sql.exec("INSERT INTO written (n) VALUES (?)", n);
        if (n === 3) throw refuse("conflict", { detail: "three is refused" });
        if (n === 5) throw new Error("five failed");
        return n * 10;
      });
      const first = commitGroup.run(1);
      const rest = [2, 3, 4, 5, 6].map((n) => commitGroup.run(n).catch((e: Error) => e.message));
      expect(await first).toEqual({ value: 10 });
      expect(await Promise.all(rest)).toEqual([
        { value: 20 },
        { refused: { kind: "conflict", detail: "three is refused" } },
        { value: 40 },
        "five failed",
        { value: 60 },
      ]);
      expect(commits).toEqual([[1], [2, 3, 4, 5, 6]]);
      const written = state.storage.sql.exec("SELECT n FROM written ORDER BY n").toArray();
      expect(written.map((r) => r.n)).toEqual([1, 2, 4, 6]);
    });
  });
});

describe("group-committed numbering and contingency records", () => {
  it("requests numbered together: each in its own transaction, a refused one takes nothing, the others their numbers", async () => {
    const { company } = await issuer();
    const ledger = issuerLedger(env, company.id);
    const answers = await Promise.all([
      ledger.numbering().number(numbering("k-1")),
      ledger.numbering().number(numbering("k-2", { givenEncf: "E319999999999" })), // outside the range: refused
      ledger.numbering().number(numbering("k-3")),
      ledger.numbering().number(numbering(undefined)),
    ]);
    expect(answers[1]).toMatchObject({ refused: { kind: expect.any(String) } });
    const encfs = answers.map((a) => ("value" in a && "numbered" in a.value ? a.value.numbered.encf : null));
    expect(encfs.filter(Boolean).sort()).toEqual(["E310000000001", "E310000000002", "E310000000003"]);
    expect(encfs[1]).toBeNull();
    expect(await nextNumber(company.id, "31")).toBe(4);
    const keys = await issuerSql(company.id, "SELECT key FROM idempotency_keys ORDER BY key");
    expect(keys).toEqual([{ key: "k-1" }, { key: "k-3" }]);
  });

  it("concurrent requests with DGII down: every receipt numbered and recorded once, 1..n with no gap", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => issue(token, issueRequest("32"), { "Idempotency-Key": `c-${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(503));
    const encfs = answers.map((a) => a.body.encf as string).sort();
    expect(encfs).toEqual(Array.from({ length: 16 }, (_, k) => `E32${String(k + 1).padStart(10, "0")}`));
    const rows = await monthSql(company.id, drMonth(new Date()), "SELECT encf, status FROM receipts ORDER BY encf");
    expect(rows).toEqual(encfs.map((encf) => ({ encf, status: "contingency" })));
    expect(await nextNumber(company.id, "32")).toBe(17);
  });

  it("requests that die after their group was numbered, before recording: their keys wait, then are taken over; nothing is doubled", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("31");
    const ledger = issuerLedger(env, company.id);
    // Three numbered together and committed, claimed as the route claims; the requests died before recording.
    const requestHash = await sha256Hex(stableStringify(request));
    const claimed = (key: string) => numbering(undefined, { idempotency: { key, requestHash } });
    const group = await Promise.all(
      [claimed("d-1"), claimed("d-2"), numbering(undefined)].map((r) => ledger.numbering().number(r)),
    );
    expect(group.every((a) => "value" in a && "numbered" in a.value)).toBe(true);
    const waiting = await issue(token, request, { "Idempotency-Key": "d-1" });
    expect(waiting.status).toBe(409);
    expect(waiting.body.code).toBe("in_progress");
    // Past the claim's life, the next request with the key takes it over once; its number is new.
    await abandonClaims(company.id);
    const taken = await issue(token, request, { "Idempotency-Key": "d-1" });
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.encf).toBe("E310000000004");
    const again = await issue(token, request, { "Idempotency-Key": "d-1" });
    expect(again.body.encf).toBe("E310000000004");
    expect(await received(company.rnc)).toHaveLength(1);
    // The numbers the dead requests held are the ones to void (ANECF), listed as unused.
    const unused = await call("/company/sequences/31/unused", { headers: authed(token) });
    expect(await unused.json()).toEqual({
      rangos: [{ tipoeCF: "31", desde: "E310000000001", hasta: "E310000000003" }],
    });
  });
});
