// One vocabulary, checked the way grep would: every string of /openapi.json that names a receipt's
// state or a commercial approval's (enum and const values, defaults, examples, the example values
// of requests, answers and webhooks) is spelled one way, and that way is DGII's; since 1.9.0 no
// property is deprecated and no earlier spelling is left. Webhook event types (`receipt.accepted`) are identifiers, not state words: a string
// counts only when the whole of it names a state.
import { beforeAll, describe, expect, inject, it } from "vitest";

type Json = Record<string, any>;

/** The states as DGII spells them, each with the other spellings a client might meet. */
const STATES: Record<string, string[]> = {
  Aceptado: ["aceptado", "accepted", "accept", "approved", "aprobado"],
  Rechazado: ["rechazado", "rejected", "reject", "refused"],
  "Aceptado Condicional": [
    "aceptado condicional",
    "accepted conditionally",
    "conditionally accepted",
    "accepted conditional",
    "conditional",
    "condicional",
  ],
  "En Proceso": ["en proceso", "in process", "in progress", "processing"],
  Contingencia: ["contingencia", "contingency"],
  Anulado: ["anulado", "voided", "void", "cancelled", "canceled"],
};

/** Case, accents, underscores, hyphens and spacing do not make another word. */
const normalize = (s: string) =>
  s
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase()
    .replace(/[\s_-]+/g, " ")
    .trim();
const STATE_OF = new Map<string, string>(
  Object.entries(STATES).flatMap(([state, variants]) => [
    [normalize(state), state],
    ...variants.map((v) => [normalize(v), state] as [string, string]),
  ]),
);

interface Sighting {
  value: string;
  where: string;
}

/** Every string under `value` that names a state, with the JSON pointer it was found at. */
function stateStrings(value: unknown, where: string, out: Sighting[]): void {
  if (typeof value === "string") {
    if (STATE_OF.has(normalize(value))) out.push({ value, where });
  } else if (Array.isArray(value)) value.forEach((v, i) => stateStrings(v, `${where}/${i}`, out));
  else if (value && typeof value === "object") {
    // A problem document's `code` is an identifier (`in_progress`), not a state word.
    const problem = "title" in value && "status" in value;
    for (const [k, v] of Object.entries(value)) if (!(problem && k === "code")) stateStrings(v, `${where}/${k}`, out);
  }
}

/**
 * Walks a document: in a schema, the values it allows or shows (enum, const, default, example,
 * examples); in a media type or components.examples, the example values whole. Deprecated schemas
 * and parameters are skipped with everything under them; descriptions are prose, not values.
 */
function stateSightings(document: Json): Sighting[] {
  const out: Sighting[] = [];
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) {
      node.forEach((n, i) => walk(n, `${where}/${i}`));
      return;
    }
    if (!node || typeof node !== "object") return;
    const object = node as Json;
    if (object.deprecated === true) return;
    for (const [key, child] of Object.entries(object)) {
      const at = `${where}/${key}`;
      // A problem's `code` is an identifier (`in_progress`), like an event type, not a state word.
      if (key === "code" && (where.endsWith("/Problem/properties") || where.includes("/examples/Problem"))) continue;
      if (key === "enum" || key === "const" || key === "default" || key === "example") stateStrings(child, at, out);
      else if (key === "examples") {
        // A schema's examples are values; a media type's (or components.examples) are named Example objects.
        if (Array.isArray(child)) stateStrings(child, at, out);
        else
          for (const [name, example] of Object.entries((child ?? {}) as Json))
            stateStrings((example as Json)?.value ?? example, `${at}/${name}`, out);
      } else if (key !== "description" && key !== "summary" && key !== "title") walk(child, at);
    }
  };
  walk(document, "");
  return out;
}

/** Each state spelled otherwise than DGII does, with where; empty when the document speaks one vocabulary. */
function vocabularyProblems(document: Json): string[] {
  const spellings = new Map<string, Map<string, string[]>>();
  for (const { value, where } of stateSightings(document)) {
    const state = STATE_OF.get(normalize(value))!;
    const seen = spellings.get(state) ?? new Map<string, string[]>();
    seen.set(value, [...(seen.get(value) ?? []), where]);
    spellings.set(state, seen);
  }
  const problems: string[] = [];
  for (const [state, seen] of spellings) {
    if (seen.size > 1)
      problems.push(
        `${state} is spelled ${seen.size} ways: ${[...seen.keys()].map((s) => JSON.stringify(s)).join(", ")}`,
      );
    for (const [spelling, where] of seen)
      if (spelling !== state)
        problems.push(
          `${JSON.stringify(spelling)} (DGII: ${JSON.stringify(state)}) at ${where.slice(0, 3).join(", ")}`,
        );
  }
  return problems;
}

describe("the vocabulary check itself", () => {
  const schema = (properties: Json) => ({
    openapi: "3.1.0",
    components: { schemas: { Thing: { type: "object", properties } } },
  });

  it.each([
    ["English beside DGII's word", { a: { enum: ["Aceptado"] }, b: { enum: ["accepted"] } }, 2],
    ["another case", { a: { type: "string", example: "ACEPTADO" } }, 1],
    ["underscores for spaces", { a: { enum: ["en_proceso", "En Proceso"] } }, 2],
    ["a lower-case approval beside a receipt's state", { a: { enum: ["Rechazado"] }, b: { enum: ["rechazado"] } }, 2],
    ["a default", { a: { type: "string", default: "contingency" } }, 1],
  ])("finds %s", (_label, properties, count) => {
    expect(vocabularyProblems(schema(properties))).toHaveLength(count);
  });

  it("finds a state in a media type's example value, and leaves deprecated properties, event types and prose alone", () => {
    const doc = {
      ...schema({
        estado: { enum: ["Aceptado", "Rechazado"] },
        status: { deprecated: true, enum: ["accepted", "rejected"] },
        legacy: { anyOf: [{ enum: ["Aceptado"] }, { deprecated: true, enum: ["aceptado"] }] },
        type: { enum: ["receipt.accepted", "receipt.accepted_conditionally"] },
        note: { type: "string", description: "accepted or rejected" },
      }),
      paths: {
        "/x": {
          get: {
            responses: {
              200: { content: { "application/json": { examples: { one: { value: { estado: "Accepted" } } } } } },
            },
          },
        },
      },
    };
    expect(vocabularyProblems({ ...doc, paths: {} })).toEqual([]);
    expect(vocabularyProblems(doc)).toEqual([
      'Aceptado is spelled 2 ways: "Aceptado", "Accepted"',
      '"Accepted" (DGII: "Aceptado") at /paths//x/get/responses/200/content/application/json/examples/one/estado',
    ]);
  });
});

describe("/openapi.json speaks one vocabulary", () => {
  let doc: Json;
  beforeAll(async () => {
    doc = (await (await fetch(`${inject("workerUrl")}/openapi.json`)).json()) as Json;
  });

  it("names each receipt and approval state one way, DGII's, outside deprecated properties", () => {
    const sightings = stateSightings(doc);
    // The check looks where the states are: the receipt answer's estado, the approval's, the reports'.
    const found = new Set(sightings.map((s) => s.value));
    for (const state of ["Aceptado", "Rechazado", "Aceptado Condicional", "En Proceso", "Contingencia", "Anulado"])
      expect(found, state).toContain(state);
    expect(sightings.some((s) => s.where.includes("IncomingApprovalAnswer"))).toBe(true);
    expect(vocabularyProblems(doc)).toEqual([]);
  });

  it("has no API 1.7 spelling left: nothing is deprecated in 1.9.0", () => {
    const legacy: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) {
        node.forEach((n, i) => walk(n, `${where}/${i}`));
        return;
      }
      if (!node || typeof node !== "object") return;
      const object = node as Json;
      if (object.deprecated === true) legacy.push(`${where} (deprecated)`);
      if (
        Array.isArray(object.enum) &&
        object.enum.some(
          (v: unknown) => typeof v === "string" && ["accepted", "aceptado", "rechazado", "rejected"].includes(v),
        )
      )
        legacy.push(where);
      for (const [key, child] of Object.entries(object)) walk(child, `${where}/${key}`);
    };
    walk(doc.components.schemas, "");
    walk(doc.paths, "");
    expect(legacy).toEqual([]);
  });

  it("names the receipt answer's fields once: the interface's reenviado, English for the service's own, no Spanish twin", () => {
    const properties = (name: string) => doc.components.schemas[name].properties as Json;
    const answer = properties("IssueAnswer");
    for (const name of ["reenviado", "warnings", "emails", "buyerDelivery"]) expect(answer[name], name).toBeDefined();
    for (const twin of ["resent", "advertencias", "correos", "entregaComprador"])
      expect(answer, twin).not.toHaveProperty(twin);
    expect(Object.keys(answer.emails.items.properties)).toEqual(["to", "at", "state", "detail"]);
    // A state DGII defines is in DGII's words, one closed set.
    expect(answer.buyerDelivery.properties.state.enum).toEqual([
      "Pendiente",
      "Recibido",
      "No Recibido",
      "No Receptor",
      "Fallido",
    ]);
    // DGII's own field names stay DGII's inside the English object.
    expect(answer.buyerDelivery.properties).toHaveProperty("codigoMotivoNoRecibido");
    expect(properties("EmailQueued")).not.toHaveProperty("estado");
    // A purchase's state at DGII likewise (consultaestado's words).
    expect(properties("ComprasReportItem").estadoDgii.enum).toEqual([
      "Pendiente",
      "Aceptado",
      "Aceptado Condicional",
      "Rechazado",
      "No Encontrado",
    ]);
  });

  it("names the monthly formats', the classification's and the supplier defaults' fields in English, with no Spanish twin", () => {
    const schemas = doc.components.schemas as Json;
    /** Each English name is there; its 1.8.0 Spanish twin is gone. */
    const renamed = (where: string, properties: Json, pairs: Record<string, string>) => {
      for (const [english, spanish] of Object.entries(pairs)) {
        expect(properties[english], `${where}.${english}`).toBeDefined();
        expect(properties, `${where}.${spanish}`).not.toHaveProperty(spanish);
      }
    };
    const monthly = {
      format: "formato",
      period: "periodo",
      fileName: "archivo",
      recordCount: "cantidadRegistros",
      complete: "completo",
      missing: "faltantes",
      warnings: "avisos",
      lines: "lineas",
    };
    renamed("Formato606", schemas.Formato606.properties, { ...monthly, totals: "totales", excluded: "excluidos" });
    renamed("Formato607", schemas.Formato607.properties, {
      ...monthly,
      totals: "totales",
      consumptionSummary: "resumenConsumo",
    });
    renamed("Formato608", schemas.Formato608.properties, monthly);
    renamed("Formato606Linea", schemas.Formato606Linea.properties, {
      fields: "campos",
      source: "origen",
      classification: "clasificacion",
    });
    renamed("MonthlyFormatMissing", schemas.MonthlyFormatMissing.properties, {
      code: "codigo",
      message: "mensaje",
      field: "campo",
      fixWith: "corregir",
    });
    renamed("ResumenConsumo", schemas.ResumenConsumo.properties, { count: "cantidad" });
    renamed("EffectiveClassification", schemas.EffectiveClassification.properties, { sources: "origen" });
    renamed("ClassifiedPurchase", schemas.ClassifiedPurchase.properties, {
      classification: "clasificacion",
      effective: "efectiva",
      missing: "faltantes",
    });
    renamed("SupplierClassificationDefaultsView", schemas.SupplierClassificationDefaultsView.properties, {
      source: "origen",
      updatedAt: "actualizado",
    });
    renamed("SaleWithholdingView", schemas.SaleWithholdingView.properties, { sources: "origen" });
    expect(schemas.Formato606Linea.properties.source.enum).toEqual(["purchase", "own"]);
    // DGII's names stay DGII's: the TXT's columns and the 606 classification's fields.
    expect(schemas.Formato606Linea.properties.fields.properties).toHaveProperty("tipoBienesServiciosComprados");
    expect(schemas.EffectiveClassification.properties).toHaveProperty("tipoBienesServicios");
    // The month is asked for as period, its only name.
    const parameters = doc.paths["/reports/606"].get.parameters as Json[];
    expect(parameters.find((p) => p.name === "period")).toBeDefined();
    expect(parameters.find((p) => p.name === "periodo")).toBeUndefined();
  });
});
