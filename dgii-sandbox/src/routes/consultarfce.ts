// Consulta de Resumen de Factura (RFCE), fc host: an RFCE's state by RNC emisor, e-NCF and the
// security code of the E32 it summarises (descripcion-tecnica, p. 17). Both the query names of
// the example URL (RNC_Emisor, ENCF, Cod_Seguridad_eCF) and of the parameter list are accepted.
import { Hono } from "hono";
import { queryParam, type SandboxContext, type SandboxEnv } from "../context.ts";
import type { Environment } from "../environments.ts";
import { ESTADOS } from "../outcome.ts";
import { sameEncf } from "../state.ts";

export function consultaRfceRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();
  app.get("/api/consultas/consulta", (c) => {
    const rnc = queryParam(c, "rnc_emisor") ?? queryParam(c, "rncemisor");
    const encf = queryParam(c, "encf");
    const codigoSeguridad = queryParam(c, "cod_seguridad_ecf") ?? queryParam(c, "codigoseguridad");
    if (!rnc || !encf || !codigoSeguridad) {
      return c.json(
        { error: "Los campos RNC_Emisor, ENCF y Cod_Seguridad_eCF son requeridos", mensaje: "Parámetros requeridos" },
        400,
      );
    }
    const matches = ctx.state.rfce.filter(
      (r) =>
        r.env === env &&
        r.summary.rncEmisor === rnc &&
        sameEncf(r.summary.encf, encf) &&
        r.summary.codigoSeguridad === codigoSeguridad,
    );
    const found = matches.find((r) => r.outcome.codigo !== 2) ?? matches[matches.length - 1];
    if (!found) {
      return c.json({ rnc, encf, secuenciaUtilizada: false, codigo: "0", estado: ESTADOS[0], mensajes: [] });
    }
    return c.json({
      rnc,
      encf: found.summary.encf,
      secuenciaUtilizada: found.outcome.secuenciaUtilizada,
      codigo: String(found.outcome.codigo),
      estado: found.outcome.estado,
      mensajes: found.outcome.mensajes,
    });
  });
  return app;
}
