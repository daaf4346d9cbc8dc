/**
 * The model-driven XSD validator against libxml2 (xmllint-wasm) on the official schemas: DGII's
 * samples, every document the factories build for every kind, the certification test sets written
 * as XML, systematic mutations (each element removed, duplicated, moved before its predecessor;
 * each leaf given values its facets refuse; text and unknown elements and attributes injected; the
 * root renamed) and well-formedness traps. Both must give the same verdict for every case.
 */
import { readdirSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildAcecf,
  buildAnecf,
  buildArecf,
  buildRfce,
  buildSemilla,
  DOCUMENT_KINDS,
  documentKindOf,
  documentModel,
  ecfToXml,
  parseXmlTree,
  tipoeCFOf,
  TIPOS_ECF,
  validateXsdModel,
  type DocumentKind,
  type ModelElement,
  type XmlNode,
} from "../src/index.ts";
import { validateXsdMany } from "../src/xml/xsd-validate.ts";
import { dgiiTestSetCases, itheskCases } from "./support/dgii-samples.ts";
import { ACECF_INPUT, ANECF_INPUT, ARECF_INPUT, ecfCases, makeEcf } from "./support/ecf-factories.ts";
import { DGII_KIT } from "./support/kit.ts";

interface Case {
  name: string;
  kind: DocumentKind;
  xml: string;
  requireSignature: boolean;
}

const PLACEHOLDER_SIGNATURE =
  '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/></SignedInfo><SignatureValue>AAAA</SignatureValue></Signature>';

function withSignature(xml: string): string {
  const end = xml.lastIndexOf("</");
  return xml.slice(0, end) + PLACEHOLDER_SIGNATURE + xml.slice(end);
}

// ---------------------------------------------------------------------------------------------
// Documents

function sampleCases(): Case[] {
  const out: Case[] = [];
  for (const sub of ["xml", "dgii-ecf"]) {
    const dir = `${DGII_KIT}/samples/${sub}/`;
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".xml"))) {
      const xml = readFileSync(dir + f, "utf8");
      let kind: DocumentKind | undefined;
      try {
        kind = documentKindOf(parseXmlTree(xml));
      } catch {
        kind = undefined;
      }
      // A sample that is no document of ours (DGII's seed answer) is judged against the E31 schema.
      for (const requireSignature of [true, false])
        out.push({
          name: `sample ${sub}/${f}${requireSignature ? "" : " (Signature relaxed)"}`,
          kind: kind ?? "31",
          xml,
          requireSignature,
        });
    }
  }
  return out;
}

const arecf = ARECF_INPUT;
const acecf = ACECF_INPUT;
const anecf = ANECF_INPUT;

/** Every document the factories build, unsigned (Signature relaxed) and with a placeholder Signature. */
function factoryCases(): Case[] {
  const built: { name: string; kind: DocumentKind; xml: string }[] = [];
  for (const tipo of TIPOS_ECF) {
    for (const [name, options] of ecfCases(tipo))
      built.push({ name: `E${tipo} ${name}`, kind: tipo, xml: ecfToXml(makeEcf(tipo, options)) });
  }
  built.push(
    { name: "RFCE", kind: "RFCE", xml: buildRfce({ ecf: makeEcf("32"), CodigoSeguridadeCF: "Ab3+/9" }) },
    {
      name: "RFCE 20 lines",
      kind: "RFCE",
      xml: buildRfce({
        ecf: makeEcf("32", { lines: 20, otraMoneda: true, trickyText: true }),
        CodigoSeguridadeCF: "zz&<>9",
      }),
    },
    { name: "ARECF received", kind: "ARECF", xml: buildArecf(arecf) },
    {
      name: "ARECF not received",
      kind: "ARECF",
      xml: buildArecf({ ...arecf, Estado: "1", CodigoMotivoNoRecibido: "1" }),
    },
    { name: "ACECF accepted", kind: "ACECF", xml: buildAcecf(acecf) },
    {
      name: "ACECF rejected",
      kind: "ACECF",
      xml: buildAcecf({ ...acecf, Estado: "2", DetalleMotivoRechazo: "Montos no coinciden & otros" }),
    },
    { name: "ANECF", kind: "ANECF", xml: buildAnecf(anecf) },
    { name: "Semilla", kind: "Semilla", xml: buildSemilla({ valor: "abc==", fecha: "2025-01-25T13:33:57.395-04:00" }) },
  );
  return built.flatMap((b) => [
    { ...b, requireSignature: false },
    { ...b, name: `${b.name} signed`, xml: withSignature(b.xml), requireSignature: true },
  ]);
}

/** DGII's certification test-set documents and a third party's, written as XML as they are. */
function testSetCases(): Case[] {
  const out: Case[] = [];
  for (const { name, doc } of [...dgiiTestSetCases(), ...itheskCases()]) {
    const kind = tipoeCFOf(doc);
    if (!kind) continue;
    let xml: string;
    try {
      xml = ecfToXml(doc);
    } catch {
      continue; // Not writable as XML at all (a JSON value of the wrong kind): nothing to compare.
    }
    out.push({ name: `test set ${name}`, kind, xml, requireSignature: false });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Mutations, on the parsed tree, written back one element a line (so line numbers mean something)

function escapeText(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r/g, "&#xD;");
}

function write(node: XmlNode, indent = ""): string {
  const attrs = Object.entries(node.attributes)
    .map(([k, v]) => ` ${k}="${escapeText(v).replace(/"/g, "&quot;")}"`)
    .join("");
  if (node.children.length === 0) return `${indent}<${node.name}${attrs}>${escapeText(node.text)}</${node.name}>`;
  const inner = node.children.map((c) => write(c, `${indent}  `)).join("\n");
  return `${indent}<${node.name}${attrs}>${escapeText(node.text.trim() === "" ? "" : node.text)}\n${inner}\n${indent}</${node.name}>`;
}

const clone = (n: XmlNode): XmlNode => ({
  name: n.name,
  attributes: { ...n.attributes },
  text: n.text,
  children: n.children.map(clone),
});

/** Every element below the root outside the Signature, with its parent and model declaration. */
function walk(root: XmlNode, kind: DocumentKind): { node: XmlNode; parent: XmlNode; el: ModelElement; path: string }[] {
  const out: { node: XmlNode; parent: XmlNode; el: ModelElement; path: string }[] = [];
  const visit = (node: XmlNode, el: ModelElement, path: string) => {
    node.children.forEach((child, i) => {
      const decl = el.childByName?.get(child.name);
      if (!decl) return;
      const p = `${path}/${child.name}[${i}]`;
      out.push({ node: child, parent: node, el: decl, path: p });
      if (decl.shape !== "leaf") visit(child, decl, p);
    });
  };
  visit(root, documentModel(kind).root, root.name);
  return out;
}

/** Values the leaf's facets refuse (and a few they may accept: whitespace, leading zeros). */
function badValues(el: ModelElement, value: string): [string, string][] {
  const f = el.facets!;
  const numeric = f.base === "decimal" || f.base === "integer";
  const out: [string, string][] = [
    ["empty", ""],
    ["padded with blanks", ` ${value}\n`],
    ["bad pattern", "#?x"],
  ];
  if (f.maxLength !== undefined)
    out.push(["too long", numeric ? "9".repeat(f.maxLength + 1) : "x".repeat(f.maxLength + 1)]);
  if (f.length !== undefined) out.push(["wrong length", "x".repeat(f.length + 1)]);
  if (numeric) {
    out.push(
      ["not a number", "abc"],
      ["too many decimals", `${value.split(".")[0] || "1"}.123456789`],
      ["negative", "-1"],
      ["exponent", "1E2"],
      ["leading zeros", `00${value}`],
    );
    if (f.totalDigits !== undefined) out.push(["too many digits", "9".repeat(f.totalDigits + 1)]);
  }
  if (f.enumeration) out.push(["outside the enumeration", numeric ? "987654" : "ZZZ"]);
  if (f.base === "dateTime") out.push(["not a dateTime", "25-01-2025 13:33:57"]);
  return out;
}

function mutations(base: Case): Case[] {
  const out: Case[] = [];
  const add = (what: string, change: (root: XmlNode) => void) => {
    const root = clone(parseXmlTree(base.xml));
    change(root);
    out.push({ ...base, name: `${base.name}: ${what}`, xml: `<?xml version="1.0" encoding="utf-8"?>\n${write(root)}` });
  };
  const at = (root: XmlNode, index: number) => walk(root, base.kind)[index]!;
  const sites = walk(parseXmlTree(base.xml), base.kind);
  sites.forEach((site, i) => {
    add(`${site.path} removed`, (r) => {
      const s = at(r, i);
      s.parent.children.splice(s.parent.children.indexOf(s.node), 1);
    });
    add(`${site.path} duplicated`, (r) => {
      const s = at(r, i);
      s.parent.children.splice(s.parent.children.indexOf(s.node), 0, clone(s.node));
    });
    if (site.parent.children.indexOf(site.node) > 0) {
      add(`${site.path} moved before its predecessor`, (r) => {
        const s = at(r, i);
        const k = s.parent.children.indexOf(s.node);
        [s.parent.children[k - 1], s.parent.children[k]] = [s.node, s.parent.children[k - 1]!];
      });
    }
    add(`${site.path} with an attribute`, (r) => {
      at(r, i).node.attributes.extra = "1";
    });
    if (site.el.shape === "leaf") {
      for (const [what, value] of badValues(site.el, site.node.text)) {
        add(`${site.path} ${what}`, (r) => {
          at(r, i).node.text = value;
        });
      }
      add(`${site.path} with a child element`, (r) => {
        at(r, i).node.children.push({ name: "b", attributes: {}, children: [], text: "" });
      });
    } else {
      add(`${site.path} with text`, (r) => {
        at(r, i).node.text = "x";
      });
      add(`${site.path} with an unknown first child`, (r) => {
        at(r, i).node.children.unshift({ name: "Desconocido", attributes: {}, children: [], text: "1" });
      });
      add(`${site.path} with an unknown last child`, (r) => {
        at(r, i).node.children.push({ name: "Desconocido", attributes: {}, children: [], text: "1" });
      });
      add(`${site.path} in a namespace`, (r) => {
        at(r, i).node.attributes.xmlns = "urn:otro";
      });
    }
  });
  add("wrong root", (r) => {
    r.name = r.name === "ECF" ? "ARECF" : "ECF";
  });
  add("root in a namespace", (r) => {
    r.attributes.xmlns = "urn:otro";
  });
  add("root with an attribute", (r) => {
    r.attributes.version = "1.0";
  });
  add("root with xsi declarations and schema location", (r) => {
    r.attributes["xmlns:xsi"] = "http://www.w3.org/2001/XMLSchema-instance";
    r.attributes["xsi:noNamespaceSchemaLocation"] = "ecf.xsd";
  });
  add("root with text", (r) => {
    r.text = "hola";
  });
  add("unknown element at the end (the wildcard takes one)", (r) => {
    r.children.push({ name: "Desconocido", attributes: {}, children: [], text: "1" });
  });
  add("Signature content not looked at", (r) => {
    const sig = r.children.find((c) => c.name === "Signature");
    if (sig) sig.children.push({ name: "Cualquiera", attributes: { a: "b" }, children: [], text: "texto" });
  });
  return out;
}

/** Markup libxml2's parser refuses (or accepts) where a loose parser might differ. */
function wellFormednessCases(): Case[] {
  const xml = buildArecf(arecf);
  const body = xml.slice(xml.indexOf("?>") + 2);
  const variants: [string, string][] = [
    ["attribute given twice", xml.replace("<ARECF>", '<ARECF xmlns:a="x" xmlns:a="y">')],
    ["attributes without whitespace between", xml.replace("<ARECF>", '<ARECF xmlns:a="x"xmlns:b="y">')],
    ["an element name starting with a digit", xml.replace("</ARECF>", "<1x/></ARECF>")],
    ["an attribute name with two colons", xml.replace("<ARECF>", '<ARECF a:b:c="1">')],
    ["']]>' in text", xml.replace("<Version>1.0", "<Version>1.0]]>")],
    ["'--' in a comment", xml.replace("</ARECF>", "<!-- a -- b --></ARECF>")],
    ["a comment ending in '--->'", xml.replace("</ARECF>", "<!-- a ---></ARECF>")],
    ["the XML declaration after a blank", ` ${xml}`],
    ["an XML declaration inside", xml.replace("</ARECF>", "<?xml foo?></ARECF>")],
    ["another processing instruction inside", xml.replace("</ARECF>", "<?xml-stylesheet href='a'?></ARECF>")],
    ["no XML declaration", body],
    ["a comment after the root", `${xml}<!-- x -->`],
    ["text after the root", `${xml}x`],
    ["a prefix bound to the empty namespace", xml.replace("<ARECF>", '<ARECF xmlns:p="">')],
    ["an unbound attribute prefix", xml.replace("<ARECF>", '<ARECF p:a="1">')],
    ["xml:lang", xml.replace("<ARECF>", '<ARECF xml:lang="es">')],
    ["an undefined entity", xml.replace("<Version>1.0", "<Version>&nbsp;1.0")],
    ["'<' in an attribute", xml.replace("<ARECF>", '<ARECF a="<">')],
    ["a bare '&' in an attribute", xml.replace("<ARECF>", '<ARECF a="&">')],
    ["a non-breaking space between elements", xml.replace("</DetalleAcusedeRecibo>", "\u00a0</DetalleAcusedeRecibo>")],
    ["a control character", xml.replace("<Version>1.0", "<Version>\u00011.0")],
    [
      "a character reference to a blank between elements",
      xml.replace("</DetalleAcusedeRecibo>", "&#x20;&#9;</DetalleAcusedeRecibo>"),
    ],
    [
      "a blank CDATA section between elements",
      xml.replace("</DetalleAcusedeRecibo>", "<![CDATA[ ]]></DetalleAcusedeRecibo>"),
    ],
    ["a CDATA leaf", xml.replace("<Version>1.0", "<Version><![CDATA[1.0]]>")],
  ];
  return variants.map(([what, text]) => ({
    name: `ARECF with ${what}`,
    kind: "ARECF",
    xml: text,
    requireSignature: false,
  }));
}

// ---------------------------------------------------------------------------------------------

describe("the model validator gives libxml2's verdict", () => {
  const factories = factoryCases();
  // Mutated: one document per kind (the smallest unsigned and, for the e-CF, the signed one too).
  const bases = DOCUMENT_KINDS.flatMap((kind) => {
    const mine = factories.filter((c) => c.kind === kind);
    return [
      mine.find((c) => !c.requireSignature)!,
      ...(kind.length === 2 ? [mine.find((c) => c.requireSignature)!] : []),
    ];
  });
  const testSets = testSetCases();
  const cases: Case[] = [
    ...sampleCases(),
    ...factories,
    ...testSets,
    ...bases.flatMap(mutations),
    ...wellFormednessCases(),
  ];
  const libxml2 = new Map<Case, { valid: boolean; errors: string[] }>();

  beforeAll(async () => {
    const groups = new Map<string, Case[]>();
    for (const c of cases) {
      const key = `${c.kind}:${c.requireSignature}`;
      groups.set(key, [...(groups.get(key) ?? []), c]);
    }
    for (const group of groups.values()) {
      const rs = await validateXsdMany(
        group.map((c) => c.xml),
        group[0]!.kind,
        { requireSignature: group[0]!.requireSignature },
      );
      group.forEach((c, i) => libxml2.set(c, rs[i]!));
    }
  }, 600_000);

  it("on every sample, factory document and mutation", () => {
    const disagreements: { case: string; libxml2: string[]; model: string[] }[] = [];
    let invalid = 0;
    for (const c of cases) {
      const theirs = libxml2.get(c)!;
      const ours = validateXsdModel(c.xml, c.kind, { requireSignature: c.requireSignature });
      if (!theirs.valid) invalid++;
      if (ours.valid !== theirs.valid) disagreements.push({ case: c.name, libxml2: theirs.errors, model: ours.errors });
      // A verdict of invalid always says why.
      expect(ours.valid || ours.errors.length > 0).toBe(true);
    }
    console.log(
      `model validator vs libxml2: ${cases.length} cases compared (${invalid} invalid, ${cases.length - invalid} valid; ${testSets.length} from test sets), ${disagreements.length} disagreements`,
    );
    expect(disagreements).toEqual([]);
    // The comparison can fail both ways: both verdicts occur in numbers.
    expect(invalid).toBeGreaterThan(500);
    expect(testSets.length).toBeGreaterThan(50);
    expect(cases.length - invalid).toBeGreaterThan(100);
  });

  it("names the element and its line", () => {
    const xml = ecfToXml(makeEcf("31", { lines: 1 }))
      .replace(/></g, ">\n<")
      .replace(/<MontoItem>[^<]*/, "<MontoItem>1.234");
    const r = validateXsdModel(xml, "31", { requireSignature: false });
    const line = xml.split("\n").findIndex((l) => l.startsWith("<MontoItem>")) + 1;
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([
      expect.stringMatching(
        new RegExp(`^line ${line}: Element 'MontoItem': \\[facet 'fractionDigits'\\] The value '1.234'`),
      ),
    ]);
  });

  it("reports missing, unexpected and out-of-order elements in libxml2's words", () => {
    const xml = ecfToXml(makeEcf("31", { lines: 1 }));
    expect(validateXsdModel(xml, "31").errors).toEqual([
      "line 1: Element 'ECF': Missing child element(s). Expected is ( ##any ).",
    ]);
    const swapped = xml.replace(
      /(<NombreItem>[^<]*<\/NombreItem>)(<IndicadorBienoServicio>[^<]*<\/IndicadorBienoServicio>)/,
      "$2$1",
    );
    expect(validateXsdModel(swapped, "31", { requireSignature: false }).errors.join("\n")).toMatch(
      /Element 'IndicadorBienoServicio': This element is not expected\. Expected is \( Retencion, NombreItem \)/,
    );
    expect(validateXsdModel(xml, "ARECF", { requireSignature: false }).errors).toEqual([
      "line 1: Element 'ECF': No matching global declaration available for the validation root.",
    ]);
    expect(validateXsdModel("<ECF><Encabezado>", "31").errors[0]).toMatch(/not well-formed/);
    const late = xml.replace(
      /<Totales>(<MontoGravadoTotal>[^<]*<\/MontoGravadoTotal>)(.*?)<\/Totales>/,
      "<Totales>$2$1</Totales>",
    );
    expect(validateXsdModel(late, "31", { requireSignature: false }).errors).toEqual([
      "line 1: Element 'MontoGravadoTotal': This element is not expected. It must come before 'MontoTotal' in 'Totales'.",
    ]);
    const fourPhones = xml.replace(/(<TelefonoEmisor>[^<]*<\/TelefonoEmisor>)/, "$1$1$1");
    expect(validateXsdModel(fourPhones, "31", { requireSignature: false }).errors).toEqual([
      "line 1: Element 'TelefonoEmisor': This element is not expected. It may occur at most 3 time(s) in 'TablaTelefonoEmisor'.",
    ]);
    expect(validateXsdModel(xml.replace("</ECF>", "<A/><B/></ECF>"), "31", { requireSignature: false }).errors).toEqual(
      [
        "line 1: Element 'B': This element is not expected. The xs:any slot at the end of 'ECF' (the Signature's) is taken already.",
      ],
    );
  });
});
