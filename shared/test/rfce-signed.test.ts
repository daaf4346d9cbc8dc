// The RFCE built from a really signed E32: its CodigoSeguridadeCF is that signature's code, its
// content the E32's as signed, and the RFCE is valid against the official XSD (unsigned, and
// once signed itself).
import { beforeAll, describe, expect, it } from "vitest";
import { buildRfce, buildRfceFromSignedEcf, parseRfce, rfceFromEcf } from "../src/documents/rfce.ts";
import { DocumentBuildError } from "../src/documents/build.ts";
import { signEcfXml } from "../src/signing/fast-signer.ts";
import { securityCode } from "../src/signing/timbre.ts";
import { ecfToXml } from "../src/xml/serialize.ts";
import { xmlToEcf } from "../src/xml/parse.ts";
import { validateXsdMany } from "../src/xml/xsd-validate.ts";
import { makeEcf } from "./support/ecf-factories.ts";
import { createTestIdentity, type TestIdentity } from "./support/certs.ts";

let identity: TestIdentity;
const sign = (xml: string) => signEcfXml(xml, identity.privateKey, identity.certificateDer);
/** Read independently of securityCode: the SignatureValue text, first 6 characters. */
const signatureValueHead = (xml: string) => /<SignatureValue>([^<]+)<\/SignatureValue>/.exec(xml)![1]!.slice(0, 6);

beforeAll(async () => {
  identity = await createTestIdentity();
});

const e32s = [
  ["1 line", makeEcf("32", { lines: 1 })],
  ["20 lines, other currency, text needing escapes", makeEcf("32", { lines: 20, otraMoneda: true, trickyText: true })],
] as const;

describe("buildRfceFromSignedEcf", () => {
  it.each(e32s)("E32 %s: CodigoSeguridadeCF is the signature's code, the content the E32's", async (_name, e32) => {
    const signed = await sign(ecfToXml(e32));
    const rfceXml = buildRfceFromSignedEcf(signed);
    const rfce = parseRfce(rfceXml);
    expect(rfce.Encabezado.CodigoSeguridadeCF).toBe(securityCode(signed));
    expect(rfce.Encabezado.CodigoSeguridadeCF).toBe(signatureValueHead(signed));
    // Same bytes as the JSON builder given the same E32 and code.
    expect(rfceXml).toBe(buildRfce({ ecf: xmlToEcf(signed), CodigoSeguridadeCF: signatureValueHead(signed) }));
    expect(rfce).toEqual(rfceFromEcf({ ecf: e32, CodigoSeguridadeCF: signatureValueHead(signed) }));
  });

  it("two signatures (two keys) give two codes", async () => {
    const other = await createTestIdentity({ rnc: "130862346" });
    const xml = ecfToXml(e32s[0][1]);
    const a = buildRfceFromSignedEcf(await sign(xml));
    const b = buildRfceFromSignedEcf(await signEcfXml(xml, other.privateKey, other.certificateDer));
    expect(parseRfce(a).Encabezado.CodigoSeguridadeCF).not.toBe(parseRfce(b).Encabezado.CodigoSeguridadeCF);
  });

  it("the RFCE is valid against the official XSD, unsigned and signed", async () => {
    const rfces = await Promise.all(e32s.map(async ([, e32]) => buildRfceFromSignedEcf(await sign(ecfToXml(e32)))));
    const signed = await Promise.all(rfces.map(sign));
    const [a, b] = await Promise.all([
      validateXsdMany(rfces, "RFCE", { requireSignature: false }),
      validateXsdMany(signed, "RFCE", { requireSignature: true }),
    ]);
    expect([...a, ...b]).toEqual([...rfces, ...signed].map(() => ({ valid: true, errors: [] })));
  });

  it.each<[string, () => Promise<string>, RegExp]>([
    ["an unsigned E32", async () => ecfToXml(makeEcf("32")), /not signed/],
    ["a signed E31", async () => sign(ecfToXml(makeEcf("31"))), /under DOP/],
    [
      "a signed E32 of DOP 250,000 or more",
      async () => sign(ecfToXml(makeEcf("32", { highValue: true }))),
      /under DOP/,
    ],
  ])("refuses %s", async (_name, xml, message) => {
    const input = await xml();
    expect(() => buildRfceFromSignedEcf(input)).toThrow(DocumentBuildError);
    expect(() => buildRfceFromSignedEcf(input)).toThrow(message);
  });
});
