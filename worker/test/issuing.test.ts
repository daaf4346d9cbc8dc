import { env } from "cloudflare:workers";
import { drIsoDate, drMonth, TIPOS_ECF, verifyXml, xmlToEcf } from "@ecf/shared";
import { afterEach, describe, expect, inject, it } from "vitest";
import { database } from "../src/db/client.ts";
import { dgiiClientFor, signerFor } from "../src/dgii/for-company.ts";
import { sha256Hex } from "@ecf/shared/sha256";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { admin, authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { clearFaults, issue, issueRequest, issuer, received, setFault, todayDgii } from "./support/issuing.ts";
import {
  abandonClaims,
  auditRows,
  holdReceipt,
  issuerSql,
  monthSql,
  nextNumber,
  receiptRow,
  runRetryAlarms,
  runTaskAlarms,
  updateReceiptRow,
} from "./support/ledger.ts";
import { issuerLedger } from "../src/ledger/client.ts";
import { unwrap } from "../src/ledger/refusal.ts";
import { stableStringify } from "../src/issuing/document.ts";
import { issueReceipt } from "../src/issuing/issue.ts";
import { archiveSignedReceipt } from "../src/issuing/record.ts";
import { until } from "./support/until.ts";

afterEach(clearFaults);

/** Runs the issuer's retry alarms (each time past the back-off) until `done` or 10 rounds. */
async function retryUntil(companyId: string, done: () => Promise<boolean>): Promise<void> {
  await until(done, () => runRetryAlarms(companyId));
}

// A 3-line E31 whose MontoTotal is 50.00 more than its lines add up to (the tolerance is ±3).
const offTotal = () =>
  issueRequest("31", {}, (d) => {
    const cents =
      BigInt(
        (makeEcf("31") as { Encabezado: { Totales: { MontoTotal: string } } }).Encabezado.Totales.MontoTotal.replace(
          ".",
          "",
        ),
      ) + 5000n;
    d.Encabezado.Totales = { MontoTotal: `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}` };
  });

const pick = (row: object, keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k, (row as Record<string, unknown>)[k]]));
const companyRow = (id: string) => database(env.DB).query.companies.findFirst({ where: (c, { eq }) => eq(c.id, id) });
const archivedXml = async (token: string, encf: string) =>
  (await call(`/fe/recepcion/ecf/${encf}/xml`, { headers: authed(token) })).text();

describe("POST /fe/recepcion/ecf: every type", () => {
  it.each(TIPOS_ECF.map((t) => [t]))("E%s is validated, numbered, signed, archived and accepted", async (tipo) => {
    const { company, token } = await issuer();
    const { status, body } = await issue(token, issueRequest(tipo));
    expect(body.mensajes, JSON.stringify(body)).toEqual([]);
    expect(status).toBe(200);
    expect(body).toMatchObject({ codigo: "1", estado: "Aceptado", encf: `E${tipo}0000000001`, reenviado: false });
    // FechaEmision, as the reports write it: what a note names as FechaNCFModificado.
    const signed = xmlToEcf(
      await (await call(`/fe/recepcion/ecf/${body.encf}/xml`, { headers: authed(token) })).text(),
    ) as any;
    const [dd, mm, yyyy] = String(signed.Encabezado.Emisor.FechaEmision).split("-");
    expect(body.fechaEmision).toBe(`${yyyy}-${mm}-${dd}`);
    const state = (await (await call(`/fe/recepcion/ecf/${body.encf}`, { headers: authed(token) })).json()) as Record<
      string,
      unknown
    >;
    expect(state.fechaEmision).toBe(body.fechaEmision);
    expect(body.codigoSeguridad).toMatch(/^[A-Za-z0-9+/=]{6}$/);
    expect(body.fechaHoraFirma).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    expect(body.urlTimbre).toContain(`RncEmisor=${company.rnc}`);
    const xml = await archivedXml(token, body.encf);
    expect((await verifyXml(xml)).ok).toBe(true);
    const doc = xmlToEcf(xml) as Record<string, any>;
    expect(doc.Encabezado.IdDoc.eNCF).toBe(body.encf);
    expect(doc.Encabezado.Emisor.RNCEmisor).toBe(company.rnc);
    const seen = await received(company.rnc, body.encf);
    expect(seen.map((r) => r.kind)).toEqual([tipo === "32" ? "rfce" : "ecf"]);
    // The row was read from the document the request built (not parsed back from the signed
    // bytes): it says exactly what a device's upload of the same bytes would have it say.
    const fromBytes = await archiveSignedReceipt(env, (await companyRow(company.id))!, xml, {
      documentHash: "",
      source: "device",
    });
    const recorded = await receiptRow(company.id, body.encf);
    const described = ({
      id: _id,
      documentHash: _hash,
      source: _source,
      status: _status,
      ...row
    }: Record<string, unknown>) => row;
    expect(pick(recorded!, Object.keys(described(fromBytes.row)))).toEqual(described(fromBytes.row));
  });
});

describe("E32 paths", () => {
  it("below 250,000 goes as an RFCE summary; at or above as the full e-CF", async () => {
    const { company, token } = await issuer();
    const small = await issue(token, issueRequest("32"));
    const large = await issue(token, issueRequest("32", { highValue: true }));
    expect(small.body.estado).toBe("Aceptado");
    expect(large.body.estado).toBe("Aceptado");
    expect(small.body.urlTimbre).toContain("/consultatimbrefc?");
    expect(large.body.urlTimbre).toContain("/consultatimbre?");
    expect((await received(company.rnc, small.body.encf)).map((r) => r.kind)).toEqual(["rfce"]);
    expect((await received(company.rnc, large.body.encf)).map((r) => r.kind)).toEqual(["ecf"]);
    expect((await receiptRow(company.id, small.body.encf))?.dgiiPath).toBe("rfce");
  });
});

describe("credit notes", () => {
  it("an E34 with code 2 has total 0.00 and only MontoTotal in Totales, and is accepted", async () => {
    const { token } = await issuer();
    const original = await issue(token, issueRequest("31"));
    const note = await issue(
      token,
      issueRequest("34", { codigoModificacion: "2" }, (doc) => {
        doc.InformacionReferencia.NCFModificado = original.body.encf;
        doc.InformacionReferencia.FechaNCFModificado = todayDgii();
      }),
    );
    expect(note.body.estado, JSON.stringify(note.body)).toBe("Aceptado");
    const totales = (xmlToEcf(await archivedXml(token, note.body.encf)) as Record<string, any>).Encabezado.Totales;
    expect(totales).toEqual({ MontoTotal: "0.00" });
  });

  it("a total annulment (code 1) is refused once a partial credit note (code 3) was accepted", async () => {
    const { token } = await issuer();
    const original = await issue(token, issueRequest("31"));
    const reference = (code: "1" | "3") => (doc: Record<string, any>) => {
      doc.InformacionReferencia.NCFModificado = original.body.encf;
      doc.InformacionReferencia.FechaNCFModificado = todayDgii();
      doc.InformacionReferencia.CodigoModificacion = code;
    };
    const partial = await issue(token, issueRequest("34", { lines: 1 }, reference("3")));
    expect(partial.body.estado, JSON.stringify(partial.body)).toBe("Aceptado");
    const annul = await issue(token, issueRequest("34", {}, reference("1")));
    expect(annul.status, JSON.stringify(annul.body)).toBe(400);
    expect(annul.body.errors.map((e: { code: string }) => e.code)).toContain("credit_annulment_after_partial_credit");
  });
});

describe("DGII rejections", () => {
  it("DGII takes a receipt only from a certificate the issuer delegated: we sign with the issuer's own", async () => {
    const { company, token } = await issuer();
    const fixtures = inject("certificates");
    const signers = (certificates: string[]) =>
      fetch(`${env.DGII_SANDBOX_URL.replace(/\/+$/, "")}/__sandbox/signers`, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ rnc: company.rnc, certificates }),
      });
    const otherCertificate = `-----BEGIN CERTIFICATE-----\n${fixtures.selfSignedCertificateDer}\n-----END CERTIFICATE-----\n`;
    try {
      expect((await signers([otherCertificate])).status).toBe(200);
      const refused = await issue(token, issueRequest("31"));
      expect(refused.body).toMatchObject({ estado: "Rechazado" });
      expect(JSON.stringify(refused.body.mensajes)).toMatch(/no corresponde a un delegado autorizado/);
      // The certificate the issuer uploaded is its delegate's: now DGII takes what we sign.
      expect((await signers([fixtures.certificatePem])).status).toBe(200);
      const accepted = await issue(token, issueRequest("31"));
      expect(accepted.body.estado, JSON.stringify(accepted.body)).toBe("Aceptado");
    } finally {
      await signers([fixtures.certificatePem]);
    }
  });

  it.each([[615], [645], [1930], [1960]])("rejection code %i reaches the client with DGII's text", async (code) => {
    const { company, token } = await issuer();
    await setFault({ mode: "reject", code, message: `Rechazo ${code} de prueba` });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(200);
    expect(body).toMatchObject({ estado: "Rechazado", codigo: "2" });
    expect(body.mensajes).toContainEqual(expect.objectContaining({ codigo: String(code) }));
    const audit = await auditRows(company.id, "code = 'dgii_rejected' AND detail LIKE ?1", `${body.encf}:%`);
    expect(audit.length).toBeGreaterThan(0);
  });
});

/**
 * A request caught between numbering and recording: `request` numbered through the issuer object
 * with `key`, claimed exactly as the route claims it, and nothing recorded.
 */
async function numberedNotRecorded(companyId: string, request: unknown, key: string) {
  const now = new Date();
  const idempotency = { key, requestHash: await sha256Hex(stableStringify(request)) };
  const numbering = {
    tipoeCF: "31",
    month: drMonth(now),
    today: drIsoDate(now),
    quota: { month: drMonth(now), limit: 10 },
    now: now.toISOString(),
    idempotency,
  };
  const numberAgain = () => unwrap(issuerLedger(env, companyId).numbering().number(numbering));
  expect((await numberAgain()).held).toBeNull();
  return { month: drMonth(now), numberAgain };
}

describe("resends and idempotency", () => {
  it("resending an accepted receipt answers codigo 0 and reenviado (its only name), and nothing is redone", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("31", {}, (doc) => {
      doc.Encabezado.IdDoc.eNCF = "E310000000500";
    });
    const first = await issue(token, request);
    expect(first.body).toMatchObject({ estado: "Aceptado", encf: "E310000000500", reenviado: false });
    const again = await issue(token, request);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      codigo: "0",
      estado: "Aceptado",
      reenviado: true,
      codigoSeguridad: first.body.codigoSeguridad,
    });
    expect(await received(company.rnc, "E310000000500")).toHaveLength(1);
    const other = await issue(
      token,
      issueRequest("31", { lines: 2 }, (doc) => (doc.Encabezado.IdDoc.eNCF = "E310000000500")),
    );
    expect(other.status).toBe(409);
    // A client-chosen number moves the sequence past it: the next automatic number follows.
    expect((await issue(token, issueRequest("31"))).body.encf).toBe("E310000000501");
  });

  it("keys older than 30 days are forgotten when a key is claimed; younger ones stay", async () => {
    const { company, token } = await issuer();
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    await issuerSql(
      company.id,
      "INSERT INTO idempotency_keys (key, request_hash, created_at) VALUES ('old', 'x', ?), ('recent', 'x', ?)",
      daysAgo(31),
      daysAgo(29),
    );
    await issue(token, issueRequest("31"), { "Idempotency-Key": "today" });
    const keys = (await issuerSql(company.id, "SELECT key FROM idempotency_keys ORDER BY key")).map((r) => r.key);
    expect(keys).toEqual(["recent", "today"]);
  });

  it("the same Idempotency-Key answers the receipt the first request issued, as it stands now", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("31");
    const first = await issue(token, request, { "Idempotency-Key": "order-42" });
    const read = async () =>
      (await (await call(`/fe/recepcion/ecf/${first.body.encf}`, { headers: authed(token) })).json()) as Record<
        string,
        any
      >;
    // Its delivery to the buyer and its e-mail move on after the answer: once they have settled,
    // the replay and the read below see the receipt in one state.
    await until(async () => {
      const now = await read();
      return now.buyerDelivery?.state !== "Pendiente" && (now.emails ?? []).some((e: any) => e.state === "sent");
    });
    const second = await issue(token, request, { "Idempotency-Key": "order-42" });
    // The receipt's answer (GET) with the first request's warnings.
    const current = await read();
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual({ ...current, warnings: first.body.warnings });
    expect(second.body).toMatchObject({
      encf: first.body.encf,
      codigoSeguridad: first.body.codigoSeguridad,
      estado: first.body.estado,
      reenviado: false,
    });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await received(company.rnc)).toHaveLength(1);
    const reused = await issue(token, issueRequest("31", { lines: 5 }), { "Idempotency-Key": "order-42" });
    expect(reused.status).toBe(409);
    expect(reused.body.errors).toEqual([
      expect.objectContaining({ path: "/headers/Idempotency-Key", code: "idempotency_key_reused" }),
    ]);
  });

  it("a request refused before it is numbered holds no key: the corrected request with the same key issues", async () => {
    const { company, token } = await issuer();
    const broken = await issue(
      token,
      issueRequest("31", {}, (d) => delete d.Encabezado.Comprador),
      { "Idempotency-Key": "order-7" },
    );
    expect(broken.status).toBe(400);
    expect(await issuerSql(company.id, "SELECT key FROM idempotency_keys")).toEqual([]);
    const fixed = await issue(token, issueRequest("31"), { "Idempotency-Key": "order-7" });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(await issuerSql(company.id, "SELECT key, encf FROM idempotency_keys")).toEqual([
      { key: "order-7", encf: fixed.body.encf },
    ]);
  });

  it("the same key sent ten times at once: one receipt; every other request gets it or a 409 in_progress, never another state", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("32");
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => issue(token, request, { "Idempotency-Key": "till-3/sale-9" })),
    );
    expect(await received(company.rnc)).toHaveLength(1);
    // (Under this load DGII may time out: then the receipt is answered in contingency, 503, by the first request.)
    const answered = answers.filter((a) => a.body.encf);
    expect(answered.length).toBeGreaterThan(0);
    expect(new Set(answered.map((a) => a.body.encf))).toEqual(new Set(["E320000000001"]));
    expect(new Set(answered.map((a) => a.body.estado)).size).toBe(1);
    for (const other of answers.filter((a) => !a.body.encf)) {
      expect(other.status).toBe(409);
      expect(other.body.code).toBe("in_progress");
      expect(Number(other.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(other.body.errors).toEqual([expect.objectContaining({ code: "idempotency_key_in_progress" })]);
    }
    // No refused request gave the key back from under the one that numbered: a retry gets its receipt.
    const retry = await issue(token, request, { "Idempotency-Key": "till-3/sale-9" });
    expect(retry.body.encf).toBe("E320000000001");
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await nextNumber(company.id, "32")).toBe(2);
  });

  it("a replay while the first request is still transmitting its recorded receipt is a 409 in_progress, not Contingencia", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("31");
    // DGII takes its time: the first request records its receipt, then waits in recepción.
    await setFault({ mode: "slow", delayMs: 1500, services: ["recepcion"] });
    const first = issue(token, request, { "Idempotency-Key": "slow-1" });
    for (let round = 0; round < 100 && !(await receiptRow(company.id, "E310000000001")); round++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await receiptRow(company.id, "E310000000001"))?.status).toBe("signed");
    const replay = await issue(token, request, { "Idempotency-Key": "slow-1" });
    expect(replay.status, JSON.stringify(replay.body)).toBe(409);
    expect(replay.body).toMatchObject({ code: "in_progress", status: 409 });
    expect(Number(replay.headers.get("retry-after"))).toBeGreaterThan(0);
    const answered = await first;
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    // Once the first request has its answer, a replay gets the same receipt in the same state.
    const after = await issue(token, request, { "Idempotency-Key": "slow-1" });
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(after.body).toMatchObject({ encf: answered.body.encf, estado: answered.body.estado });
  });

  it("a resend of a receipt we hold with a key numbers and claims nothing; sent again it answers the same receipt", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("31", {}, (d) => (d.Encabezado.IdDoc.eNCF = "E310000000900"));
    expect((await issue(token, request)).status).toBe(200);
    // Its follow-up tasks (the buyer's e-mail, the delivery) done first: both resends see one state.
    await runTaskAlarms(company.id);
    const resend = await issue(token, request, { "Idempotency-Key": "resend-1" });
    expect(resend.body).toMatchObject({ encf: "E310000000900", reenviado: true });
    expect(await issuerSql(company.id, "SELECT key FROM idempotency_keys")).toEqual([]);
    // The same receipt as it stands now: the printed copy's e-mail may have gone out meanwhile.
    const { emails: _sentMeanwhile, ...again } = (await issue(token, request, { "Idempotency-Key": "resend-1" })).body;
    const { emails: _sentBefore, ...first } = resend.body;
    expect(again).toEqual(first);
    expect(await received(company.rnc)).toHaveLength(1);
  });

  it("a retry with the key answers the receipt as it stands: left in contingency, then accepted, with the first request's warnings", async () => {
    const { company, token } = await issuer({ totalsPolicy: "dgii" });
    await setFault({ mode: "down" });
    const first = await issue(token, offTotal(), { "Idempotency-Key": "sale-77", "Totals-Policy": "dgii" });
    expect(first.status, JSON.stringify(first.body)).toBe(503);
    expect(first.body.warnings).toContainEqual(expect.objectContaining({ code: "total_out_of_tolerance" }));
    // Nothing is written for the key after the receipt is recorded: the key names the receipt.
    expect(await issuerSql(company.id, "SELECT encf, status, response FROM idempotency_keys")).toEqual([
      { encf: first.body.encf, status: null, response: null },
    ]);
    const whileDown = await issue(token, offTotal(), { "Idempotency-Key": "sale-77", "Totals-Policy": "dgii" });
    expect(whileDown.status).toBe(503);
    expect(Number(whileDown.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(whileDown.body).toEqual(first.body);

    await clearFaults();
    await retryUntil(company.id, async () => (await receiptRow(company.id, first.body.encf))?.status !== "contingency");
    const later = await issue(token, offTotal(), { "Idempotency-Key": "sale-77", "Totals-Policy": "dgii" });
    const now = await call(`/fe/recepcion/ecf/${first.body.encf}`, { headers: authed(token) });
    const state = (await now.json()) as { estado: string };
    expect(state.estado).not.toBe("Contingencia");
    expect(later.status).toBe(now.status);
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(later.body).toMatchObject({
      ...state,
      encf: first.body.encf,
      reenviado: false,
      warnings: first.body.warnings,
    });
    expect(await received(company.rnc)).toHaveLength(1);
    // A replay is not a new failure or outcome: the only contingency audit entry is the first request's.
    expect((await auditRows(company.id)).filter((r) => r.code === "dgii_unavailable")).toHaveLength(1);
  });

  it("a key whose request numbered but has not recorded its receipt yet is a 409 in progress, and takes no number", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("31");
    const holder = await numberedNotRecorded(company.id, request, "k-1");
    const waiting = await issue(token, request, { "Idempotency-Key": "k-1" });
    expect(waiting.status).toBe(409);
    expect(waiting.body.code).toBe("in_progress");
    expect(Number(waiting.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(waiting.body.errors).toEqual([
      expect.objectContaining({ path: "/headers/Idempotency-Key", code: "idempotency_key_in_progress" }),
    ]);
    expect(await holder.numberAgain()).toEqual({
      held: { encf: "E310000000001", month: holder.month, warnings: null, claimedAt: expect.any(String) },
    });
    expect(await nextNumber(company.id, "31")).toBe(2);
    expect(await received(company.rnc)).toHaveLength(0);
  });

  it("a claim abandoned by a request that died between numbering and recording is taken over by the next request with the key", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("31");
    // The request that died: E310000000001 numbered with the key, never recorded.
    await numberedNotRecorded(company.id, request, "k-2");
    // A failed request gives back only its own claim.
    await issuerLedger(env, company.id).numbering().releaseIdempotencyKey("k-2", "E310000000099");
    expect(await issuerSql(company.id, "SELECT key, encf FROM idempotency_keys")).toEqual([
      { key: "k-2", encf: "E310000000001" },
    ]);
    await abandonClaims(company.id);

    const retried = await issue(token, request, { "Idempotency-Key": "k-2" });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.encf).toBe("E310000000002");
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await issuerSql(company.id, "SELECT key, encf FROM idempotency_keys")).toEqual([
      { key: "k-2", encf: "E310000000002" },
    ]);
    const again = await issue(token, request, { "Idempotency-Key": "k-2" });
    expect(again.body.encf).toBe("E310000000002");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await received(company.rnc)).toHaveLength(1);
  });
});

describe("contingency", () => {
  it("a receipt of an earlier month left in contingency is audited once, in the month the request was made", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const earlier = new Date(Date.now() - 40 * 86_400_000);
    const fecha = `${String(earlier.getUTCDate()).padStart(2, "0")}-${String(earlier.getUTCMonth() + 1).padStart(2, "0")}-${earlier.getUTCFullYear()}`;
    const { status, body, headers } = await issue(
      token,
      issueRequest("31", {}, (d) => (d.Encabezado.Emisor = { FechaEmision: fecha })),
    );
    expect(status, JSON.stringify(body)).toBe(503);
    expect((await receiptRow(company.id, body.encf))?.issueDate.slice(0, 7)).toBe(earlier.toISOString().slice(0, 7));
    // (The audit log keeps it by UTC month, the receipts by FechaEmision's: two month objects.)
    const entries = (await auditRows(company.id)).filter((r) => r.code === "dgii_unavailable");
    expect(entries).toEqual([
      expect.objectContaining({
        request_id: headers.get("x-request-id"),
        status: 503,
        detail: expect.stringContaining(body.encf),
      }),
    ]);
    const thisMonth = new Date().toISOString().slice(0, 7);
    expect(
      await monthSql(company.id, thisMonth, "SELECT request_id FROM audit_log WHERE code = 'dgii_unavailable'"),
    ).toEqual([{ request_id: headers.get("x-request-id") }]);
  });

  it("DGII down: signed in contingency (503), then transmitted exactly once when it is back", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const requests = [
      issueRequest("31", {}, (d) => (d.Encabezado.IdDoc.eNCF = "E310000000700")),
      issueRequest("31"),
      issueRequest("32"),
    ];
    const answers = [];
    for (const request of requests) answers.push(await issue(token, request));
    // Every refusal and failure is in the issuer's audit log.
    const audited = await auditRows(company.id);
    const unavailable = audited.filter((r) => r.code === "dgii_unavailable");
    expect(unavailable).toHaveLength(3);
    // Each request's own entry (written with its receipt): who, what, the answer, why, which request.
    for (const { body, headers } of answers) {
      expect(unavailable.find((r) => r.request_id === headers.get("x-request-id"))).toMatchObject({
        actor: expect.stringMatching(/\S/),
        action: "POST /fe/recepcion/ecf",
        status: 503,
        detail: `${body.encf}: DGII's status service reports the environment unavailable`,
      });
    }
    for (const { status, body, headers } of answers) {
      expect(status).toBe(503);
      // When to ask again: the ledger's next attempt (its first back-off is seconds away).
      expect(Number(headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(headers.get("retry-after"))).toBeLessThanOrEqual(600);
      expect(body).toMatchObject({ estado: "Contingencia", codigo: "-1" });
      expect(body.codigoSeguridad).toHaveLength(6);
      expect(body.urlTimbre).toMatch(/^https:\/\/(ecf|fc)\.dgii\.gov\.do\/testecf\//);
    }
    // The client resends the same e-NCF while DGII is down: the same answer, nothing duplicated.
    const resend = await issue(token, requests[0]);
    expect(resend.status).toBe(503);
    expect(Number(resend.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(resend.body).toMatchObject({
      encf: "E310000000700",
      codigoSeguridad: answers[0]!.body.codigoSeguridad,
      reenviado: true,
    });
    // A resend is not a new failure: nothing more in the audit log.
    expect((await auditRows(company.id)).filter((r) => r.code === "dgii_unavailable")).toHaveLength(3);

    // Still down: the alarm leaves them in contingency.
    await runRetryAlarms(company.id);
    expect((await receiptRow(company.id, "E310000000700"))?.status).toBe("contingency");

    await clearFaults();
    const encfs = answers.map((a) => a.body.encf as string);
    await retryUntil(company.id, async () =>
      (await Promise.all(encfs.map((e) => receiptRow(company.id, e)))).every((r) => r?.status === "accepted"),
    );
    for (const { body } of answers) {
      const state = await call(`/fe/recepcion/ecf/${body.encf}`, { headers: authed(token) });
      const now = (await state.json()) as { estado: string };
      expect(now.estado, JSON.stringify(now) + JSON.stringify(await received(company.rnc, body.encf))).toBe("Aceptado");
      expect(await received(company.rnc, body.encf)).toHaveLength(1);
    }
  });

  it("when the status service says DGII is down, nothing is sent: straight to contingency", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down", services: ["recepcion"] });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(503);
    expect(body.estado).toBe("Contingencia");
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "ecf")).toHaveLength(0);
    expect((await receiptRow(company.id, body.encf))?.sendAttempts).toBe(0);
    // Asking about it while it waits: 503 Contingencia again, with when to ask next.
    const state = await call(`/fe/recepcion/ecf/${body.encf}`, { headers: authed(token) });
    expect(state.status).toBe(503);
    expect(Number(state.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("a receipt recorded because DGII's status says down is first due when that answer can change, not a second later", async () => {
    const { company } = await issuer();
    await setFault({ mode: "down" });
    // Its own environment, so the status answer kept here (4 s) is no other test's.
    const owner = { ...(await companyRow(company.id))!, dgiiEnvironment: "certecf" as const };
    const statusKept = { ...env, DGII_STATUS_TTL_MS: "4000" } as unknown as Env;
    const asked = Date.now();
    const due: number[] = [];
    for (let i = 0; i < 2; i++) {
      const outcome = await issueReceipt(statusKept, owner, issueRequest("31"), new Date());
      if ("stored" in outcome) throw new Error("unexpected stored answer");
      expect(outcome.receipt.status).toBe("contingency");
      due.push(Date.parse((await receiptRow(company.id, outcome.receipt.encf))!.nextAttemptAt!));
    }
    expect(due[0]).toBeGreaterThanOrEqual(asked + 4000);
    // Both take their first turn together, in one alarm run.
    expect(due[1]).toBe(due[0]);
  });

  it("the alarm retries with back-off (1 s, 2 s, 4 s …) and stops once DGII decides", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const { body } = await issue(token, issueRequest("31"));
    const first = (await receiptRow(company.id, body.encf))!;
    // Released by its request: due one second later, nobody holds it.
    expect(first.claimedUntil).toBeNull();
    expect(Date.parse(first.nextAttemptAt!) - Date.parse(first.updatedAt ?? first.createdAt)).toBeLessThanOrEqual(
      1_500,
    );
    await runRetryAlarms(company.id);
    const second = (await receiptRow(company.id, body.encf))!;
    expect(second).toMatchObject({ status: "contingency", retries: 1 });
    const wait = Date.parse(second.nextAttemptAt!) - Date.now();
    expect(wait).toBeGreaterThan(1_000);
    expect(wait).toBeLessThanOrEqual(2_000);

    await clearFaults();
    await retryUntil(company.id, async () => (await receiptRow(company.id, body.encf))?.status === "accepted");
    const done = (await receiptRow(company.id, body.encf))!;
    expect(done.status).toBe("accepted");
    expect(done.nextAttemptAt).toBeNull();
    expect(await received(company.rnc, body.encf)).toHaveLength(1);
  });

  it("a crash between sending and recording the track id is healed without a second send", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const { body } = await issue(token, issueRequest("31"));
    // Held while the crash is staged: the month object's own alarm would otherwise send it as soon as DGII is back.
    await holdReceipt(company.id, body.encf);
    await clearFaults();
    // What a crashed worker leaves: the document reached DGII, the track id was never recorded.
    const row = (await receiptRow(company.id, body.encf))!;
    const signed = await (await env.ARCHIVE.get(row.xmlKey))!.text();
    const owner = (await companyRow(company.id))!;
    await dgiiClientFor(env, owner, await signerFor(env, owner)).sendEcf(signed, row.encf);
    await updateReceiptRow(
      company.id,
      row.encf,
      "send_attempts = 1, track_id = NULL, status = 'signed', claimed_until = NULL",
    );

    await retryUntil(company.id, async () => (await receiptRow(company.id, body.encf))?.status === "accepted");
    expect((await receiptRow(company.id, body.encf))?.status).toBe("accepted");
    expect(await received(company.rnc, body.encf)).toHaveLength(1);
  });
});

describe("totals beyond DGII's tolerance", () => {
  it("strict by default: refused with the computed value, nothing numbered", async () => {
    const { company, token } = await issuer();
    const refused = await issue(token, offTotal());
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual(
      expect.objectContaining({ path: "/Encabezado/Totales/MontoTotal", code: "total_out_of_tolerance" }),
    );
    expect(await nextNumber(company.id, "31")).toBe(1);
  });

  it("the request's Totals-Policy cannot relax the issuer's strict setting; a wrong value is a 400 on the header", async () => {
    const { company, token } = await issuer();
    const relaxed = await issue(token, offTotal(), { "Totals-Policy": "dgii" });
    expect(relaxed.status).toBe(400);
    expect(relaxed.body.errors).toContainEqual(
      expect.objectContaining({ path: "/Encabezado/Totales/MontoTotal", code: "total_out_of_tolerance" }),
    );
    expect(await nextNumber(company.id, "31")).toBe(1);
    const wrong = await issue(token, offTotal(), { "Totals-Policy": "lenient" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([
      expect.objectContaining({ path: "/headers/Totals-Policy", code: "invalid_value" }),
    ]);
  });

  it("under the issuer's dgii setting, Totals-Policy: dgii issues it with a warning, as DGII accepts it conditionally", async () => {
    const { token } = await issuer({ totalsPolicy: "dgii" });
    const issued = await issue(token, offTotal(), { "Totals-Policy": "dgii" });
    expect([200, 202], JSON.stringify(issued.body)).toContain(issued.status);
    expect(issued.body.warnings).toContainEqual(
      expect.objectContaining({ path: "/Encabezado/Totales/MontoTotal", code: "total_out_of_tolerance" }),
    );
    expect(issued.body).not.toHaveProperty("advertencias");
  });

  it("the issuer's setting (admin) applies without the header, and the header can make it stricter", async () => {
    const { company, token } = await issuer({ totalsPolicy: "dgii" });
    const issued = await issue(token, offTotal());
    expect(issued.body.warnings).toContainEqual(expect.objectContaining({ code: "total_out_of_tolerance" }));
    expect((await issue(token, offTotal(), { "Totals-Policy": "strict" })).status).toBe(400);
    expect(
      (await admin<{ totalsPolicy: string }>("PATCH", `/admin/companies/${company.id}`, { totalsPolicy: "strict" }))
        .totalsPolicy,
    ).toBe("strict");
    expect((await issue(token, offTotal())).status).toBe(400);
  });
});

describe("limits and concurrency", () => {
  it("quota exhaustion is a 429 and uses no number", async () => {
    const { company, token } = await issuer({ invoiceLimitPerMonth: 2 });
    expect((await issue(token, issueRequest("31"))).status).toBe(200);
    expect((await issue(token, issueRequest("31"))).status).toBe(200);
    const refused = await issue(token, issueRequest("31"));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "quota_exceeded", limit: 2 });
    // The quota returns when the next month starts in Santo Domingo (UTC−4).
    const [y, m] = (refused.body.month as string).split("-").map(Number) as [number, number];
    const nextMonthStarts = Date.UTC(m === 12 ? y + 1 : y, m % 12, 1, 4);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Math.abs(retryAfter - (nextMonthStarts - Date.now()) / 1000)).toBeLessThan(120);
    expect(await nextNumber(company.id, "31")).toBe(3);
  });

  it("concurrent issuing never duplicates a number", async () => {
    const { token } = await issuer();
    const results = await Promise.all(Array.from({ length: 12 }, () => issue(token, issueRequest("32"))));
    const numbers = results.map((r) => r.body.encf);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(numbers).size).toBe(12);
  });
});

describe("reading receipts", () => {
  it("GET returns the state; /xml the archived bytes; another issuer sees nothing", async () => {
    const { company, token } = await issuer();
    const { body } = await issue(token, issueRequest("31"));
    const state = await call(`/fe/recepcion/ecf/${body.encf}`, { headers: authed(token) });
    const current = (await state.json()) as Record<string, unknown>;
    expect(state.status).toBe(body.estado === "Aceptado" ? 200 : 202);
    // The POST's warnings belong to that request, not to the receipt's state; the delivery to
    // the buyer moves on after DGII's verdict (pending, then its outcome).
    const settledFields = {
      estado: undefined,
      codigo: undefined,
      mensajes: undefined,
      buyerDelivery: undefined,
      entregaComprador: undefined,
    };
    expect({ ...current, ...settledFields }).toEqual({ ...body, ...settledFields, warnings: undefined });
    const xml = await call(`/fe/recepcion/ecf/${body.encf}/xml`, { headers: authed(token) });
    const text = await xml.text();
    expect(await sha256Hex(text)).toBe((await receiptRow(company.id, body.encf))?.xmlSha256);
    const other = await issuer();
    expect((await call(`/fe/recepcion/ecf/${body.encf}`, { headers: authed(other.token) })).status).toBe(404);
    expect((await call(`/fe/recepcion/ecf/${body.encf}/xml`, { headers: authed(other.token) })).status).toBe(404);
  });
});

describe("bad requests", () => {
  it.each([
    ["no DetallesItems", (d: Record<string, any>) => delete d.DetallesItems, "/DetallesItems"],
    ["empty DetallesItems", (d: Record<string, any>) => (d.DetallesItems = []), "/DetallesItems"],
    ["no Encabezado", (d: Record<string, any>) => delete d.Encabezado, "/Encabezado"],
  ])("%s is a structured 400, not a 500", async (_label, edit, path) => {
    const { token } = await issuer();
    const { status, body } = await issue(token, issueRequest("31", {}, edit));
    expect(status).toBe(400);
    expect(body.code).toBe("validation_failed");
    expect(body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it("malformed JSON and the wrong content type are problems", async () => {
    const { token } = await issuer();
    const bad = await call("/fe/recepcion/ecf", {
      method: "POST",
      headers: authed(token, { "Content-Type": "application/json" }),
      body: "{",
    });
    expect(bad.status).toBe(400);
    const xml = await call("/fe/recepcion/ecf", {
      method: "POST",
      headers: authed(token, { "Content-Type": "text/xml" }),
      body: "<ECF/>",
    });
    expect(xml.status).toBe(415);
  });
});

describe("POST /fe/anulacion", () => {
  it("voids an unused range with a signed ANECF and refuses numbers already sent", async () => {
    const { company, token } = await issuer();
    const used = await issue(token, issueRequest("31"));
    const post = (body: unknown) =>
      call("/fe/anulacion", {
        method: "POST",
        headers: authed(token, { "Content-Type": "application/json" }),
        body: JSON.stringify(body),
      });
    const refused = await post({ rangos: [{ tipoeCF: "31", desde: used.body.encf, hasta: "E310000000010" }] });
    expect(refused.status).toBe(409);
    const ok = await post({ rangos: [{ tipoeCF: "31", desde: "E310000000002", hasta: "E310000000010" }] });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { codigo: string }).codigo).toBe("1");
    // Voided numbers are never issued.
    expect((await issue(token, issueRequest("31"))).body.encf).toBe("E310000000011");
    expect((await received(company.rnc)).some((r) => r.kind === "anecf")).toBe(true);
  });
});
