// Every route that acts for an issuer, taken from the OpenAPI document (so a new route cannot be
// left out: an operation without `security` must be listed as public on purpose), refuses callers that do not serve the issuer they name and changes
// nothing of that issuer's data.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, inject, it, vi } from "vitest";
import { admin, authed, companyWithToken, createCompany, createKey, tokenFor } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer } from "./support/issuing.ts";
import { auditRows, insertIntoMonths, ledgerMonths, ledgerSnapshot, registerInIssuer } from "./support/ledger.ts";
import { receiptMonth } from "../src/ledger/client.ts";

type Operation = {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, unknown>;
};
type OpenApi = {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }> };
};

/** Operations anyone may call: health, login, pairing, and DGII's emisor-receptor services. */
const PUBLIC = new Set([
  "GET /",
  "GET /health",
  // A receipt's public page for its buyer (the security code is the key), and the validator.
  "GET /r/{link}",
  "GET /r/{rnc}/{encf}",
  "GET /r/{rnc}/{encf}/pdf",
  "GET /r/{rnc}/{encf}/xml",
  "POST /r/{rnc}/{encf}/credito-fiscal",
  "GET /validate",
  "POST /validate",
  "POST /login",
  "POST /devices/pair",
  // The console's sign-in and the invitation link's page (issue 36).
  "POST /console/login",
  "GET /console/invitations/{token}",
  "POST /console/invitations/{token}/accept",
  ...["", "/{rnc}"].flatMap((p) => [
    `GET ${p}/fe/autenticacion/api/semilla`,
    `POST ${p}/fe/autenticacion/api/validacioncertificado`,
    `POST ${p}/fe/recepcion/api/ecf`,
    `POST ${p}/fe/aprobacioncomercial/api/ecf`,
  ]),
]);

const openApi = async () => (await (await call("/openapi.json")).json()) as OpenApi;
const operations = (doc: OpenApi) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      op,
    })),
  );
const schemeOf = (op: Operation) => Object.keys(op.security?.[0] ?? {})[0] ?? "none";

/** The issuer-scoped operations: bearer-token routes of the OpenAPI document. */
async function tenantOperations() {
  return operations(await openApi()).filter((o) => schemeOf(o.op) === "bearerAuth");
}

describe("the protected routes are enumerated, not listed by hand", () => {
  it("each documented operation is public on purpose, or admin, device or bearer-protected", async () => {
    const documented = operations(await openApi());
    const unsecured = documented.filter((o) => schemeOf(o.op) === "none").map((o) => o.key);
    // A new route without `security` must be added here on purpose, or it is a forgotten check.
    expect(unsecured.sort()).toEqual([...PUBLIC].sort());
    for (const o of documented) {
      const scheme = schemeOf(o.op);
      if (o.path.startsWith("/admin/")) expect(scheme, o.key).toBe("adminAuth");
      else if (o.path.startsWith("/console/")) expect(["none", "consoleSession"], o.key).toContain(scheme);
      // The company's API keys: its owner's console session only, never a key (issue 36).
      else if (o.path.startsWith("/company/api-keys")) expect(scheme, o.key).toBe("consoleSession");
      else expect(["none", "bearerAuth", "deviceAuth"], o.key).toContain(scheme);
    }
  });

  it("the bearer-protected set is the one the issue lists", async () => {
    const keys = (await tenantOperations()).map((o) => o.key).sort();
    expect(keys).toEqual(
      [
        "POST /fe/recepcion/ecf",
        "GET /fe/recepcion/ecf/{encf}",
        "GET /fe/recepcion/ecf/{encf}/xml",
        "GET /fe/recepcion/ecf/{encf}/pdf",
        "GET /fe/recepcion/ecf/{encf}/arecf",
        "GET /fe/recepcion/ecf/{encf}/notes",
        "POST /fe/recepcion/ecf/{encf}/email",
        "POST /fe/anulacion",
        "GET /receiver/settings",
        "PUT /receiver/settings",
        "POST /compras/{id}/aprobacion",
        "POST /compras/{id}/confirmacion-manual",
        "GET /reports/encf",
        "GET /reports/compras",
        "GET /reports/errores",
        "POST /devices",
        "GET /devices",
        "POST /tills/{id}/revoke",
        "POST /tills/{id}/pairing-code",
        "POST /tills/{id}/approve",
        "GET /devices/given-up-proposals",
        "POST /devices/given-up-proposals/confirm",
        "GET /devices/lease-limits",
        "PATCH /devices/lease-limits",
        "GET /company/me",
        "PATCH /company/me",
        "GET /company/sequences",
        "PUT /company/sequences/{tipo}",
        "GET /company/sequences/{tipo}/unused",
        "PUT /company/certificate",
        "PUT /company/certification",
        "GET /company/certification",
        "GET /company/certification/postulacion",
        "GET /company/certification/declaracion",
        "POST /company/certification/steps/{step}",
        "POST /company/certification/sync",
        "GET /company/certification/printed-copies",
        "POST /company/certification/receiver-check",
        "GET /credito-fiscal/requests",
        "POST /credito-fiscal/requests/{id}/approve",
        "POST /credito-fiscal/requests/{id}/reject",
        "POST /webhooks",
        "GET /webhooks",
        "DELETE /webhooks/{id}",
        "GET /webhooks/{id}/deliveries",
        "POST /webhooks/{id}/deliveries/{deliveryId}/retry",
        "GET /archive/{period}",
        "GET /reports/606",
        "GET /reports/607",
        "GET /reports/608",
        "PATCH /ventas/{encf}",
        "PATCH /compras/{id}",
        "GET /compras/{id}/clasificacion",
        "GET /proveedores/{rnc}/clasificacion",
        "PUT /proveedores/{rnc}/clasificacion",
        "DELETE /proveedores/{rnc}/clasificacion",
        "GET /contribuyentes/{rnc}",
        "GET /customers",
        "PUT /customers/{rnc}",
        "GET /products",
        "POST /products",
        "GET /products/export",
        "POST /products/import",
        "GET /products/{id}",
        "PATCH /products/{id}",
        "DELETE /products/{id}",
        "GET /cashiers",
        "POST /cashiers",
        "PATCH /cashiers/{id}",
        "PATCH /devices/{id}",
        "GET /reports/turnos",
      ].sort(),
    );
  });
});

/**
 * The issued receipt's follow-up tasks (its event, delivery to the buyer, e-mail) run in the month
 * object's alarm while the test goes on; they are parked (due in the far future) once none is
 * running, so the snapshots see only what the requests under test do.
 */
async function parkFollowUps(companyId: string): Promise<void> {
  const running = async () => {
    let count = 0;
    for (const month of await ledgerMonths(companyId)) {
      count += await runInDurableObject(receiptMonth(env, companyId, month), (_instance, state) => {
        const now = new Date().toISOString();
        const farAway = new Date(Date.now() + 365 * 86_400_000).toISOString();
        state.storage.sql.exec(
          "UPDATE tasks SET next_attempt_at = ?2 WHERE status = 'pending' AND (claimed_until IS NULL OR claimed_until < ?1)",
          now,
          farAway,
        );
        return state.storage.sql
          .exec("SELECT id FROM tasks WHERE status = 'pending' AND claimed_until >= ?1", now)
          .toArray().length;
      });
    }
    return count;
  };
  await vi.waitFor(async () => expect(await running()).toBe(0), { timeout: 8_000, interval: 100 });
}

describe("no route reaches an issuer the caller does not serve", () => {
  let victim: { id: string; rnc: string };
  let victimToken: string;
  let encf: string;
  let deviceId: string;
  let webhookId: string;
  const purchaseId = `2025-01.${crypto.randomUUID()}`;
  let partnerToken: string;
  let companyToken: string;

  beforeAll(async () => {
    ({ company: victim, token: victimToken } = await issuer());
    const issued = await issue(victimToken, issueRequest("31"));
    expect(issued.status).toBeLessThan(300);
    encf = issued.body.encf;
    deviceId = (
      await admin<{ id: string }>("POST", `/admin/companies/${victim.id}/devices`, { name: "Caja de la víctima" })
    ).id;
    // The victim's own webhook endpoint (for an event nothing here causes, so no delivery runs in the background).
    const hook = await call("/webhooks", {
      method: "POST",
      headers: authed(victimToken, { "Content-Type": "application/json" }),
      body: JSON.stringify({ url: "https://erp.victima.example/hooks", events: ["approval.received"] }),
    });
    expect(hook.status).toBe(201);
    webhookId = ((await hook.json()) as { id: string }).id;
    await insertIntoMonths(
      victim.id,
      "INSERT INTO purchases (id, company_id, rnc_emisor, encf, tipo_ecf, issue_date, monto_total, xml_key, xml_sha256, arecf_key, arecf_estado, fecha_hora_acuse_recibo)",
      "(?, ?, '131880681', 'E310000000077', '31', '2025-01-01', '100.00', 'k', 'h', 'a', '0', '01-01-2025 10:00:00')",
      2,
      [[purchaseId, victim.id]],
      () => "2025-01",
    );
    await registerInIssuer(victim.id, {
      purchases: [{ rncEmisor: "131880681", encf: "E310000000077", month: "2025-01" }],
    });
    // Refusals naming the victim go to its audit log on purpose, in this UTC month's object:
    // registered now, so that recording them changes no other table of the victim's ledger.
    await registerInIssuer(victim.id, { months: [new Date().toISOString().slice(0, 7)] });
    const served = await createCompany();
    const partner = await admin("POST", "/admin/partners", { name: "Otra Casa de Software SRL" });
    await admin("POST", `/admin/partners/${partner.id}/companies`, { companyId: served.id });
    partnerToken = await tokenFor(await createKey("partner", partner.id));
    ({ token: companyToken } = await companyWithToken());
    await parkFollowUps(victim.id);
  }, 60_000); // issuing through DGII on a loaded machine can take longer than the default 10 s

  /** A request that would change or read the victim's data if it got through. */
  function requestFor(method: string, path: string): { url: string; init: RequestInit } {
    const id = path.startsWith("/devices") ? deviceId : path.startsWith("/webhooks") ? webhookId : purchaseId;
    const url = path
      .replace("{encf}", encf)
      .replace("{id}", id)
      .replace("{tipo}", "31")
      .replace("{deliveryId}", "msg_de_la_victima")
      .replace("{periodo}", "2025-01")
      .replace("{rnc}", "130862346");
    const jsonBody = (body: unknown) => ({
      body: JSON.stringify(body),
      headers: { "Content-Type": "application/json" },
    });
    const bodies: Record<string, () => { body: BodyInit; headers?: Record<string, string> }> = {
      "POST /fe/recepcion/ecf": () => jsonBody(issueRequest("31")),
      "POST /fe/anulacion": () =>
        jsonBody({ rangos: [{ tipoeCF: "32", desde: "E320000000001", hasta: "E320000000005" }] }),
      "PUT /receiver/settings": () => jsonBody({ requireAuthentication: true }),
      "POST /compras/{id}/aprobacion": () => jsonBody({ estado: "Aceptado" }),
      "POST /compras/{id}/confirmacion-manual": () => jsonBody({ motivo: "Verificada con el proveedor" }),
      "PATCH /compras/{id}": () => jsonBody({ tipoBienesServicios: "02" }),
      "PUT /proveedores/{rnc}/clasificacion": () => jsonBody({ tipoBienesServicios: "02" }),
      "PATCH /ventas/{encf}": () => jsonBody({ fechaRetencion: "2025-01-02" }),
      "POST /devices": () => jsonBody({ name: "Caja intrusa" }),
      "POST /fe/recepcion/ecf/{encf}/email": () => jsonBody({ to: "intruso@example.com" }),
      "POST /webhooks": () => jsonBody({ url: "https://erp.intrusa.example/hooks", events: ["receipt.accepted"] }),
      "PUT /company/sequences/{tipo}": () => jsonBody({ rangeFrom: 1, rangeTo: 5, expiresOn: "2030-12-31" }),
      "PUT /company/certificate": () => {
        const form = new FormData();
        form.set(
          "file",
          new File([Uint8Array.from(atob(inject("certificates").modernP12), (ch) => ch.charCodeAt(0))], "intrusa.p12"),
        );
        form.set("password", inject("certificates").password);
        return { body: form };
      },
    };
    const made = bodies[`${method} ${path}`]?.();
    return { url, init: { method, body: made?.body, headers: made?.headers ?? {} } };
  }

  /**
   * Every row of every table that holds the victim's data: its directory rows in D1, every table
   * of its ledger objects (the issuer object and each month object) but the audit log, and its archive.
   */
  async function snapshot() {
    const tables = await env.DB.prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' AND name NOT LIKE 'd1_%'`,
    ).all<{ name: string }>();
    const d1: Record<string, unknown[]> = {};
    for (const { name } of tables.results) {
      const columns = await env.DB.prepare(`SELECT name FROM pragma_table_info(?1)`).bind(name).all<{ name: string }>();
      const names = columns.results.map((c) => c.name);
      const column =
        name === "companies"
          ? "id"
          : names.includes("company_id")
            ? "company_id"
            : names.includes("owner_id")
              ? "owner_id"
              : null;
      if (!column) continue;
      d1[name] = (
        await env.DB.prepare(`SELECT * FROM "${name}" WHERE ${column} = ?1 ORDER BY rowid`).bind(victim.id).all()
      ).results;
    }
    // Refusals are recorded in the audit log on purpose.
    const ledger = Object.fromEntries(
      Object.entries(await ledgerSnapshot(victim.id)).filter(([table]) => !table.endsWith("/audit_log")),
    );
    const listed = await env.ARCHIVE.list({ prefix: `${victim.rnc}/` });
    return { d1, ledger, archive: listed.objects.map((o) => `${o.key} ${o.etag}`).sort() };
  }

  /** The rows of one ledger table, across the issuer's objects (`<month>/<table>` or `issuer/<table>`). */
  const ledgerRows = (snap: Awaited<ReturnType<typeof snapshot>>, table: string) =>
    Object.entries(snap.ledger)
      .filter(([name]) => name.endsWith(`/${table}`))
      .flatMap(([, rows]) => rows);

  it("401 without a token, 400 for a partner without X-RNC-Emisor, 403 for a partner or a company naming another issuer; nothing changes", async () => {
    const ops = await tenantOperations();
    expect(ops.length).toBeGreaterThanOrEqual(18);
    const before = await snapshot();
    expect(ledgerRows(before, "receipts").map((r) => r.encf)).toEqual([encf]);
    expect(ledgerRows(before, "purchases").map((r) => r.id)).toEqual([purchaseId]);
    expect(ledgerRows(before, "sequences").length).toBeGreaterThan(0);
    expect(ledgerRows(before, "usage_counters").length).toBe(1);
    expect(ledgerRows(before, "receipt_index").length).toBe(1);
    expect(ledgerRows(before, "purchase_index").length).toBe(1);
    expect(before.d1.devices!.length).toBe(1);
    expect(before.d1.webhook_endpoints!.map((w) => (w as { id: string }).id)).toEqual([webhookId]);
    expect(before.archive.length).toBeGreaterThan(0);

    for (const { method, path, key } of ops) {
      // A partner naming no issuer manages its own webhook endpoints (for every issuer it serves):
      // it gets its own list or endpoint, and the victim's endpoint is not among them (404).
      const partnerOwn: [number, string] | undefined = path.startsWith("/webhooks")
        ? (({ "POST /webhooks": [201, ""], "GET /webhooks": [200, ""] } as Record<string, [number, string]>)[key] ?? [
            404,
            "not_found",
          ])
        : undefined;
      const cases: [string, Record<string, string>, number, string][] = [
        ["no token", { "X-RNC-Emisor": victim.rnc }, 401, "unauthorized"],
        ["partner, issuer it does not serve", authed(partnerToken, { "X-RNC-Emisor": victim.rnc }), 403, "forbidden"],
        ["partner, no X-RNC-Emisor", authed(partnerToken), ...(partnerOwn ?? [400, "bad_request"])],
        ["company, another RNC", authed(companyToken, { "X-RNC-Emisor": victim.rnc }), 403, "forbidden"],
      ];
      for (const [label, headers, status, code] of cases) {
        const { url, init } = requestFor(method, path);
        const res = await call(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
        const text = await res.text();
        expect(res.status, `${key}: ${label}: ${text}`).toBe(status);
        if (status < 300) {
          // The partner's own endpoints: nothing of the victim's.
          expect(text, `${key}: ${label}`).not.toContain(webhookId);
          continue;
        }
        const body = JSON.parse(text) as { code: string; errors: { path: string }[] };
        expect(res.headers.get("content-type"), `${key}: ${label}`).toMatch(/^application\/problem\+json/);
        expect(body.code, `${key}: ${label}`).toBe(code);
        if (status === 400)
          expect(
            body.errors.map((e) => e.path),
            key,
          ).toEqual(["/headers/X-RNC-Emisor"]);
      }
    }
    expect(await snapshot()).toEqual(before);

    // The same requests with the victim's own token do reach its data: the refusals above were
    // about who asked, not about the requests themselves.
    const own = requestFor("PUT", "/receiver/settings");
    expect(
      (await call(own.url, { ...own.init, headers: authed(victimToken, own.init.headers as Record<string, string>) }))
        .status,
    ).toBe(200);
    expect(await snapshot()).not.toEqual(before);
  });
});

describe("refused attempts are logged against the issuer they named", () => {
  it("a partner or a company refused for another issuer's RNC shows up in that issuer's /reports/errores", async () => {
    const { company: target, token: targetToken } = await issuer();
    const partner = await admin("POST", "/admin/partners", { name: "Casa Curiosa SRL" });
    const partnerKey = await createKey("partner", partner.id);
    const partnerToken = await tokenFor(partnerKey);
    const { credentials: companyKey, token: companyToken, company: intruder } = await companyWithToken();
    const stamp = Date.now();

    const attempts = [
      {
        token: partnerToken,
        keyId: partnerKey.keyId,
        requestId: `iso-partner-${stamp}`,
        method: "GET",
        path: "/reports/encf",
      },
      {
        token: companyToken,
        keyId: companyKey.keyId,
        requestId: `iso-company-${stamp}`,
        method: "PUT",
        path: "/receiver/settings",
      },
    ];
    for (const a of attempts) {
      const res = await call(a.path, {
        method: a.method,
        headers: authed(a.token, {
          "X-RNC-Emisor": target.rnc,
          "X-Request-Id": a.requestId,
          "Content-Type": "application/json",
        }),
        body: a.method === "GET" ? undefined : JSON.stringify({ requireAuthentication: true }),
      });
      expect(res.status).toBe(403);
    }
    // Anonymous callers can write any RNC in the header: they are not put in the issuer's log.
    const anonymousId = `iso-anon-${stamp}`;
    expect(
      (await call("/reports/encf", { headers: { "X-RNC-Emisor": target.rnc, "X-Request-Id": anonymousId } })).status,
    ).toBe(401);

    // The log is written after the response (waitUntil): wait for the rows rather than race them.
    const logged = async (id: string) => (await auditRows(target.id, "request_id = ?1", id))[0];
    await vi.waitFor(async () => {
      for (const a of attempts) expect(await logged(a.requestId)).toBeDefined();
    });
    for (const a of attempts) {
      const row = await logged(a.requestId);
      expect(row).toMatchObject({
        company_id: target.id,
        actor: a.keyId,
        action: `${a.method} ${a.path}`,
        code: "forbidden",
        status: 403,
      });
      expect(String(row!.detail)).toContain(a.keyId);
    }
    // The anonymous refusal is in no issuer's log (it is only logged to the console).
    expect(await auditRows(target.id, "request_id = ?1", anonymousId)).toEqual([]);
    // The intruding company's own log does not get the entry: it concerns the target.
    expect(await auditRows(intruder.id)).toEqual([]);

    const report = (await (await call("/reports/errores", { headers: authed(targetToken) })).json()) as {
      items: Record<string, unknown>[];
    };
    const seen = report.items.filter((i) => attempts.some((a) => a.requestId === i.requestId));
    expect(seen.map((i) => [i.requestId, i.actor, i.code, i.status]).sort()).toEqual(
      attempts.map((a) => [a.requestId, a.keyId, "forbidden", 403]).sort(),
    );
  });
});

describe("the OpenAPI document declares the tenant contract", () => {
  type Response = { description: string; content?: Record<string, unknown> };
  const problem = (op: Operation, status: string) => op.responses[status] as Response | undefined;

  it("every bearer operation: the bearer scheme, one X-RNC-Emisor header parameter, 400/401/403 problems", async () => {
    const doc = await openApi();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const ops = await tenantOperations();
    expect(ops.length).toBeGreaterThanOrEqual(18);
    for (const { key, op } of ops) {
      // Or the console's session cookie, as the same principal within the user's role (issue 36).
      expect(op.security, key).toEqual([{ bearerAuth: [] }, { consoleSession: [] }]);
      const headers = (op.parameters ?? []).filter((p) => p.name.toLowerCase() === "x-rnc-emisor");
      expect(headers, key).toEqual([expect.objectContaining({ name: "X-RNC-Emisor", in: "header", required: false })]);
      for (const status of ["400", "401", "403"]) {
        expect(problem(op, status)?.content, `${key} ${status}`).toHaveProperty(["application/problem+json"]);
      }
      expect(problem(op, "400")!.description, key).toContain("X-RNC-Emisor");
    }
  });

  it("every admin operation declares the admin scheme and its 401", async () => {
    const admins = operations(await openApi()).filter((o) => o.path.startsWith("/admin/"));
    expect(admins.length).toBeGreaterThanOrEqual(12);
    for (const { key, op } of admins) {
      expect(op.security, key).toEqual([{ adminAuth: [] }]);
      expect(problem(op, "401")?.content, key).toHaveProperty(["application/problem+json"]);
      expect(
        (op.parameters ?? []).map((p) => p.name),
        key,
      ).not.toContain("X-RNC-Emisor");
    }
  });
});
