// A sale's data for the 607 beyond the e-CF, as the API shows it (its request body lives with the
// concept, reports/sale-withholding.ts).
import { z } from "@hono/zod-openapi";

export const SaleWithholdingView = z
  .object({
    encf: z.string(),
    fechaRetencion: z.string().nullable(),
    itbisRetenidoTerceros: z.string().nullable(),
    retencionRentaTerceros: z.string().nullable(),
    origen: z.object({ itbisRetenidoTerceros: z.enum(["venta", "documento"]).nullable(), retencionRentaTerceros: z.enum(["venta", "documento"]).nullable() }),
  })
  .openapi("SaleWithholdingView");
