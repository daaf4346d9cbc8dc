// The fast signer against its oracles: xmldsigjs must produce byte-identical DigestValue and
// SignatureValue on the same input and key (RSA PKCS#1 v1.5 is deterministic), and xmlsec1 must
// accept the output.
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { NotCanonicalError, type NotCanonicalCode } from "../src/signing/canonical-check.ts";
import { signEcfXml } from "../src/signing/fast-signer.ts";
import { signXml } from "../src/signing/xmldsig-signer.ts";
import { verifyXml } from "../src/signing/verify.ts";
import { parseXml } from "../src/signing/xml-dom.ts";
import { configureXmldsig, xmldsig } from "../src/signing/xmldsig-setup.ts";
import { createTestIdentity, testIdentity, xmlsecVerify, type TestIdentity } from "./support/certs.ts";
import { DGII_KIT } from "./support/kit.ts";

execFileSync("node", [new URL("../../scripts/require-tools.mjs", import.meta.url).pathname, "xmlsec1"], {
  stdio: "inherit",
});

const SAMPLES = `${DGII_KIT}/samples`;
const stripSignature = (xml: string) => xml.replace(/<Signature[\s>][\s\S]*<\/Signature>/, "");
const compact = (xml: string) => xml.replace(/>\s+</g, "><").trim();
const sample = (path: string) => stripSignature(readFileSync(`${SAMPLES}/${path}`, "utf8"));

/** C14N 1.0 text escaping, as our serializer writes text. */
const escapeText = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r/g, "&#xD;");

function generatedEcf(texts: string[]): string {
  const items = texts
    .map(
      (t, i) =>
        `<Item><NumeroLinea>${i + 1}</NumeroLinea><NombreItem>${escapeText(t)}</NombreItem><MontoItem>100.00</MontoItem></Item>`,
    )
    .join("");
  return (
    `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF>` +
    `<eNCF>E310000000001</eNCF></IdDoc><Emisor><RNCEmisor>131880738</RNCEmisor>` +
    `<RazonSocialEmisor>${escapeText("Peña & Asociados <S.R.L.> \"el 'mejor'\"")}</RazonSocialEmisor></Emisor></Encabezado>` +
    `<DetallesItems>${items}</DetallesItems><FechaHoraFirma>15-07-2026 05:07:00</FechaHoraFirma></ECF>`
  );
}

const field = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

async function xmldsigjsSignature(xml: string, key: CryptoKey): Promise<{ digest: string; signature: string }> {
  configureXmldsig();
  const signed = new xmldsig.SignedXml();
  await signed.Sign({ name: "RSASSA-PKCS1-v1_5" }, key, parseXml(xml), {
    references: [{ hash: "SHA-256", transforms: ["enveloped"], uri: "" }],
  });
  const out = signed.toString();
  return { digest: field(out, "DigestValue")!, signature: field(out, "SignatureValue")! };
}

let id: TestIdentity;
beforeAll(async () => {
  id = await testIdentity();
});

const documents: Array<[string, () => string]> = [
  ["e-CF 31 (DGII sample, 130359334)", () => sample("dgii-ecf/130359334E310000008928_ecf31_signed.xml")],
  ["e-CF 31 (DGII sample, 130862346)", () => sample("dgii-ecf/130862346E310005000201_ecf31_signed.xml")],
  ["e-CF 32, 16 KB (sample)", () => sample("xml/E320000000243.xml")],
  ["e-CF 32 certification case 26", () => sample("xml/cert_test_26_E320000000341.xml")],
  [
    "RFCE 32 (sample, made compact)",
    () =>
      compact(sample("dgii-ecf/rfce32_unsigned.xml")).replace(
        "<CodigoSeguridadeCF/>",
        "<CodigoSeguridadeCF>abc123</CodigoSeguridadeCF>",
      ),
  ],
  [
    "every escape: & < > \" ' accents ñ emoji CR LF tab",
    () =>
      generatedEcf([
        "a & b",
        "x < y > z",
        `"quoted" and 'single'`,
        "áéíóú ÁÉÍÓÚ ü ñ Ñ ¿¡",
        "emoji 😀🇩🇴",
        "cr\rlf\ntab\tend",
        "crlf\r\nend",
        "]]> and &amp; literally",
        " leading and trailing ",
      ]),
  ],
  [
    "no XML declaration",
    () =>
      `<ARECF><DetalleAcusedeRecibo><Version>1.0</Version><RNCEmisor>131880738</RNCEmisor><Estado>0</Estado></DetalleAcusedeRecibo></ARECF>`,
  ],
  [
    "declaration, then a newline",
    () => `<?xml version="1.0" encoding="UTF-8"?>\n<ANECF><Encabezado><Version>1.0</Version></Encabezado></ANECF>`,
  ],
];

describe("signEcfXml matches xmldsigjs and xmlsec1", () => {
  it.each(documents)("%s", async (_name, make) => {
    const xml = make();
    const fast = await signEcfXml(xml, id.privateKey, id.certificateDer);
    const oracle = await xmldsigjsSignature(xml, id.privateKey);
    expect(field(fast, "DigestValue")).toBe(oracle.digest);
    expect(field(fast, "SignatureValue")).toBe(oracle.signature);

    const verdict = xmlsecVerify(fast, id.certificatePem);
    expect(verdict.output).toBe("");
    expect(verdict.ok).toBe(true);

    // The signature is the root's last child and the input is untouched before it.
    const at = fast.indexOf("<Signature ");
    expect(fast.slice(0, at)).toBe(xml.slice(0, at));
    expect(fast.slice(fast.indexOf("</Signature>") + "</Signature>".length)).toBe(xml.slice(at));
  });

  it("writes the whole document exactly as the xmldsigjs signer does", async () => {
    for (const [, make] of documents) {
      const xml = make();
      if (!xml.startsWith("<?xml") || xml.includes("?>\n")) continue; // signXml normalises the declaration
      expect(await signEcfXml(xml, id.privateKey, id.certificateDer)).toBe(
        await signXml(xml, id.privateKey, id.certificateDer),
      );
    }
  });

  it("is refused by xmlsec1 when another certificate is trusted", async () => {
    const other = await createTestIdentity({ rnc: "101010101" });
    const fast = await signEcfXml(documents[0]![1](), id.privateKey, id.certificateDer);
    expect(xmlsecVerify(fast, other.certificatePem).ok).toBe(false);
  });

  it("writes the DGII signature shape: unprefixed, KeyInfo with only the certificate", async () => {
    const fast = await signEcfXml(documents[0]![1](), id.privateKey, id.certificateDer);
    const signature = fast.slice(fast.indexOf("<Signature "));
    expect(signature).toMatch(
      /^<Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#"><SignedInfo><CanonicalizationMethod Algorithm="http:\/\/www\.w3\.org\/TR\/2001\/REC-xml-c14n-20010315"\/><SignatureMethod Algorithm="http:\/\/www\.w3\.org\/2001\/04\/xmldsig-more#rsa-sha256"\/><Reference URI=""><Transforms><Transform Algorithm="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#enveloped-signature"\/><\/Transforms><DigestMethod Algorithm="http:\/\/www\.w3\.org\/2001\/04\/xmlenc#sha256"\/><DigestValue>[A-Za-z0-9+/]{43}=<\/DigestValue><\/Reference><\/SignedInfo><SignatureValue>[A-Za-z0-9+/]{342}==<\/SignatureValue><KeyInfo><X509Data><X509Certificate>[A-Za-z0-9+/=]+<\/X509Certificate><\/X509Data><\/KeyInfo><\/Signature><\/ECF>$/,
    );
    expect(fast).not.toContain("ds:");
  });
});

describe("signEcfXml refuses input it cannot sign correctly", () => {
  const ok = (inner: string) => `<ECF><A>${inner}</A></ECF>`;
  const cases: Array<[NotCanonicalCode, string]> = [
    ["byte_order_mark", "\uFEFF<ECF><A>1</A></ECF>"],
    ["xml_declaration", `<?xml version="1.0" encoding="ISO-8859-1"?><ECF><A>1</A></ECF>`],
    ["xml_declaration", `<?xml version="1.1"?><ECF><A>1</A></ECF>`],
    ["doctype", `<!DOCTYPE ECF [<!ENTITY x "y">]><ECF><A>&x;</A></ECF>`],
    ["doctype", `<ECF><!DOCTYPE x><A>1</A></ECF>`],
    ["comment", `<ECF><!-- note --><A>1</A></ECF>`],
    ["comment", `<!-- before --><ECF><A>1</A></ECF>`],
    ["processing_instruction", `<ECF><?pi data?><A>1</A></ECF>`],
    ["cdata", ok("<![CDATA[a & b]]>")],
    ["attribute", `<ECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><A>1</A></ECF>`],
    ["attribute", `<ECF><A id="1">1</A></ECF>`],
    ["attribute", `<ECF xmlns="urn:x"><A>1</A></ECF>`],
    ["namespace_prefix", `<ECF><x:A>1</x:A></ECF>`],
    ["invalid_name", `<ECF><Año>1</Año></ECF>`],
    ["invalid_name", `<ECF><1A>1</1A></ECF>`],
    ["self_closing_element", ok("1</A><B/><A>2")],
    ["empty_element", `<ECF><A></A></ECF>`],
    ["whitespace_between_elements", `<ECF> <A>1</A></ECF>`],
    ["whitespace_between_elements", `<ECF><A>1</A>\n</ECF>`],
    ["whitespace_between_elements", `<ECF>text<A>1</A></ECF>`],
    ["whitespace_only_text", ok(" \t\n ")],
    ["text_escaping", ok("a > b")],
    ["text_escaping", ok("a &quot;b&quot;")],
    ["text_escaping", ok("&apos;")],
    ["text_escaping", ok("&#65;")],
    ["text_escaping", ok("&#xd;")],
    ["text_escaping", ok("a & b")],
    ["text_escaping", ok("line\r\nbreak")],
    ["invalid_character", ok("bell\u0007")],
    ["invalid_character", ok("lone \uD800 surrogate")],
    ["invalid_character", ok("\uFFFE")],
    ["mismatched_tag", `<ECF><A>1</B></ECF>`],
    ["content_outside_root", `<ECF><A>1</A></ECF></ECF>`],
    ["mismatched_tag", `<ECF><A>1</A ></ECF>`],
    ["unterminated", `<ECF><A>1</A>`],
    ["unterminated", `<ECF><A`],
    ["content_outside_root", `<ECF><A>1</A></ECF><ECF><A>1</A></ECF>`],
    ["content_outside_root", `<ECF><A>1</A></ECF>x`],
    ["content_outside_root", `just text`],
    ["already_signed", `<ECF><A>1</A><Signature><SignedInfo>x</SignedInfo></Signature></ECF>`],
  ];
  it.each(cases)("%s: %j", async (code, xml) => {
    const error = await signEcfXml(xml, id.privateKey, id.certificateDer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotCanonicalError);
    expect((error as NotCanonicalError).code).toBe(code);
  });

  it("refuses a document it signed itself, and a real signed DGII document", async () => {
    const once = await signEcfXml(`<ECF><A>1</A></ECF>`, id.privateKey, id.certificateDer);
    await expect(signEcfXml(once, id.privateKey, id.certificateDer)).rejects.toMatchObject({ code: "already_signed" });
    const real = readFileSync(`${SAMPLES}/dgii-ecf/130862346E310005000201_ecf31_signed.xml`, "utf8");
    await expect(signEcfXml(real, id.privateKey, id.certificateDer)).rejects.toMatchObject({ code: "already_signed" });
  });

  it("refuses a signed sample with its namespaces (the job of signXml)", async () => {
    const xml = sample("xml/133470616E320000000018.xml");
    await expect(signEcfXml(xml, id.privateKey, id.certificateDer)).rejects.toMatchObject({ code: "attribute" });
  });

  it("refuses a key that is not RSASSA-PKCS1-v1_5 with SHA-256", async () => {
    const pss = (await crypto.subtle.generateKey(
      { name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      false,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const sha1 = await crypto.subtle.importKey("pkcs8", id.pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" }, false, [
      "sign",
    ]);
    for (const key of [pss.privateKey, sha1, id.publicKey]) {
      await expect(signEcfXml(`<ECF><A>1</A></ECF>`, key, id.certificateDer)).rejects.toThrow(TypeError);
    }
  });
});

describe("signXml (xmldsigjs) for documents we did not build", () => {
  const cases: Array<[string, () => string]> = [
    [
      "DGII seed with namespace declarations and indentation",
      () => readFileSync(`${SAMPLES}/dgii-ecf/semilla_dgii_response.xml`, "utf8"),
    ],
    ["ACECF with namespaces", () => sample("xml/aprobacionComercial_E450000000001.xml")],
    ["e-CF with xsi:noNamespaceSchemaLocation", () => sample("xml/133470616E320000000018.xml")],
    ["indented RFCE", () => sample("dgii-ecf/rfce32_unsigned.xml")],
    ["text with a carriage return", () => `<a xmlns:p="urn:p"><p:b x="1&#xD;2">l1&#xD;\nl2</p:b></a>`],
  ];
  it.each(cases)("%s: unprefixed, last child, accepted by xmlsec1", async (_name, make) => {
    const signed = await signXml(make(), id.privateKey, id.certificateDer);
    expect(signed).not.toMatch(/<ds:|xmlns:ds=/);
    expect(signed).toMatch(
      /<Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">[\s\S]*<\/Signature><\/[A-Za-z:]+>$/,
    );
    expect(signed).toMatch(/<KeyInfo><X509Data><X509Certificate>[^<]+<\/X509Certificate><\/X509Data><\/KeyInfo>/);
    const verdict = xmlsecVerify(signed, id.certificatePem);
    expect(verdict.output).toBe("");
    expect(verdict.ok).toBe(true);
  });

  it("refuses DOCTYPE and already signed input", async () => {
    await expect(signXml(`<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`, id.privateKey, id.certificateDer)).rejects.toThrow(
      /DOCTYPE/,
    );
    const once = await signXml(`<a><b>1</b></a>`, id.privateKey, id.certificateDer);
    await expect(signXml(once, id.privateKey, id.certificateDer)).rejects.toThrow(/already/);
  });
});

describe("signEcfXml equals xmldsigjs on random documents (property)", () => {
  // A small deterministic PRNG, so a failure names a reproducible seed.
  function prng(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const POOL = [
    "a",
    "Z",
    "0",
    " ",
    "&",
    "<",
    ">",
    `"`,
    "'",
    "\r",
    "\n",
    "\t",
    "ñ",
    "É",
    "ü",
    "😀",
    "🇩🇴",
    "中",
    "\u0085",
    "\u2028",
    "\uFFFD",
    "]]>",
    "&amp;",
    "\u00A0",
  ];
  const NAMES = ["ECF", "Encabezado", "Item", "NombreItem", "Monto_1", "x.y", "a-b"];

  function randomElement(next: () => number, depth: number): string {
    const name = NAMES[Math.floor(next() * NAMES.length)]!;
    if (depth > 3 || next() < 0.4) {
      let text = "";
      const length = 1 + Math.floor(next() * 12);
      for (let i = 0; i < length; i++) text += POOL[Math.floor(next() * POOL.length)]!;
      if (/^[ \t\n\r\u0085\u2028\u00A0]*$/.test(text)) text += "x";
      return `<${name}>${escapeText(text)}</${name}>`;
    }
    const children = 1 + Math.floor(next() * 4);
    let inner = "";
    for (let i = 0; i < children; i++) inner += randomElement(next, depth + 1);
    return `<${name}>${inner}</${name}>`;
  }

  it("for 150 seeds", async () => {
    for (let seed = 1; seed <= 150; seed++) {
      const next = prng(seed);
      const xml =
        (next() < 0.5 ? `<?xml version="1.0" encoding="utf-8"?>` : "") +
        `<ECF>${randomElement(next, 1)}${randomElement(next, 1)}</ECF>`;
      const fast = await signEcfXml(xml, id.privateKey, id.certificateDer);
      const oracle = await xmldsigjsSignature(xml, id.privateKey);
      expect({ seed, digest: field(fast, "DigestValue") }).toEqual({ seed, digest: oracle.digest });
      expect({ seed, signature: field(fast, "SignatureValue") }).toEqual({ seed, signature: oracle.signature });
      expect({ seed, verified: (await verifyXml(fast)).ok }).toEqual({ seed, verified: true });
    }
  });

  it("and xmlsec1 accepts a sample of them", async () => {
    for (const seed of [3, 77, 149]) {
      const next = prng(seed);
      const xml = `<ECF>${randomElement(next, 1)}${randomElement(next, 1)}</ECF>`;
      expect(xmlsecVerify(await signEcfXml(xml, id.privateKey, id.certificateDer), id.certificatePem)).toEqual({
        ok: true,
        output: "",
      });
    }
  });
});
