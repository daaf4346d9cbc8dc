import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  documentKindOf,
  documentToXml,
  ecfToXml,
  parseXmlTree,
  TIPOS_ECF,
  treeToDocument,
  xmlToDocument,
  xmlToEcf,
  XmlParseError,
} from "../src/index.ts";
import { ecfCases, makeEcf } from "./support/ecf-factories.ts";
import { DGII_KIT } from "./support/kit.ts";

const SAMPLES = `${DGII_KIT}/samples/xml/`;

describe("xmlToEcf(ecfToXml(x)) = x for canonical documents", () => {
  for (const tipo of TIPOS_ECF) {
    it.each(ecfCases(tipo))(`E${tipo}: %s`, (_name, options) => {
      const doc = makeEcf(tipo, options);
      expect(xmlToEcf(ecfToXml(doc))).toEqual(doc);
    });
  }
});

describe("parseXmlTree", () => {
  it.each([
    ["predefined entities", "<a>&amp;&lt;&gt;&quot;&apos;</a>", `&<>"'`],
    ["character references", "<a>&#233;&#xF1;&#x1F1E9;&#xD;</a>", "éñ🇩\r"],
    ["CR LF becomes LF, lone CR becomes LF", "<a>x\r\ny\rz</a>", "x\ny\nz"],
    ["CDATA", "<a><![CDATA[<b>&amp;</b>]]></a>", "<b>&amp;</b>"],
    ["comments and PIs are skipped", "<?xml version='1.0'?><!-- c --><a>t<!-- x --><?pi y?>u</a>", "tu"],
    ["a BOM is skipped", "\uFEFF<a>v</a>", "v"],
    ["attributes are read", `<a x="1" y='&amp;'>v</a>`, "v"],
  ])("%s", (_name, xml, text) => {
    expect(parseXmlTree(xml).text).toBe(text);
  });

  it("gives each start tag's line when asked, and notes CDATA sections", () => {
    const tree = parseXmlTree('<?xml version="1.0"?>\n<a>\n  <b/>\n\n  <c><![CDATA[ ]]></c>\n</a>', { lines: true });
    expect([tree.line, tree.children[0]!.line, tree.children[1]!.line]).toEqual([2, 3, 5]);
    expect(tree.children[1]!.cdata).toBe(true);
    expect(tree.cdata).toBeUndefined();
    expect(parseXmlTree("<a>\n<b/></a>").children[0]!.line).toBeUndefined();
  });

  it.each([
    [
      "DOCTYPE (XXE)",
      `<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>`,
      /DOCTYPE/,
    ],
    ["entity bomb", `<!DOCTYPE a [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><a>&b;</a>`, /DOCTYPE/],
    ["undefined entity", "<a>&nbsp;</a>", /entity/],
    ["unterminated entity", "<a>AT&T</a>", /entity/],
    ["forbidden character reference", "<a>&#0;</a>", /entity/],
    ["mismatched end tag", "<a><b></a></b>", /mismatched/],
    ["unclosed element", "<a><b></b>", /unclosed/],
    ["two roots", "<a/><b/>", /more than one root/],
    ["text outside the root", "x<a/>", /outside the root/],
    ["unquoted attribute", "<a x=1/>", /quoted/],
    ["no root", "<?xml version='1.0'?>", /no root/],
    ["deep nesting", "<a>".repeat(100) + "</a>".repeat(100), /too deeply/],
    ["an attribute given twice", `<a x="1" x="2"/>`, /redefined/],
    ["attributes without whitespace between", `<a x="1"y="2"/>`, /separated/],
    ["']]>' in text", "<a>x]]>y</a>", /]]>/],
    ["'--' in a comment", "<a><!-- x -- y --></a>", /'--'/],
    ["a comment ending in '--->'", "<a><!-- x ---></a>", /'--'/],
    ["an XML declaration not at the start", ` <?xml version="1.0"?><a/>`, /XML declaration/],
  ])("rejects %s", (_name, xml, message) => {
    expect(() => parseXmlTree(xml)).toThrow(XmlParseError);
    expect(() => parseXmlTree(xml)).toThrow(message);
  });
});

describe("xmlToEcf", () => {
  it("drops the trailing Signature and keeps leaves as strings", () => {
    const xml = ecfToXml(makeEcf("31", { lines: 1 })).replace(
      "</ECF>",
      `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/><SignatureValue>abc</SignatureValue></Signature></ECF>`,
    );
    const doc = xmlToEcf(xml);
    expect(doc).not.toHaveProperty("Signature");
    expect(doc.FechaHoraFirma).toBe("01-04-2025 10:15:00");
    expect((doc.DetallesItems as Record<string, unknown>[])[0]!.NumeroLinea).toBe("1");
  });

  it("keeps unknown elements visible for the structure check", () => {
    const xml = ecfToXml(makeEcf("32", { lines: 1 })).replace(
      "<FechaHoraFirma>",
      "<Inventado><A>1</A><A>2</A></Inventado><FechaHoraFirma>",
    );
    expect(xmlToEcf(xml).Inventado).toEqual({ A: ["1", "2"] });
  });

  it("turns a single-item container into a one-element array", () => {
    const doc = xmlToEcf(ecfToXml(makeEcf("31", { lines: 1 })));
    expect(Array.isArray(doc.DetallesItems)).toBe(true);
    expect(doc.DetallesItems).toHaveLength(1);
  });

  it("reads a repeated leaf without container as a value, or an array when repeated", () => {
    const one = xmlToDocument(
      "<ANECF><DetalleAnulacion><Anulacion><NoLinea>1</NoLinea></Anulacion></DetalleAnulacion></ANECF>",
      "ANECF",
    );
    const two = xmlToDocument(
      "<ANECF><DetalleAnulacion><Anulacion><NoLinea>1</NoLinea><NoLinea>2</NoLinea></Anulacion></DetalleAnulacion></ANECF>",
      "ANECF",
    );
    expect(one).toEqual({ DetalleAnulacion: [{ NoLinea: "1" }] });
    expect(two).toEqual({ DetalleAnulacion: [{ NoLinea: ["1", "2"] }] });
  });

  it.each([
    ["another root", "<RFCE/>", /expected root <ECF>/],
    ["malformed XML", "<ECF>", /unclosed/],
  ])("rejects %s", (_name, xml, message) => {
    expect(() => xmlToEcf(xml)).toThrow(message);
  });
});

/**
 * The bytes of a sample without its Signature, XML declaration, root attributes, indentation
 * and empty elements (which we never write: DGII forbids empty tags).
 */
function comparable(xml: string): string {
  let s = xml.replace(/^\uFEFF/, "").replace(/^<\?xml[^?]*\?>/, "");
  const sig = s.search(/<(\w+:)?Signature[\s>]/);
  if (sig >= 0) s = s.slice(0, sig) + s.slice(s.lastIndexOf("</"));
  return s
    .replace(/>\s+</g, "><")
    .replace(/<(\w+)\/>/g, "")
    .replace(/^\s*<(\w+)[^>]*>/, "<$1>")
    .trim();
}

describe("real DGII samples parse and re-serialize", () => {
  // A deliberately mislabelled document carries elements its declared type does not have.
  const skip = new Set(["invoice_received_wrong_type.xml"]);
  const files = readdirSync(SAMPLES).filter((f) => f.endsWith(".xml") && !skip.has(f));

  it("covers every sample file", () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  it.each(files)("%s", (file) => {
    const xml = readFileSync(SAMPLES + file, "utf8");
    const tree = parseXmlTree(xml);
    const kind = documentKindOf(tree);
    expect(kind).toBeDefined();
    const doc = treeToDocument(tree, kind!);
    expect(comparable(documentToXml(doc, kind!, { declaration: false }))).toBe(comparable(xml));
    if (tree.name === "ECF") expect(xmlToEcf(xml)).toEqual(doc);
  });

  it("reads the mislabelled E32 with the E32 model, keeping the foreign fields", () => {
    const doc = xmlToEcf(readFileSync(SAMPLES + "invoice_received_wrong_type.xml", "utf8"));
    const idDoc = (doc.Encabezado as Record<string, Record<string, unknown>>).IdDoc!;
    expect(idDoc.TipoeCF).toBe("32");
    expect(idDoc.FechaVencimientoSecuencia).toBe("31-12-2021");
  });
});

describe("text round-trips through XML whatever it contains (property)", () => {
  // Deterministic PRNG so a failure reproduces.
  let seed = 0x2545f491;
  const rnd = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const alphabet = [..."aZ09 &<>\"';:/\\=?!#%$*()[]{}]]>-–—ñÑáéíóúü€\t\n\r"].concat([
    "\r\n",
    "🇩🇴",
    "😀",
    "&amp;",
    "&#xD;",
    "<![CDATA[",
    "-->",
    "\u00A0",
    "\u2028",
  ]);
  const randomText = () => Array.from({ length: 1 + rnd(60) }, () => alphabet[rnd(alphabet.length)]!).join("");
  const texts = Array.from({ length: 300 }, randomText);

  it("300 random names and descriptions come back unchanged", () => {
    const doc = makeEcf("31", { lines: 1 });
    const item = (doc.DetallesItems as Record<string, unknown>[])[0]!;
    for (const t of texts) {
      item.NombreItem = t;
      item.DescripcionItem = t + t;
      const back = (xmlToEcf(ecfToXml(doc)).DetallesItems as Record<string, unknown>[])[0]!;
      expect({ n: back.NombreItem, d: back.DescripcionItem }).toEqual({ n: t, d: t + t });
    }
  });
});
