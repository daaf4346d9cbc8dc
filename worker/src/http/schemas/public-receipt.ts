import { z } from "@hono/zod-openapi";
import { ENCF_PATTERN } from "./common.ts";

export const PublicReceiptParams = z.object({
  rnc: z
    .string()
    .regex(/^(\d{9}|\d{11})$/, "expected an RNC (9 digits) or a cédula (11)")
    .openapi({ param: { name: "rnc", in: "path" }, example: "131880681" }),
  encf: z
    .string()
    .regex(ENCF_PATTERN, "expected an e-NCF such as E320000000001")
    .openapi({ param: { name: "encf", in: "path" }, example: "E320000000001" }),
});

export const PublicReceiptQuery = z.object({
  c: z
    .string()
    .max(64)
    .openapi({
      param: { name: "c", in: "query" },
      description:
        "The receipt's security code (CodigoSeguridad, printed on it): the first 6 characters of its SignatureValue",
      example: "Ab3+9Z",
    }),
});

export const ShortLinkParam = z.object({
  link: z
    .string()
    .max(40)
    .openapi({
      param: { name: "link", in: "path" },
      description: "RNC + e-NCF + the security code in base64url, as printed beside the QR",
      example: "131880681E320000000001Ab3-9Z",
    }),
});

export const CreditoFiscalForm = z
  .object({
    rncComprador: z.string().openapi({
      description: "The buyer's RNC (9 digits) or cédula (11), active in DGII's registry",
      example: "131880738",
    }),
    email: z
      .union([z.email().max(80), z.literal("")])
      .optional()
      .openapi({
        description:
          "Where the E31's printed copy is e-mailed (its CorreoComprador) when the buyer is not an electronic receiver; empty: none",
        example: "compras@empresa.com.do",
      }),
  })
  .openapi("CreditoFiscalRequest");

export const CreditoFiscalPending = z
  .object({
    id: z.string().openapi({ description: "The request, as GET /credito-fiscal/requests lists it" }),
    estado: z.literal("Pendiente").openapi({ description: "Waiting for the issuer's approval" }),
    pagina: z.string().openapi({ description: "The E32's public page, which says the request is waiting" }),
  })
  .openapi("CreditoFiscalPending");

export const CreditoFiscalRequestView = z
  .object({
    id: z.string(),
    e32: z.string().openapi({ description: "The consumer receipt's e-NCF", example: "E320000000001" }),
    rncComprador: z.string().openapi({ example: "131880738" }),
    email: z.string().nullable(),
    status: z.enum(["pending", "issuing", "issued", "declined"]),
    reason: z.string().nullable().openapi({ description: "Why it was declined" }),
    e31: z.string().nullable().openapi({ description: "The E31 issued on approval (or found issued before)" }),
    creditNote: z.enum(["owed", "issued", "failed"]).nullable().openapi({
      description:
        "The E34 voiding the E32 (`creditoFiscalE32` `credit_note`): `owed` while the ledger retries it, `issued`, or `failed` (given up after 30 days: issue it by hand). Null when none was chosen.",
    }),
    e34: z.string().nullable().openapi({ description: "The E34 voiding the E32, once issued" }),
    decidedBy: z.string().nullable(),
    decidedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("CreditoFiscalRequestView");

export const CreditoFiscalRequestId = z.object({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "5b8f7c1e-2f0a-4e55-9a51-0c6f1d7e9a10" }),
});

export const CreditoFiscalRequestsQuery = z.object({
  status: z
    .enum(["pending", "issuing", "issued", "declined"])
    .optional()
    .openapi({ param: { name: "status", in: "query" }, example: "pending" }),
});

export const CreditoFiscalReject = z
  .object({
    reason: z.string().trim().min(1).max(500).openapi({
      description: "Why the issuer refuses (kept with the request and in the audit log)",
      example: "El cliente pagó con otra factura.",
    }),
  })
  .strict()
  .openapi("CreditoFiscalReject");

export const CreditoFiscalAnswer = z
  .object({
    encf: z.string().openapi({ description: "The E31's e-NCF", example: "E310000000001" }),
    estado: z.string().openapi({ description: "DGII's state of the E31", example: "Aceptado" }),
    pagina: z.string().openapi({ description: "The E31's public page (its security code included)" }),
  })
  .openapi("CreditoFiscalAnswer");
