// DGII's emisor-receptor services as this API documents them, and a receipt's printed copy.
import { z } from "@hono/zod-openapi";
import { APPROVAL_ESTADOS } from "../../ledger/month/estado.ts";

/** The XML a service takes, as DGII sends it: a multipart form field named xml. */
export const XmlForm = z.object({ xml: z.string().openapi({ type: "string", format: "binary" }) });

/** `{rnc}` in a receiving path: the issuer that receives. */
export const ReceiverRncParam = z.object({
  rnc: z.string().openapi({ param: { name: "rnc", in: "path" }, example: "130000001" }),
});

/** validacioncertificado's answer, as DGII's services give it. */
export const ReceiverToken = z
  .object({ token: z.string(), expira: z.string(), expedido: z.string() })
  .openapi("ReceiverToken");

export const IncomingApprovalAnswer = z
  .object({
    mensaje: z.string(),
    encf: z.string(),
    estado: z.enum(APPROVAL_ESTADOS).openapi({ description: "The ACECF's Estado as DGII spells it" }),
  })
  .openapi("IncomingApprovalAnswer");

export const PdfQuery = z.object({
  layout: z
    .enum(["a4", "letter", "roll80"])
    .optional()
    .openapi({ description: "Default: roll80 for point-of-sale receipts, a4 otherwise" }),
});
