// Recepción de aprobación comercial (ACECF): the buyer's copy of its commercial approval or
// rejection of an e-CF it received (descripcion-tecnica, p. 27-30).
import { Hono } from "hono";
import { isDelegate, NOT_A_DELEGATE } from "../signers.ts";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import { readAcecf } from "../documents.ts";
import type { Environment } from "../environments.ts";
import { readXmlPart } from "../multipart.ts";
import { issuedByDgiiForCertification } from "../certification/progress.ts";
import { localName, type MalformedXmlError, parseXml } from "../xml-read.ts";

/** e-CF types that never need a commercial approval (descripcion-tecnica, p. 44). */
const NOT_APPROVABLE = new Set(["32", "41", "43", "46", "47"]);

const APROBADA = { codigo: "1", estado: "Aprobación comercial aprobada" } as const;
const RECHAZADA = { codigo: "2", estado: "Aprobación comercial rechazada" } as const;

function refuse(mensaje: string) {
  return new Response(JSON.stringify({ mensaje: [mensaje], ...RECHAZADA }), {
    status: 400,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

export function aprobacionComercialRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();

  app.post("/api/aprobacioncomercial", async (c) => {
    const part = await readXmlPart(c);
    if (!part.ok) return refuse("Tipo de archivo no válido, favor proveer un XML");
    let root;
    try {
      root = parseXml(part.xml);
    } catch (error) {
      return refuse(`Archivo no válido: ${(error as MalformedXmlError).message}`);
    }
    if (localName(root) !== "ACECF")
      return refuse("Tipo de archivo no válido, favor proveer un XML de Aprobación Comercial (ACECF)");
    const schema = await ctx.checks.validateSchema(part.xml, "ACECF");
    if (!schema.ok) {
      return refuse(
        `La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente. ${schema.errors.join("; ")}`,
      );
    }
    const signature = await ctx.checks.verifySignature(part.xml);
    if (!signature.ok) return refuse("La firma del XML no es válida");

    const summary = readAcecf(root);
    if (!isDelegate(ctx, summary.rncComprador, signature.certificate))
      return refuse(NOT_A_DELEGATE(`Comprador ${summary.rncComprador}`));
    const expectedName = `${summary.rncComprador}${summary.encf}.xml`;
    if (part.fileName && part.fileName.toLowerCase() !== expectedName.toLowerCase()) {
      return refuse(
        `El nombre del archivo debe ser RNCComprador + e-NCF (${expectedName}), se recibió '${part.fileName}'`,
      );
    }
    if (NOT_APPROVABLE.has(summary.encf.slice(1, 3)))
      return refuse("Aprobación Comercial no es requerida para este tipo de e-CF");

    const now = ctx.now().getTime();
    const invoice = ctx.state
      .receptionsOf(env, summary.rncEmisor, summary.encf)
      .find((r) => r.outcome && now >= r.readyAt && (r.outcome.codigo === 1 || r.outcome.codigo === 4));
    const dgiiInvoice = env === "certecf" && issuedByDgiiForCertification(ctx, summary.rncComprador, summary.encf);
    if (!invoice && !dgiiInvoice) return refuse("Factura no encontrada para esta Aprobación comercial.");

    const receivedAt = ctx.now();
    ctx.state.record(
      { t: "approval", approval: { env, summary, receivedAt } },
      {
        t: "received",
        entry: {
          kind: "acecf",
          env,
          rnc: summary.rncComprador,
          encf: summary.encf,
          trackId: null,
          fileName: part.fileName || null,
          receivedAt,
          outcome: { ...APROBADA, estadoAprobacion: summary.estado },
        },
      },
    );
    return c.json({ mensaje: ["Aprobación comercial recibida"], ...APROBADA });
  });

  return app;
}
