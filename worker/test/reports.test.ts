import { describe, expect, it } from "vitest";
import { authed, companyWithToken } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { insertIntoMonths, ledgerMonths, registerInIssuer } from "./support/ledger.ts";
import { REPORT_ITEMS } from "../src/http/schemas/reports.ts";
import { REPORT_SPECS } from "../src/ledger/month/report-specs.ts";

describe("each report's rows are the items its schema describes", () => {
  it.each(Object.keys(REPORT_SPECS) as (keyof typeof REPORT_SPECS)[])(
    "%s: the SQL's output names are the schema's properties, in order",
    (name) => {
      expect(Object.keys(REPORT_SPECS[name].columns)).toEqual(Object.keys(REPORT_ITEMS[name].shape));
      // API 1.8's second names are gone (one name per fact, 1.9.0).
      const removed = [
        "creado",
        "origen",
        "status",
        "approvalStatus",
        "recibido",
        "aprobacionEnviadaEmisor",
        "aprobacionEnviadaDgii",
        "fecha",
        "accion",
        "codigo",
        "detalle",
      ];
      const kept = name === "errores" ? removed.filter((n) => n !== "status") : removed; // errores' status is the HTTP status
      for (const old of kept) expect(Object.keys(REPORT_SPECS[name].columns)).not.toContain(old);
    },
  );
});

type Page = {
  items: Record<string, string | number | null>[];
  total: number;
  pageSize: number;
  nextCursor: string | null;
};

const day = (i: number) => new Date(Date.UTC(2025, 0, 1) + (i % 60) * 86_400_000).toISOString().slice(0, 10);

/** Month of a yyyy-MM-dd date or an ISO timestamp. */
const monthOfValue = (value: SqlStorageValue) => String(value).slice(0, 7);

/** Receipts straight into the month objects of their FechaEmision, indexed in the issuer object. */
async function insertReceipts(companyId: string, rows: { encf: string; date: string; name?: string }[]) {
  await insertIntoMonths(
    companyId,
    "INSERT INTO receipts (id, company_id, encf, issue_date, razon_social_comprador, tipo_ecf, rnc_comprador, monto_total, total_itbis, security_code, fecha_hora_firma, timbre_url, xml_key, xml_sha256, document_hash, dgii_path, status)",
    "(?, ?, ?, ?, ?, '31', '131880738', '1180.00', '180.00', 'AbC123', '01-04-2025 10:15:00', 'https://ecf.dgii.gov.do/x', 'k', 'x', 'y', 'ecf', 'accepted')",
    5,
    rows.map((r) => [crypto.randomUUID(), companyId, r.encf, r.date, r.name ?? "Cliente SRL"]),
    (row) => monthOfValue(row[3]!),
  );
  await registerInIssuer(companyId, {
    receipts: rows.map((r) => ({
      tipoeCF: r.encf.slice(1, 3),
      number: Number(r.encf.slice(3)),
      month: r.date.slice(0, 7),
    })),
  });
}

/** Purchases (id, company_id, encf, issue_date, …) into the month objects of their FechaEmision, indexed in the issuer object. */
async function insertPurchases(
  companyId: string,
  sqlHead: string,
  rowSql: string,
  paramsPerRow: number,
  rows: SqlStorageValue[][],
) {
  await insertIntoMonths(companyId, sqlHead, rowSql, paramsPerRow, rows, (row) => monthOfValue(row[3]!));
  await registerInIssuer(companyId, {
    purchases: rows.map((row) => ({ rncEmisor: "130862346", encf: String(row[2]), month: monthOfValue(row[3]!) })),
  });
}

/** Audit entries (company_id, created_at, …) into the month objects of their UTC month. */
function insertAudit(
  companyId: string,
  sqlHead: string,
  rowSql: string,
  paramsPerRow: number,
  rows: SqlStorageValue[][],
) {
  return insertIntoMonths(companyId, sqlHead, rowSql, paramsPerRow, rows, (row) => monthOfValue(row[1]!));
}

const encfOf = (n: number) => `E31${String(n).padStart(10, "0")}`;

async function getPage(token: string, path: string): Promise<Page> {
  const res = await call(path, { headers: authed(token) });
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

async function pageAll(token: string, base: string, pageSize: number, between?: (pageNo: number) => Promise<void>) {
  const seen: Page["items"] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = base.includes("?") ? "&" : "?";
    const page: Page = await getPage(
      token,
      `${base}${sep}pageSize=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(page.items.length).toBeLessThanOrEqual(pageSize);
    seen.push(...page.items);
    cursor = page.nextCursor;
    pages++;
    if (between) await between(pages);
  } while (cursor);
  return { seen, pages };
}

describe("GET /reports/encf", () => {
  it("pages over 3,000 receipts in a stable order, each exactly once, filtered by date", async () => {
    const { company, token } = await companyWithToken();
    const rows = Array.from({ length: 3000 }, (_, i) => ({ encf: encfOf(3000 - i), date: day(i * 7) }));
    await insertReceipts(company.id, rows);
    // Three month objects: every page is a merge across them.
    expect(await ledgerMonths(company.id)).toEqual(["2025-01", "2025-02", "2025-03"]);
    const expected = [...rows].sort((a, b) =>
      a.date === b.date ? (a.encf < b.encf ? -1 : 1) : a.date < b.date ? -1 : 1,
    );

    const all = await pageAll(token, "/reports/encf", 700);
    expect(all.pages).toBe(5);
    expect(all.seen.map((r) => r.encf)).toEqual(expected.map((r) => r.encf));

    const filtered = expected.filter((r) => r.date >= "2025-01-10" && r.date <= "2025-02-05");
    const first = await getPage(token, "/reports/encf?Desde=2025-01-10&Hasta=2025-02-05&pageSize=1000");
    expect(first.total).toBe(filtered.length);
    const some = await pageAll(token, "/reports/encf?Desde=2025-01-10&Hasta=2025-02-05", 333);
    expect(some.seen.map((r) => r.encf)).toEqual(filtered.map((r) => r.encf));
    expect(some.seen[0]).toMatchObject({
      tipoeCF: "31",
      fechaEmision: "2025-01-10",
      montoTotal: "1180.00",
      codigoSeguridad: "AbC123",
      estado: "Aceptado",
    });
    // API 1.7's names, deprecated, carry the same values as the names that replaced them.
    for (const row of some.seen) expect(Object.keys(row)).not.toEqual(expect.arrayContaining(["creado"]));
    expect(some.seen[0]!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it("neither repeats nor skips rows that existed when paging began, while new rows arrive", async () => {
    const { company, token } = await companyWithToken();
    const rows = Array.from({ length: 1200 }, (_, i) => ({ encf: encfOf(i + 1), date: day(i) }));
    await insertReceipts(company.id, rows);
    let extra = 5000;
    const { seen } = await pageAll(token, "/reports/encf", 250, async () => {
      // Rows before and after the cursor arrive between pages.
      await insertReceipts(company.id, [
        { encf: encfOf(extra++), date: "2025-01-01" },
        { encf: encfOf(extra++), date: "2025-03-01" },
      ]);
    });
    const encfs = seen.map((r) => r.encf as string);
    expect(new Set(encfs).size).toBe(encfs.length);
    for (const r of rows) expect(encfs).toContain(r.encf);
  });

  it("answers CSV (format=csv or Accept: text/csv), escaped, with the next page in Link", async () => {
    const { company, token } = await companyWithToken();
    await insertReceipts(company.id, [
      { encf: encfOf(1), date: "2025-04-01", name: 'Peña, "El Güero"\nSRL' },
      { encf: encfOf(2), date: "2025-04-02", name: "=HYPERLINK(1)" },
      { encf: encfOf(3), date: "2025-04-03" },
    ]);
    for (const [path, headers] of [
      ["/reports/encf?format=csv&pageSize=2", {}],
      ["/reports/encf?pageSize=2", { Accept: "text/csv" }],
    ] as const) {
      const res = await call(path, { headers: authed(token, headers) });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(res.headers.get("x-total-count")).toBe("3");
      const text = await res.text();
      const [header] = text.split("\r\n");
      expect(header).toBe(
        "encf,tipoeCF,fechaEmision,rncComprador,razonSocialComprador,montoTotal,totalITBIS,estado,dgiiCodigo,trackId,codigoSeguridad,fechaHoraFirma,ncfModificado,codigoModificacion,aprobacionComercial,createdAt,source",
      );
      expect(text).toContain(
        `E310000000001,31,2025-04-01,131880738,"Peña, ""El Güero""\nSRL",1180.00,180.00,Aceptado,`,
      );
      expect(text).toContain(`,'=HYPERLINK(1),`);
      expect(text).not.toContain(encfOf(3));
      const link = res.headers.get("link")!;
      expect(link).toMatch(/rel="next"/);
      const next = await call(/<([^>]+)>/.exec(link)![1]!, { headers: authed(token) });
      expect(await next.text()).toContain(encfOf(3));
    }
  });

  it("is scoped to the caller's company", async () => {
    const a = await companyWithToken();
    const b = await companyWithToken();
    await insertReceipts(a.company.id, [{ encf: encfOf(1), date: "2025-04-01" }]);
    expect((await getPage(b.token, "/reports/encf")).total).toBe(0);
    expect((await getPage(a.token, "/reports/encf")).total).toBe(1);
    expect((await call("/reports/encf")).status).toBe(401);
  });

  it.each([
    ["Desde=2025-02-30", "/query/Desde"],
    ["Desde=2025/04/01", "/query/Desde"],
    ["Hasta=31-04-2025", "/query/Hasta"],
    ["Desde=01-05-2025&Hasta=2025-04-01", "/query/Hasta"],
    ["tipoeCF=30", "/query/tipoeCF"],
    ["estado=accepted", "/query/estado"],
    ["rncComprador=12345", "/query/rncComprador"],
    ["encfPrefix=B01", "/query/encfPrefix"],
    ["rncEmisor=131880738", "/query/rncEmisor"],
    ["Hasta=2025-13-01", "/query/Hasta"],
    ["Desde=2025-05-01&Hasta=2025-04-01", "/query/Hasta"],
    ["pageSize=0", "/query/pageSize"],
    ["pageSize=1001", "/query/pageSize"],
    ["pageSize=ten", "/query/pageSize"],
    ["cursor=not-a-cursor!", "/query/cursor"],
    ["cursor=eyJyIjoiY29tcHJhcyIsImsiOlsiMjAyNS0wMS0wMSIsIngiXX0", "/query/cursor"],
    ["format=xml", "/query/format"],
  ])("refuses %s with a 400 pointing at %s", async (query, path) => {
    const { token } = await companyWithToken();
    const res = await call(`/reports/encf?${query}`, { headers: authed(token) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; title: string; errors: { path: string }[] };
    expect(body.code).toBe("validation_failed");
    expect(body.title).toBe("The query has problems");
    expect(body.errors.map((e) => e.path)).toEqual([path]);
  });

  it("takes format as a code, in any case; the lower-case desde of 1.8.0 is no filter any more", async () => {
    const { token } = await companyWithToken();
    const csv = await call("/reports/encf?format=CSV", { headers: authed(token) });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Type")).toMatch(/^text\/csv/);
    const old = await call("/reports/encf?desde=2025-02-30", { headers: authed(token) });
    expect(old.status).toBe(200);
  });
});

describe("GET /reports/encf filters", () => {
  it("by buyer RNC, type, state as DGII spells it and e-NCF prefix, with dates as DGII writes them too", async () => {
    const { company, token } = await companyWithToken();
    // [e-NCF, date, buyer, status, track id]: every state the ledger knows.
    const rows: [string, string, string, string, string | null][] = [
      ["E310000000001", "2025-04-01", "131880738", "accepted", "t1"],
      ["E310000000002", "2025-04-02", "101000011", "conditional", "t2"],
      ["E310000000003", "2025-04-03", "131880738", "rejected", "t3"],
      ["E320000000001", "2025-04-04", "101000011", "in_process", "t4"],
      ["E320000000002", "2025-04-05", "131880738", "signed", "t5"],
      ["E320000000003", "2025-04-06", "131880738", "signed", null],
      ["E340000000001", "2025-05-07", "131880738", "contingency", null],
      ["E340000000002", "2025-05-08", "101000011", "voided", null],
    ];
    await insertIntoMonths(
      company.id,
      "INSERT INTO receipts (id, company_id, encf, issue_date, rnc_comprador, status, track_id, tipo_ecf, razon_social_comprador, monto_total, total_itbis, security_code, fecha_hora_firma, timbre_url, xml_key, xml_sha256, document_hash, dgii_path)",
      "(?, ?, ?, ?, ?, ?, ?, ?, 'Cliente SRL', '1180.00', '180.00', 'AbC123', '01-04-2025 10:15:00', 'https://ecf.dgii.gov.do/x', 'k', 'x', 'y', 'ecf')",
      8,
      rows.map(([encf, date, rnc, status, trackId]) => [
        crypto.randomUUID(),
        company.id,
        encf,
        date,
        rnc,
        status,
        trackId,
        encf.slice(1, 3),
      ]),
      (row) => monthOfValue(row[3]!),
    );
    await registerInIssuer(company.id, {
      receipts: rows.map(([encf, date]) => ({
        tipoeCF: encf.slice(1, 3),
        number: Number(encf.slice(3)),
        month: date.slice(0, 7),
      })),
    });
    const encfs = async (query: string) => (await getPage(token, `/reports/encf?${query}`)).items.map((r) => r.encf);

    // Each state reads as DGII spells it: a receipt recorded but not sent is Contingencia until it is.
    const all = await getPage(token, "/reports/encf");
    expect(Object.fromEntries(all.items.map((r) => [r.encf, r.estado]))).toEqual({
      E310000000001: "Aceptado",
      E310000000002: "Aceptado Condicional",
      E310000000003: "Rechazado",
      E320000000001: "En Proceso",
      E320000000002: "En Proceso",
      E320000000003: "Contingencia",
      E340000000001: "Contingencia",
      E340000000002: "Anulado",
    });
    for (const estado of ["Aceptado", "Aceptado Condicional", "Rechazado", "En Proceso", "Contingencia", "Anulado"]) {
      expect(await encfs(`estado=${encodeURIComponent(estado)}`), estado).toEqual(
        all.items.filter((r) => r.estado === estado).map((r) => r.encf),
      );
    }
    expect(await encfs("rncComprador=101000011")).toEqual(["E310000000002", "E320000000001", "E340000000002"]);
    expect(await encfs("tipoeCF=32")).toEqual(["E320000000001", "E320000000002", "E320000000003"]);
    expect(await encfs("encfPrefix=E3100000000")).toEqual(["E310000000001", "E310000000002", "E310000000003"]);
    expect(await encfs("encfPrefix=E34&rncComprador=131880738")).toEqual(["E340000000001"]);
    // DGII's names and dd-MM-yyyy, alone or mixed with ISO dates: the same range.
    const april = [
      "E310000000001",
      "E310000000002",
      "E310000000003",
      "E320000000001",
      "E320000000002",
      "E320000000003",
    ];
    expect(await encfs("Desde=01-04-2025&Hasta=30-04-2025")).toEqual(april);
    expect(await encfs("Desde=2025-04-02&Hasta=03-04-2025")).toEqual(["E310000000002", "E310000000003"]);
    const counted = await getPage(token, "/reports/encf?tipoeCF=31&estado=Rechazado");
    expect(counted.total).toBe(1);
  });
});

describe("GET /reports/compras and /reports/errores", () => {
  it("pages over 2,000 received e-CF with their ARECF and approval state", async () => {
    const { company, token } = await companyWithToken();
    const rows = Array.from({ length: 2000 }, (_, i) => [
      `${day(i).slice(0, 7)}.${crypto.randomUUID()}`,
      company.id,
      encfOf(i + 1),
      day(i),
      i % 3 === 0 ? "accepted" : null,
    ]);
    await insertPurchases(
      company.id,
      "INSERT INTO purchases (id, company_id, encf, issue_date, approval_status, rnc_emisor, tipo_ecf, monto_total, xml_key, xml_sha256, arecf_key, arecf_estado, fecha_hora_acuse_recibo)",
      "(?, ?, ?, ?, ?, '130862346', '31', '1180.00', 'k', 'h', 'a', '0', '01-04-2025 10:15:00')",
      5,
      rows,
    );
    const { seen } = await pageAll(token, "/reports/compras?Desde=2025-01-01&Hasta=2025-03-01", 900);
    expect(seen.length).toBe(2000);
    const keys = seen.map((r) => `${r.fechaEmision}|${r.id}`);
    expect(keys).toEqual([...keys].sort());
    expect(seen[0]).toMatchObject({
      rncEmisor: "130862346",
      arecfEstado: "0",
      fechaHoraAcuseRecibo: "01-04-2025 10:15:00",
    });
    // The approval in DGII's words, under one name.
    expect(seen.filter((r) => r.aprobacionComercial === "Aceptado").length).toBe(667);
    expect(seen.filter((r) => r.aprobacionComercial === null).length).toBe(2000 - 667);
    for (const row of seen) expect(row).not.toHaveProperty("approvalStatus");
  });

  it("pages over 1,500 audit entries by local date (America/Santo_Domingo)", async () => {
    const { company, token } = await companyWithToken();
    // 03:30 UTC is still the previous day in Santo Domingo; 04:30 UTC is the same day.
    const rows = Array.from({ length: 1500 }, (_, i) => [
      company.id,
      `${day(i)}T0${i % 2 === 0 ? 3 : 4}:30:00.000Z`,
      `code_${i}`,
    ]);
    await insertAudit(
      company.id,
      "INSERT INTO audit_log (company_id, created_at, code, action, status, request_id)",
      "(?, ?, ?, 'POST /x', 400, 'r')",
      3,
      rows,
    );
    const { seen } = await pageAll(token, "/reports/errores", 400);
    expect(seen.length).toBe(1500);
    const order = seen.map((r) => `${r.createdAt}|${String(r.id).padStart(8, "0")}`);
    expect(order).toEqual([...order].sort());

    const one = await getPage(token, "/reports/errores?Desde=2025-01-05&Hasta=2025-01-05&pageSize=1000");
    const expected = rows.filter((r) => {
      const t = Date.parse(r[1]!) - 4 * 3_600_000;
      return new Date(t).toISOString().startsWith("2025-01-05");
    });
    expect(one.total).toBe(expected.length);
    expect(one.items.map((r) => r.code).sort()).toEqual(expected.map((r) => r[2]).sort());
    // API 1.7's names, deprecated, still carry the same values.
  });

  it("/reports/compras answers CSV: header, escaped supplier names and reasons, a formula neutralised, the next page in Link", async () => {
    const { company, token } = await companyWithToken();
    await insertPurchases(
      company.id,
      "INSERT INTO purchases (id, company_id, encf, issue_date, razon_social_emisor, approval_status, approval_reason, rnc_emisor, tipo_ecf, monto_total, total_itbis, xml_key, xml_sha256, arecf_key, arecf_estado, fecha_hora_acuse_recibo)",
      "(?, ?, ?, ?, ?, ?, ?, '130862346', '31', '1180.00', '180.00', 'k', 'h', 'a', '0', '01-04-2025 10:15:00')",
      7,
      [
        [
          "2025-04.00000000-0000-4000-8000-000000000001",
          company.id,
          encfOf(1),
          "2025-04-01",
          'Suplidora "La Fe", SRL',
          "rejected",
          "Precio\nincorrecto",
        ],
        ["2025-04.00000000-0000-4000-8000-000000000002", company.id, encfOf(2), "2025-04-02", "=CMD()", null, null],
        [
          "2025-04.00000000-0000-4000-8000-000000000003",
          company.id,
          encfOf(3),
          "2025-04-03",
          "Tercera SRL",
          "accepted",
          null,
        ],
      ],
    );
    const res = await call("/reports/compras?format=csv&pageSize=2", { headers: authed(token) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("x-total-count")).toBe("3");
    const text = await res.text();
    const [header] = text.split("\r\n");
    expect(header).toBe(
      "id,rncEmisor,razonSocialEmisor,encf,tipoeCF,fechaEmision,montoTotal,totalITBIS,arecfEstado,fechaHoraAcuseRecibo,aprobacionComercial,motivoRechazo,approvalSupplierOutcome,approvalDgiiOutcome,receivedAt,estadoDgii,confirmada,consultadaDgii,confirmacionManual",
    );
    expect(text).toContain(
      `2025-04.00000000-0000-4000-8000-000000000001,130862346,"Suplidora ""La Fe"", SRL",E310000000001,31,2025-04-01,1180.00,180.00,0,01-04-2025 10:15:00,Rechazado,"Precio\nincorrecto",`,
    );
    expect(text).toContain(`,'=CMD(),`);
    expect(text).not.toContain(encfOf(3));
    const next = await call(/<([^>]+)>/.exec(res.headers.get("link")!)![1]!, { headers: authed(token) });
    const rest = await next.text();
    expect(rest).toContain(`${encfOf(3)},31,2025-04-03`);
    expect(rest).not.toContain(encfOf(1));
  });

  it("/reports/errores answers CSV: header, escaped details, by date", async () => {
    const { company, token } = await companyWithToken();
    await insertAudit(
      company.id,
      "INSERT INTO audit_log (company_id, created_at, code, action, status, request_id, detail, actor)",
      "(?, ?, ?, 'POST /fe/recepcion/api/ecf', 200, ?, ?, '130862346')",
      5,
      [
        [
          company.id,
          "2025-04-01T15:00:00.000Z",
          "arecf_no_recibido_1",
          "req-1",
          'E310000000001: Error de especificación. Element "Comprador", unexpected',
        ],
        [company.id, "2025-04-02T15:00:00.000Z", "arecf_no_recibido_3", "req-2", "@SUM(1)"],
      ],
    );
    const res = await call("/reports/errores?Desde=2025-04-01&Hasta=2025-04-30", {
      headers: authed(token, { Accept: "text/csv" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("x-total-count")).toBe("2");
    const lines = (await res.text()).split("\r\n").filter((l) => l !== "");
    expect(lines[0]).toBe("id,createdAt,action,code,status,detail,actor,requestId");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(
      `,POST /fe/recepcion/api/ecf,arecf_no_recibido_1,200,"E310000000001: Error de especificación. Element ""Comprador"", unexpected",130862346,req-1`,
    );
    expect(lines[2]).toContain(`,arecf_no_recibido_3,200,'@SUM(1),130862346,req-2`);
  });
});
