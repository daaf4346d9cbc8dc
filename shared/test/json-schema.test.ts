/**
 * The published JSON Schema of the e-CF request against the checks it describes: every document of
 * the corpus that `validateEcf` accepts (DGII's certification test sets, the ithesk cases, DGII's
 * sample e-CFs, every factory case), as sent and in canonical form, is valid against its type's
 * schema; what the schema refuses, `validateEcf` refuses too. Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1) is the independent judge.
 */
import { readdirSync, readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { documentKindOf, parseXmlTree, xmlToEcf } from "../src/xml/parse.ts";
import { ecfRequestSchema, type JsonSchema } from "../src/xml/json-schema.ts";
import { mapTestSetRow, readTestSet } from "../src/testset.ts";
import { validateEcf } from "../src/validate.ts";
import { isTipoeCF, TIPOS_ECF, type TipoeCF } from "../src/tipos.ts";
import { itheskCases } from "./support/dgii-samples.ts";
import { ecfCases, makeEcf } from "./support/ecf-factories.ts";
import { DGII_KIT } from "./support/kit.ts";

type Json = Record<string, any>;
const now = new Date("2026-11-21T12:00:00Z");

const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
const validators = new Map<TipoeCF, ValidateFunction>(TIPOS_ECF.map((t) => [t, ajv.compile(ecfRequestSchema(t))]));
/** Ajv's complaints as "pointer keyword" lines, [] when valid. */
function schemaErrors(tipo: TipoeCF, doc: unknown): string[] {
  const validate = validators.get(tipo)!;
  return validate(doc)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.keyword} ${e.message ?? ""}`);
}

interface Case {
  name: string;
  tipo: TipoeCF;
  input: Json;
}
const tipoOf = (doc: Json): TipoeCF => {
  const tipo = String(doc.Encabezado?.IdDoc?.TipoeCF);
  if (!isTipoeCF(tipo)) throw new Error(`TipoeCF ${tipo}`);
  return tipo;
};
const testSets: Case[] = readdirSync(`${DGII_KIT}/testsets`)
  .filter((f) => f.endsWith("__ECF.csv"))
  .flatMap((file) => {
    const set = readTestSet(readFileSync(`${DGII_KIT}/testsets/${file}`, "utf8"));
    return set.rows.map((row) => {
      const mapped = mapTestSetRow(set, row);
      return {
        name: `${file.split("__")[0]} ${row.casoPrueba}`,
        tipo: mapped.kind as TipoeCF,
        input: mapped.document as Json,
      };
    });
  });
const samples: Case[] = [`${DGII_KIT}/samples/xml/`, `${DGII_KIT}/samples/dgii-ecf/`].flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".xml"))
    .flatMap((f) => {
      const xml = readFileSync(dir + f, "utf8");
      const kind = documentKindOf(parseXmlTree(xml));
      return kind && isTipoeCF(kind) ? [{ name: `sample ${f}`, tipo: kind, input: xmlToEcf(xml) as Json }] : [];
    }),
);
const corpus: Case[] = [
  ...testSets,
  ...itheskCases().map(({ name, doc }) => ({ name: `ithesk ${name}`, tipo: tipoOf(doc as Json), input: doc as Json })),
  ...samples,
  ...TIPOS_ECF.flatMap((tipo) =>
    ecfCases(tipo).map(([name, options]) => ({
      name: `factory E${tipo} ${name}`,
      tipo,
      input: makeEcf(tipo, options),
    })),
  ),
];

/** A factory document as an integration sends it: everything the service fills left out. */
function apiRequest(tipo: TipoeCF): Json {
  const doc = structuredClone(makeEcf(tipo)) as Json;
  delete doc.Encabezado.Version;
  delete doc.Encabezado.Emisor;
  delete doc.Encabezado.Totales;
  delete doc.FechaHoraFirma;
  for (const k of ["eNCF", "FechaVencimientoSecuencia", "IndicadorNotaCredito"]) delete doc.Encabezado.IdDoc[k];
  for (const item of doc.DetallesItems) {
    delete item.NumeroLinea;
    delete item.MontoItem;
  }
  return doc;
}

describe("every schema", () => {
  it.each(TIPOS_ECF.map((t) => [t]))(
    "E%s is a valid JSON Schema 2020-12 whose patterns are ECMAScript (Unicode) regexes",
    (tipo) => {
      const schema = ecfRequestSchema(tipo);
      expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
      const patterns: string[] = [];
      JSON.stringify(schema, (key, value) => (key === "pattern" && patterns.push(value), value));
      expect(patterns.length).toBeGreaterThan(10);
      for (const p of patterns) expect(() => new RegExp(p, "u"), p).not.toThrow();
    },
  );

  it("a type's schema admits only its own TipoeCF, so a oneOf of the ten picks exactly one", () => {
    for (const tipo of TIPOS_ECF) {
      const doc = apiRequest(tipo);
      expect(TIPOS_ECF.filter((other) => schemaErrors(other, doc).length === 0)).toEqual([tipo]);
    }
  });
});

describe("what validateEcf accepts, the schema accepts", () => {
  const accepted = corpus.filter((c) => validateEcf(c.input, { now, totalsPolicy: "dgii" }).ok);
  it("the corpus covers every type", () => {
    expect(accepted.length).toBeGreaterThan(100);
    expect(new Set(accepted.map((c) => c.tipo))).toEqual(new Set(TIPOS_ECF));
  });
  it.each(accepted.map((c) => [c.name, c] as const))("%s, as sent and in canonical form", (_name, c) => {
    expect(schemaErrors(c.tipo, c.input)).toEqual([]);
    expect(schemaErrors(c.tipo, validateEcf(c.input, { now, totalsPolicy: "dgii" }).document)).toEqual([]);
  });
  it.each(TIPOS_ECF.map((t) => [t]))("E%s with only what the integrator must send", (tipo) => {
    const doc = apiRequest(tipo);
    expect(
      validateEcf(doc, {
        now,
        eNCF: `E${tipo}0000000001`,
        fechaVencimientoSecuencia: "31-12-2030",
        emisor: { RNCEmisor: "130862346", RazonSocialEmisor: "Emisor SRL", DireccionEmisor: "Calle 1" },
      }).ok,
    ).toBe(true);
    expect(schemaErrors(tipo, doc)).toEqual([]);
  });
});

describe("what the schema refuses, validateEcf refuses", () => {
  const validated = (doc: Json) =>
    validateEcf(doc, {
      now,
      eNCF: "E310000000001",
      fechaVencimientoSecuencia: "31-12-2030",
      emisor: { RNCEmisor: "130862346", RazonSocialEmisor: "Emisor SRL", DireccionEmisor: "Calle 1" },
    });
  it("the unedited request is accepted by both", () => {
    expect(schemaErrors("31", apiRequest("31"))).toEqual([]);
    expect(validated(apiRequest("31")).problems).toEqual([]);
  });
  it.each([
    ["an unknown element at the root", (d: Json) => (d.Observaciones = "x"), "/ additionalProperties"],
    [
      "an unknown element in a line",
      (d: Json) => (d.DetallesItems[0].Precio = "1.00"),
      "/DetallesItems/0 additionalProperties",
    ],
    ["a line without NombreItem", (d: Json) => delete d.DetallesItems[0].NombreItem, "/DetallesItems/0 required"],
    ["no DetallesItems", (d: Json) => delete d.DetallesItems, "/ required"],
    ["no lines at all", (d: Json) => (d.DetallesItems = []), "/DetallesItems minItems"],
    ["a line as an object, not an array", (d: Json) => (d.DetallesItems = d.DetallesItems[0]), "/DetallesItems type"],
    [
      "a name over 80 characters",
      (d: Json) => (d.DetallesItems[0].NombreItem = "x".repeat(81)),
      "/DetallesItems/0/NombreItem maxLength",
    ],
    [
      "a price with thousands separators",
      (d: Json) => (d.DetallesItems[0].PrecioUnitarioItem = "1,000.00"),
      "/DetallesItems/0/PrecioUnitarioItem pattern",
    ],
    [
      "a price with 5 decimal places",
      (d: Json) => (d.DetallesItems[0].PrecioUnitarioItem = "1.00001"),
      "/DetallesItems/0/PrecioUnitarioItem pattern",
    ],
    [
      "a quantity of zero (a JSON number)",
      (d: Json) => (d.DetallesItems[0].CantidadItem = 0),
      "/DetallesItems/0/CantidadItem exclusiveMinimum",
    ],
    ["TipoPago 4", (d: Json) => (d.Encabezado.IdDoc.TipoPago = 4), "/Encabezado/IdDoc/TipoPago enum"],
    [
      "a date written yyyy-MM-dd",
      (d: Json) => (d.Encabezado.IdDoc.FechaLimitePago = "2026-12-31"),
      "/Encabezado/IdDoc/FechaLimitePago pattern",
    ],
    [
      "a province that does not exist",
      (d: Json) => (d.Encabezado.Comprador.ProvinciaComprador = "990000"),
      "/Encabezado/Comprador/ProvinciaComprador enum",
    ],
    [
      "an element E31 prohibits (IndicadorNotaCredito)",
      (d: Json) => (d.Encabezado.IdDoc.IndicadorNotaCredito = "0"),
      "/Encabezado/IdDoc additionalProperties",
    ],
  ])("%s", (_name, edit, expected) => {
    const doc = apiRequest("31");
    edit(doc);
    expect(schemaErrors("31", doc)).toContainEqual(expect.stringContaining(expected));
    expect(validated(doc).ok).toBe(false);
  });

  it("numbers and numeric strings are both accepted, as the service accepts them", () => {
    const doc = apiRequest("31");
    Object.assign(doc.DetallesItems[0], {
      CantidadItem: 2,
      PrecioUnitarioItem: 100.5,
      IndicadorFacturacion: 1,
      UnidadMedida: 43,
    });
    doc.Encabezado.IdDoc.TipoeCF = 31;
    expect(schemaErrors("31", doc)).toEqual([]);
    expect(validated(doc).ok).toBe(true);
  });
});

describe("what the service fills is not required", () => {
  const required = (schema: JsonSchema, ...path: string[]): string[] => {
    let s = schema as Json;
    for (const p of path) s = s.properties[p].type === "array" ? s.properties[p].items : s.properties[p];
    return s.required ?? [];
  };
  it.each(TIPOS_ECF.map((t) => [t]))("E%s", (tipo) => {
    const schema = ecfRequestSchema(tipo);
    expect(required(schema)).toEqual(expect.arrayContaining(["Encabezado", "DetallesItems"]));
    expect(required(schema)).not.toContain("FechaHoraFirma");
    expect(required(schema, "Encabezado")).not.toContain("Emisor");
    expect(required(schema, "Encabezado")).not.toContain("Totales");
    expect(required(schema, "Encabezado", "IdDoc")).toContain("TipoeCF");
    expect(required(schema, "Encabezado", "IdDoc")).not.toEqual(expect.arrayContaining(["eNCF"]));
    expect(required(schema, "DetallesItems")).toEqual(
      expect.arrayContaining(["NombreItem", "CantidadItem", "PrecioUnitarioItem", "IndicadorFacturacion"]),
    );
    expect(required(schema, "DetallesItems")).not.toContain("MontoItem");
    expect(required(schema, "DetallesItems")).not.toContain("NumeroLinea");
  });
});
