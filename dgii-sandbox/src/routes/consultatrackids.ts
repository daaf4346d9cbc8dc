// Consulta de trackIds: every track id DGII gave for one RNC + e-NCF (descripcion-tecnica,
// p. 24-27). This is how a client that crashed after sending finds out what DGII already has.
import { Hono } from "hono";
import { isDelegate, TRACKIDS_NOT_A_DELEGATE } from "../signers.ts";
import { queryParam, type SandboxContext, type SandboxEnv } from "../context.ts";
import { santoDomingoIso } from "../dgii-time.ts";
import { ENCF_PATTERN, RNC_PATTERN } from "../documents.ts";
import type { Environment } from "../environments.ts";
import { publicOutcome } from "./consultaresultado.ts";

export function consultaTrackIdsRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();

  app.get("/api/trackids/consulta", (c) => {
    const rnc = queryParam(c, "rncemisor");
    const encf = queryParam(c, "encf");
    const errors: string[] = [];
    if (!rnc) errors.push("El campo RNC Emisor es requerido.");
    else if (!RNC_PATTERN.test(rnc)) errors.push("La longitud del RNC Emisor es inválida.");
    if (!encf) errors.push("El campo ENCF es requerido.");
    else if (encf.length !== 13) errors.push("La longitud del ENCF es inválida.");
    else if (!ENCF_PATTERN.test(encf.toUpperCase())) errors.push("El ENCF es inválido.");
    if (errors.length > 0) return c.json({ error: errors[0], mensaje: errors.join(" ") }, 400);
    if (!isDelegate(ctx, rnc!, c.get("token")))
      return c.json({ error: TRACKIDS_NOT_A_DELEGATE, mensaje: TRACKIDS_NOT_A_DELEGATE }, 400);

    const list = ctx.state
      .receptionsOf(env, rnc!, encf!)
      .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime())
      .map((reception) => ({
        trackId: reception.trackId,
        estado: publicOutcome(ctx, reception).estado,
        fechaRecepcion: santoDomingoIso(reception.receivedAt),
      }));
    return c.json(list);
  });

  return app;
}
