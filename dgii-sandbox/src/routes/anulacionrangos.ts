// Anulación de e-NCF (ANECF): voids ranges of unused numbers (descripcion-tecnica, p. 30-32).
// A range holding a number DGII already counts as used is not voided and is reported back.
import { Hono } from "hono";
import { isDelegate, NOT_A_DELEGATE } from "../signers.ts";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import { readAnecf, type AnecfRange } from "../documents.ts";
import type { Environment } from "../environments.ts";
import { readXmlPart } from "../multipart.ts";
import { splitEncf } from "../state.ts";
import { localName, type MalformedXmlError, parseXml } from "../xml-read.ts";

/** codigo/nombre of the answer: the sandbox's convention, DGII does not document the values. */
const RESULT = {
  anulado: { codigo: "1", nombre: "Anulación procesada" },
  parcial: { codigo: "2", nombre: "Anulación procesada parcialmente" },
  rechazado: { codigo: "3", nombre: "Anulación rechazada" },
} as const;

function answer(
  rnc: string | null,
  result: (typeof RESULT)[keyof typeof RESULT],
  mensajes: string[],
  status: 200 | 400 = 200,
) {
  return new Response(JSON.stringify({ rnc, ...result, mensajes }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

function rangeProblem(range: AnecfRange): string | null {
  const from = splitEncf(range.desde);
  const to = splitEncf(range.hasta);
  if (!from || !to || from.tipo !== range.tipo || to.tipo !== range.tipo) return "El tipo de comprobante no es válido";
  if (from.sequence > to.sequence)
    return "El valor del campo SecuenciaeNCFDesde es mayor al del campo SecuenciaeNCFHasta";
  return null;
}

export function anulacionRangosRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();

  app.post("/api/operaciones/anularrango", async (c) => {
    const part = await readXmlPart(c);
    if (!part.ok) return answer(null, RESULT.rechazado, ["Tipo de archivo no valido, favor proveer un XML"], 400);
    let root;
    try {
      root = parseXml(part.xml);
    } catch (error) {
      return answer(
        null,
        RESULT.rechazado,
        [`Tipo de archivo no valido, favor proveer un XML: ${(error as MalformedXmlError).message}`],
        400,
      );
    }
    if (localName(root) !== "ANECF")
      return answer(
        null,
        RESULT.rechazado,
        ["Tipo de archivo no valido, favor proveer un XML de anulación (ANECF)"],
        400,
      );
    const summary = readAnecf(root);
    const schema = await ctx.checks.validateSchema(part.xml, "ANECF");
    if (!schema.ok)
      return answer(
        summary.rncEmisor,
        RESULT.rechazado,
        schema.errors.map((e) => `La estructura del archivo XML no es válida: ${e}`),
        400,
      );
    const signature = await ctx.checks.verifySignature(part.xml);
    if (!signature.ok) return answer(summary.rncEmisor, RESULT.rechazado, ["La firma del documento no es válida"], 400);
    if (!isDelegate(ctx, summary.rncEmisor, signature.certificate)) {
      return answer(summary.rncEmisor, RESULT.rechazado, [NOT_A_DELEGATE(`Emisor ${summary.rncEmisor}`)], 400);
    }

    const lines = [...new Set(summary.ranges.map((r) => r.noLinea))];
    if (lines.some((line, index) => Number(line) !== index + 1)) {
      return answer(
        summary.rncEmisor,
        RESULT.rechazado,
        ["El campo NoLinea no es válido, no cumple orden secuencial."],
        400,
      );
    }
    for (const range of summary.ranges) {
      const problem = rangeProblem(range);
      if (problem) return answer(summary.rncEmisor, RESULT.rechazado, [problem], 400);
    }

    const exceptions: string[] = [];
    let voided = 0;
    for (const range of summary.ranges) {
      const from = splitEncf(range.desde)!;
      const to = splitEncf(range.hasta)!;
      const used = usedNumbers(ctx, env, summary.rncEmisor, range.tipo, from.sequence, to.sequence);
      if (used.length > 0) {
        exceptions.push(
          `${range.desde}-${range.hasta}: las secuencias que está intentando anular han sido utilizadas (${used.join(", ")})`,
        );
        continue;
      }
      ctx.state.record({
        t: "voided",
        range: { env, rnc: summary.rncEmisor, tipo: range.tipo, from: from.sequence, to: to.sequence },
      });
      voided += 1;
    }

    const result = exceptions.length === 0 ? RESULT.anulado : voided === 0 ? RESULT.rechazado : RESULT.parcial;
    const mensajes =
      exceptions.length === 0
        ? ["Las secuencias fueron anuladas correctamente."]
        : voided === 0
          ? ["Las secuencias que está intentando anular han sido utilizadas.", ...exceptions]
          : [
              "Las secuencias fueron anuladas correctamente. Con excepción de las secuencias del detalle.",
              ...exceptions,
            ];
    ctx.state.record({
      t: "received",
      entry: {
        kind: "anecf",
        env,
        rnc: summary.rncEmisor,
        encf: summary.ranges[0]?.desde ?? null,
        trackId: null,
        fileName: part.fileName || null,
        receivedAt: ctx.now(),
        outcome: { ...result, mensajes },
      },
    });
    return answer(summary.rncEmisor, result, mensajes);
  });

  return app;
}

/** e-NCFs in the range that DGII holds as used: received and not rejected in a way that frees them. */
function usedNumbers(
  ctx: SandboxContext,
  env: Environment,
  rnc: string,
  tipo: string,
  from: number,
  to: number,
): string[] {
  const used = new Set<string>();
  const inRange = (encf: string) => {
    const parts = splitEncf(encf);
    return !!parts && parts.tipo === tipo && parts.sequence >= from && parts.sequence <= to;
  };
  for (const r of ctx.state.receptions.values()) {
    if (
      r.env === env &&
      r.summary.rncEmisor === rnc &&
      inRange(r.summary.encf) &&
      (r.outcome?.secuenciaUtilizada ?? true)
    )
      used.add(r.summary.encf);
  }
  for (const r of ctx.state.rfce) {
    if (r.env === env && r.summary.rncEmisor === rnc && inRange(r.summary.encf) && r.outcome.secuenciaUtilizada)
      used.add(r.summary.encf);
  }
  return [...used].sort();
}
