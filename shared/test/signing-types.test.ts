// Every document kind our serializer writes, signed on the fast path: byte-identical to xmldsigjs,
// accepted by xmlsec1, and still valid against DGII's official XSD with the Signature in place.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { TIPOS_ECF } from "../src/tipos.ts";
import type { DocumentKind } from "../src/xml/model.ts";
import { xmlToDocument } from "../src/xml/parse.ts";
import { documentToXml, ecfToXml } from "../src/xml/serialize.ts";
import { validateXsdMany } from "../src/xml/xsd-validate.ts";
import { signEcfXml } from "../src/signing/fast-signer.ts";
import { verifyXml } from "../src/signing/verify.ts";
import { configureXmldsig, xmldsig } from "../src/signing/xmldsig-setup.ts";
import { ecfCases, makeEcf, TRICKY_TEXT } from "./support/ecf-factories.ts";
import { buildAcecf } from "../src/documents/acecf.ts";
import { buildAnecf } from "../src/documents/anecf.ts";
import { buildArecf } from "../src/documents/arecf.ts";
import { buildRfce } from "../src/documents/rfce.ts";
import { testIdentity, xmlsecVerify, type TestIdentity } from "./support/certs.ts";
import { DGII_KIT } from "./support/kit.ts";

execFileSync("node", [new URL("../../scripts/require-tools.mjs", import.meta.url).pathname, "xmlsec1"], {
  stdio: "inherit",
});

const SAMPLES = `${DGII_KIT}/samples`;
const stripSignature = (xml: string) => xml.replace(/<Signature[\s>][\s\S]*<\/Signature>/, "");
const field = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

/** A sample turned into our JSON shape and written back by our serializer. */
function throughSerializer(path: string, kind: DocumentKind, patch: (xml: string) => string = (x) => x): string {
  const xml = patch(stripSignature(readFileSync(`${SAMPLES}/${path}`, "utf8")));
  return documentToXml(xmlToDocument(xml, kind), kind);
}

const ANECF =
  `<ANECF><Encabezado><Version>1.0</Version><RncEmisor>130862346</RncEmisor><CantidadeNCFAnulados>2</CantidadeNCFAnulados>` +
  `<FechaHoraAnulacioneNCF>01-04-2025 10:15:00</FechaHoraAnulacioneNCF></Encabezado><DetalleAnulacion><Anulacion><NoLinea>1</NoLinea>` +
  `<TipoeCF>31</TipoeCF><TablaRangoSecuenciasAnuladaseNCF><Secuencias><SecuenciaeNCFDesde>E310000000010</SecuenciaeNCFDesde>` +
  `<SecuenciaeNCFHasta>E310000000011</SecuenciaeNCFHasta></Secuencias></TablaRangoSecuenciasAnuladaseNCF>` +
  `<CantidadeNCFAnulados>2</CantidadeNCFAnulados></Anulacion></DetalleAnulacion></ANECF>`;

const cases: Array<{ name: string; kind: DocumentKind; xml: () => string }> = [
  ...TIPOS_ECF.flatMap((tipo) =>
    ecfCases(tipo).map(([name, options]) => ({
      name: `E${tipo} ${name}`,
      kind: tipo as DocumentKind,
      xml: () => ecfToXml(makeEcf(tipo, options)),
    })),
  ),
  {
    name: "RFCE",
    kind: "RFCE",
    xml: () =>
      throughSerializer("dgii-ecf/rfce32_unsigned.xml", "RFCE", (x) =>
        x.replace("<CodigoSeguridadeCF/>", "<CodigoSeguridadeCF>aB3x9Z</CodigoSeguridadeCF>"),
      ),
  },
  { name: "ARECF", kind: "ARECF", xml: () => throughSerializer("dgii-ecf/arecf_signed.xml", "ARECF") },
  // The sample writes MontoTotal without decimals, which its own XSD refuses.
  {
    name: "ACECF",
    kind: "ACECF",
    xml: () =>
      throughSerializer("xml/aprobacionComercial_E450000000001.xml", "ACECF", (x) =>
        x.replace(/<MontoTotal>(\d+)<\/MontoTotal>/, "<MontoTotal>$1.00</MontoTotal>"),
      ),
  },
  { name: "ANECF", kind: "ANECF", xml: () => documentToXml(xmlToDocument(ANECF, "ANECF"), "ANECF") },
  // The same documents from the builders the Worker uses.
  {
    name: "RFCE from buildRfce",
    kind: "RFCE",
    xml: () => buildRfce({ ecf: makeEcf("32", { trickyText: true }), CodigoSeguridadeCF: "aB3x9Z" }),
  },
  {
    name: "ARECF from buildArecf (received)",
    kind: "ARECF",
    xml: () =>
      buildArecf({
        RNCEmisor: "130862346",
        RNCComprador: "131880738",
        eNCF: "E310000000001",
        Estado: "0",
        FechaHoraAcuseRecibo: "01-04-2025 10:15:00",
      }),
  },
  {
    name: "ARECF from buildArecf (not received)",
    kind: "ARECF",
    xml: () =>
      buildArecf({
        RNCEmisor: "130862346",
        RNCComprador: "131880738",
        eNCF: "E310000000001",
        Estado: "1",
        CodigoMotivoNoRecibido: "2",
        FechaHoraAcuseRecibo: "01-04-2025 10:15:00",
      }),
  },
  {
    name: "ACECF from buildAcecf (rejected, reason with & < > and quotes)",
    kind: "ACECF",
    xml: () =>
      buildAcecf({
        RNCEmisor: "130862346",
        eNCF: "E310000000001",
        FechaEmision: "01-04-2025",
        MontoTotal: "1180.00",
        RNCComprador: "131880738",
        Estado: "2",
        DetalleMotivoRechazo: TRICKY_TEXT.razonSocial,
        FechaHoraAprobacionComercial: "02-04-2025 09:00:00",
      }),
  },
  {
    name: "ANECF from buildAnecf",
    kind: "ANECF",
    xml: () =>
      buildAnecf({
        RncEmisor: "130862346",
        FechaHoraAnulacioneNCF: "01-04-2025 10:15:00",
        DetalleAnulacion: [
          {
            TipoeCF: "31",
            TablaRangoSecuenciasAnuladaseNCF: [
              { SecuenciaeNCFDesde: "E310000000010", SecuenciaeNCFHasta: "E310000000020" },
            ],
          },
        ],
      }),
  },
];

let id: TestIdentity;
const signedByCase = new Map<string, string>();
beforeAll(async () => {
  id = await testIdentity();
  configureXmldsig();
  for (const c of cases) signedByCase.set(c.name, await signEcfXml(c.xml(), id.privateKey, id.certificateDer));
});

describe("every document kind, fast path", () => {
  it.each(cases)(
    "$name: same DigestValue and SignatureValue as xmldsigjs, xmlsec1 and verifyXml accept",
    async ({ name, xml }) => {
      const input = xml();
      const fast = signedByCase.get(name)!;
      const oracle = new xmldsig.SignedXml();
      await oracle.Sign({ name: "RSASSA-PKCS1-v1_5" }, id.privateKey, xmldsig.Parse(input), {
        references: [{ hash: "SHA-256", transforms: ["enveloped"], uri: "" }],
      });
      const reference = oracle.toString();
      expect(field(fast, "DigestValue")).toBe(field(reference, "DigestValue"));
      expect(field(fast, "SignatureValue")).toBe(field(reference, "SignatureValue"));
      expect(xmlsecVerify(fast, id.certificatePem)).toEqual({ ok: true, output: "" });
      expect(await verifyXml(fast)).toMatchObject({ ok: true, whitespaceNormalized: false });
    },
  );

  it("the tricky-text cases really contain text that needs escaping", () => {
    const tricky = [...signedByCase.entries()].filter(([name]) => name.includes("escapes")).map(([, xml]) => xml);
    expect(tricky.length).toBe(TIPOS_ECF.length);
    for (const xml of tricky)
      for (const s of ["&amp;", "&lt;", "&gt;", "&#xD;", "\t", "\n", "ñ", "🇩🇴", `"`, "'"]) expect(xml).toContain(s);
  });

  it("signed documents still validate against the official XSDs", async () => {
    const kinds = [...new Set(cases.map((c) => c.kind))];
    for (const kind of kinds) {
      const ofKind = cases.filter((c) => c.kind === kind);
      const results = await validateXsdMany(
        ofKind.map((c) => signedByCase.get(c.name)!),
        kind,
        { requireSignature: true },
      );
      results.forEach((r, i) => expect(r, `${ofKind[i]!.name}: ${r.errors.join("; ")}`).toMatchObject({ valid: true }));
    }
  });
});
