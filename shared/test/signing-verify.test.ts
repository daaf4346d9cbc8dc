// verifyXml: real DGII documents verify, every kind of tampering is caught and named.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { signEcfXml } from "../src/signing/fast-signer.ts";
import { verifyXml, type VerifyFailureReason } from "../src/signing/verify.ts";
import { signXml } from "../src/signing/xmldsig-signer.ts";
import { createTestIdentity, testIdentity, xmlsecSign, type TestIdentity } from "./support/certs.ts";
import { DGII_KIT } from "./support/kit.ts";

const SAMPLES = `${DGII_KIT}/samples`;
const read = (path: string) => readFileSync(`${SAMPLES}/${path}`, "utf8");
const stripSignature = (xml: string) => xml.replace(/<Signature[\s>][\s\S]*<\/Signature>/, "");

let id: TestIdentity;
let other: TestIdentity;
let signed: string;
beforeAll(async () => {
  id = await testIdentity();
  other = await createTestIdentity({ rnc: "101010101", commonName: "OTRA EMPRESA SRL" });
  signed = await signEcfXml(
    stripSignature(read("dgii-ecf/130359334E310000008928_ecf31_signed.xml")),
    id.privateKey,
    id.certificateDer,
  );
});

describe("verifyXml accepts", () => {
  const samples: Array<[string, string, string, boolean]> = [
    // file, holder id, subject serialNumber, signed compact but shipped indented
    ["dgii-ecf/130359334E310000008928_ecf31_signed.xml", "05500147813", "IDCDO-05500147813", false],
    ["dgii-ecf/130862346E310005000201_ecf31_signed.xml", "05500147813", "IDCDO-05500147813", false],
    ["dgii-ecf/semilla_signed.xml", "05500147813", "IDCDO-05500147813", true],
    ["dgii-ecf/arecf_signed.xml", "00199999996", "IDCDO-00199999996", true],
  ];
  it.each(samples)("the real DGII document %s", async (file, holderId, serialNumber, normalized) => {
    const result = await verifyXml(read(file));
    expect(result).toMatchObject({
      ok: true,
      whitespaceNormalized: normalized,
      certificate: { holderId, serialNumber },
    });
  });

  it("our own signatures, with the signer's certificate", async () => {
    const result = await verifyXml(signed);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.certificate).toMatchObject({
      serialNumber: `RNC-${id.rnc}`,
      holderId: id.rnc,
      certificateSerial: id.rnc,
      subject: `CN=${id.commonName}, SERIALNUMBER=RNC-${id.rnc}, O=${id.commonName}, C=DO`,
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2028-01-01T00:00:00Z"),
    });
    expect(result.certificate.der).toEqual(id.certificateDer);
  });

  it("signXml output, and the same document re-indented (as DGII verifies)", async () => {
    const seed = await signXml(read("dgii-ecf/semilla_dgii_response.xml"), id.privateKey, id.certificateDer);
    expect(await verifyXml(seed)).toMatchObject({ ok: true, whitespaceNormalized: false });
    const indented = seed.replace(/></g, ">\n  <");
    expect(await verifyXml(indented)).toMatchObject({ ok: true, whitespaceNormalized: true });
  });
});

describe("verifyXml accepts signatures made by xmlsec1 (an independent signer)", () => {
  const template = (prefix: string) => {
    const p = prefix ? `${prefix}:` : "";
    const ns = prefix ? `xmlns:${prefix}` : "xmlns";
    return (
      `<?xml version="1.0" encoding="UTF-8"?>\n<ECF><Encabezado><Version>1.0</Version><RazonSocialEmisor>Peña &amp; Hijos</RazonSocialEmisor></Encabezado>` +
      `<${p}Signature ${ns}="http://www.w3.org/2000/09/xmldsig#"><${p}SignedInfo>` +
      `<${p}CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>` +
      `<${p}SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>` +
      `<${p}Reference URI=""><${p}Transforms><${p}Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/></${p}Transforms>` +
      `<${p}DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><${p}DigestValue/></${p}Reference></${p}SignedInfo>` +
      `<${p}SignatureValue/><${p}KeyInfo><${p}X509Data><${p}X509Certificate/></${p}X509Data></${p}KeyInfo></${p}Signature></ECF>`
    );
  };
  it.each([
    ["unprefixed", ""],
    ["ds: prefixed", "ds"],
  ])("%s", async (_name, prefix) => {
    const signedByXmlsec = xmlsecSign(template(prefix), id);
    expect(signedByXmlsec).toContain(`<${prefix ? "ds:" : ""}SignatureValue>`);
    expect(await verifyXml(signedByXmlsec)).toMatchObject({ ok: true, certificate: { holderId: id.rnc } });
    expect(await verifyXml(signedByXmlsec.replace("Hijos", "Hijas"))).toMatchObject({
      ok: false,
      reason: "digest_mismatch",
    });
  });
});

describe("verifyXml detects any change", () => {
  it("to any content byte", async () => {
    const start = signed.indexOf("<ECF>");
    const end = signed.indexOf("<Signature ");
    let checked = 0;
    // Every byte of the signed content, each changed on its own.
    for (let i = start; i < end; i++) {
      const replacement = signed[i] === "A" ? "B" : "A";
      const tampered = signed.slice(0, i) + replacement + signed.slice(i + 1);
      const result = await verifyXml(tampered);
      expect(result.ok, `byte ${i} (${signed.slice(i - 10, i + 10)})`).toBe(false);
      checked++;
    }
    expect(checked).toBe(end - start);
  });

  it.each([
    ["DigestValue", "digest_mismatch"],
    ["SignatureValue", "bad_signature_value"],
  ] as const)("to any character of the %s", async (element, reason) => {
    const open = signed.indexOf(`<${element}>`) + element.length + 2;
    const close = signed.indexOf(`</${element}>`);
    for (let i = open; i < close; i++) {
      if (signed[i] === "=") continue;
      const replacement = signed[i] === "A" ? "B" : "A";
      const result = await verifyXml(signed.slice(0, i) + replacement + signed.slice(i + 1));
      expect(result, `position ${i - open}`).toMatchObject({ ok: false, reason });
    }
  });
});

describe("verifyXml names the reason", () => {
  const RSA_SHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1";
  const cases: Array<[VerifyFailureReason, string, () => Promise<string> | string]> = [
    ["no_signature", "an unsigned document", () => stripSignature(signed)],
    ["multiple_signatures", "two signatures", () => signed.replace(/(<Signature [\s\S]*<\/Signature>)/, "$1$1")],
    ["digest_mismatch", "changed content", () => signed.replace("<TipoPago>2</TipoPago>", "<TipoPago>1</TipoPago>")],
    [
      "bad_signature_value",
      "the signature value of another document",
      async () => {
        const another = await signEcfXml(`<ECF><A>1</A></ECF>`, id.privateKey, id.certificateDer);
        return signed.replace(/<SignatureValue>[^<]*/, /<SignatureValue>[^<]*/.exec(another)![0]);
      },
    ],
    [
      "bad_signature_value",
      "another holder's certificate in KeyInfo",
      () => {
        const base64 = Buffer.from(other.certificateDer).toString("base64");
        return signed.replace(/<X509Certificate>[^<]*/, `<X509Certificate>${base64}`);
      },
    ],
    [
      "bad_signature_value",
      "a SignatureValue that is not base64",
      () => signed.replace(/<SignatureValue>[^<]*/, "<SignatureValue>!!!"),
    ],
    [
      "unsupported_algorithm",
      "RSA-SHA1",
      () => signed.replace("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256", RSA_SHA1),
    ],
    [
      "unsupported_algorithm",
      "SHA-1 digest",
      () => signed.replace("http://www.w3.org/2001/04/xmlenc#sha256", "http://www.w3.org/2000/09/xmldsig#sha1"),
    ],
    [
      "unsupported_algorithm",
      "exclusive C14N",
      () =>
        signed.replace(
          /CanonicalizationMethod Algorithm="[^"]*"/,
          `CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"`,
        ),
    ],
    [
      "unsupported_algorithm",
      "an XPath transform",
      () =>
        signed.replace(
          "http://www.w3.org/2000/09/xmldsig#enveloped-signature",
          "http://www.w3.org/TR/1999/REC-xpath-19991116",
        ),
    ],
    ["missing_key_info", "no KeyInfo", () => signed.replace(/<KeyInfo>[\s\S]*<\/KeyInfo>/, "")],
    [
      "missing_key_info",
      "a KeyValue instead of a certificate",
      () => signed.replace(/<X509Data>[\s\S]*<\/X509Data>/, "<KeyName>k</KeyName>"),
    ],
    ["malformed", "not XML", () => "<ECF><A>1</ECF>"],
    [
      "malformed",
      "a DOCTYPE (entities are never expanded)",
      () => `<!DOCTYPE ECF [<!ENTITY x "1">]>` + signed.replace(/^<\?xml[^>]*>/, ""),
    ],
    [
      "malformed",
      "a Signature that is not the root's child",
      () =>
        signed
          .replace(/(<Signature [\s\S]*<\/Signature>)/, "")
          .replace("<Encabezado>", "<Encabezado>" + /<Signature [\s\S]*<\/Signature>/.exec(signed)![0]),
    ],
    ["malformed", "a Reference to a fragment", () => signed.replace(`<Reference URI="">`, `<Reference URI="#x">`)],
    [
      "malformed",
      "a certificate that is not DER",
      () => signed.replace(/<X509Certificate>[^<]*/, "<X509Certificate>AAAA"),
    ],
  ];
  it.each(cases)("%s: %s", async (reason, _name, make) => {
    const result = await verifyXml(await make());
    expect(result).toMatchObject({ ok: false, reason });
    if (!result.ok) expect(result.message.length).toBeGreaterThan(5);
  });
});
