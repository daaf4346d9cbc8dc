// A sale's data for the 607 beyond the e-CF, as the API shows it (its request body lives with the
// concept, reports/sale-withholding.ts).
import { z } from "@hono/zod-openapi";

export const SaleWithholdingView = z
  .object({
    encf: z.string(),
    fechaRetencion: z.string().nullable(),
    itbisRetenidoTerceros: z.string().nullable(),
    retencionRentaTerceros: z.string().nullable(),
    sources: z
      .object({
        itbisRetenidoTerceros: z.enum(["sale", "document"]).nullable(),
        retencionRentaTerceros: z.enum(["sale", "document"]).nullable(),
      })
      .openapi({
        description:
          "Where each withholding comes from: sale, given for this sale (PATCH /ventas/{encf}); document, declared by the e-CF; null, none",
      }),
  })
  .openapi("SaleWithholdingView");
