// DGII's certecf portal, as far as a program can reach it: the postulación is uploaded here, the
// person's acts of each step are taken here (in order, or refused), and the status of every step
// is read here. DGII's own judgements (data sets, simulation, approvals) are read from what
// certecf received (certification/progress.ts). Answers are JSON with DGII's Spanish wording.
import { Hono } from "hono";
import { ACTS, type ActInput, signedByRepresentative } from "../certification/acts.ts";
import { DocumentError, readPostulacion } from "../certification/documents.ts";
import { currentStep, newPostulacion, type Postulacion } from "../certification/postulacion.ts";
import { refreshed } from "../certification/progress.ts";
import { isStepId, STEPS } from "../certification/steps.ts";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import { readXmlPart } from "../multipart.ts";

const refusal = (status: 400 | 404 | 409 | 422, error: string, mensaje: string) =>
  Response.json({ error, mensaje }, { status });

/** How the portal shows a postulación: every step with its number, name and who completes it. */
export function statusView(p: Postulacion) {
  const current = currentStep(p);
  return {
    rnc: p.rnc,
    razonSocial: p.razonSocial,
    representante: p.representante,
    tipoPostulante: p.tipoPostulante,
    ...(p.rncProveedor ? { rncProveedor: p.rncProveedor } : {}),
    tiposeCF: p.tiposeCF,
    set: p.set,
    urlsPrueba: p.urlsPrueba,
    ...(p.urlsProduccion ? { urlsProduccion: p.urlsProduccion } : {}),
    ...(p.ecfEnviado ? { ecfEnviado: p.ecfEnviado } : {}),
    pasoActual: current ? STEPS.find((s) => s.id === current.id)! : null,
    finalizado: current === undefined,
    pasos: p.pasos.map((step, index) => ({ ...STEPS[index]!, ...step })),
  };
}

async function register(ctx: SandboxContext, xml: string): Promise<Response> {
  let doc;
  try {
    doc = readPostulacion(xml);
  } catch (error) {
    if (error instanceof DocumentError || error instanceof Error)
      return refusal(400, "postulacion_invalida", error.message);
    throw error;
  }
  const refusedSignature = await signedByRepresentative(ctx, doc, xml);
  if (refusedSignature) return refusal(422, "firma_invalida", refusedSignature);
  const existing = refreshed(ctx, doc.rnc);
  if (existing && currentStep(existing))
    return refusal(409, "postulacion_existente", `El RNC ${doc.rnc} ya tiene una postulación en curso`);
  let shortPath = false;
  if (doc.rncProveedor) {
    const provider = ctx.state.postulaciones.get(doc.rncProveedor);
    const certified = provider?.tipoPostulante === "ProveedorServicios" && !currentStep(provider);
    if (!certified)
      return refusal(
        422,
        "proveedor_no_certificado",
        `El RNC ${doc.rncProveedor} no es un proveedor de servicios certificado`,
      );
    shortPath = true;
  }
  const { urls, ...fields } = doc;
  const p = newPostulacion({ ...fields, urlsPrueba: urls }, shortPath, ctx.now());
  ctx.state.record({ t: "postulacion", postulacion: p });
  return Response.json(statusView(p), { status: 201 });
}

async function actInput(c: { req: { header(name: string): string | undefined; raw: Request } }): Promise<ActInput> {
  const type = c.req.header("content-type")?.toLowerCase() ?? "";
  if (type.startsWith("multipart/form-data")) {
    const form = await c.req.raw.formData();
    const part = form.get("archivo") ?? form.get("xml");
    if (part && typeof part !== "string")
      return { file: { bytes: new Uint8Array(await part.arrayBuffer()), name: part.name } };
    return {};
  }
  if (type.startsWith("application/json")) {
    const body = (await c.req.raw.json().catch(() => null)) as { urls?: ActInput["urls"] } | null;
    return body?.urls && typeof body.urls === "object" ? { urls: body.urls } : {};
  }
  return {};
}

export function certificacionRoutes(ctx: SandboxContext) {
  const app = new Hono<SandboxEnv>();

  app.post("/postulacion", async (c) => {
    const part = await readXmlPart(c);
    if (!part.ok) return refusal(400, "archivo_invalido", part.message);
    return register(ctx, part.xml);
  });

  app.get("/:rnc", (c) => {
    const p = refreshed(ctx, c.req.param("rnc"));
    if (!p) return refusal(404, "sin_postulacion", `El RNC ${c.req.param("rnc")} no tiene postulación`);
    return c.json(statusView(p));
  });

  app.post("/:rnc/:paso", async (c) => {
    const { rnc, paso } = c.req.param();
    const p = refreshed(ctx, rnc);
    if (!p) return refusal(404, "sin_postulacion", `El RNC ${rnc} no tiene postulación`);
    if (!isStepId(paso)) return refusal(404, "paso_desconocido", `No existe el paso '${paso}'`);
    const current = currentStep(p);
    const step = STEPS.find((s) => s.id === paso)!;
    if (current?.id !== paso) {
      const open = current && STEPS.find((s) => s.id === current.id)!;
      const where = open ? `el paso en curso es ${open.numero} (${open.nombre})` : "la certificación está finalizada";
      return refusal(
        409,
        "paso_fuera_de_orden",
        `El paso ${step.numero} (${step.nombre}) no está disponible: ${where}`,
      );
    }
    const act = ACTS[paso];
    if (!act)
      return refusal(
        409,
        "paso_de_dgii",
        `El paso ${step.numero} (${step.nombre}) lo completa DGII con lo que recibe en certecf`,
      );
    const result = await act(ctx, p, await actInput(c));
    // A failed communication test still records what DGII said about it.
    if (result.p) ctx.state.record({ t: "postulacion", postulacion: result.p });
    if (!result.ok) return refusal(result.status, result.error, result.mensaje);
    return c.json(statusView(refreshed(ctx, rnc)!));
  });

  return app;
}

/** Test-facing: the size of the workbook DGII hands this RNC (`PUT /__sandbox/certificacion/{rnc}/set`). */
export function certificacionControlRoutes(ctx: SandboxContext) {
  const app = new Hono<SandboxEnv>();
  app.put("/:rnc/set", async (c) => {
    const p = ctx.state.postulaciones.get(c.req.param("rnc"));
    if (!p) return c.json({ error: "no postulación for this RNC" }, 404);
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    const set = { ...p.set };
    for (const key of ["ecf", "rfce", "acecf"] as const) {
      const value = body?.[key];
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
        return c.json({ error: `${key} must be a non-negative integer` }, 400);
      set[key] = value;
    }
    ctx.state.record({ t: "postulacion", postulacion: { ...p, set } });
    return c.json(set);
  });
  return app;
}
