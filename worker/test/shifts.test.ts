// Shifts (cuadre de caja): the till's PUT /devices/shifts/{id} and the issuer's GET /reports/turnos,
// through the worker's fetch handler with real D1 and Durable Objects.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../src/db/client.ts";
import { devices } from "../src/db/devices-tables.ts";
import { hashDeviceToken, newDeviceId, newDeviceToken } from "../src/devices/credentials.ts";
import { authed, companyWithToken } from "./support/accounts.ts";
import { call } from "./support/http.ts";

interface Till {
  id: string;
  token: string;
}

/** A paired till of the company (its row as pairing leaves it; pairing itself is devices.test.ts's). */
async function till(companyId: string, name: string): Promise<Till> {
  const id = newDeviceId();
  const token = newDeviceToken();
  const now = new Date().toISOString();
  await database(env.DB)
    .insert(devices)
    .values({ id, companyId, name, tokenHash: await hashDeviceToken(token), pairedAt: now });
  return { id, token };
}

const put = (t: Till, id: string, body: unknown) =>
  call(`/devices/shifts/${id}`, {
    method: "PUT",
    headers: authed(t.token, { "Content-Type": "application/json" }),
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const opening = (openedAt: string, openingFloat = "1000.00") => ({
  cashierId: "cashier-ana",
  cashierName: "Ana Pérez",
  openedAt,
  openingFloat,
});

/**
 * A Z report whose cash lines add up: float 1000.00 + cash sales 354.00 − cash refunds 59.00 =
 * 1295.00 expected; counted 1290.00 → 5.00 missing.
 */
const zReport = (countedCash = "1290.00", difference = "-5.00") => ({
  receipts: [
    { tipoeCF: "32", count: 3, total: "472.00" },
    { tipoeCF: "31", count: 1, total: "236.00" },
    { tipoeCF: "34", count: 1, total: "59.00" },
  ],
  payments: [
    { method: "efectivo", count: 3, total: "354.00" },
    { method: "tarjeta", count: 1, total: "236.00" },
    { method: "transferencia", count: 1, total: "118.00" },
  ],
  salesCount: 4,
  salesTotal: "708.00",
  itbisTotal: "108.00",
  refunds: { count: 1, total: "59.00", itbis: "9.00" },
  cashSales: "354.00",
  cashRefunds: "59.00",
  expectedCash: "1295.00",
  countedCash,
  difference,
});

const closing = (openedAt: string, closedAt: string, countedCash = "1290.00", difference = "-5.00") => ({
  ...opening(openedAt),
  closedAt,
  countedCash,
  report: zReport(countedCash, difference),
});

interface Problem {
  code: string;
  requestId: string;
  errors: { path: string; code: string; message: string }[];
}

async function problem(res: Response, status: number): Promise<Problem> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Problem;
  expect(body.requestId).toBeTruthy();
  return body;
}

describe("PUT /devices/shifts/{id}", () => {
  it("stores a shift once however often the till sends it, closes it, and keeps a closed shift final", async () => {
    const { company, token } = await companyWithToken();
    const caja = await till(company.id, "Caja 1");
    const id = crypto.randomUUID();
    const openedAt = "2026-11-25T12:00:00.000Z";

    const created = await put(caja, id, opening(openedAt));
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      id,
      deviceId: caja.id,
      state: "open",
      businessDay: "2026-11-25",
      openingFloat: "1000.00",
      closedAt: null,
      report: null,
    });

    // The till retries (its answer was lost): nothing changes, nothing doubles.
    const again = await put(caja, id, opening(openedAt));
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ state: "open" });

    const closed = await put(caja, id, closing(openedAt, "2026-11-25T20:00:00.000Z"));
    expect(closed.status).toBe(200);
    expect(await closed.json()).toMatchObject({
      state: "closed",
      countedCash: "1290.00",
      expectedCash: "1295.00",
      difference: "-5.00",
      report: zReport(),
    });

    // The close sent again is the same upload: 200, unchanged.
    const closeAgain = await put(caja, id, closing(openedAt, "2026-11-25T20:00:00.000Z"));
    expect(closeAgain.status).toBe(200);
    expect(await closeAgain.json()).toMatchObject({ state: "closed", countedCash: "1290.00" });

    // Any change after closing, even a recount, is refused; so is reopening it.
    const recount = await problem(
      await put(caja, id, closing(openedAt, "2026-11-25T20:00:00.000Z", "1295.00", "0.00")),
      409,
    );
    expect(recount.code).toBe("conflict");
    expect(recount.errors[0]).toMatchObject({ path: "", code: "shift_closed" });
    const reopen = await problem(await put(caja, id, opening(openedAt)), 409);
    expect(reopen.errors[0]!.code).toBe("shift_closed");

    const report = await call("/reports/turnos?Desde=2026-11-25&Hasta=2026-11-25", { headers: authed(token) });
    expect(report.status).toBe(200);
    const page = (await report.json()) as { items: Record<string, unknown>[]; total: number };
    expect(page.total).toBe(1);
    expect(page.items[0]).toMatchObject({ shiftId: id, countedCash: "1290.00", difference: "-5.00" });
  });

  it("refuses a change to what was fixed at opening, and another till's shift id", async () => {
    const { company } = await companyWithToken();
    const [caja1, caja2] = [await till(company.id, "Caja 1"), await till(company.id, "Caja 2")];
    const id = crypto.randomUUID();
    expect((await put(caja1, id, opening("2026-11-25T12:00:00.000Z"))).status).toBe(201);

    const float = await problem(await put(caja1, id, opening("2026-11-25T12:00:00.000Z", "500.00")), 409);
    expect(float.errors).toEqual([expect.objectContaining({ path: "/openingFloat", code: "shift_fixed" })]);
    const other = await problem(await put(caja2, id, opening("2026-11-25T12:00:00.000Z")), 409);
    expect(other.errors[0]!.message).toMatch(/another till/);
  });

  it("answers bad input with problem+json pointing at each field", async () => {
    const { company, token } = await companyWithToken();
    const caja = await till(company.id, "Caja 1");
    const id = crypto.randomUUID();

    const schema = await problem(
      await put(caja, id, { cashierId: "", cashierName: "Ana", openedAt: "ayer", openingFloat: "1000" }),
      400,
    );
    expect(schema.code).toBe("validation_failed");
    expect(schema.errors.map((e) => e.path).sort()).toEqual(["/cashierId", "/openedAt", "/openingFloat"]);

    const badReport = await problem(
      await put(caja, id, {
        ...closing("2026-11-25T12:00:00.000Z", "2026-11-25T20:00:00.000Z"),
        report: { ...zReport(), salesCount: -1 },
      }),
      400,
    );
    expect(badReport.errors.map((e) => e.path)).toEqual(["/report/salesCount"]);

    const partial = await problem(
      await put(caja, id, { ...opening("2026-11-25T12:00:00.000Z"), countedCash: "1290.00" }),
      400,
    );
    expect(partial.errors.map((e) => e.path).sort()).toEqual(["/closedAt", "/report"]);

    // A report that does not add up is never kept as final.
    const wrong = await problem(
      await put(caja, id, {
        ...closing("2026-11-25T12:00:00.000Z", "2026-11-25T20:00:00.000Z"),
        report: { ...zReport(), expectedCash: "1300.00", difference: "-10.00" },
      }),
      400,
    );
    expect(wrong.errors.map((e) => [e.path, e.code])).toEqual([
      ["/report/expectedCash", "inconsistent"],
      ["/report/difference", "inconsistent"],
    ]);
    const wrongDifference = await problem(
      await put(caja, id, closing("2026-11-25T12:00:00.000Z", "2026-11-25T20:00:00.000Z", "1290.00", "5.00")),
      400,
    );
    expect(wrongDifference.errors.map((e) => e.path)).toEqual(["/report/difference"]);
    const backwards = await problem(
      await put(caja, id, closing("2026-11-25T12:00:00.000Z", "2026-11-25T11:00:00.000Z")),
      400,
    );
    expect(backwards.errors.map((e) => e.path)).toEqual(["/closedAt"]);

    const badId = await problem(await put(caja, "not-a-uuid", opening("2026-11-25T12:00:00.000Z")), 400);
    expect(badId.errors.map((e) => e.path)).toEqual(["/id"]);
    expect((await problem(await put(caja, id, "{ not json"), 400)).code).toBe("malformed_json");
    expect(
      (await problem(await put({ id: caja.id, token: "dvt_wrong" }, id, opening("2026-11-25T12:00:00.000Z")), 401))
        .code,
    ).toBe("unauthorized");

    // None of the refused uploads stored anything.
    expect(
      ((await (await call("/reports/turnos", { headers: authed(token) })).json()) as { total: number }).total,
    ).toBe(0);
  });

  it("takes from a revoked till only the shifts it opened before its revocation", async () => {
    const { company } = await companyWithToken();
    const caja = await till(company.id, "Caja 1");
    // Times relative to now: a revoked till hands over only within days of its revocation.
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
    await database(env.DB)
      .update(devices)
      .set({ revokedAt: hoursAgo(3) })
      .where(eq(devices.id, caja.id));
    expect((await put(caja, crypto.randomUUID(), closing(hoursAgo(6), hoursAgo(4)))).status).toBe(201);
    const late = await problem(await put(caja, crypto.randomUUID(), opening(hoursAgo(2))), 400);
    expect(late.errors.map((e) => [e.path, e.code])).toEqual([["/openedAt", "after_revocation"]]);
  });
});

describe("GET /reports/turnos", () => {
  it("lists shifts per Santo Domingo day and till, across months, paged, as JSON and CSV", async () => {
    const { company, token } = await companyWithToken();
    const [caja1, caja2] = [await till(company.id, "Caja 1"), await till(company.id, "Caja 2")];
    // 31 October 22:00 in Santo Domingo is already 1 November in UTC: the shift is October's.
    const october = crypto.randomUUID();
    expect((await put(caja2, october, closing("2026-10-31T22:00:00-04:00", "2026-10-31T23:30:00-04:00"))).status).toBe(
      201,
    );
    const morning1 = crypto.randomUUID();
    const morning2 = crypto.randomUUID();
    const evening1 = crypto.randomUUID();
    await put(caja1, morning1, closing("2026-11-01T08:00:00-04:00", "2026-11-01T14:00:00-04:00"));
    await put(caja2, morning2, opening("2026-11-01T08:30:00-04:00", "500.00"));
    await put(caja1, evening1, closing("2026-11-01T14:05:00-04:00", "2026-11-01T22:00:00-04:00", "1295.00", "0.00"));

    const all = (await (
      await call("/reports/turnos?Desde=31-10-2026&Hasta=2026-11-01", { headers: authed(token) })
    ).json()) as {
      items: Record<string, string | number | null>[];
      total: number;
      nextCursor: string | null;
    };
    expect(all.total).toBe(4);
    // Day, then till, then opening time.
    const [first, second] = [caja1, caja2].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => t.id);
    const nov = [
      { deviceId: caja1.id, shiftId: morning1 },
      { deviceId: caja1.id, shiftId: evening1 },
      { deviceId: caja2.id, shiftId: morning2 },
    ].sort((a, b) => (a.deviceId === b.deviceId ? 0 : a.deviceId === first ? -1 : 1));
    expect(all.items.map((i) => [i.businessDay, i.shiftId])).toEqual([
      ["2026-10-31", october],
      ...nov.map((n) => ["2026-11-01", n.shiftId]),
    ]);
    expect(second).toBeDefined();
    expect(all.items[0]).toMatchObject({
      deviceId: caja2.id,
      deviceName: "Caja 2",
      cashierName: "Ana Pérez",
      state: "closed",
      openingFloat: "1000.00",
      salesCount: 4,
      salesTotal: "708.00",
      itbisTotal: "108.00",
      refundCount: 1,
      refundsTotal: "59.00",
      cash: "354.00",
      card: "236.00",
      transfer: "118.00",
      expectedCash: "1295.00",
      countedCash: "1290.00",
      difference: "-5.00",
    });
    expect(all.items.find((i) => i.shiftId === morning2)).toMatchObject({
      state: "open",
      openingFloat: "500.00",
      closedAt: null,
      difference: null,
      salesTotal: null,
    });

    // One till, one day.
    const one = (await (
      await call(`/reports/turnos?Desde=2026-11-01&Hasta=2026-11-01&deviceId=${caja1.id}`, { headers: authed(token) })
    ).json()) as {
      items: { shiftId: string; difference: string }[];
    };
    expect(one.items.map((i) => [i.shiftId, i.difference])).toEqual([
      [morning1, "-5.00"],
      [evening1, "0.00"],
    ]);

    // Pages of two, across the month objects, neither repeating nor skipping.
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(`/reports/turnos?pageSize=2${cursor ? `&cursor=${cursor}` : ""}`, {
        headers: authed(token),
      });
      const page = (await res.json()) as { items: { shiftId: string }[]; nextCursor: string | null };
      seen.push(...page.items.map((i) => i.shiftId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.items.map((i) => i.shiftId));

    const csv = await call("/reports/turnos?Desde=2026-11-01&Hasta=2026-11-01&format=csv", { headers: authed(token) });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "businessDay,deviceId,deviceName,shiftId,cashierId,cashierName,state,openedAt,closedAt,openingFloat,salesCount,salesTotal,itbisTotal,refundCount,refundsTotal,cash,card,transfer,cashSales,cashRefunds,expectedCash,countedCash,difference",
    );
    expect(lines).toHaveLength(4);
    const morning = lines.find((l) => l.includes(morning1))!.split(",");
    expect(morning.slice(-3)).toEqual(["1295.00", "1290.00", "-5.00"]);
    expect(morning.slice(0, 3)).toEqual(["2026-11-01", caja1.id, "Caja 1"]);
  });

  it("shows an issuer only its own tills' shifts", async () => {
    const a = await companyWithToken();
    const b = await companyWithToken();
    const [tillA, tillB] = [await till(a.company.id, "Caja A"), await till(b.company.id, "Caja B")];
    const id = crypto.randomUUID();
    // The same shift id on two issuers' tills: two shifts, each in its own issuer's objects.
    expect((await put(tillA, id, closing("2026-11-20T12:00:00.000Z", "2026-11-20T18:00:00.000Z"))).status).toBe(201);
    expect((await put(tillB, id, opening("2026-11-20T13:00:00.000Z", "200.00"))).status).toBe(201);
    const listA = (await (await call("/reports/turnos", { headers: authed(a.token) })).json()) as {
      items: { deviceId: string; state: string }[];
    };
    const listB = (await (await call("/reports/turnos", { headers: authed(b.token) })).json()) as {
      items: { deviceId: string; state: string }[];
    };
    expect(listA.items).toEqual([expect.objectContaining({ deviceId: tillA.id, state: "closed" })]);
    expect(listB.items).toEqual([expect.objectContaining({ deviceId: tillB.id, state: "open" })]);
    // Company A's token cannot filter its way into B's till.
    expect(
      (
        (await (await call(`/reports/turnos?deviceId=${tillB.id}`, { headers: authed(a.token) })).json()) as {
          total: number;
        }
      ).total,
    ).toBe(0);
    expect((await call("/reports/turnos")).status).toBe(401);
  });

  it("answers a bad query with problem+json pointing into the query", async () => {
    const { token } = await companyWithToken();
    const res = await call(
      "/reports/turnos?Desde=2026-13-01&Hasta=01-11-2026&deviceId=a%20b&pageSize=0&cursor=xyz&format=xml",
      { headers: authed(token) },
    );
    const body = await problem(res, 400);
    expect(body.code).toBe("validation_failed");
    expect(body.errors.map((e) => e.path)).toEqual([
      "/query/Desde",
      "/query/deviceId",
      "/query/pageSize",
      "/query/cursor",
      "/query/format",
    ]);
  });
});
