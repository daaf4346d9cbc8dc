// Estatus Servicios (statusecf host): availability per service and environment, maintenance
// windows, and a yes/no check (descripcion-tecnica, p. 47-51). It reflects the `down` fault, so a
// client can be tested on checking status before sending.
import { Hono } from "hono";
import { queryParam, type SandboxContext, type SandboxEnv } from "../context.ts";
import { AMBIENTE_PARAM, ENVIRONMENTS, STATUS_NAMES } from "../environments.ts";

export interface MaintenanceWindow {
  ambiente: string;
  horaInicio: string;
  horaFin: string;
  dias: string[];
}

/** Display name → service path segment (what a `down` fault's `services` names). */
export const SERVICES: ReadonlyArray<readonly [string, string]> = [
  ["Autenticación", "autenticacion"],
  ["Recepción", "recepcion"],
  ["Consulta Resultado", "consultaresultado"],
  ["Consulta Estado", "consultaestado"],
  ["Consulta Directorio", "consultadirectorio"],
  ["Consulta TrackIds", "consultatrackids"],
  ["Aprobación Comercial", "aprobacioncomercial"],
  ["Anulación Rangos", "anulacionrangos"],
  ["Recepción FC", "recepcionfc"],
];

const hasApiKey = (authorization: string | undefined) => /^apikey\s+\S+/i.test(authorization?.trim() ?? "");

export function estatusServiciosRoutes(ctx: SandboxContext, windows: () => MaintenanceWindow[]) {
  const app = new Hono<SandboxEnv>();

  app.use("*", async (c, next) => {
    // verificarestado is documented without the key; the other two require `Authorization: Apikey …`.
    if (!c.req.path.toLowerCase().endsWith("/verificarestado") && !hasApiKey(c.req.header("authorization"))) {
      return c.json({ title: "Unauthorized", status: 401, detail: "Se requiere Authorization: Apikey {clave}" }, 401);
    }
    await next();
  });

  app.get("/obtenerestatus", (c) =>
    c.json(
      ENVIRONMENTS.flatMap((env) =>
        SERVICES.map(([servicio, segment]) => ({
          servicio,
          estatus: ctx.faults.isDown(segment) ? "No Disponible" : "Disponible",
          ambiente: STATUS_NAMES[env],
        })),
      ),
    ),
  );

  app.get("/obtenerventanasmantenimiento", (c) => c.json({ ventanaMantenimientos: windows() }));

  app.get("/verificarestado", (c) => {
    const ambiente = queryParam(c, "ambiente");
    if (!ambiente || !AMBIENTE_PARAM[ambiente])
      return c.json({ error: "El parámetro ambiente debe ser 1, 2 o 3" }, 400);
    return c.json({ estado: ctx.faults.isDown() ? "No Disponible" : "Disponible" });
  });

  return app;
}

export const DEFAULT_MAINTENANCE_WINDOWS: MaintenanceWindow[] = [
  { ambiente: "PreCertificacion", horaInicio: "9:00 AM", horaFin: "12:00 PM", dias: [] },
  { ambiente: "Produccion", horaInicio: "1:00 PM", horaFin: "4:00 PM", dias: [] },
  { ambiente: "Certificacion", horaInicio: "1:00 PM", horaFin: "4:00 PM", dias: [] },
];
