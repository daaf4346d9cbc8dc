import { z } from "@hono/zod-openapi";
import { ecfRequestSchema, TIPOS_ECF, type JsonSchema, type TipoeCF } from "@ecf/shared";
import { ECF_REQUEST_EXAMPLES } from "../generated/ecf-examples.ts";
import { withPortablePatterns } from "./portable-pattern.ts";

/** Component name of one type's request schema in /openapi.json. */
export const ecfRequestComponent = (tipo: TipoeCF) => `EcfRequestE${tipo}`;

/**
 * The body of POST /fe/recepcion/ecf. At run time it is only "a JSON object": `validateEcf` is the
 * judge and reports every problem at once with DGII's rules (400/422), which a schema check in front
 * of it would preempt. The document shows the real contract instead: one of the ten per-type
 * schemas generated from the XSD model (added to the document by `withEcfRequestSchemas`).
 */
export const EcfRequest = z.record(z.string(), z.unknown()).openapi("EcfRequest", {
  // A `type` in the metadata replaces what zod-to-openapi derives from the record.
  type: "object",
  description: [
    "An e-CF as JSON mirroring DGII's XML (root ECF), one schema per type, told apart by Encabezado.IdDoc.TipoeCF.",
    "What the service fills may be left out: the issuer's data (Emisor, from the issuer's profile), eNCF (the next number of its sequence),",
    "FechaVencimientoSecuencia, FechaEmision (today), NumeroLinea, MontoItem, Totales (computed from the lines) and FechaHoraFirma.",
    "Sent amounts are checked against the computed ones within DGII's tolerance. Every problem is reported at once, each with a JSON pointer.",
  ].join(" "),
  oneOf: TIPOS_ECF.map((tipo) => ({ $ref: `#/components/schemas/${ecfRequestComponent(tipo)}` })),
});

/** The request body's media type: the schema above and one complete example per type. */
export const ecfRequestContent = { schema: EcfRequest, examples: ECF_REQUEST_EXAMPLES };

interface Document {
  components?: { schemas?: Record<string, unknown> };
}

/** Adds the ten per-type schemas the `EcfRequest` union refers to; built on first use, not at start-up. */
export function withEcfRequestSchemas<D extends Document>(document: D): D {
  const schemas: Record<string, JsonSchema> = {};
  for (const tipo of TIPOS_ECF) schemas[ecfRequestComponent(tipo)] = withPortablePatterns(ecfRequestSchema(tipo));
  return {
    ...document,
    components: { ...document.components, schemas: { ...document.components?.schemas, ...schemas } },
  };
}
