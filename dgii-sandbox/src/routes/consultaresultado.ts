// Consulta de resultado: GET /{env}/consultaresultado/api/consultas/estado?trackid=…
// (descripcion-tecnica, p. 17-20). En Proceso until the configured processing time has passed
// and the evaluation has finished.
import { Hono } from "hono";
import { queryParam, type SandboxContext, type SandboxEnv } from "../context.ts";
import { santoDomingoIso } from "../dgii-time.ts";
import type { Environment } from "../environments.ts";
import { ESTADOS, type Mensaje } from "../outcome.ts";
import type { EcfReception } from "../state.ts";

export interface PublicOutcome {
  codigo: number;
  estado: string;
  mensajes: Mensaje[];
  secuenciaUtilizada: boolean;
}

/** The outcome as a client may see it now. */
export function publicOutcome(ctx: SandboxContext, reception: EcfReception): PublicOutcome {
  const outcome = reception.outcome;
  if (!outcome || ctx.now().getTime() < reception.readyAt) {
    // While in process nothing says the number is free, so it counts as used.
    return { codigo: 3, estado: ESTADOS[3], mensajes: [], secuenciaUtilizada: true };
  }
  return outcome;
}

export function consultaResultadoRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();

  app.get("/api/consultas/estado", (c) => {
    const trackId = queryParam(c, "trackid");
    if (!trackId)
      return c.json({ error: "El campo TrackId es requerido", mensaje: "El campo TrackId es requerido" }, 400);
    const reception = ctx.state.receptions.get(trackId);
    if (!reception || reception.env !== env) {
      return c.json({
        trackId,
        codigo: 0,
        estado: ESTADOS[0],
        rnc: null,
        encf: null,
        secuenciaUtilizada: false,
        fechaRecepcion: null,
        mensajes: [],
      });
    }
    const outcome = publicOutcome(ctx, reception);
    return c.json({
      trackId,
      codigo: outcome.codigo,
      estado: outcome.estado,
      rnc: reception.summary.rncEmisor,
      encf: reception.summary.encf,
      secuenciaUtilizada: outcome.secuenciaUtilizada,
      fechaRecepcion: santoDomingoIso(reception.receivedAt),
      mensajes: outcome.mensajes,
    });
  });

  return app;
}
