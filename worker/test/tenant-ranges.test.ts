// Issuing through the API with a range that cannot number the receipt: a clear problem before
// anything is signed, archived or sent, and the reserved quota unit given back.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { everyMonthSql, issuerSql } from "./support/ledger.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer, received, todayDgii } from "./support/issuing.ts";

async function usedThisMonth(token: string): Promise<number> {
  return (
    (await (await call("/company/me", { headers: authed(token) })).json()) as { invoicesCountCurrentMonth: number }
  ).invoicesCountCurrentMonth;
}

/** What issuing leaves behind for an issuer: receipts, archived objects, DGII submissions, next numbers. */
async function traces(company: { id: string; rnc: string }) {
  const receipts = await everyMonthSql(company.id, "SELECT encf FROM receipts ORDER BY encf");
  const archived = await env.ARCHIVE.list({ prefix: `${company.rnc}/` });
  const sequences = await issuerSql(company.id, "SELECT tipo_ecf, next_number FROM sequences ORDER BY tipo_ecf");
  // Signed documents only: an earlier receipt's PDF may appear at any time (rendered for its e-mail to the buyer).
  const signed = archived.objects.map((o) => o.key).filter((key) => !key.endsWith(".pdf"));
  return { receipts, archived: signed, sentToDgii: await received(company.rnc), sequences };
}

describe("POST /fe/recepcion/ecf with a range that cannot number it", () => {
  it.each([
    [
      "exhausted",
      422,
      "sequence_exhausted",
      "UPDATE sequences SET next_number = range_to + 1 WHERE tipo_ecf = '31'",
      undefined,
    ],
    [
      "expired",
      422,
      "sequence_expired",
      "UPDATE sequences SET expires_on = '2020-12-31' WHERE tipo_ecf = '31'",
      undefined,
    ],
    [
      "expired, client-numbered",
      422,
      "sequence_expired",
      "UPDATE sequences SET expires_on = '2020-12-31' WHERE tipo_ecf = '31'",
      "E310000000001",
    ],
  ] as const)(
    "%s → %i %s; nothing signed, archived or sent; the quota unit given back",
    async (_label, status, code, sql, encf) => {
      const { company, token } = await issuer();
      await issuerSql(company.id, sql);
      const usedBefore = await usedThisMonth(token);
      const before = await traces(company);

      const res = await issue(
        token,
        issueRequest("31", {}, (doc) => {
          if (encf) doc.Encabezado.IdDoc.eNCF = encf;
        }),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(res.body.errors.map((e: { code: string }) => e.code)).toContain(code);
      expect(res.body.detail).toMatch(/range for type 31/);

      const after = await traces(company);
      expect(after).toEqual(before);
      expect(after.receipts).toEqual([]);
      expect(after.archived).toEqual([]);
      expect(after.sentToDgii).toEqual([]);
      expect(await usedThisMonth(token)).toBe(usedBefore);
      const [counter] = await issuerSql(company.id, "SELECT invoices FROM usage_counters");
      expect(counter?.invoices ?? 0).toBe(0);

      // The same issuer issues normally once the range is usable again: the refusal was the range's.
      await issuerSql(
        company.id,
        "UPDATE sequences SET expires_on = '2030-12-31', range_to = next_number + 10 WHERE tipo_ecf = '31'",
      );
      const ok = await issue(
        token,
        issueRequest("31", {}, (doc) => {
          if (encf) doc.Encabezado.IdDoc.eNCF = encf;
        }),
      );
      expect(ok.status, JSON.stringify(ok.body)).toBeLessThan(300);
      expect(await usedThisMonth(token)).toBe(usedBefore + 1);
    },
  );

  it("a full quota is a 429 before anything is numbered", async () => {
    const { company, token } = await issuer({ invoiceLimitPerMonth: 1 });
    expect((await issue(token, issueRequest("31"))).status).toBeLessThan(300);
    const before = await traces(company);
    const res = await issue(token, issueRequest("31"));
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: "quota_exceeded", limit: 1 });
    expect(await traces(company)).toEqual(before);
    expect(await usedThisMonth(token)).toBe(1);
  });

  it("a range changed after issuing saw it: the next receipt carries its expiry as it is now; an expired one is refused before the document's problems", async () => {
    const { company, token } = await issuer();
    const expiryIn = async (encf: string) => {
      const { objects } = await env.ARCHIVE.list({ prefix: `${company.rnc}/` });
      const key = objects.map((o) => o.key).find((k) => k.includes(encf) && k.endsWith(".xml"))!;
      return /<FechaVencimientoSecuencia>([^<]+)</.exec(await (await env.ARCHIVE.get(key))!.text())?.[1];
    };
    const first = await issue(token, issueRequest("31"));
    expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
    expect(await expiryIn(first.body.encf)).toBe("31-12-2030");

    // Shortened behind the API's back to end before this document's FechaEmision: the numbering
    // write notices that the document was validated against another expiry, and validated against
    // this one it is a 400 (no number taken).
    const days = (n: number) => new Date(Date.now() + n * 86_400_000);
    await issuerSql(
      company.id,
      "UPDATE sequences SET expires_on = ?1 WHERE tipo_ecf = '31'",
      days(2).toISOString().slice(0, 10),
    );
    const late = await issue(
      token,
      issueRequest("31", {}, (doc) => {
        doc.Encabezado.Emisor = { FechaEmision: todayDgii(days(10)) };
      }),
    );
    expect(late.status, JSON.stringify(late.body)).toBe(400);
    expect(late.body.errors).toContainEqual(
      expect.objectContaining({ path: "/Encabezado/IdDoc/FechaVencimientoSecuencia", code: "invalid_date_order" }),
    );
    expect(await issuerSql(company.id, "SELECT next_number FROM sequences WHERE tipo_ecf = '31'")).toEqual([
      { next_number: 2 },
    ]);

    // Renewed: the document is validated again against the range as it is (no number lost).
    await issuerSql(company.id, "UPDATE sequences SET expires_on = '2031-06-30' WHERE tipo_ecf = '31'");
    const second = await issue(token, issueRequest("31"));
    expect(second.status, JSON.stringify(second.body)).toBeLessThan(300);
    expect(second.body.encf).toBe("E310000000002");
    expect(await expiryIn(second.body.encf)).toBe("30-06-2031");

    // Expired: the range's 422 comes first, for a bad document as for a good one; nothing numbered.
    await issuerSql(company.id, "UPDATE sequences SET expires_on = '2020-12-31' WHERE tipo_ecf = '31'");
    const bad = await issue(
      token,
      issueRequest("31", {}, (doc) => {
        doc.DetallesItems[0].CantidadItem = "-1";
      }),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { code: string }) => e.code)).toEqual(["sequence_expired"]);
    const good = await issue(token, issueRequest("31"));
    expect(good.status).toBe(422);
    expect(good.body.errors.map((e: { code: string }) => e.code)).toEqual(["sequence_expired"]);
    expect(await issuerSql(company.id, "SELECT next_number FROM sequences WHERE tipo_ecf = '31'")).toEqual([
      { next_number: 3 },
    ]);
  });
});
