import { env } from "cloudflare:workers";
import { buildAcecf, parseArecf, parseSemilla, verifyXml } from "@ecf/shared";
import { describe, expect, inject, it } from "vitest";
import { authed, companyWithToken } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { auditRows, everyMonthSql, issuerSql, putReceipt, receiptRow } from "./support/ledger.ts";
import { issueSeed, SEED_TTL_MS } from "../src/receiving/receiver-auth.ts";
import { MAX_RECEIVER_FAILURES_PER_ADDRESS } from "../src/receiving/receiver-throttle.ts";
import {
  postXml,
  receivingCompany,
  signAsSupplier,
  signOtherXml,
  signWithExpiredCertificate,
  signWithChainedCertificate,
  signWithSelfSignedCertificate,
  supplierEcf,
  supplierSigner,
} from "./receiving-support.ts";

const DGII_DATE_TIME = /^\d{2}-\d{2}-\d{4} ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;

async function arecfOf(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/application\/xml/);
  const xml = await res.text();
  const verified = await verifyXml(xml);
  expect(verified.ok).toBe(true);
  return { xml, arecf: parseArecf(xml) };
}

/** `xml` with `pattern` replaced; the test is void if the pattern is not there. */
function changed(xml: string, pattern: RegExp, replacement: string): string {
  const out = xml.replace(pattern, replacement);
  if (out === xml) throw new Error(`${pattern} does not occur in the e-CF`);
  return out;
}

async function expectProblem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
  const body = (await res.json()) as { code: string; errors: { path: string }[] };
  return body;
}

describe("POST /fe/recepcion/api/ecf", () => {
  it("receives a signed e-CF: ARECF Estado 0, signed by the receiver, the XML in R2 and a purchase row", async () => {
    const { company } = await receivingCompany();
    const ecf = supplierEcf("31", company.rnc);
    const signed = await signAsSupplier(ecf.xml);
    const { arecf } = await arecfOf(await postXml("/fe/recepcion/api/ecf", signed));
    expect(arecf).toMatchObject({
      Version: "1.0",
      RNCEmisor: ecf.rncEmisor,
      RNCComprador: company.rnc,
      eNCF: ecf.encf,
      Estado: "0",
    });
    expect(arecf.CodigoMotivoNoRecibido).toBeUndefined();
    expect(arecf.FechaHoraAcuseRecibo).toMatch(DGII_DATE_TIME);

    const key = `${company.rnc}/compras/2025/04/${ecf.rncEmisor}${ecf.encf}.xml`;
    const stored = await env.ARCHIVE.get(key);
    expect(await stored?.text()).toBe(signed);
    // In the month object of the supplier's FechaEmision, and indexed in the issuer object.
    const rows = await everyMonthSql(company.id, "SELECT * FROM purchases");
    expect(rows).toHaveLength(1);
    const row = rows[0] as Record<string, string>;
    expect(row.id).toMatch(/^2025-04\./);
    expect(await issuerSql(company.id, "SELECT rnc_emisor, encf, month FROM purchase_index")).toEqual([
      { rnc_emisor: ecf.rncEmisor, encf: ecf.encf, month: "2025-04" },
    ]);
    expect(row).toMatchObject({
      encf: ecf.encf,
      rnc_emisor: ecf.rncEmisor,
      xml_key: key,
      arecf_estado: "0",
      issue_date: "2025-04-01",
      tipo_ecf: "31",
    });
    expect(await env.ARCHIVE.get(row!.arecf_key!)).not.toBeNull();
  });

  it.each([["/{rnc}/fe/recepcion/api/ecf"], ["/{rnc}/FE/Recepcion/API/ECF"], ["/fe/recepcion/api/ecf/"]])(
    "serves %s (case-insensitive, with or without the receiver prefix)",
    async (template) => {
      const { company } = await receivingCompany();
      const ecf = supplierEcf("33", company.rnc);
      const { arecf } = await arecfOf(
        await postXml(template.replace("{rnc}", company.rnc), await signAsSupplier(ecf.xml)),
      );
      expect(arecf.Estado).toBe("0");
    },
  );

  const notReceived: [
    string,
    "1" | "2" | "3" | "4",
    (rnc: string, other: string) => Promise<{ path?: string; xml: string }>,
  ][] = [
    [
      "a structure error",
      "1",
      async (rnc) => ({
        xml: await signAsSupplier(
          supplierEcf("31", rnc).xml.replace(/<MontoTotal>[^<]*<\/MontoTotal>/, "<MontoTotal>doce</MontoTotal>"),
        ),
      }),
    ],
    // DGII's XSD, not only our structure model: required elements and their order.
    [
      "an E31 without DetallesItems (XSD)",
      "1",
      async (rnc) => ({
        xml: await signAsSupplier(changed(supplierEcf("31", rnc).xml, /<DetallesItems>[\s\S]*<\/DetallesItems>/, "")),
      }),
    ],
    [
      "an E31 without RazonSocialEmisor (XSD)",
      "1",
      async (rnc) => ({
        xml: await signAsSupplier(
          changed(supplierEcf("31", rnc).xml, /<RazonSocialEmisor>[^<]*<\/RazonSocialEmisor>/, ""),
        ),
      }),
    ],
    [
      "an E31 with Comprador before Emisor (XSD)",
      "1",
      async (rnc) => ({
        xml: await signAsSupplier(
          changed(supplierEcf("31", rnc).xml, /(<Emisor>[\s\S]*<\/Emisor>)(<Comprador>[\s\S]*<\/Comprador>)/, "$2$1"),
        ),
      }),
    ],
    [
      "a type not exchanged between taxpayers (E32)",
      "1",
      async (rnc) => ({ xml: await signAsSupplier(supplierEcf("32", rnc, { highValue: true }).xml) }),
    ],
    [
      "a type not exchanged between taxpayers (E41)",
      "1",
      async (rnc) => ({ xml: await signAsSupplier(supplierEcf("41", rnc).xml) }),
    ],
    [
      "an altered document",
      "2",
      async (rnc) => ({
        xml: (await signAsSupplier(supplierEcf("31", rnc).xml)).replace(
          "<NombreItem>Producto 1<",
          "<NombreItem>Producto 9<",
        ),
      }),
    ],
    ["no signature", "2", async (rnc) => ({ xml: supplierEcf("31", rnc).xml })],
    [
      "a certificate expired when it signed",
      "2",
      async (rnc) => ({ xml: await signWithExpiredCertificate(supplierEcf("31", rnc).xml) }),
    ],
    [
      "a certificate no trusted authority issued (self-signed)",
      "2",
      async (rnc) => ({ xml: await signWithSelfSignedCertificate(supplierEcf("31", rnc).xml) }),
    ],
    [
      "another buyer, with the receiver in the URL",
      "4",
      async (rnc, other) => ({
        path: `/${rnc}/fe/recepcion/api/ecf`,
        xml: await signAsSupplier(supplierEcf("31", other).xml),
      }),
    ],
  ];

  it.each(notReceived)(
    "answers Estado 1 for %s with CodigoMotivoNoRecibido %s, stores nothing, logs the refusal",
    async (_label, codigo, make) => {
      const { company } = await receivingCompany();
      const { path, xml } = await make(company.rnc, "131880738");
      const { arecf } = await arecfOf(await postXml(path ?? "/fe/recepcion/api/ecf", xml));
      expect(arecf).toMatchObject({ Estado: "1", CodigoMotivoNoRecibido: codigo, RNCComprador: company.rnc });
      expect(arecf.FechaHoraAcuseRecibo).toMatch(DGII_DATE_TIME);
      expect(await everyMonthSql(company.id, "SELECT id FROM purchases")).toEqual([]);
      expect(await issuerSql(company.id, "SELECT encf FROM purchase_index")).toEqual([]);
      const logged = await auditRows(company.id);
      expect(logged.map((r) => r.code)).toContain(`arecf_no_recibido_${codigo}`);
    },
  );

  it("refuses the forged e-CF of issue 32 (other RNCEmisor, MontoTotal 500000.00, self-signed): code 2, not in the 606", async () => {
    const { company, token } = await receivingCompany();
    const genuine = supplierEcf("31", company.rnc, { rncEmisor: "101010101" });
    const forged = changed(genuine.xml, /<MontoTotal>[^<]*<\/MontoTotal>/, "<MontoTotal>500000.00</MontoTotal>");
    const { arecf } = await arecfOf(
      await postXml("/fe/recepcion/api/ecf", await signWithSelfSignedCertificate(forged)),
    );
    expect(arecf).toMatchObject({
      Estado: "1",
      CodigoMotivoNoRecibido: "2",
      RNCEmisor: "101010101",
      eNCF: genuine.encf,
    });
    expect(await everyMonthSql(company.id, "SELECT id FROM purchases")).toEqual([]);
    const logged = await auditRows(company.id);
    expect(logged.find((r) => r.code === "arecf_no_recibido_2")?.detail).toMatch(/untrusted_issuer/);
    const purchases = await call("/reports/compras?desde=2025-04-01&hasta=2025-04-30", { headers: authed(token) });
    expect(purchases.status).toBe(200);
    expect(JSON.stringify(await purchases.json())).not.toContain(genuine.encf);
    // The same document signed by a certificate the demo CA issued is received.
    const trusted = await arecfOf(await postXml("/fe/recepcion/api/ecf", await signAsSupplier(forged)));
    expect(trusted.arecf.Estado).toBe("0");
  });

  it("follows an intermediate CA the e-CF carries in KeyInfo to the accredited authority, and not without it", async () => {
    const { company } = await receivingCompany();
    const bare = supplierEcf("31", company.rnc, { rncEmisor: "101010101" });
    const refused = await arecfOf(
      await postXml("/fe/recepcion/api/ecf", await signWithChainedCertificate(bare.xml, false)),
    );
    expect(refused.arecf).toMatchObject({ Estado: "1", CodigoMotivoNoRecibido: "2" });
    expect((await auditRows(company.id)).find((r) => r.code === "arecf_no_recibido_2")?.detail).toMatch(
      /untrusted_issuer/,
    );
    const carried = supplierEcf("31", company.rnc, { rncEmisor: "101010102" });
    const received = await arecfOf(
      await postXml("/fe/recepcion/api/ecf", await signWithChainedCertificate(carried.xml, true)),
    );
    expect(received.arecf).toMatchObject({ Estado: "0", eNCF: carried.encf });
  });

  it("answers a second copy with Estado 1, code 3 (duplicate), and keeps the original", async () => {
    const { company } = await receivingCompany();
    const ecf = supplierEcf("31", company.rnc);
    const signed = await signAsSupplier(ecf.xml);
    expect((await arecfOf(await postXml("/fe/recepcion/api/ecf", signed))).arecf.Estado).toBe("0");
    const resent = await signAsSupplier(ecf.xml.replace("<NombreItem>Producto 1<", "<NombreItem>Otro<"));
    const { arecf } = await arecfOf(await postXml(`/${company.rnc}/fe/recepcion/api/ecf`, resent));
    expect(arecf).toMatchObject({ Estado: "1", CodigoMotivoNoRecibido: "3" });
    const stored = await env.ARCHIVE.get(`${company.rnc}/compras/2025/04/${ecf.rncEmisor}${ecf.encf}.xml`);
    expect(await stored?.text()).toBe(signed);
  });

  it("a receiver without a certificate cannot acknowledge (422) and keeps nothing, so the retry after the upload is received", async () => {
    const { company, token } = await companyWithToken();
    const signed = await signAsSupplier(supplierEcf("31", company.rnc).xml);
    const res = await postXml("/fe/recepcion/api/ecf", signed);
    expect((await expectProblem(res, 422)).code).toBe("unprocessable");
    expect(await everyMonthSql(company.id, "SELECT id FROM purchases")).toEqual([]);
    expect(await issuerSql(company.id, "SELECT encf FROM purchase_index")).toEqual([]);
    const { fromBase64 } = await import("@ecf/shared");
    const certificates = inject("certificates");
    const form = new FormData();
    form.set("file", new File([new Uint8Array(fromBase64(certificates.forgeP12)!)], "firma.p12"));
    form.set("password", certificates.password);
    expect((await call("/company/certificate", { method: "PUT", headers: authed(token), body: form })).status).toBe(
      200,
    );
    expect((await arecfOf(await postXml("/fe/recepcion/api/ecf", signed))).arecf.Estado).toBe("0");
  });

  it("refuses a receiver that is not on the platform (404) and an e-CF without eNCF (400)", async () => {
    const signed = await signAsSupplier(supplierEcf("31", "999999999").xml);
    expect((await expectProblem(await postXml("/fe/recepcion/api/ecf", signed), 404)).code).toBe("not_found");
    const { company } = await receivingCompany();
    const noEncf = await signAsSupplier(supplierEcf("31", company.rnc).xml.replace(/<eNCF>[^<]*<\/eNCF>/, ""));
    expect((await expectProblem(await postXml("/fe/recepcion/api/ecf", noEncf), 400)).code).toBe("bad_request");
  });
});

describe("hostile input", () => {
  const deep = (n: number) => "<ECF>" + "<a>".repeat(n) + "x" + "</a>".repeat(n) + "</ECF>";
  const laughs =
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><ECF>&lol3;</ECF>';
  const xxe =
    '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><ECF><Encabezado>&xxe;</Encabezado></ECF>';
  const cases: [string, string, () => RequestInit, number][] = [
    ["XXE (external entity)", "/fe/recepcion/api/ecf", () => ({ method: "POST", body: form(xxe) }), 400],
    ["billion laughs", "/fe/recepcion/api/ecf", () => ({ method: "POST", body: form(laughs) }), 400],
    ["deep nesting", "/fe/recepcion/api/ecf", () => ({ method: "POST", body: form(deep(10_000)) }), 400],
    ["not XML", "/fe/recepcion/api/ecf", () => ({ method: "POST", body: form("%PDF-1.4 not xml") }), 400],
    [
      "not UTF-8",
      "/fe/recepcion/api/ecf",
      () => ({ method: "POST", body: form(new Uint8Array([0x3c, 0x45, 0xff, 0xfe, 0x3e])) }),
      400,
    ],
    [
      "an XML part over 1 MiB",
      "/fe/recepcion/api/ecf",
      () => ({ method: "POST", body: form("<ECF>" + "a".repeat(1024 * 1024 + 10) + "</ECF>") }),
      413,
    ],
    [
      "a body over the app limit",
      "/fe/recepcion/api/ecf",
      () => ({ method: "POST", body: form("<ECF>" + "a".repeat(3 * 1024 * 1024) + "</ECF>") }),
      413,
    ],
    [
      "JSON instead of multipart",
      "/fe/recepcion/api/ecf",
      () => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }),
      400,
    ],
    [
      "raw XML instead of multipart",
      "/fe/recepcion/api/ecf",
      () => ({ method: "POST", headers: { "Content-Type": "text/xml" }, body: "<ECF/>" }),
      400,
    ],
    [
      "multipart without the xml field",
      "/fe/recepcion/api/ecf",
      () => {
        const f = new FormData();
        f.set("file", "x");
        return { method: "POST", body: f };
      },
      400,
    ],
    [
      "a broken multipart body",
      "/fe/recepcion/api/ecf",
      () => ({
        method: "POST",
        headers: { "Content-Type": "multipart/form-data; boundary=zzz" },
        body: "--zzz\r\nbroken",
      }),
      400,
    ],
    [
      "XXE in an ACECF",
      "/fe/aprobacioncomercial/api/ecf",
      () => ({ method: "POST", body: form(xxe.replace(/ECF>/g, "ACECF>")) }),
      400,
    ],
    [
      "billion laughs in a seed",
      "/fe/autenticacion/api/validacioncertificado",
      () => ({ method: "POST", body: form(laughs.replace(/ECF>/g, "SemillaModel>")) }),
      400,
    ],
    ["GET on a POST service", "/fe/recepcion/api/ecf", () => ({ method: "GET" }), 405],
  ];
  function form(xml: string | Uint8Array) {
    const f = new FormData();
    f.set("xml", new File([typeof xml === "string" ? xml : new Uint8Array(xml)], "x.xml", { type: "text/xml" }));
    return f;
  }

  it.each(cases)("refuses %s with a problem document", async (_label, path, init, status) => {
    const res = await call(path, init());
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
    const body = (await res.json()) as { status: number; requestId: string };
    expect(body.status).toBe(status);
  });

  it("keeps serving after every hostile request", async () => {
    for (const [, path, init] of cases) await call(path, init());
    const { company } = await receivingCompany();
    const { arecf } = await arecfOf(
      await postXml("/fe/recepcion/api/ecf", await signAsSupplier(supplierEcf("31", company.rnc).xml)),
    );
    expect(arecf.Estado).toBe("0");
  });
});

describe("authentication (semilla, validacioncertificado)", () => {
  async function token(prefix = "") {
    const seedRes = await call(`${prefix}/fe/autenticacion/api/semilla`);
    expect(seedRes.status).toBe(200);
    const seed = await seedRes.text();
    expect(parseSemilla(seed).valor.length).toBeGreaterThan(20);
    const signed = await signOtherXml(seed);
    return { seed, signed, res: await postXml(`${prefix}/fe/autenticacion/api/validacioncertificado`, signed) };
  }

  it("trades a signed seed for a token once; a second use, a forged signature or an unsigned seed is refused", async () => {
    const { signed, res } = await token();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string; expira: string; expedido: string };
    expect(body.token.length).toBeGreaterThan(20);
    expect(body.expira).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Date.parse(body.expira)).toBeGreaterThan(Date.parse(body.expedido));

    expect((await postXml("/fe/autenticacion/api/validacioncertificado", signed)).status).toBe(401);

    const other = await call("/fe/autenticacion/api/semilla").then((r) => r.text());
    const forged = (await signOtherXml(other)).replace(
      /<valor>[^<]*<\/valor>/,
      `<valor>${parseSemilla(other).valor.slice(0, -4)}AAAA</valor>`,
    );
    expect((await postXml("/fe/autenticacion/api/validacioncertificado", forged)).status).toBe(401);
    expect((await postXml("/fe/autenticacion/api/validacioncertificado", other)).status).toBe(401);
    expect((await postXml("/fe/autenticacion/api/validacioncertificado", "<Otro/>")).status).toBe(400);
  });

  it("gives no token to a certificate no trusted authority issued (self-signed)", async () => {
    const seed = await (await call("/fe/autenticacion/api/semilla")).text();
    const res = await postXml(
      "/fe/autenticacion/api/validacioncertificado",
      await signWithSelfSignedCertificate(seed, "other"),
    );
    const body = await expectProblem(res, 401);
    expect(body.errors[0]).toMatchObject({ path: "/xml", code: "certificate_not_trusted" });
  });

  it("a seed expires: past its lifetime it buys no token", async () => {
    const seed = await issueSeed(env, null, new Date(Date.now() - SEED_TTL_MS - 1000));
    const res = await postXml("/fe/autenticacion/api/validacioncertificado", await signOtherXml(seed));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("seed_not_usable");
  });

  it("GET semilla writes nothing; redeeming purges expired seeds and tokens", async () => {
    const count = async (table: string) =>
      (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
    const before = await count("receiver_seeds");
    for (let i = 0; i < 5; i++) expect((await call("/fe/autenticacion/api/semilla")).status).toBe(200);
    expect(await count("receiver_seeds")).toBe(before);

    const past = new Date(Date.now() - 60_000).toISOString();
    await env.DB.prepare(
      "INSERT INTO receiver_seeds (valor, company_id, expires_at, used_at) VALUES ('old-seed', NULL, ?, ?)",
    )
      .bind(past, past)
      .run();
    await env.DB.prepare(
      "INSERT INTO receiver_tokens (token_hash, company_id, holder, expires_at) VALUES ('old-token', NULL, 'x', ?)",
    )
      .bind(past)
      .run();
    const { res } = await token();
    expect(res.status).toBe(200);
    expect(await env.DB.prepare("SELECT 1 FROM receiver_seeds WHERE valor = 'old-seed'").first()).toBeNull();
    expect(await env.DB.prepare("SELECT 1 FROM receiver_tokens WHERE token_hash = 'old-token'").first()).toBeNull();
  });

  it("answers in XML when asked", async () => {
    const seed = await call("/fe/autenticacion/api/semilla").then((r) => r.text());
    const res = await postXml("/fe/autenticacion/api/validacioncertificado", await signOtherXml(seed), {
      Accept: "application/xml",
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^<\?xml[^>]*\?><RespuestaAutenticacion><token>[^<]+<\/token><expira>/);
  });

  it("a company that requires authentication refuses e-CF and ACECF without a valid token, and takes them with one", async () => {
    const { company, token: apiToken } = await receivingCompany();
    const put = await call("/receiver/settings", {
      method: "PUT",
      headers: authed(apiToken, { "Content-Type": "application/json" }),
      body: JSON.stringify({ requireAuthentication: true }),
    });
    expect(put.status).toBe(200);
    const signed = await signAsSupplier(supplierEcf("31", company.rnc).xml);
    expect((await postXml("/fe/recepcion/api/ecf", signed)).status).toBe(401);
    expect((await postXml("/fe/recepcion/api/ecf", signed, { Authorization: "Bearer not-a-token" })).status).toBe(401);

    const { res } = await token(`/${company.rnc}`);
    const { token: bearer } = (await res.json()) as { token: string };
    const { arecf } = await arecfOf(
      await postXml(`/${company.rnc}/fe/recepcion/api/ecf`, signed, { Authorization: `Bearer ${bearer}` }),
    );
    expect(arecf.Estado).toBe("0");

    // The commercial approval service demands it too.
    const acecf = await signAsSupplier(
      buildAcecf({
        RNCEmisor: company.rnc,
        eNCF: "E310000000777",
        FechaEmision: "01-04-2025",
        MontoTotal: "1.00",
        RNCComprador: "131880738",
        Estado: "1",
        FechaHoraAprobacionComercial: "02-04-2025 09:00:00",
      }),
    );
    expect((await postXml("/fe/aprobacioncomercial/api/ecf", acecf)).status).toBe(401);
    // With the token it gets past authentication (and fails on the unknown e-NCF instead).
    const withToken = await postXml(`/${company.rnc}/fe/aprobacioncomercial/api/ecf`, acecf, {
      Authorization: `Bearer ${bearer}`,
    });
    expect(withToken.status).toBe(400);
    expect(((await withToken.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("unknown_encf");

    // A token from the bare path is bound to no receiver: it opens none that requires authentication.
    const { res: bareRes } = await token();
    const { token: bareBearer } = (await bareRes.json()) as { token: string };
    const bare = await postXml("/fe/recepcion/api/ecf", await signAsSupplier(supplierEcf("31", company.rnc).xml), {
      Authorization: `Bearer ${bareBearer}`,
    });
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("token_other_receiver");
    expect(
      (
        await postXml(
          `/${company.rnc}/fe/recepcion/api/ecf`,
          await signAsSupplier(supplierEcf("31", company.rnc).xml),
          { Authorization: `Bearer ${bareBearer}` },
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await postXml(`/${company.rnc}/fe/aprobacioncomercial/api/ecf`, acecf, {
          Authorization: `Bearer ${bareBearer}`,
        })
      ).status,
    ).toBe(401);

    // A token bound to this receiver also works on the bare path (the document names the receiver).
    const { arecf: viaBare } = await arecfOf(
      await postXml("/fe/recepcion/api/ecf", await signAsSupplier(supplierEcf("31", company.rnc).xml), {
        Authorization: `Bearer ${bearer}`,
      }),
    );
    expect(viaBare).toMatchObject({ Estado: "0", RNCComprador: company.rnc });

    // Without a token the request is refused before its body is read: not even multipart is needed.
    for (const path of [`/${company.rnc}/fe/recepcion/api/ecf`, `/${company.rnc}/fe/aprobacioncomercial/api/ecf`]) {
      const unread = await call(path, {
        method: "POST",
        headers: { "Content-Type": "text/plain" },
        body: "not a document",
      });
      expect(unread.status).toBe(401);
      expect(((await unread.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("token_required");
    }

    // A token bound to another receiver does not open this one.
    const other = await receivingCompany();
    const { res: otherRes } = await token(`/${other.company.rnc}`);
    const { token: otherBearer } = (await otherRes.json()) as { token: string };
    const again = await signAsSupplier(supplierEcf("31", company.rnc).xml);
    expect((await postXml("/fe/recepcion/api/ecf", again, { Authorization: `Bearer ${otherBearer}` })).status).toBe(
      401,
    );
  });
});

describe("POST /fe/aprobacioncomercial/api/ecf", () => {
  async function issuedReceipt(companyId: string, rnc: string, encf: string) {
    const xmlKey = `${rnc}/2025/04/${encf}.xml`;
    await putReceipt({
      id: crypto.randomUUID(),
      companyId,
      encf,
      tipoeCF: "31",
      issueDate: "2025-04-01",
      rncComprador: "131880738",
      razonSocialComprador: "DGII",
      montoTotal: "1180.00",
      totalItbis: "180.00",
      securityCode: "AbC123",
      fechaHoraFirma: "01-04-2025 10:15:00",
      timbreUrl: "https://ecf.dgii.gov.do/testecf/consultatimbre",
      xmlKey,
      xmlSha256: "x",
      documentHash: "y",
      dgiiPath: "ecf",
      status: "accepted",
    });
  }
  async function acecf(rncEmisor: string, encf: string, overrides: Partial<Parameters<typeof buildAcecf>[0]> = {}) {
    const { key, der } = await supplierSigner();
    const { signEcfXml } = await import("@ecf/shared");
    const xml = buildAcecf({
      RNCEmisor: rncEmisor,
      eNCF: encf,
      FechaEmision: "01-04-2025",
      MontoTotal: "1180.00",
      RNCComprador: "131880738",
      Estado: "1",
      FechaHoraAprobacionComercial: "02-04-2025 09:00:00",
      ...overrides,
    });
    return signEcfXml(xml, key, der);
  }
  const approvalOf = async (id: string, encf: string) => {
    const row = await receiptRow(id, encf);
    return row && { s: row.approvalStatus, r: row.approvalReason };
  };

  it("registers an approval and a rejection with its reason; the receipt shows them", async () => {
    const { company } = await receivingCompany();
    await issuedReceipt(company.id, company.rnc, "E310000000101");
    await issuedReceipt(company.id, company.rnc, "E310000000102");
    const ok = await postXml("/fe/aprobacioncomercial/api/ecf", await acecf(company.rnc, "E310000000101"));
    expect(ok.status).toBe(200);
    expect(await approvalOf(company.id, "E310000000101")).toEqual({ s: "accepted", r: null });
    const no = await postXml(
      `/${company.rnc}/FE/AprobacionComercial/api/ecf`,
      await acecf(company.rnc, "E310000000102", { Estado: "2", DetalleMotivoRechazo: "Mercancía dañada" }),
    );
    expect(no.status).toBe(200);
    expect(await approvalOf(company.id, "E310000000102")).toEqual({ s: "rejected", r: "Mercancía dañada" });
    expect(await env.ARCHIVE.get(`${company.rnc}/2025/04/E310000000102.acecf.xml`)).not.toBeNull();
  });

  it("GET /fe/recepcion/ecf/{encf} shows the approval or the rejection with its reason and date", async () => {
    const { company, token } = await receivingCompany();
    await issuedReceipt(company.id, company.rnc, "E310000000111");
    await issuedReceipt(company.id, company.rnc, "E310000000112");
    await issuedReceipt(company.id, company.rnc, "E310000000113");
    const before = (await (await call("/fe/recepcion/ecf/E310000000113", { headers: authed(token) })).json()) as Record<
      string,
      unknown
    >;
    expect(before.encf).toBe("E310000000113");
    expect(before.aprobacionComercial).toBeUndefined();
    expect(
      (
        await postXml(
          "/fe/aprobacioncomercial/api/ecf",
          await acecf(company.rnc, "E310000000111", { FechaHoraAprobacionComercial: "03-04-2025 14:05:09" }),
        )
      ).status,
    ).toBe(200);
    const rejection = await acecf(company.rnc, "E310000000112", {
      Estado: "2",
      DetalleMotivoRechazo: "Precio distinto al pactado",
      FechaHoraAprobacionComercial: "04-04-2025 08:30:00",
    });
    expect((await postXml("/fe/aprobacioncomercial/api/ecf", rejection)).status).toBe(200);
    const accepted = await call("/fe/recepcion/ecf/E310000000111", { headers: authed(token) });
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as Record<string, unknown>).aprobacionComercial).toEqual({
      estado: "Aceptado",
      motivo: null,
      fechaHoraAprobacionComercial: "03-04-2025 14:05:09",
    });
    const rejected = (await (
      await call("/fe/recepcion/ecf/E310000000112", { headers: authed(token) })
    ).json()) as Record<string, unknown>;
    expect(rejected.aprobacionComercial).toEqual({
      estado: "Rechazado",
      motivo: "Precio distinto al pactado",
      fechaHoraAprobacionComercial: "04-04-2025 08:30:00",
    });
  });

  it("refuses an ACECF signed by a certificate no trusted authority issued, and it does not block the genuine one", async () => {
    const { company } = await receivingCompany();
    await issuedReceipt(company.id, company.rnc, "E310000000131");
    const forgedXml = buildAcecf({
      RNCEmisor: company.rnc,
      eNCF: "E310000000131",
      FechaEmision: "01-04-2025",
      MontoTotal: "1180.00",
      RNCComprador: "131880738",
      Estado: "2",
      DetalleMotivoRechazo: "Rechazo falso",
      FechaHoraAprobacionComercial: "02-04-2025 08:00:00",
    });
    const forged = await signWithSelfSignedCertificate(forgedXml);
    const body = await expectProblem(await postXml("/fe/aprobacioncomercial/api/ecf", forged), 400);
    expect(body.errors[0]).toMatchObject({ path: "/xml/Signature", code: "certificate_not_trusted" });
    expect(await approvalOf(company.id, "E310000000131")).toEqual({ s: null, r: null });
    expect((await postXml("/fe/aprobacioncomercial/api/ecf", await acecf(company.rnc, "E310000000131"))).status).toBe(
      200,
    );
    expect(await approvalOf(company.id, "E310000000131")).toEqual({ s: "accepted", r: null });
  });

  it("keeps the first ACECF of a receipt: a different second one is refused (409) and changes nothing; the same one again is a retry (200)", async () => {
    const { company } = await receivingCompany();
    await issuedReceipt(company.id, company.rnc, "E310000000121");
    const first = await acecf(company.rnc, "E310000000121");
    expect((await postXml("/fe/aprobacioncomercial/api/ecf", first)).status).toBe(200);
    const second = await acecf(company.rnc, "E310000000121", {
      Estado: "2",
      DetalleMotivoRechazo: "Cambio de opinión",
      FechaHoraAprobacionComercial: "05-04-2025 10:00:00",
    });
    const body = await expectProblem(await postXml("/fe/aprobacioncomercial/api/ecf", second), 409);
    expect(body.code).toBe("conflict");
    expect((body as unknown as { errors: { code: string }[] }).errors[0]!.code).toBe("duplicate_approval");
    expect(await approvalOf(company.id, "E310000000121")).toEqual({ s: "accepted", r: null });
    expect(await (await env.ARCHIVE.get(`${company.rnc}/2025/04/E310000000121.acecf.xml`))!.text()).toBe(first);
    const retry = await postXml("/fe/aprobacioncomercial/api/ecf", first);
    expect(retry.status).toBe(200);
    const retried = (await retry.json()) as Record<string, unknown>;
    expect(retried).toMatchObject({ estado: "Aceptado" });
    expect(retried).not.toHaveProperty("status");
  });

  it("refuses an ACECF whose RNCEmisor is not the receiver in the URL (wrong_receiver)", async () => {
    const { company } = await receivingCompany();
    const other = await receivingCompany();
    await issuedReceipt(company.id, company.rnc, "E310000000131");
    const res = await postXml(
      `/${other.company.rnc}/fe/aprobacioncomercial/api/ecf`,
      await acecf(company.rnc, "E310000000131"),
    );
    const body = (await expectProblem(res, 400)) as unknown as { errors: { code: string; path: string }[] };
    expect(body.errors[0]).toMatchObject({ code: "wrong_receiver", path: "/xml/DetalleAprobacionComercial/RNCEmisor" });
    expect((await approvalOf(company.id, "E310000000131"))!.s).toBeNull();
  });

  it.each(["32", "41", "43", "46", "47"])(
    "refuses an ACECF about a type %s e-CF (not exchanged between taxpayers)",
    async (tipo) => {
      const { company } = await receivingCompany();
      const res = await postXml("/fe/aprobacioncomercial/api/ecf", await acecf(company.rnc, `E${tipo}0000000141`));
      const body = (await expectProblem(res, 400)) as unknown as { errors: { code: string }[] };
      expect(body.errors[0]!.code).toBe("not_approvable");
    },
  );

  it.each([
    ["MontoTotal differs", { MontoTotal: "1180.01" }, "/xml/DetalleAprobacionComercial/MontoTotal"],
    ["FechaEmision differs", { FechaEmision: "02-04-2025" }, "/xml/DetalleAprobacionComercial/FechaEmision"],
    ["RNCComprador differs", { RNCComprador: "101010101" }, "/xml/DetalleAprobacionComercial/RNCComprador"],
    ["unknown eNCF", { eNCF: "E310000000999" }, "/xml/DetalleAprobacionComercial/eNCF"],
  ] as const)("refuses an ACECF whose %s (400) and leaves the receipt alone", async (_label, overrides, path) => {
    const { company } = await receivingCompany();
    await issuedReceipt(company.id, company.rnc, "E310000000201");
    const res = await postXml("/fe/aprobacioncomercial/api/ecf", await acecf(company.rnc, "E310000000201", overrides));
    const body = await expectProblem(res, 400);
    expect(body.errors.map((e) => e.path)).toContain(path);
    expect((await approvalOf(company.id, "E310000000201"))!.s).toBeNull();
  });

  it("refuses an unsigned, altered or malformed ACECF (400)", async () => {
    const { company } = await receivingCompany();
    await issuedReceipt(company.id, company.rnc, "E310000000301");
    const signed = await acecf(company.rnc, "E310000000301");
    await expectProblem(
      await postXml("/fe/aprobacioncomercial/api/ecf", signed.replace(/<Signature[\s\S]*<\/Signature>/, "")),
      400,
    );
    await expectProblem(
      await postXml("/fe/aprobacioncomercial/api/ecf", signed.replace("<Estado>1</Estado>", "<Estado>2</Estado>")),
      400,
    );
    await expectProblem(
      await postXml("/fe/aprobacioncomercial/api/ecf", signed.replace("<Version>1.0</Version>", "")),
      400,
    );
    await expectProblem(await postXml("/fe/aprobacioncomercial/api/ecf", "<ACECF><DetalleAprobacionComercial>"), 400);
    expect((await approvalOf(company.id, "E310000000301"))!.s).toBeNull();
  });
});

describe("throttle of the public receiver endpoints", () => {
  it("turns away an address whose requests keep failing (429, Retry-After), not the others; a success does not count", async () => {
    const { company } = await receivingCompany();
    const from = (address: string) => ({ "CF-Connecting-IP": address });
    // The address is one refusal short of the limit.
    await env.DB.prepare("INSERT INTO login_throttle (scope, failures, window_start) VALUES (?, ?, ?)")
      .bind("receiver-ip:203.0.113.7", MAX_RECEIVER_FAILURES_PER_ADDRESS - 2, new Date().toISOString())
      .run();
    const good = await signAsSupplier(supplierEcf("31", company.rnc).xml);
    expect((await arecfOf(await postXml("/fe/recepcion/api/ecf", good, from("203.0.113.7")))).arecf.Estado).toBe("0");
    const forged = await signWithSelfSignedCertificate(supplierEcf("31", company.rnc).xml);
    expect((await arecfOf(await postXml("/fe/recepcion/api/ecf", forged, from("203.0.113.7")))).arecf.Estado).toBe("1");
    expect((await postXml("/fe/autenticacion/api/validacioncertificado", "<no/>", from("203.0.113.7"))).status).toBe(
      400,
    );
    const turnedAway = await postXml("/fe/recepcion/api/ecf", good, from("203.0.113.7"));
    expect(turnedAway.status).toBe(429);
    expect(Number(turnedAway.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await call("/fe/autenticacion/api/semilla", { headers: from("203.0.113.7") })).status).toBe(429);
    // Another address is served.
    const other = await signAsSupplier(supplierEcf("31", company.rnc).xml);
    expect((await arecfOf(await postXml("/fe/recepcion/api/ecf", other, from("198.51.100.9")))).arecf.Estado).toBe("0");
  });
});

describe("OpenAPI", () => {
  it("documents the receiver, purchases, reports and PDF routes", async () => {
    const doc = (await (await call("/openapi.json")).json()) as { paths: Record<string, unknown> };
    for (const path of [
      "/fe/autenticacion/api/semilla",
      "/{rnc}/fe/autenticacion/api/validacioncertificado",
      "/fe/recepcion/api/ecf",
      "/{rnc}/fe/aprobacioncomercial/api/ecf",
      "/receiver/settings",
      "/compras/{id}/aprobacion",
      "/reports/encf",
      "/reports/compras",
      "/reports/errores",
      "/fe/recepcion/ecf/{encf}/pdf",
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
  });
});
