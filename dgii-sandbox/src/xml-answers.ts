// DGII answers in JSON or XML as the client's Accept asks (descripcion-tecnica shows both for
// each service). The routes build JSON; this turns it into the documented XML when the client
// asks for XML and not JSON. Root names are the document's; a top-level list is wrapped the way
// ASP.NET's XmlSerializer does (ArrayOf{Item}).
import type { MiddlewareHandler } from "hono";
import type { SandboxEnv } from "./context.ts";

/** Root element per service, as descripcion-tecnica shows its XML answer. */
const ROOTS: Record<string, string> = {
  autenticacion: "RespuestaAutenticacion",
  recepcion: "RespuestaRecepcion",
  consultaresultado: "RespuestaConsultaTrackId",
  recepcionfc: "Respuesta",
  consultatrackids: "TrackingDetalle",
  consultaestado: "RespuestaConsultaEstado",
  aprobacioncomercial: "RespuestaAprobacionComercial",
  anulacionrangos: "RespuestaAnulacionRango",
};

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** One JSON value as XML elements named `name`: arrays repeat the element, null is left out. */
function element(name: string, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map((item) => element(name, item)).join("");
  if (typeof value === "object") {
    return `<${name}>${Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => element(key, v))
      .join("")}</${name}>`;
  }
  return `<${name}>${escapeText(String(value))}</${name}>`;
}

export function toXml(root: string, body: unknown): string {
  const content = Array.isArray(body) ? `<ArrayOf${root}>${element(root, body)}</ArrayOf${root}>` : element(root, body);
  return `<?xml version="1.0" encoding="utf-8"?>${content}`;
}

const wantsXml = (accept: string | undefined) => !!accept && /xml/i.test(accept) && !/json/i.test(accept);

export function xmlAnswers(): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    await next();
    if (!wantsXml(c.req.header("accept"))) return;
    const root = ROOTS[new URL(c.req.url).pathname.split("/")[2]?.toLowerCase() ?? ""];
    if (!root || !c.res.headers.get("content-type")?.startsWith("application/json")) return;
    const body = await c.res.clone().json();
    c.res = new Response(toXml(root, body), {
      status: c.res.status,
      headers: { "content-type": "application/xml; charset=utf-8" },
    });
  };
}
