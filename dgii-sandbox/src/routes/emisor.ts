// Emisor-receptor simulator: plays another taxpayer sending an e-CF to a receiver under test,
// as DGII's testecf/emisorreceptor does, and reports the acknowledgement (ARECF) it got back; and,
// as DGII's "Emisión: Aprobación Comercial", sends a buyer's commercial approval (ACECF) to an
// issuer's aprobacioncomercial service and reports its answer.
import { buildAcecf, formatDgiiDateTime, signEcfXml } from "@ecf/shared";
import { Hono } from "hono";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import { readEcf } from "../documents.ts";
import { authenticateAt, postXmlFile } from "../receiver-client.ts";
import { localName, parseXml, text } from "../xml-read.ts";

interface SendRequest {
  to: string;
  xml: string;
  fileName?: string;
  /** Bearer token for receivers that declared authentication. */
  token?: string;
  /** Authenticate first at {to}/fe/autenticacion with the sandbox's own certificate, as DGII's simulator does. */
  authenticate?: boolean;
}

function parseSend(body: unknown): SendRequest | string {
  if (typeof body !== "object" || body === null) return "body must be a JSON object";
  const { to, xml, fileName, token, authenticate } = body as Record<string, unknown>;
  if (typeof to !== "string" || !/^https?:\/\//.test(to)) return "to must be an http(s) base URL";
  if (typeof xml !== "string" || xml.length === 0) return "xml must be a non-empty string";
  if (fileName !== undefined && typeof fileName !== "string") return "fileName must be a string";
  if (token !== undefined && typeof token !== "string") return "token must be a string";
  if (authenticate !== undefined && typeof authenticate !== "boolean") return "authenticate must be a boolean";
  if (token && authenticate) return "give either token or authenticate, not both";
  return {
    to,
    xml,
    ...(fileName ? { fileName } : {}),
    ...(token ? { token } : {}),
    ...(authenticate ? { authenticate } : {}),
  };
}

/** An ACECF to send: given as XML (sent as is), or as its fields (built and signed by the sandbox). */
interface ApprovalRequest {
  to: string;
  xml?: string;
  fields?: {
    RNCEmisor: string;
    eNCF: string;
    FechaEmision: string;
    MontoTotal: string;
    RNCComprador: string;
    /** "1" accepted, "2" rejected. */
    Estado: "1" | "2";
    DetalleMotivoRechazo?: string;
    FechaHoraAprobacionComercial?: string;
  };
  token?: string;
  authenticate?: boolean;
}

const DGII_DATE = /^\d{2}-\d{2}-\d{4}$/;

function parseApproval(body: unknown): ApprovalRequest | string {
  if (typeof body !== "object" || body === null) return "body must be a JSON object";
  const { to, xml, token, authenticate, ...rest } = body as Record<string, unknown>;
  if (typeof to !== "string" || !/^https?:\/\//.test(to)) return "to must be an http(s) base URL";
  if (token !== undefined && typeof token !== "string") return "token must be a string";
  if (authenticate !== undefined && typeof authenticate !== "boolean") return "authenticate must be a boolean";
  if (token && authenticate) return "give either token or authenticate, not both";
  const auth = { ...(token ? { token: token as string } : {}), ...(authenticate ? { authenticate: true } : {}) };
  if (xml !== undefined) {
    if (typeof xml !== "string" || xml.length === 0) return "xml must be a non-empty string";
    return { to, xml, ...auth };
  }
  const f = rest as Record<string, unknown>;
  for (const name of ["RNCEmisor", "eNCF", "FechaEmision", "MontoTotal", "RNCComprador"]) {
    if (typeof f[name] !== "string" || f[name] === "") return `${name} is required (or give xml)`;
  }
  if (f.Estado !== "1" && f.Estado !== "2") return 'Estado must be "1" (accepted) or "2" (rejected)';
  if (!DGII_DATE.test(f.FechaEmision as string)) return "FechaEmision must be dd-MM-yyyy";
  if (f.Estado === "2" && typeof f.DetalleMotivoRechazo !== "string")
    return "DetalleMotivoRechazo is required when Estado is 2";
  if (f.FechaHoraAprobacionComercial !== undefined && typeof f.FechaHoraAprobacionComercial !== "string")
    return "FechaHoraAprobacionComercial must be a string";
  return { to, fields: f as unknown as NonNullable<ApprovalRequest["fields"]>, ...auth };
}

export function emisorRoutes(ctx: SandboxContext) {
  const app = new Hono<SandboxEnv>();

  // DGII's /api/emision/envioaprobacioncomercial: the ACECF goes to {to}/fe/aprobacioncomercial/api/ecf,
  // after authenticating at {to}/fe/autenticacion when asked (file name RNCComprador + eNCF).
  app.post("/send-approval", async (c) => {
    const request = parseApproval(await c.req.json().catch(() => null));
    if (typeof request === "string") return c.json({ error: request }, 400);
    let xml = request.xml;
    let fileName = "acecf.xml";
    if (request.fields) {
      const f = request.fields;
      const signer = await ctx.signer();
      xml = await signEcfXml(
        buildAcecf({
          RNCEmisor: f.RNCEmisor,
          eNCF: f.eNCF,
          FechaEmision: f.FechaEmision,
          MontoTotal: f.MontoTotal,
          RNCComprador: f.RNCComprador,
          Estado: f.Estado,
          ...(f.DetalleMotivoRechazo ? { DetalleMotivoRechazo: f.DetalleMotivoRechazo } : {}),
          FechaHoraAprobacionComercial: f.FechaHoraAprobacionComercial ?? formatDgiiDateTime(ctx.now()),
        }),
        signer.key,
        signer.certificateDer,
      );
      fileName = `${f.RNCComprador}${f.eNCF}.xml`;
    } else {
      const comprador = /<RNCComprador>\s*(\d+)\s*</.exec(xml!)?.[1];
      const encf = /<eNCF>\s*(\w+)\s*</.exec(xml!)?.[1];
      if (comprador && encf) fileName = `${comprador}${encf}.xml`;
    }
    const delivery = await deliver(ctx, request, "/fe/aprobacioncomercial/api/ecf", xml!, fileName, "application/json");
    if ("failed" in delivery) return c.json(delivery.failed, 502);
    const { url, authentication, response } = delivery;
    const body = await response.text();
    let answer: unknown = null;
    try {
      answer = JSON.parse(body);
    } catch {
      // Not JSON: the raw body is reported as is.
    }
    return c.json({
      url,
      fileName,
      authentication,
      status: response.status,
      contentType: response.headers.get("content-type"),
      body,
      answer,
      xml,
    });
  });

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
    const delivery = await deliver(ctx, request, "/fe/recepcion/api/ecf", request.xml, fileName, "application/xml");
    if ("failed" in delivery) return c.json(delivery.failed, 502);
    const { url, authentication, response } = delivery;

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
    return c.json({
      url,
      fileName,
      authentication,
      status: response.status,
      contentType: response.headers.get("content-type"),
      body,
      arecf,
      signature,
    });
  });

  return app;
}

type Delivery =
  | { url: string; authentication: { status: number; error?: string } | null; response: Response }
  | { failed: Record<string, unknown> };

/**
 * Posts `xml` to `{to}{path}`, as DGII's simulator does: with the given token, or after
 * authenticating at the receiver's /fe/autenticacion first. A failure to log in or to reach the
 * receiver comes back as `failed` (the route answers 502 with it).
 */
async function deliver(
  ctx: SandboxContext,
  request: { to: string; token?: string; authenticate?: boolean },
  path: string,
  xml: string,
  fileName: string,
  accept: string,
): Promise<Delivery> {
  const base = request.to.replace(/\/+$/, "");
  let token = request.token;
  let authentication: { status: number; error?: string } | null = null;
  if (request.authenticate) {
    const login = await authenticateAt(ctx, `${base}/fe/autenticacion`);
    authentication = { status: login.status, ...(login.error ? { error: login.error } : {}) };
    if (!login.token) return { failed: { url: `${base}/fe/autenticacion`, authentication } };
    token = login.token;
  }
  const url = `${base}${path}`;
  try {
    return { url, authentication, response: await postXmlFile(url, xml, fileName, accept, token) };
  } catch (error) {
    return { failed: { url, error: `receiver unreachable: ${String(error)}` } };
  }
}
