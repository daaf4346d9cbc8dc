// `ledger:migrate`: an issuer's ledger as the D1 schema of API 1.7 held it moves into its Durable
// Objects, once however often it runs, and a receipt left pending in D1 is finished by the alarm.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { admin, authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, received, setFault } from "./support/issuing.ts";
import { issuerSql, monthSql, nextNumber, receiptRow, runRetryAlarms } from "./support/ledger.ts";
import { sha256Hex } from "../src/crypto/credentials.ts";
import { stableStringify } from "../src/issuing/document.ts";
import { until } from "./support/until.ts";

afterEach(clearFaults);

const d1 = (query: string, ...params: unknown[]) =>
  env.DB.prepare(query)
    .bind(...params)
    .run();

describe("ledger:migrate", () => {
  it("moves sequences, quota, leases, keys, receipts, purchases and audit once, and the alarm finishes what was pending", async () => {
    const { company, token } = await issuer();
    // A real signed receipt in contingency (its XML archived in R2) …
    await setFault({ mode: "down" });
    const pending = await issue(token, issueRequest("31"));
    expect(pending.status).toBe(503);
    const row = (await receiptRow(company.id, pending.body.encf))!;
    const month = row.issueDate.slice(0, 7);
    // … moved back to where API 1.7 kept it: the D1 tables, with nothing in the objects.
    await monthSql(company.id, month, "DELETE FROM receipts");
    for (const table of ["receipt_index", "sequences", "usage_counters", "ledger_months"])
      await issuerSql(company.id, `DELETE FROM ${table}`);

    const insertReceipt = (id: string, encf: string, status: string, values: Record<string, unknown> = {}) =>
      d1(
        `INSERT INTO receipts (id, company_id, encf, tipo_ecf, issue_date, monto_total, security_code, fecha_hora_firma, timbre_url, xml_key, xml_sha256,
           document_hash, dgii_path, status, send_attempts, track_id, dgii_codigo, created_at, updated_at)
         VALUES (?1, ?2, ?3, '31', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'ecf', ?12, ?13, ?14, ?15, ?16, ?16)`,
        id,
        company.id,
        encf,
        row.issueDate,
        values.montoTotal ?? row.montoTotal,
        values.securityCode ?? row.securityCode,
        row.fechaHoraFirma,
        row.timbreUrl,
        values.xmlKey ?? row.xmlKey,
        row.xmlSha256,
        values.documentHash ?? row.documentHash,
        status,
        values.sendAttempts ?? 0,
        values.trackId ?? null,
        values.dgiiCodigo ?? null,
        row.createdAt,
      );
    await insertReceipt(row.id, row.encf, "contingency");
    await insertReceipt("legacy-2", "E310000000002", "accepted", {
      xmlKey: "legacy/2.xml",
      documentHash: "h2",
      sendAttempts: 1,
      trackId: "t2",
      dgiiCodigo: "1",
    });
    await insertReceipt("legacy-3", "E310000000003", "accepted", {
      xmlKey: "legacy/3.xml",
      documentHash: "h3",
      sendAttempts: 1,
      trackId: "t3",
      dgiiCodigo: "1",
    });
    await d1(
      "INSERT INTO sequences (company_id, tipo_ecf, range_from, range_to, next_number, expires_on) VALUES (?1, '31', 1, 100000, 14, '2030-12-31')",
      company.id,
    );
    await d1("INSERT INTO usage_counters (company_id, month, invoices) VALUES (?1, ?2, 3)", company.id, month);
    const device = await admin<{ id: string }>("POST", `/admin/companies/${company.id}/devices`, { name: "Caja 1" });
    await d1(
      "INSERT INTO device_leases (device_id, company_id, tipo_ecf, range_from, range_to, expires_on) VALUES (?1, ?2, '31', 4, 13, '2030-12-31')",
      device.id,
      company.id,
    );
    // A key API 1.7 answered: its answer stored verbatim, under the identity of the request's body.
    const keyedRequest = issueRequest("31", { lines: 2 });
    const keyedHash = await sha256Hex(stableStringify(keyedRequest));
    const storedAnswer = { codigo: "1", estado: "Aceptado", encf: "E310000000002", trackId: "t2" };
    await d1(
      "INSERT INTO idempotency_keys (company_id, key, request_hash, status, response) VALUES (?1, 'order-1', ?2, 200, ?3)",
      company.id,
      keyedHash,
      JSON.stringify(storedAnswer),
    );
    await d1(
      `INSERT INTO purchases (id, company_id, rnc_emisor, encf, tipo_ecf, issue_date, monto_total, xml_key, xml_sha256, arecf_key, arecf_estado, fecha_hora_acuse_recibo)
       VALUES ('legacy-purchase', ?1, '131880681', 'E310000000077', '31', ?2, '118.00', 'p.xml', 'sha', 'p.arecf.xml', '0', '01-10-2026 10:00:00')`,
      company.id,
      row.issueDate,
    );
    for (const [requestId, code] of [
      ["r-1", "dgii_unavailable"],
      ["r-2", "validation_failed"],
    ]) {
      await d1(
        "INSERT INTO audit_log (company_id, action, code, status, request_id, created_at) VALUES (?1, 'POST /fe/recepcion/ecf', ?2, 400, ?3, ?4)",
        company.id,
        code,
        requestId,
        `${month}-10T12:00:00.000Z`,
      );
    }
    await clearFaults();

    const first = await admin("POST", `/admin/companies/${company.id}/ledger/migrate`);
    expect(first).toMatchObject({
      companyId: company.id,
      sequences: 1,
      leases: 1,
      idempotencyKeys: 1,
      receipts: 3,
      purchases: 1,
      auditEntries: 2,
      months: [month],
    });
    const again = await admin("POST", `/admin/companies/${company.id}/ledger/migrate`);
    expect(again).toEqual(first);

    // Everything is in the objects once.
    expect(await monthSql(company.id, month, "SELECT encf FROM receipts ORDER BY encf")).toEqual([
      { encf: row.encf },
      { encf: "E310000000002" },
      { encf: "E310000000003" },
    ]);
    expect(await monthSql(company.id, month, "SELECT COUNT(*) AS n FROM purchases")).toEqual([{ n: 1 }]);
    expect(
      await monthSql(
        company.id,
        month,
        "SELECT code FROM audit_log WHERE request_id IN ('r-1', 'r-2') ORDER BY request_id",
      ),
    ).toEqual([{ code: "dgii_unavailable" }, { code: "validation_failed" }]);
    expect(await issuerSql(company.id, "SELECT range_from, range_to FROM device_leases")).toEqual([
      { range_from: 4, range_to: 13 },
    ]);
    expect(await issuerSql(company.id, "SELECT request_hash FROM idempotency_keys")).toEqual([
      { request_hash: keyedHash },
    ]);
    expect(await nextNumber(company.id, "31")).toBe(14);
    const me = (await (await call("/company/me", { headers: authed(token) })).json()) as {
      invoicesCountCurrentMonth: number;
    };
    expect(me.invoicesCountCurrentMonth).toBe(3);

    // The API reads the migrated receipts, and numbering goes on after the lease.
    const legacy = await call("/fe/recepcion/ecf/E310000000002", { headers: authed(token) });
    expect(legacy.status).toBe(200);
    expect(await legacy.json()).toMatchObject({ estado: "Aceptado", trackId: "t2" });
    expect((await issue(token, issueRequest("31"))).body.encf).toBe("E310000000014");
    // The moved key still answers its request with the answer 1.7 stored, and numbers nothing.
    const replayed = await issue(token, keyedRequest, { "Idempotency-Key": "order-1" });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(storedAnswer);
    expect(await nextNumber(company.id, "31")).toBe(15);

    // The receipt D1 left in contingency is due in its month object: the alarm sends it, once.
    await until(
      async () => (await receiptRow(company.id, row.encf))?.status === "accepted",
      () => runRetryAlarms(company.id),
    );
    expect((await receiptRow(company.id, row.encf))?.status).toBe("accepted");
    expect(await received(company.rnc, row.encf)).toHaveLength(1);
  });

  it("an unknown issuer is a 404, and an issuer with nothing in D1 moves nothing", async () => {
    const missing = await call("/admin/companies/no-such-company/ledger/migrate", {
      method: "POST",
      headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
    });
    expect(missing.status).toBe(404);
    const { company } = await issuer();
    expect(await admin("POST", `/admin/companies/${company.id}/ledger/migrate`)).toMatchObject({
      receipts: 0,
      sequences: 0,
      purchases: 0,
      auditEntries: 0,
      months: [],
    });
  });
});
