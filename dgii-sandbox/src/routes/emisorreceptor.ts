// DGII's emisor-receptor simulator, receiving side (testecf only; descripcion-tecnica, p. 40-46):
// a taxpayer that receives e-CF and commercial approvals under the receiver standard's paths
// (/fe/autenticacion, /fe/recepcion/api/ecf, /fe/aprobacioncomercial/api/ecf), so the platform's
// sending to other taxpayers can be tested. It answers a signed ARECF for every e-CF.
import { buildArecf, formatDgiiDateTime, signEcfXml, type ArecfInput } from "@ecf/shared";
import { Hono } from "hono";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import type { SchemaKind } from "../checks.ts";
import { ECF_TYPES, readAcecf, readEcf, type EcfSummary } from "../documents.ts";
import type { Environment } from "../environments.ts";
import { readXmlPart } from "../multipart.ts";
import { exchangeSeed, issueSeed } from "../seed-exchange.ts";
import { SANDBOX_SIGNER_RNC } from "../signer.ts";
import { requireToken } from "../tokens.ts";
import { localName, type MalformedXmlError, parseXml } from "../xml-read.ts";

/** Types that are never sent to another taxpayer (consumer, purchases, minor expenses, government, exports, payments abroad). */
const NOT_SENT = new Set(["32", "41", "43", "45", "46", "47"]);
/** Types that never need a commercial approval. */
const NOT_APPROVABLE = new Set(["32", "41", "43", "46", "47"]);

const badRequest = (mensaje: string) => Response.json({ mensaje }, { status: 400 });

export function emisorReceptorRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();
  // Authentication is optional for receivers: without a header the request passes, with one it must be this service's token.
  // A buyer switched to requireAuth (PUT /__sandbox/buyer) refuses requests without its token.
  const guarded = (service: Hono<SandboxEnv>) =>
    new Hono<SandboxEnv>()
      .use("*", (c, next) => requireToken(ctx, env, "emisorreceptor", !ctx.state.buyer.requireAuth)(c, next))
      .route("/", service);

  app.get("/fe/autenticacion/api/semilla", () => issueSeed(ctx, env, "emisorreceptor"));
  app.post("/fe/autenticacion/api/validacioncertificado", (c) => exchangeSeed(c, ctx, env, "emisorreceptor"));

  const recepcion = new Hono<SandboxEnv>();
  recepcion.post("/api/ecf", async (c) => {
    const part = await readXmlPart(c);
    if (!part.ok) return badRequest(part.message);
    let root;
    try {
      root = parseXml(part.xml);
    } catch (error) {
      return badRequest(`Formato de archivo no válido: ${(error as MalformedXmlError).message}`);
    }
    if (localName(root) !== "ECF") return badRequest("Se esperaba un e-CF (etiqueta ECF)");
    const summary = readEcf(root);
    if (NOT_SENT.has(summary.tipo))
      return badRequest(
        `Tipo de comprobantes 32, 41, 43, 45, 46 y 47 no aplican para ser enviados a otro contribuyente`,
      );

    const forced = ctx.state.buyer.estado;
    const motivo =
      forced === "1"
        ? ctx.state.buyer.motivo
        : forced === "0"
          ? undefined
          : await notReceivedBecause(ctx, part.xml, summary);
    const key = `${summary.rncEmisor}|${summary.encf.toUpperCase()}`;
    if (!motivo) ctx.state.record({ t: "receptor-received", key });
    const arecf: ArecfInput = {
      RNCEmisor: summary.rncEmisor,
      RNCComprador: summary.rncComprador ?? SANDBOX_SIGNER_RNC,
      eNCF: summary.encf,
      Estado: motivo ? "1" : "0",
      ...(motivo ? { CodigoMotivoNoRecibido: motivo } : {}),
      FechaHoraAcuseRecibo: formatDgiiDateTime(ctx.now()),
    };
    const signer = await ctx.signer();
    const signed = await signEcfXml(buildArecf(arecf), signer.key, signer.certificateDer);
    ctx.state.record({
      t: "received",
      entry: {
        kind: "receptor-ecf",
        env,
        rnc: summary.rncEmisor,
        encf: summary.encf,
        trackId: null,
        fileName: part.fileName || null,
        receivedAt: ctx.now(),
        outcome: { Estado: arecf.Estado, CodigoMotivoNoRecibido: arecf.CodigoMotivoNoRecibido ?? null },
      },
    });
    return c.body(signed, 200, { "content-type": "application/xml; charset=utf-8" });
  });

  const aprobacion = new Hono<SandboxEnv>();
  aprobacion.post("/api/ecf", async (c) => {
    const part = await readXmlPart(c);
    if (!part.ok) return badRequest(part.message);
    let root;
    try {
      root = parseXml(part.xml);
    } catch (error) {
      return badRequest(`Formato de archivo no válido: ${(error as MalformedXmlError).message}`);
    }
    if (localName(root) !== "ACECF") return badRequest("Se esperaba una Aprobación Comercial (etiqueta ACECF)");
    const schema = await ctx.checks.validateSchema(part.xml, "ACECF");
    if (!schema.ok) return badRequest(`Estructura del XML no válida: ${schema.errors.join("; ")}`);
    const signature = await ctx.checks.verifySignature(part.xml);
    if (!signature.ok) return badRequest(`Firma digital del XML no válida: ${signature.message}`);
    const summary = readAcecf(root);
    if (NOT_APPROVABLE.has(summary.encf.slice(1, 3)))
      return badRequest("Aprobaciones comerciales para los tipos de eCF 32, 41, 43, 46 y 47 no aplican");
    ctx.state.record({
      t: "received",
      entry: {
        kind: "receptor-acecf",
        env,
        rnc: summary.rncComprador,
        encf: summary.encf,
        trackId: null,
        fileName: part.fileName || null,
        receivedAt: ctx.now(),
        outcome: { httpStatus: 200, Estado: summary.estado },
      },
    });
    return c.body(null, 200);
  });

  app.route("/fe/recepcion", guarded(recepcion));
  app.route("/fe/aprobacioncomercial", guarded(aprobacion));
  return app;
}

/** CodigoMotivoNoRecibido: 1 specification error, 2 signature error, 3 duplicate; undefined when received. */
async function notReceivedBecause(
  ctx: SandboxContext,
  xml: string,
  summary: EcfSummary,
): Promise<"1" | "2" | "3" | undefined> {
  if (!ECF_TYPES.includes(summary.tipo)) return "1";
  const schema = await ctx.checks.validateSchema(xml, summary.tipo as SchemaKind);
  if (!schema.ok) return "1";
  const signature = await ctx.checks.verifySignature(xml);
  if (!signature.ok) return "2";
  if (ctx.state.receptorReceived.has(`${summary.rncEmisor}|${summary.encf.toUpperCase()}`)) return "3";
  return undefined;
}
