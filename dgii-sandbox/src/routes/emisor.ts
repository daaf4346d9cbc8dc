// Emisor-receptor simulator: plays another taxpayer sending an e-CF to a receiver under test,
// as DGII's testecf/emisorreceptor does, and reports the acknowledgement (ARECF) it got back.
import { Hono } from "hono";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import { readEcf } from "../documents.ts";
import { localName, parseXml, text } from "../xml-read.ts";

interface SendRequest {
  to: string;
  xml: string;
  fileName?: string;
  /** Bearer token for receivers that declared authentication. */
  token?: string;
}

function parseSend(body: unknown): SendRequest | string {
  if (typeof body !== "object" || body === null) return "body must be a JSON object";
  const { to, xml, fileName, token } = body as Record<string, unknown>;
  if (typeof to !== "string" || !/^https?:\/\//.test(to)) return "to must be an http(s) base URL";
  if (typeof xml !== "string" || xml.length === 0) return "xml must be a non-empty string";
  if (fileName !== undefined && typeof fileName !== "string") return "fileName must be a string";
  if (token !== undefined && typeof token !== "string") return "token must be a string";
  return { to, xml, ...(fileName ? { fileName } : {}), ...(token ? { token } : {}) };
}

export function emisorRoutes(ctx: SandboxContext) {
  const app = new Hono<SandboxEnv>();

  app.post("/send", async (c) => {
    const request = parseSend(await c.req.json().catch(() => null));
    if (typeof request === "string") return c.json({ error: request }, 400);

    let fileName = request.fileName;
    if (!fileName) {
      try {
        const summary = readEcf(parseXml(request.xml));
        fileName = `${summary.rncEmisor}${summary.encf}.xml`;
      } catch {
        fileName = "ecf.xml";
      }
    }
    const form = new FormData();
    form.append("xml", new Blob([request.xml], { type: "text/xml" }), fileName);
    const url = `${request.to.replace(/\/+$/, "")}/fe/recepcion/api/ecf`;
    const headers: Record<string, string> = { accept: "application/xml" };
    if (request.token) headers.authorization = `Bearer ${request.token}`;

    let response: Response;
    try {
      response = await fetch(url, { method: "POST", body: form, headers });
    } catch (error) {
      return c.json({ url, error: `receiver unreachable: ${String(error)}` }, 502);
    }
    const body = await response.text();

    let arecf: Record<string, string | null> | null = null;
    let signature: unknown = null;
    try {
      const root = parseXml(body);
      if (localName(root) === "ARECF") {
        const detalle = ["DetalleAcusedeRecibo"];
        const field = (name: string) => text(root, [...detalle, name]) ?? null;
        arecf = {
          Version: field("Version"),
          RNCEmisor: field("RNCEmisor"),
          RNCComprador: field("RNCComprador"),
          eNCF: field("eNCF"),
          Estado: field("Estado"),
          CodigoMotivoNoRecibido: field("CodigoMotivoNoRecibido"),
          FechaHoraAcuseRecibo: field("FechaHoraAcuseRecibo"),
        };
        signature = await ctx.checks.verifySignature(body);
      }
    } catch {
      // Not XML: the raw body is reported as is.
    }
    return c.json({ url, fileName, status: response.status, contentType: response.headers.get("content-type"), body, arecf, signature });
  });

  return app;
}
