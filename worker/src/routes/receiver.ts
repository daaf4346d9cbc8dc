// DGII's emisor-receptor services, served for every company on the platform. Paths are matched
// case-insensitively (DGII's services are) and may carry a /{rnc} prefix naming the receiver;
// on the bare path the receiver is the document's RNCComprador (or RNCEmisor for an ACECF).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";
import { problemOf } from "../errors/problem-of.ts";
import { tenantRoute, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { registerIncomingApproval } from "../receiving/incoming-approval.ts";
import { checkReceiverToken, issueSeed, presentedToken, redeemSignedSeed } from "../receiving/receiver-auth.ts";
import { identifyEcf, receiveEcf } from "../receiving/reception.ts";
import { requireReceivingCompany } from "../receiving/receiving-company.ts";
import { noteReceiverFailure, refuseThrottledAddress } from "../receiving/receiver-throttle.ts";
import { readXmlUpload } from "../receiving/xml-upload.ts";
import { receiptPdf } from "../print/receipt-pdf.ts";
import type { Company } from "../db/tables.ts";
import { EncfParam } from "../http/schemas/common.ts";
import {
  IncomingApprovalAnswer,
  PdfQuery,
  ReceiverRncParam,
  ReceiverToken,
  XmlForm,
} from "../http/schemas/receiving.ts";
import { approvalEstadoOf } from "../ledger/month/estado.ts";

type Service = "semilla" | "validacioncertificado" | "recepcion" | "aprobacioncomercial";

const SERVICES: Record<string, { service: Service; method: "GET" | "POST" }> = {
  "autenticacion/api/semilla": { service: "semilla", method: "GET" },
  "autenticacion/api/validacioncertificado": { service: "validacioncertificado", method: "POST" },
  "recepcion/api/ecf": { service: "recepcion", method: "POST" },
  "aprobacioncomercial/api/ecf": { service: "aprobacioncomercial", method: "POST" },
};

const PATH = /^(?:\/(\d{9}|\d{11}))?\/fe\/([a-z]+\/api\/[a-z]+)\/?$/;

const XML_HEADERS = { "Content-Type": "application/xml; charset=utf-8" };

function wantsXml(c: Context<AppEnv>): boolean {
  const accept = c.req.header("Accept") ?? "";
  return /application\/xml|text\/xml/i.test(accept) && !/application\/json/i.test(accept);
}

/**
 * The receiving company and its token check, before the body is read. A /{rnc} prefix names the
 * company, so an unauthenticated request is refused unread. On the bare path the receiver is the
 * document's RNCComprador (RNCEmisor for an ACECF), so only the token itself (unknown or expired:
 * 401) can be checked unread; its binding is checked once the hardened parser has named the company.
 */
async function receiverBeforeParsing(
  c: Context<AppEnv>,
  prefixRnc: string | undefined,
  now: Date,
): Promise<Company | undefined> {
  if (!prefixRnc) {
    await presentedToken(c, now);
    return undefined;
  }
  const company = await requireReceivingCompany(c.env.DB, prefixRnc, "/rnc");
  c.set("tenant", company);
  await checkReceiverToken(c, company, now);
  return company;
}

async function handle(c: Context<AppEnv>, service: Service, prefixRnc: string | undefined): Promise<Response> {
  const now = new Date();
  switch (service) {
    case "semilla": {
      const company = prefixRnc ? await requireReceivingCompany(c.env.DB, prefixRnc, "/rnc") : undefined;
      return c.body(await issueSeed(c.env, company?.id ?? null, now), 200, XML_HEADERS);
    }
    case "validacioncertificado": {
      const company = prefixRnc ? await requireReceivingCompany(c.env.DB, prefixRnc, "/rnc") : undefined;
      const { xml } = await readXmlUpload(c);
      const { companyId: _bound, ...token } = await redeemSignedSeed(c.env, xml, company?.id ?? null, now);
      if (wantsXml(c)) {
        const body = `<?xml version="1.0" encoding="utf-8"?><RespuestaAutenticacion><token>${token.token}</token><expira>${token.expira}</expira><expedido>${token.expedido}</expedido></RespuestaAutenticacion>`;
        return c.body(body, 200, XML_HEADERS);
      }
      return c.json(token, 200);
    }
    case "recepcion": {
      const known = await receiverBeforeParsing(c, prefixRnc, now);
      const { xml } = await readXmlUpload(c);
      const ecf = identifyEcf(xml);
      let company = known;
      if (!company) {
        if (!ecf.rncComprador) {
          throw new ApiProblem("bad_request", {
            detail: "The e-CF names no RNCComprador; send it to /{rnc}/fe/recepcion/api/ecf.",
            errors: [
              {
                path: "/xml/Encabezado/Comprador/RNCComprador",
                code: "required",
                message: "RNCComprador is required on the bare path.",
              },
            ],
          });
        }
        company = await requireReceivingCompany(c.env.DB, ecf.rncComprador, "/xml/Encabezado/Comprador/RNCComprador");
        c.set("tenant", company);
        await checkReceiverToken(c, company, now);
      }
      const result = await receiveEcf(c.env, company, xml, now, c.get("requestId") ?? "unknown");
      if (result.estado === "1") await noteReceiverFailure(c, now);
      return c.body(result.arecf, 200, XML_HEADERS);
    }
    case "aprobacioncomercial": {
      const known = await receiverBeforeParsing(c, prefixRnc, now);
      const { xml } = await readXmlUpload(c);
      const registered = await registerIncomingApproval(c.env, known?.rnc, xml, async (company) => {
        if (known) return;
        c.set("tenant", company);
        await checkReceiverToken(c, company, now);
      });
      const status = registered.approvalStatus;
      return c.json(
        { mensaje: "Aprobación comercial recibida", encf: registered.encf, estado: approvalEstadoOf(status) },
        200,
      );
    }
    default: {
      const unreachable: never = service;
      throw new Error(`unknown service ${String(unreachable)}`);
    }
  }
}

/** Dispatches the /fe/... services on the lower-cased path; anything else passes through. */
const feServices: MiddlewareHandler<AppEnv> = async (c, next) => {
  const match = PATH.exec(new URL(c.req.url).pathname.toLowerCase());
  const entry = match ? SERVICES[match[2]!] : undefined;
  if (!match || !entry) return next();
  if (c.req.method !== entry.method) {
    throw new ApiProblem("method_not_allowed", { detail: `${c.req.method} is not allowed here; use ${entry.method}.` });
  }
  const now = new Date();
  await refuseThrottledAddress(c, now);
  try {
    return await handle(c, entry.service, match[1]);
  } catch (error) {
    // A refused request (forged, unknown, malformed) counts against the address; our own 5xx do not.
    if ((problemOf(error)?.status ?? 500) < 500) await noteReceiverFailure(c, now);
    throw error;
  }
};

export const receiverRoutes = newRouter();
receiverRoutes.use("*", feServices);

// The services are dispatched above (case-insensitively); these entries only document them.
for (const prefix of ["", "/{rnc}"]) {
  // Which receiver answers: the one the path names, or the one the document names.
  const who = prefix
    ? "The /{rnc} prefix names the receiving issuer, so a request for an unknown or inactive one is refused before its body is read."
    : "On the bare path the receiver is the document's own (RNCComprador of an e-CF, RNCEmisor of an ACECF); a seed asked for here is good for any receiver.";
  const params = prefix ? { params: ReceiverRncParam } : {};
  receiverRoutes.openAPIRegistry.registerPath(
    createRoute({
      method: "get",
      path: `${prefix}/fe/autenticacion/api/semilla`,
      tags: ["Receiving"],
      summary: "A single-use seed (SemillaModel) to sign",
      description: `Step one of DGII's authentication, for a supplier about to send an e-CF or an ACECF: the seed XML to sign with its certificate and trade at validacioncertificado. ${who}`,
      request: { ...params },
      responses: {
        200: { description: "SemillaModel", content: { "application/xml": { schema: z.string() } } },
        405: problemSchema("Another method than GET"),
        429: problemSchema("Too many refused requests from this address"),
      },
    }),
  );
  receiverRoutes.openAPIRegistry.registerPath(
    createRoute({
      method: "post",
      path: `${prefix}/fe/autenticacion/api/validacioncertificado`,
      tags: ["Receiving"],
      summary: "Trade the signed seed for a bearer token",
      description: `Step two of DGII's authentication: the seed signed by the sender's certificate becomes a bearer token (JSON, or DGII's XML with Accept: application/xml) for recepción and aprobación comercial. ${who}`,
      request: { ...params, body: { content: { "multipart/form-data": { schema: XmlForm } } } },
      responses: {
        200: { description: "Token", content: { "application/json": { schema: ReceiverToken } } },
        400: problemSchema("Not a seed"),
        401: problemSchema("Bad signature, or the seed is unknown, used or expired"),
      },
    }),
  );
  receiverRoutes.openAPIRegistry.registerPath(
    createRoute({
      method: "post",
      path: `${prefix}/fe/recepcion/api/ecf`,
      tags: ["Receiving"],
      summary: "Receive a supplier's e-CF; answers with a signed ARECF",
      description: `A supplier (or DGII's simulator) delivers an e-CF addressed to one of our issuers; the service checks it, archives it as a purchase and answers DGII's acknowledgment (ARECF), signed by the receiver, received or not received with its reason. A token is required when the receiver asks for one (PUT /receiver/settings). ${who}`,
      request: { ...params, body: { content: { "multipart/form-data": { schema: XmlForm } } } },
      responses: {
        200: {
          description: "ARECF: Estado 0 received, or 1 with CodigoMotivoNoRecibido",
          content: { "application/xml": { schema: z.string() } },
        },
        400: problemSchema("Not an e-CF that can be acknowledged (hostile, malformed, no eNCF)"),
        401: problemSchema("The receiver requires a token"),
        404: problemSchema("No such receiver"),
        413: problemSchema("Too large"),
      },
    }),
  );
  receiverRoutes.openAPIRegistry.registerPath(
    createRoute({
      method: "post",
      path: `${prefix}/fe/aprobacioncomercial/api/ecf`,
      tags: ["Receiving"],
      summary: "Receive a buyer's commercial approval (ACECF) of one of our receipts",
      description: `A buyer tells one of our issuers it accepts or rejects a receipt commercially; the signed ACECF is checked against the receipt, archived beside it and shown in the receipt's aprobacionComercial (webhook approval.received). A second approval of the same receipt is refused. ${who}`,
      request: { ...params, body: { content: { "multipart/form-data": { schema: XmlForm } } } },
      responses: {
        200: {
          description: "Registered",
          content: {
            "application/json": {
              schema: IncomingApprovalAnswer,
            },
          },
        },
        400: problemSchema("Malformed, unsigned, or not matching the receipt"),
        401: problemSchema("The receiver requires a token"),
      },
    }),
  );
}

// The printed representation (RI) of one of the company's own receipts (its bearer check and
// tenant are the issuing routes' /fe/recepcion/ecf/* middleware, registered once there).
receiverRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/fe/recepcion/ecf/{encf}/pdf",
    tags: ["Receipts"],
    summary: "The printed representation (PDF) of an issued e-CF",
    description:
      "DGII's printed representation (RI) with the security code and the QR of the timbre, on A4, letter or an 80 mm roll: rendered on the first request, then archived and served as the same bytes every time. Point-of-sale types default to the roll.",
    request: {
      params: EncfParam,
      query: PdfQuery,
    },
    responses: {
      200: {
        description: "The PDF (made once, then served from the archive)",
        content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } },
      },
      400: problemSchema("Not an e-NCF, or an unknown layout"),
      404: problemSchema("No such receipt for this issuer"),
    },
  }),
  async (c) => {
    const { encf } = c.req.valid("param");
    const { layout } = c.req.valid("query");
    const tenant = c.get("tenant");
    const { bytes } = await receiptPdf(c.env, tenant.id, encf, layout);
    return c.body(bytes as ArrayBuffer, 200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `inline; filename="${tenant.rnc}${encf}.pdf"`,
      "Cache-Control": "private, max-age=31536000, immutable",
    });
  },
);
