// Every issued receipt's public page, for its buyer: no login, the address printed on the
// receipt (shared/src/receipt-link.ts) is the key. The page, its PDF and its signed XML each check
// the security code again; any miss is one 404 (public-receipt/lookup.ts), and both the address
// and the receipt's wrong codes are throttled (public-receipt/throttle.ts).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { parseShortLink, receiptPageUrl } from "@ecf/shared/receipt-link";
import { xmlToEcf } from "@ecf/shared";
import type { AppEnv } from "../env.ts";
import { problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import {
  CreditoFiscalAnswer,
  CreditoFiscalForm,
  CreditoFiscalPending,
  PublicReceiptParams,
  PublicReceiptQuery,
  ShortLinkParam,
} from "../http/schemas/public-receipt.ts";
import { estadoOf } from "../ledger/month/estado.ts";
import { issueCreditoFiscal } from "../public-receipt/credito-fiscal.ts";
import { archivedXml } from "../issuing/transmit.ts";
import { receiptPdf } from "../print/receipt-pdf.ts";
import { receiptView } from "../print/receipt-view.ts";
import { findPublicReceipt, noSuchReceipt, type PublicReceipt } from "../public-receipt/lookup.ts";
import { openRequestFor, storeRequest } from "../public-receipt/requests.ts";
import { PAGE_CSP, receiptPage } from "../public-receipt/page.ts";
import { countPublicRequest, refuseWrongCode } from "../public-receipt/throttle.ts";

const MISSES = {
  400: problemSchema("Not an RNC or an e-NCF"),
  404: problemSchema("No receipt answers this address: no such issuer or e-NCF, or not its security code"),
  429: problemSchema("Too many requests from this address, or too many wrong codes for this e-NCF (Retry-After)"),
};

/** The receipt the request's path and code name, throttled; else the one 404. */
async function requested(c: Context<AppEnv>, rnc: string, encf: string, code: string): Promise<PublicReceipt> {
  const now = new Date();
  await countPublicRequest(c, now);
  const found = await findPublicReceipt(c.env, rnc, encf, code);
  if (found) return found;
  await refuseWrongCode(c, rnc, encf, now);
  throw noSuchReceipt();
}

const route = (path: string, summary: string, description: string, content: Record<string, unknown>) =>
  createRoute({
    method: "get",
    path,
    tags: ["Buyers"],
    summary,
    description,
    security: [],
    request: { params: PublicReceiptParams, query: PublicReceiptQuery },
    responses: { 200: { description: summary, content: content as never }, ...MISSES },
  });

const binary = z.string().openapi({ format: "binary" });

export const publicReceiptRoutes = newRouter();

publicReceiptRoutes.openapi(
  route(
    "/r/{rnc}/{encf}",
    "A receipt's public page (HTML, in Spanish)",
    "The page a buyer reaches from the link printed beside DGII's QR: the issuer's name, the printed copy's contents, DGII's state, and links to the PDF and the signed XML. No account; the security code in `c` is the key.",
    { "text/html": { schema: z.string() } },
  ),
  async (c) => {
    const { rnc, encf } = c.req.valid("param");
    const { company, receipt } = await requested(c, rnc, encf, c.req.valid("query").c);
    const view = receiptView(xmlToEcf(await archivedXml(c.env, receipt)));
    const waiting = receipt.tipoeCF === "32" ? await openRequestFor(c.env, company.id, receipt.encf) : undefined;
    const html = receiptPage({ origin: new URL(c.req.url).origin, company, receipt, view, request: waiting });
    return c.body(html, 200, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": PAGE_CSP,
      "Cache-Control": "private, no-store",
      "Referrer-Policy": "no-referrer",
    });
  },
);

publicReceiptRoutes.openapi(
  route(
    "/r/{rnc}/{encf}/pdf",
    "A receipt's printed copy (PDF), for its buyer",
    "The same PDF the issuer prints and e-mails (made once, then served from the archive).",
    { "application/pdf": { schema: binary } },
  ),
  async (c) => {
    const { rnc, encf } = c.req.valid("param");
    const { company, receipt } = await requested(c, rnc, encf, c.req.valid("query").c);
    const { bytes } = await receiptPdf(c.env, company.id, receipt.encf, undefined);
    return c.body(bytes as ArrayBuffer, 200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${rnc}${encf}.pdf"`,
      "Cache-Control": "private, no-store",
    });
  },
);

publicReceiptRoutes.openapi(
  route(
    "/r/{rnc}/{encf}/xml",
    "A receipt's signed XML, for its buyer",
    "The e-CF exactly as it was signed and archived: its signature verifies as it did when it was issued.",
    { "application/xml": { schema: z.string() } },
  ),
  async (c) => {
    const { rnc, encf } = c.req.valid("param");
    const { receipt } = await requested(c, rnc, encf, c.req.valid("query").c);
    return c.body(await archivedXml(c.env, receipt), 200, {
      "Content-Type": "application/xml; charset=utf-8",
      "Content-Disposition": `attachment; filename="${rnc}${encf}.xml"`,
      "Cache-Control": "private, no-store",
    });
  },
);

publicReceiptRoutes.openapi(
  createRoute({
    method: "get",
    path: "/r/{link}",
    tags: ["Buyers"],
    summary: "The short link printed on a receipt: redirects to its page",
    description:
      "One path segment (RNC, e-NCF and the security code in base64url) short enough to print beside DGII's QR and to type; answers 302 to the receipt's page, which checks the code. Not a short link: 404.",
    security: [],
    request: { params: ShortLinkParam },
    responses: {
      302: { description: "To the receipt's page", headers: { Location: { schema: { type: "string" } } } },
      404: problemSchema("Not a short link"),
    },
  }),
  (c) => {
    const named = parseShortLink(c.req.valid("param").link);
    if (!named) throw noSuchReceipt();
    const page = receiptPageUrl(new URL(c.req.url).origin, named.rnc, named.encf, named.codigoSeguridad);
    return c.redirect(page, 302);
  },
);

publicReceiptRoutes.openapi(
  createRoute({
    method: "post",
    path: "/r/{rnc}/{encf}/credito-fiscal",
    tags: ["Buyers"],
    summary: "Ask for a crédito fiscal invoice (E31) for a consumer receipt (E32)",
    description:
      "The buyer of an E32 DGII accepted gives its RNC or cédula (active in DGII's registry) and gets an E31 with the E32's lines and totals, referencing it with CodigoModificacion 5 (formato-ecf note 81), issued and sent to DGII at once and delivered to the buyer like any E31 (with `email`, its printed copy is e-mailed there when the buyer is not an electronic receiver). When the issuer approves requests first (`creditoFiscalApproval`: `approval`) the request is stored instead (202) and the E32's page says it is waiting. One E31 per E32, ever: a second request is refused (409). A form post (the page's) is answered with 303 to the E31's page (or, waiting, the E32's).",
    security: [],
    request: {
      params: PublicReceiptParams,
      query: PublicReceiptQuery,
      body: {
        content: {
          "application/json": { schema: CreditoFiscalForm },
          "application/x-www-form-urlencoded": { schema: CreditoFiscalForm },
        },
      },
    },
    responses: {
      201: { description: "The E31, issued", content: { "application/json": { schema: CreditoFiscalAnswer } } },
      202: {
        description: "Stored, waiting for the issuer's approval (its setting `creditoFiscalApproval`)",
        content: { "application/json": { schema: CreditoFiscalPending } },
      },
      303: { description: "(a form post) To the E31's page", headers: { Location: { schema: { type: "string" } } } },
      409: problemSchema("Already issued for this E32 (or being issued), or the E32 is not accepted by DGII yet"),
      422: problemSchema("Not a consumer receipt, or the buyer is not an active taxpayer"),
      ...MISSES,
    },
  }),
  async (c) => {
    const { rnc, encf } = c.req.valid("param");
    const found = await requested(c, rnc, encf, c.req.valid("query").c);
    const form = (c.req.header("Content-Type") ?? "").includes("application/x-www-form-urlencoded");
    const { rncComprador, email } = form ? c.req.valid("form") : c.req.valid("json");
    const ask = { rncComprador: rncComprador.trim(), email: email || undefined };
    const origin = new URL(c.req.url).origin;
    if (found.company.creditoFiscalApproval === "approval") {
      const stored = await storeRequest(c.env, found, ask);
      const pagina = receiptPageUrl(origin, rnc, encf, found.receipt.securityCode);
      if (form) return c.redirect(pagina, 303);
      return c.json({ id: stored.id, estado: "Pendiente" as const, pagina }, 202);
    }
    const e31 = await issueCreditoFiscal(c.env, found, ask, new Date());
    const pagina = receiptPageUrl(origin, rnc, e31.encf, e31.securityCode);
    if (form) return c.redirect(pagina, 303);
    return c.json({ encf: e31.encf, estado: estadoOf(e31.status, e31.trackId !== null).estado, pagina }, 201);
  },
);
