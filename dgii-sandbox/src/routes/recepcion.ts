// Recepción de e-CF: POST /{env}/recepcion/api/facturaselectronicas answers a track id at once;
// validation runs behind it and is read with consultaresultado (descripcion-tecnica, p. 11-13).
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import { readEcf } from "../documents.ts";
import { evaluateEcf } from "../ecf-evaluation.ts";
import type { ForcedRejection } from "../faults.ts";
import type { Environment } from "../environments.ts";
import { readXmlPart } from "../multipart.ts";
import { rejected, type Outcome } from "../outcome.ts";
import type { EcfReception } from "../state.ts";
import { localName, type MalformedXmlError, parseXml } from "../xml-read.ts";

/** Below this total an E32 is summarised (RFCE) and sent to recepcionfc instead. */
export const RFCE_THRESHOLD = 250_000;

function refusal(error: string, mensaje: string) {
  return new Response(JSON.stringify({ trackId: null, error, mensaje }), {
    status: 400,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

export function recepcionRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();

  app.post("/api/facturaselectronicas", async (c) => {
    const part = await readXmlPart(c);
    const seen: { rnc: string | null; encf: string | null } = { rnc: null, encf: null };
    // Refused documents get no track id, but are listed in /__sandbox/received for debugging.
    const refuse = (mensaje: string, error = "Archivo no válido") => {
      ctx.state.record({
        t: "received",
        entry: {
          kind: "ecf",
          env,
          ...seen,
          trackId: null,
          fileName: part.ok ? part.fileName || null : null,
          receivedAt: ctx.now(),
          outcome: { httpStatus: 400, error, mensaje },
        },
      });
      return refusal(error, mensaje);
    };
    if (!part.ok) return refuse(part.message, "Tipo de archivo no válido");
    let root;
    try {
      root = parseXml(part.xml);
    } catch (error) {
      return refuse(`El XML no está bien formado: ${(error as MalformedXmlError).message}`);
    }
    if (localName(root) === "RFCE")
      return refuse("Los resúmenes de Factura de Consumo Electrónica se envían al servicio recepcionfc");
    if (localName(root) !== "ECF") return refuse(`Se esperaba un e-CF (etiqueta ECF), se recibió ${localName(root)}`);

    const summary = readEcf(root);
    seen.rnc = summary.rncEmisor || null;
    seen.encf = summary.encf || null;
    const expectedName = `${summary.rncEmisor}${summary.encf}.xml`;
    if (part.fileName.toLowerCase() !== expectedName.toLowerCase()) {
      return refuse(
        `El nombre del archivo debe ser RNCEmisor + e-NCF (${expectedName}), se recibió '${part.fileName}'`,
        "Nombre de archivo no válido",
      );
    }
    if (summary.tipo === "32" && summary.montoTotal !== undefined && Number(summary.montoTotal) < RFCE_THRESHOLD) {
      return refuse(
        "Las Facturas de Consumo Electrónica con monto inferior a RD$250,000.00 se envían como resumen (RFCE) al servicio recepcionfc",
      );
    }

    const receivedAt = ctx.now();
    const reception: EcfReception = {
      trackId: randomUUID(),
      env,
      fileName: part.fileName,
      summary,
      receivedAt,
      readyAt: receivedAt.getTime() + ctx.config.processingMs,
    };
    ctx.state.record(
      { t: "reception", reception, xml: part.xml },
      {
        t: "received",
        entry: {
          kind: "ecf",
          env,
          rnc: summary.rncEmisor,
          encf: summary.encf,
          trackId: reception.trackId,
          fileName: part.fileName,
          receivedAt,
          outcome: null,
        },
      },
    );
    judge(ctx, reception, part.xml, ctx.faults.takeRejection());

    return c.json({ trackId: reception.trackId, error: null, mensaje: null });
  });

  return app;
}

/**
 * Judges a reception behind its track id. Copies of one e-NCF are judged one after the other, in
 * arrival order, so a duplicate is always recognised as such even when both arrive at once.
 * Also run at start for receptions a killed sandbox had not judged yet.
 */
export function judge(
  ctx: SandboxContext,
  reception: EcfReception,
  xml: string,
  forced: ForcedRejection | null = null,
): void {
  const { env, summary, receivedAt, trackId } = reception;
  const key = `${env}|${summary.rncEmisor}|${summary.encf.toUpperCase()}`;
  const previous = ctx.state.evaluationChains.get(key) ?? Promise.resolve();
  const current = previous.then(async () => {
    let outcome: Outcome;
    try {
      outcome = await evaluateEcf(ctx, { trackId, xml, summary, env, receivedAt, forced });
    } catch (error) {
      outcome = rejected([{ codigo: 9999, valor: `Error interno del sandbox: ${String(error)}` }], false);
    }
    ctx.state.record({ t: "outcome", trackId, outcome });
  });
  ctx.state.evaluationChains.set(key, current);
}
