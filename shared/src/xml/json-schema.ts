/**
 * The e-CF request as JSON Schema (the dialect of OpenAPI 3.1: JSON Schema 2020-12), one schema
 * per e-CF type, derived from the same XSD model and obligation matrix `validateEcf` applies, so
 * the published contract cannot drift from the checks:
 * - every element of the type's XSD in sequence order, as the JSON mapping has it (a container
 *   whose only child repeats is an array; leaves are strings, numeric ones also JSON numbers);
 * - the simple type's facets: lengths, enumerations, bounds, and the XSD patterns translated to
 *   ECMAScript (Unicode mode) where they can be, omitted where they cannot;
 * - `required` from the obligation matrix (code 1) and the XSD (minOccurs 1 inside a group that is
 *   present), except what the service fills itself when left out (`complete` in validate/derived.ts);
 * - elements the matrix prohibits for the type (code 0) left out, and no other property allowed.
 * Conditional rules, totals and cross-field checks stay with `validateEcf`: a document the schema
 * accepts can still have problems, never the other way round for the documents DGII's XSDs accept.
 */
import { ENUMERACIONES } from "../catalogs.ts";
import { CONDITIONS } from "../ecf-rules.ts";
import { obligationOf } from "../obligations.ts";
import type { TipoeCF } from "../tipos.ts";
import { dateKindOf, xsdPatternToRegExp } from "./facets.ts";
import { documentModel, type ModelElement } from "./model.ts";
import type { RawFacets } from "./model-types.ts";

export type JsonSchema = Record<string, unknown>;

/** DGII's name of each e-CF type (its catalogue of TipoeCF). */
export function tipoeCFName(tipo: TipoeCF): string {
  return ENUMERACIONES.tipo_ecf.values.find((v) => v.valor === tipo)?.descripcion ?? `e-CF ${tipo}`;
}

/**
 * What the service fills when the request leaves it out (validate/derived.ts `complete` and the issuing
 * route), by element path: never required, and said so in its description. A container listed
 * here covers everything below it.
 */
const FILLED: Readonly<Record<string, string>> = {
  "Encabezado/Version": "1.0 when left out.",
  "Encabezado/IdDoc/eNCF":
    "The next number of the issuer's sequence when left out. Send one only to use a number of your own: resending the same document with it returns the receipt already issued.",
  "Encabezado/IdDoc/FechaVencimientoSecuencia": "Always the expiry of the issuer's authorised range.",
  "Encabezado/Emisor":
    "Filled from the issuer's profile (RNCEmisor, RazonSocialEmisor, NombreComercial, DireccionEmisor, Municipio, Provincia) when left out; fields sent win, and RNCEmisor must be the issuer's own.",
  "Encabezado/Emisor/FechaEmision": "Today in Santo Domingo when left out.",
  "Encabezado/Totales":
    "Computed from the lines when left out; amounts sent are checked against the computed ones within DGII's tolerance.",
  "DetallesItems/Item/NumeroLinea": "The line's position (1, 2, …) when left out.",
  "DetallesItems/Item/MontoItem":
    "CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto when left out; checked within ±1.00 when sent.",
  "DetallesItems/Item/OtraMonedaDetalle/MontoItemOtraMoneda":
    "PrecioOtraMoneda × CantidadItem − DescuentoOtraMoneda + RecargoOtraMoneda when left out.",
  FechaHoraFirma: "Set when the document is signed.",
};

/** Filled only for some types: notes inherit or derive them. */
const FILLED_FOR: Readonly<Record<string, { tipos: readonly TipoeCF[]; note: string }>> = {
  "Encabezado/IdDoc/TipoIngresos": {
    tipos: ["33", "34"],
    note: "The modified receipt's TipoIngresos when left out (01, with a warning, when that receipt is not known here).",
  },
  "Encabezado/IdDoc/IndicadorNotaCredito": {
    tipos: ["34"],
    note: "Derived from FechaEmision and FechaNCFModificado (more than 30 days apart: 1) when left out.",
  },
};

function filledNote(path: string, tipo: TipoeCF): string | undefined {
  const partial = FILLED_FOR[path];
  if (partial) return partial.tipos.includes(tipo) ? partial.note : undefined;
  return FILLED[path];
}

function underFilledContainer(path: string): boolean {
  return Object.keys(FILLED).some((p) => path.startsWith(`${p}/`));
}

// DGII's dd-MM-yyyy and dd-MM-yyyy HH:mm:ss, as `validateEcf` reads them: stricter than the XSD
// patterns (which allow 1-4-2025 and a one-digit hour), and within their 19xx/20xx years.
const DATE = "(0[1-9]|[12][0-9]|3[01])-(0[1-9]|1[0-2])-(19|20)[0-9]{2}";
const DATE_PATTERNS = { date: `^${DATE}$`, dateTime: `^${DATE} ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$` } as const;
const DATE_FORMATS = {
  date: "Written dd-MM-yyyy.",
  dateTime: "Written dd-MM-yyyy HH:mm:ss (24 h, Santo Domingo).",
} as const;

/** The XSD patterns as one ECMAScript pattern (any of them), or undefined when one cannot be translated. */
function ecmaPattern(patterns: readonly string[]): string | undefined {
  const sources: string[] = [];
  for (const p of patterns) {
    const re = xsdPatternToRegExp(p);
    if (!re) return undefined;
    sources.push(re.source);
  }
  return sources.length ? sources.join("|") : undefined;
}

/** A numeric lexical form for types whose XSD gives no pattern. */
function numericPattern(f: RawFacets): string {
  if (f.base === "integer") return "^[+-]?[0-9]+$";
  const fraction = f.fractionDigits === undefined ? "*" : `{1,${f.fractionDigits}}`;
  return `^[+-]?[0-9]+(\\.[0-9]${fraction})?$`;
}

function numericLeaf(f: RawFacets): JsonSchema {
  const integer = f.base === "integer";
  if (f.enumeration) {
    // Compared by value, as the service does: Version 1, "1" and "1.0" are all "1.0".
    const numbers = [...new Set(f.enumeration.map(Number).filter(Number.isFinite))];
    const texts = [...new Set([...f.enumeration, ...numbers.map(String)])];
    return { type: ["string", integer ? "integer" : "number"], enum: [...texts, ...numbers] };
  }
  const schema: JsonSchema = {
    type: ["string", integer ? "integer" : "number"],
    pattern: (f.patterns && ecmaPattern(f.patterns)) ?? numericPattern(f),
  };
  // Bounds apply to JSON numbers; a string's value is checked by the service.
  if (f.minInclusive !== undefined) schema.minimum = Number(f.minInclusive);
  if (f.minExclusive !== undefined) schema.exclusiveMinimum = Number(f.minExclusive);
  if (f.maxInclusive !== undefined) schema.maximum = Number(f.maxInclusive);
  if (f.maxExclusive !== undefined) schema.exclusiveMaximum = Number(f.maxExclusive);
  return schema;
}

function stringLeaf(f: RawFacets): JsonSchema {
  const schema: JsonSchema = { type: "string" };
  if (f.enumeration) {
    schema.enum = [...f.enumeration];
    return schema;
  }
  if (f.length !== undefined) schema.minLength = schema.maxLength = f.length;
  if (f.minLength !== undefined) schema.minLength = f.minLength;
  if (f.maxLength !== undefined) schema.maxLength = f.maxLength;
  const dates = dateKindOf(f);
  if (dates) {
    schema.pattern = DATE_PATTERNS[dates];
    schema.description = DATE_FORMATS[dates];
    return schema;
  }
  const pattern = f.patterns && ecmaPattern(f.patterns);
  if (pattern) schema.pattern = pattern;
  return schema;
}

function leafSchema(f: RawFacets): JsonSchema {
  switch (f.base) {
    case "decimal":
    case "integer":
      return numericLeaf(f);
    case "dateTime":
      return { type: "string", description: "xs:dateTime (yyyy-MM-ddTHH:mm:ss)" };
    case "string":
      return stringLeaf(f);
    default:
      return {};
  }
}

/** The schema of one occurrence of `el` (its whole subtree). */
function occurrenceSchema(el: ModelElement, path: string, tipo: TipoeCF): JsonSchema {
  switch (el.shape) {
    case "leaf":
      return leafSchema(el.facets!);
    case "array": {
      const item = el.item!;
      const schema: JsonSchema = {
        type: "array",
        items: occurrenceSchema(item, `${path}/${item.name}`, tipo),
        minItems: Math.max(1, item.minOccurs),
      };
      if (Number.isFinite(item.maxOccurs)) schema.maxItems = item.maxOccurs;
      return schema;
    }
    case "object":
      return objectSchema(el, path, tipo);
    default: {
      const never: never = el.shape;
      throw new Error(`unknown shape ${String(never)}`);
    }
  }
}

/** An element as its parent's property: one occurrence, or (repeated without a container) also an array of them. */
function propertySchema(el: ModelElement, path: string, tipo: TipoeCF): JsonSchema {
  const one = occurrenceSchema(el, path, tipo);
  const schema: JsonSchema =
    el.repeated && el.shape !== "array"
      ? {
          anyOf: [
            one,
            {
              type: "array",
              items: one,
              minItems: 1,
              ...(Number.isFinite(el.maxOccurs) ? { maxItems: el.maxOccurs } : {}),
            },
          ],
        }
      : one;
  const notes = [schema.description, filledNote(path, tipo), conditionNote(path, tipo)].filter(Boolean);
  return notes.length ? { ...schema, description: notes.join(" ") } : schema;
}

function conditionNote(path: string, tipo: TipoeCF): string | undefined {
  const condition = CONDITIONS[path];
  return obligationOf(path, tipo) === 2 && condition ? `Required when ${condition.en}.` : undefined;
}

function isRequired(el: ModelElement, path: string, tipo: TipoeCF): boolean {
  if (filledNote(path, tipo) !== undefined || underFilledContainer(path)) return false;
  const code = obligationOf(path, tipo);
  return code === 1 || (code !== 0 && el.minOccurs >= 1);
}

function objectSchema(el: ModelElement, path: string, tipo: TipoeCF): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const child of el.children ?? []) {
    const childPath = path ? `${path}/${child.name}` : child.name;
    // Prohibited for this type: `validateEcf` refuses it, so the schema has no such property.
    if (obligationOf(childPath, tipo) === 0) continue;
    properties[child.name] = propertySchema(child, childPath, tipo);
    if (isRequired(child, childPath, tipo)) required.push(child.name);
  }
  return { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

const cache = new Map<TipoeCF, JsonSchema>();

/**
 * The JSON Schema of an e-CF request of type `tipo` (cached; do not mutate). Its
 * `Encabezado.IdDoc.TipoeCF` admits only `tipo`, so the ten schemas exclude each other and a
 * `oneOf` of them picks exactly one.
 */
export function ecfRequestSchema(tipo: TipoeCF): JsonSchema {
  const hit = cache.get(tipo);
  if (hit) return hit;
  const root = objectSchema(documentModel(tipo).root, "", tipo);
  const idDoc = ((root.properties as Record<string, JsonSchema>).Encabezado!.properties as Record<string, JsonSchema>)
    .IdDoc!;
  (idDoc.properties as Record<string, JsonSchema>).TipoeCF = {
    type: ["string", "integer"],
    enum: [tipo, Number(tipo)],
    description: `${tipo}: ${tipoeCFName(tipo)}.`,
  };
  const schema: JsonSchema = {
    title: `E${tipo} ${tipoeCFName(tipo)}`,
    description: [
      `DGII's e-CF ${tipo} as JSON: objects keyed by DGII's element names in any order, arrays for repeated groups (DetallesItems is the array of Item),`,
      "numeric values as JSON numbers or as strings written as DGII writes them (a decimal point, no exponent, no thousands separators), never rounded.",
      "What the service fills is not required.",
    ].join(" "),
    ...root,
  };
  cache.set(tipo, schema);
  return schema;
}
