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
  })
  .openapi("CreditoFiscalRequest");

export const CreditoFiscalAnswer = z
  .object({
    encf: z.string().openapi({ description: "The E31's e-NCF", example: "E310000000001" }),
    estado: z.string().openapi({ description: "DGII's state of the E31", example: "Aceptado" }),
    pagina: z.string().openapi({ description: "The E31's public page (its security code included)" }),
  })
  .openapi("CreditoFiscalAnswer");
