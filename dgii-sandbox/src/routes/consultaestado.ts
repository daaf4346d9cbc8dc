// Consulta de estado e-CF: validity of an e-CF (or RFCE) by RNC emisor + e-NCF, optionally
// narrowed by RNC comprador and security code (descripcion-tecnica, p. 21-24).
import { Hono } from "hono";
import { queryParam, type SandboxContext, type SandboxEnv } from "../context.ts";
import type { Environment } from "../environments.ts";
import { ESTADOS } from "../outcome.ts";
import { sameEncf } from "../state.ts";

interface Found {
  codigo: number;
  rncComprador?: string;
  idExtranjero?: string;
  fechaEmision?: string;
  fechaFirma?: string;
  montoTotal?: string;
  totalITBIS?: string;
  codigoSeguridad?: string;
}

const amount = (text: string | undefined) => (text === undefined ? 0 : Number(text));

export function consultaEstadoRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();

  app.get("/api/consultas/estado", (c) => {
    const rnc = queryParam(c, "rncemisor");
    const encf = queryParam(c, "ncfelectronico");
    const rncComprador = queryParam(c, "rnccomprador") || undefined;
    const codigoSeguridad = queryParam(c, "codigoseguridad") || undefined;
    if (!rnc || !encf)
      return c.json(
        { error: "Los campos RncEmisor y NcfElectronico son requeridos", mensaje: "Parámetros requeridos" },
        400,
      );

    const candidates: Found[] = [];
    const now = ctx.now().getTime();
    for (const reception of ctx.state.receptionsOf(env, rnc, encf)) {
      if (!reception.outcome || now < reception.readyAt) continue;
      const s = reception.summary;
      // Aceptado Condicional is shown as such only for consumer invoices under RD$250,000 (RFCE).
      const codigo = reception.outcome.codigo === 4 ? 1 : reception.outcome.codigo;
      candidates.push({ codigo, ...s, fechaFirma: s.fechaHoraFirma });
    }
    for (const r of ctx.state.rfce) {
      if (r.env !== env || r.summary.rncEmisor !== rnc || !sameEncf(r.summary.encf, encf)) continue;
      candidates.push({ codigo: r.outcome.codigo, ...r.summary });
    }
    const matching = candidates.filter(
      (found) =>
        (rncComprador === undefined || found.rncComprador === rncComprador) &&
        (codigoSeguridad === undefined || found.codigoSeguridad === codigoSeguridad),
    );
    // An accepted copy is the one that counts; otherwise the latest rejection.
    const found = matching.find((f) => f.codigo !== 2) ?? matching[matching.length - 1];
    if (!found) {
      return c.json({
        codigo: 0,
        estado: ESTADOS[0],
        rncEmisor: rnc,
        ncfElectronico: encf,
        montoTotal: 0,
        totalITBIS: 0,
        fechaEmision: null,
        fechaFirma: null,
        rncComprador: rncComprador ?? null,
        codigoSeguridad: codigoSeguridad ?? null,
        idExtranjero: null,
      });
    }
    return c.json({
      codigo: found.codigo,
      estado: ESTADOS[found.codigo as keyof typeof ESTADOS],
      rncEmisor: rnc,
      ncfElectronico: encf.toUpperCase(),
      montoTotal: amount(found.montoTotal),
      totalITBIS: amount(found.totalITBIS),
      fechaEmision: found.fechaEmision ?? null,
      fechaFirma: found.fechaFirma ?? null,
      rncComprador: found.rncComprador ?? null,
      codigoSeguridad: found.codigoSeguridad ?? null,
      idExtranjero: found.idExtranjero ?? null,
    });
  });

  return app;
}
