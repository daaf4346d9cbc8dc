// Recepción de resumen factura de consumo (RFCE, E32 under RD$250,000): answered synchronously
// with the final state (descripcion-tecnica, p. 13-16). DGII serves it on the fc host; the
// sandbox serves both hosts' paths on one origin.
import { Hono } from "hono";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import { ENCF_PATTERN, readRfce, type RfceSummary } from "../documents.ts";
import type { Environment } from "../environments.ts";
import { readXmlPart } from "../multipart.ts";
import { accepted, rejected, type Outcome } from "../outcome.ts";
import { CODES, mensaje } from "../rejection-codes.ts";
import { isDelegate, NOT_A_DELEGATE } from "../signers.ts";
import { sameEncf } from "../state.ts";
import { localName, type MalformedXmlError, parseXml } from "../xml-read.ts";
import { RFCE_THRESHOLD } from "./recepcion.ts";

function answer(outcome: Outcome, encf: string | null, status: 200 | 400 = 200) {
  const body = {
    codigo: outcome.codigo,
    estado: outcome.estado,
    mensajes: outcome.mensajes,
    encf,
    secuenciaUtilizada: outcome.secuenciaUtilizada,
  };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });
}

async function evaluateRfce(
  ctx: SandboxContext,
  env: Environment,
  xml: string,
  summary: RfceSummary,
): Promise<Outcome> {
  const forced = ctx.faults.takeRejection();
  if (forced) return rejected([{ codigo: forced.code, valor: forced.message }], forced.secuenciaUtilizada);
  if (summary.tipo !== "32" || !ENCF_PATTERN.test(summary.encf) || !summary.encf.startsWith("E32")) {
    return rejected(
      [mensaje("encfInvalido", `El e-NCF ${summary.encf} no corresponde a una Factura de Consumo Electrónica`)],
      CODES.encfInvalido.secuenciaUtilizada,
    );
  }
  const schema = await ctx.checks.validateSchema(xml, "RFCE");
  if (!schema.ok) {
    return rejected(
      schema.errors
        .slice(0, 20)
        .map((error) => mensaje("estructuraInvalida", `La estructura del archivo XML no es válida: ${error}`)),
      CODES.estructuraInvalida.secuenciaUtilizada,
    );
  }
  const signature = await ctx.checks.verifySignature(xml);
  if (!signature.ok)
    return rejected(
      [mensaje("firmaInvalida", `La firma del XML no es válida: ${signature.message}`)],
      CODES.firmaInvalida.secuenciaUtilizada,
    );
  // DGII takes a summary, like a full e-CF, only from a delegate of RNCEmisor.
  if (!isDelegate(ctx, summary.rncEmisor, signature.certificate))
    return rejected(
      [mensaje("firmanteNoAutorizado", NOT_A_DELEGATE(`Emisor ${summary.rncEmisor}`))],
      CODES.firmanteNoAutorizado.secuenciaUtilizada,
    );
  if (summary.montoTotal === undefined || !(Number(summary.montoTotal) < RFCE_THRESHOLD)) {
    return rejected(
      [
        mensaje(
          "estructuraInvalida",
          "Las Facturas de Consumo Electrónica de RD$250,000.00 o más se envían completas al servicio de recepción",
        ),
      ],
      CODES.estructuraInvalida.secuenciaUtilizada,
    );
  }
  if (ctx.state.isVoided(env, summary.rncEmisor, summary.encf)) {
    return rejected(
      [mensaje("encfAnulado", `El e-NCF ${summary.encf} fue anulado`)],
      CODES.encfAnulado.secuenciaUtilizada,
    );
  }
  const used =
    ctx.state.rfce.some(
      (r) =>
        r.env === env &&
        r.summary.rncEmisor === summary.rncEmisor &&
        sameEncf(r.summary.encf, summary.encf) &&
        r.outcome.codigo !== 2,
    ) ||
    ctx.state
      .receptionsOf(env, summary.rncEmisor, summary.encf)
      .some((r) => r.outcome?.codigo === 1 || r.outcome?.codigo === 4);
  if (used)
    return rejected(
      [mensaje("encfDuplicado", `El e-NCF ${summary.encf} ya fue utilizado por el RNC ${summary.rncEmisor}`)],
      CODES.encfDuplicado.secuenciaUtilizada,
    );
  return accepted();
}

export function recepcionFcRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();

  app.post("/api/recepcion/ecf", async (c) => {
    const part = await readXmlPart(c);
    // Refused at the door: answered with 400 and listed in /__sandbox/received for debugging.
    const refuse = (outcome: Outcome, encf: string | null, rnc: string | null = null) => {
      ctx.state.record({
        t: "received",
        entry: {
          kind: "rfce",
          env,
          rnc,
          encf,
          trackId: null,
          fileName: part.ok ? part.fileName || null : null,
          receivedAt: ctx.now(),
          outcome: { httpStatus: 400, ...outcome },
        },
      });
      return answer(outcome, encf, 400);
    };
    if (!part.ok) return refuse(rejected([mensaje("estructuraInvalida", part.message)], false), null);
    let root;
    try {
      root = parseXml(part.xml);
    } catch (error) {
      return refuse(
        rejected(
          [mensaje("estructuraInvalida", `El XML no está bien formado: ${(error as MalformedXmlError).message}`)],
          false,
        ),
        null,
      );
    }
    if (localName(root) !== "RFCE") {
      return refuse(
        rejected([mensaje("estructuraInvalida", `Se esperaba un resumen RFCE, se recibió ${localName(root)}`)], false),
        null,
      );
    }
    const summary = readRfce(root);
    const expectedName = `${summary.rncEmisor}${summary.encf}.xml`;
    if (part.fileName.toLowerCase() !== expectedName.toLowerCase()) {
      return refuse(
        rejected(
          [
            mensaje(
              "estructuraInvalida",
              `El nombre del archivo debe ser RNCEmisor + e-NCF (${expectedName}), se recibió '${part.fileName}'`,
            ),
          ],
          false,
        ),
        summary.encf || null,
        summary.rncEmisor || null,
      );
    }

    const outcome = await evaluateRfce(ctx, env, part.xml, summary);
    const receivedAt = ctx.now();
    ctx.state.record(
      { t: "rfce", rfce: { env, fileName: part.fileName, summary, receivedAt, outcome } },
      {
        t: "received",
        entry: {
          kind: "rfce",
          env,
          rnc: summary.rncEmisor,
          encf: summary.encf,
          trackId: null,
          fileName: part.fileName,
          receivedAt,
          outcome,
        },
      },
    );
    return answer(outcome, summary.encf);
  });

  return app;
}
