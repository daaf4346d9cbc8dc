// verifyXml's fast path (fast-verify.ts) proves exactly what the full path proves: it accepts
// only documents the full path (DOM, C14N, xmldsigjs) accepts too, and leaves everything else,
// valid or not, to the full path.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { signEcfXml } from "../src/signing/fast-signer.ts";
import { fastVerify } from "../src/signing/fast-verify.ts";
import { verifyXml, verifyXmlFully } from "../src/signing/verify.ts";
import { signXml } from "../src/signing/xmldsig-signer.ts";
import { testIdentity, type TestIdentity } from "./support/certs.ts";
import { DGII_KIT } from "./support/kit.ts";

const stripSignature = (xml: string) => xml.replace(/<Signature[\s>][\s\S]*<\/Signature>/, "");
const unsignedSample = stripSignature(
  readFileSync(`${DGII_KIT}/samples/dgii-ecf/130359334E310000008928_ecf31_signed.xml`, "utf8"),
);

let id: TestIdentity;
let signed: string;
beforeAll(async () => {
  id = await testIdentity();
  signed = await signEcfXml(unsignedSample, id.privateKey, id.certificateDer);
});

describe("fastVerify", () => {
  it("proves a document in the fast signer's shape, with the same certificate the full path reads", async () => {
    const fast = await fastVerify(signed);
    expect(fast).not.toBeNull();
    const full = await verifyXmlFully(signed);
    expect(full.ok).toBe(true);
    if (full.ok) expect(fast).toEqual(full.certificate);
  });

  it("agrees with the full path on documents signed elsewhere (xmldsigjs, DGII's samples)", async () => {
    const documents = [
      await signXml(unsignedSample, id.privateKey, id.certificateDer),
      ...[
        "130359334E310000008928_ecf31_signed.xml",
        "130862346E310005000201_ecf31_signed.xml",
        "semilla_signed.xml",
        "arecf_signed.xml",
      ].map((f) => readFileSync(`${DGII_KIT}/samples/dgii-ecf/${f}`, "utf8")),
    ];
    for (const xml of documents) {
      const full = await verifyXmlFully(xml);
      expect(full.ok).toBe(true);
      const fast = await fastVerify(xml);
      if (fast && full.ok) expect(fast).toEqual(full.certificate);
      expect((await verifyXml(xml)).ok).toBe(true);
    }
  });

  it("leaves a valid signature shipped indented (DGII's seed sample) to the full path", async () => {
    const indented = readFileSync(`${DGII_KIT}/samples/dgii-ecf/semilla_signed.xml`, "utf8");
    expect(await fastVerify(indented)).toBeNull();
    expect(await verifyXml(indented)).toMatchObject({ ok: true, whitespaceNormalized: true });
  });

  // Each mutation of a valid document: the fast path never accepts what the full path refuses.
  const mutations: Array<[string, (xml: string) => string]> = [
    ["a changed amount", (xml) => xml.replace(/<MontoTotal>([^<]*)<\/MontoTotal>/, "<MontoTotal>1$1</MontoTotal>")],
    [
      "a changed DigestValue",
      (xml) => xml.replace(/<DigestValue>(.)/, (_m, c: string) => `<DigestValue>${c === "A" ? "B" : "A"}`),
    ],
    [
      "a changed SignatureValue",
      (xml) => xml.replace(/<SignatureValue>(.)/, (_m, c: string) => `<SignatureValue>${c === "A" ? "B" : "A"}`),
    ],
    [
      "the Signature moved into a child element",
      (xml) => {
        const signature = /<Signature [\s\S]*<\/Signature>/.exec(xml)![0];
        return xml.replace(signature, "").replace("</Encabezado>", `${signature}</Encabezado>`);
      },
    ],
    ["a second element after the Signature", (xml) => xml.replace("</Signature>", "</Signature><Extra>1</Extra>")],
    ["a comment in the content", (xml) => xml.replace("</Encabezado>", "<!-- x --></Encabezado>")],
    ["an attribute on an element", (xml) => xml.replace("<Encabezado>", '<Encabezado a="1">')],
    [
      "a second Signature",
      (xml) => xml.replace("</Signature>", "</Signature>" + /<Signature [\s\S]*<\/Signature>/.exec(xml)![0]),
    ],
    ["line breaks inside SignatureValue", (xml) => xml.replace(/<SignatureValue>(.{20})/, "<SignatureValue>$1\n")],
    ["whitespace between elements", (xml) => xml.replace("<Encabezado>", "<Encabezado>\n  ")],
    [
      "an escaped character written another way",
      (xml) => xml.replace(/<RazonSocialEmisor>([^<]*)</, "<RazonSocialEmisor>$1&#65;<"),
    ],
  ];
  it.each(mutations)("%s: accepted by the fast path only if the full path accepts it", async (_label, mutate) => {
    const xml = mutate(signed);
    expect(xml).not.toBe(signed);
    const fast = await fastVerify(xml);
    const full = await verifyXmlFully(xml);
    if (fast) expect(full.ok).toBe(true);
    // And verifyXml answers as the full path does.
    expect((await verifyXml(xml)).ok).toBe(full.ok);
  });

  it("tampered content is refused and named by the full path (digest_mismatch)", async () => {
    const tampered = signed.replace(/<MontoTotal>([^<]*)<\/MontoTotal>/, "<MontoTotal>9$1</MontoTotal>");
    expect(await fastVerify(tampered)).toBeNull();
    expect(await verifyXml(tampered)).toMatchObject({ ok: false, reason: "digest_mismatch" });
  });
});
