// Consulta Directorio: the electronic taxpayers and their receiver URLs (descripcion-tecnica,
// p. 33-36). The sandbox's directory is whatever a test put there with PUT /__sandbox/directory.
import { Hono } from "hono";
import { queryParam, type SandboxContext, type SandboxEnv } from "../context.ts";

export interface DirectoryEntry {
  nombre: string;
  rnc: string;
  urlRecepcion: string;
  urlAceptacion: string;
  urlOpcional: string | null;
}

export function parseDirectory(body: unknown): DirectoryEntry[] | string {
  if (!Array.isArray(body))
    return "body must be an array of { nombre, rnc, urlRecepcion, urlAceptacion, urlOpcional? }";
  const entries: DirectoryEntry[] = [];
  for (const [index, item] of body.entries()) {
    const e = item as Record<string, unknown>;
    const strings = ["nombre", "rnc", "urlRecepcion", "urlAceptacion"] as const;
    const missing = strings.find((key) => typeof e?.[key] !== "string");
    if (missing) return `entry ${index}: ${missing} must be a string`;
    if (e.urlOpcional !== undefined && e.urlOpcional !== null && typeof e.urlOpcional !== "string")
      return `entry ${index}: urlOpcional must be a string`;
    entries.push({
      nombre: e.nombre as string,
      rnc: e.rnc as string,
      urlRecepcion: e.urlRecepcion as string,
      urlAceptacion: e.urlAceptacion as string,
      urlOpcional: (e.urlOpcional as string | undefined) ?? null,
    });
  }
  return entries;
}

export function consultaDirectorioRoutes(ctx: SandboxContext) {
  const app = new Hono<SandboxEnv>();
  app.get("/api/consultas/listado", (c) => c.json(ctx.state.directory));
  app.get("/api/consultas/obtenerdirectorioporrnc", (c) => {
    const rnc = queryParam(c, "rnc");
    if (!rnc) return c.json({ error: "El campo RNC es requerido", mensaje: "El campo RNC es requerido" }, 400);
    return c.json(ctx.state.directory.filter((entry) => entry.rnc === rnc));
  });
  return app;
}
