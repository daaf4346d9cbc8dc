// The public validator, POST /validate, on documents issued here (signed by the issuer's
// certificate, accepted by the DGII sandbox) and on the same documents broken the ways DGII
// rejects them: each problem is reported with its DGII rule, every problem in one answer.
import { buildRfceFromSignedEcf, TIPOS_ECF } from "@ecf/shared";
import { beforeAll, describe, expect, it } from "vitest";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issue, issueRequest, issuer } from "./support/issuing.ts";

type Json = Record<string, any>;
let token: string;
let rnc: string;

beforeAll(async () => {
  const created = await issuer();
  token = created.token;
  rnc = created.company.rnc;
});

async function issuedXml(tipo: string): Promise<{ encf: string; xml: string }> {
  const { status, body } = await issue(token, issueRequest(tipo as (typeof TIPOS_ECF)[number]));
  expect(status, JSON.stringify(body)).toBe(200);
  const xml = await (await call(`/fe/recepcion/ecf/${body.encf}/xml`, { headers: authed(token) })).text();
  return { encf: body.encf, xml };
}

async function validate(xml: string, filename?: string): Promise<{ status: number; body: Json }> {
  const form = new FormData();
  form.set("xml", new File([xml], filename ?? "documento.xml", { type: "application/xml" }));
  if (filename) form.set("filename", filename);
  const res = await call("/validate", { method: "POST", body: form });
  return { status: res.status, body: (await res.json()) as Json };
}

const codes = (body: Json) => (body.problems as Json[]).map((p) => p.code);

describe("POST /validate", () => {
  it.each(TIPOS_ECF.map((t) => [t]))("accepts a valid signed E%s, named as DGII asks", async (tipo) => {
    const { encf, xml } = await issuedXml(tipo);
    const { status, body } = await validate(xml, `${rnc}${encf}.xml`);
    expect(status).toBe(200);
    expect(body.problems.filter((p: Json) => p.severity === "error")).toEqual([]);
    expect(body).toMatchObject({ valid: true, kind: tipo });
    expect(body.timbre.codigoSeguridad).toMatch(/^.{6}$/);
  });

  it("a tampered amount: the signature no longer verifies, and the totals do not add up", async () => {
    const { xml } = await issuedXml("31");
    const total = /<MontoTotal>([^<]+)<\/MontoTotal>/.exec(xml)![1]!;
    const tampered = xml.replace(
      `<MontoTotal>${total}</MontoTotal>`,
      `<MontoTotal>${(Number(total) + 100).toFixed(2)}</MontoTotal>`,
    );
    const { body } = await validate(tampered);
    expect(body.valid).toBe(false);
    const signature = body.problems.find((p: Json) => p.code.startsWith("signature_"));
    expect(signature).toMatchObject({ path: "/xml/Signature", rule: expect.stringContaining("Firmado de XML") });
    const totals = body.problems.find((p: Json) => p.path === "/xml/Encabezado/Totales/MontoTotal");
    expect(totals, JSON.stringify(body.problems)).toMatchObject({
      severity: "error",
      rule: expect.stringMatching(/\S/),
    });
    expect(totals.messageEs).toMatch(/\S/);
  });

  it("a broken signature is reported, in English and Spanish, with its rule", async () => {
    const { xml } = await issuedXml("32");
    const value = /<SignatureValue>([^<]{10})/.exec(xml)![1]!;
    const broken = xml.replace(value, value.startsWith("A") ? `B${value.slice(1)}` : `A${value.slice(1)}`);
    const { body } = await validate(broken);
    expect(body.valid).toBe(false);
    expect(body.problems).toContainEqual(
      expect.objectContaining({
        code: "signature_bad_signature_value",
        messageEs: expect.stringContaining("La firma digital no verifica"),
        rule: expect.stringContaining("descripcion-tecnica"),
      }),
    );
  });

  it("a missing required field and an E31 without the buyer's RNC: each with its DGII rule, all at once", async () => {
    const { xml } = await issuedXml("31");
    const broken = xml
      .replace(/<TipoIngresos>[^<]*<\/TipoIngresos>/, "")
      .replace(/<RNCComprador>[^<]*<\/RNCComprador>/, "");
    const { body } = await validate(broken);
    expect(body.valid).toBe(false);
    const xsd = (body.problems as Json[])
      .filter((p) => p.code === "xsd")
      .map((p) => p.message)
      .join("\n");
    expect(xsd).toMatch(/TipoIngresos|RNCComprador/);
    expect(body.problems).toContainEqual(
      expect.objectContaining({
        path: "/xml/Encabezado/IdDoc/TipoIngresos",
        rule: expect.stringContaining("TipoIngresos"),
      }),
    );
    expect(body.problems).toContainEqual(
      expect.objectContaining({
        path: "/xml/Encabezado/Comprador/RNCComprador",
        rule: expect.stringContaining("RNCComprador"),
      }),
    );
    expect(codes(body)).toContain("signature_digest_mismatch");
  });

  it("names the file DGII's way, and refuses what is not a DGII document, too large, or no file", async () => {
    const { encf, xml } = await issuedXml("31");
    const misnamed = await validate(xml, "factura.xml");
    expect(misnamed.body.problems).toContainEqual(
      expect.objectContaining({
        path: "/filename",
        code: "file_name",
        message: expect.stringContaining(`${rnc}${encf}.xml`),
      }),
    );
    const other = await validate("<Factura><Total>1</Total></Factura>");
    expect(other.body).toMatchObject({
      valid: false,
      kind: null,
      problems: [expect.objectContaining({ code: "unknown_format" })],
    });
    const huge = await validate(`<ECF>${"x".repeat(1024 * 1024 + 1)}</ECF>`);
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("payload_too_large");
    const none = await call("/validate", { method: "POST", body: new FormData() });
    expect(none.status).toBe(400);
    expect(((await none.json()) as Json).errors[0]).toMatchObject({ path: "/xml", code: "required" });
  });
});

describe("POST /validate: an RFCE and its E32", () => {
  it("an RFCE that copies its E32 is bound to it; one with another amount is not", async () => {
    const { xml: e32 } = await issuedXml("32");
    const rfce = buildRfceFromSignedEcf(e32);
    const send = async (summary: string) => {
      const form = new FormData();
      form.set("xml", new File([summary], "rfce.xml"));
      form.set("ecf", new File([e32], "e32.xml"));
      return (await (await call("/validate", { method: "POST", body: form })).json()) as Json;
    };
    const bound = await send(rfce);
    expect(bound.kind).toBe("RFCE");
    expect(codes(bound)).not.toContain("rfce_mismatch");
    const total = /<MontoTotal>([^<]+)<\/MontoTotal>/.exec(rfce)![1]!;
    const other = await send(rfce.replace(`<MontoTotal>${total}</MontoTotal>`, "<MontoTotal>1.00</MontoTotal>"));
    expect(other.valid).toBe(false);
    expect(other.problems).toContainEqual(
      expect.objectContaining({
        code: "rfce_mismatch",
        path: "/xml/Encabezado/Totales/MontoTotal",
        rule: expect.stringContaining("formato-rfce"),
      }),
    );
  });
});
