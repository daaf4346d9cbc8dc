// The issuer's sales as the 607 needs them beyond the e-CF: a buyer's withholding.
import { z } from "@hono/zod-openapi";
import { requireAuth } from "../auth/middleware.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { recordSaleWithholding, SaleWithholdingBody } from "../reports/sale-withholding.ts";
import { resolveTenant } from "../tenant/resolve.ts";

export const salesRoutes = newRouter();
salesRoutes.use("/ventas/*", requireAuth, resolveTenant);

const SaleWithholdingView = z
  .object({
    encf: z.string(),
    fechaRetencion: z.string().nullable(),
    itbisRetenidoTerceros: z.string().nullable(),
    retencionRentaTerceros: z.string().nullable(),
    origen: z.object({ itbisRetenidoTerceros: z.enum(["venta", "documento"]).nullable(), retencionRentaTerceros: z.enum(["venta", "documento"]).nullable() }),
  })
  .openapi("SaleWithholdingView");

salesRoutes.openapi(
  tenantRoute({
    method: "patch",
    path: "/ventas/{encf}",
    tags: ["Reports"],
    summary: "Record a buyer's withholding on a sale for the 607 (fecha de retención, ITBIS and ISR withheld)",
    description: "A JSON merge patch (absent keeps, null clears). A null amount reports what the e-CF declares (TotalITBISRetenido, TotalISRRetencion).",
    request: {
      params: z.object({
        encf: z
          .string()
          .regex(/^E\d{12}$/, "expected an e-NCF such as E310000000001")
          .openapi({ param: { name: "encf", in: "path" }, example: "E450000000012" }),
      }),
      body: { required: true, content: { "application/json": { schema: SaleWithholdingBody } } },
    },
    responses: {
      200: { description: "Stored; what the 607 will report", content: { "application/json": { schema: SaleWithholdingView } } },
      400: problemSchema("A malformed date or amount, a date before the receipt's, or more than the document's amounts"),
      404: problemSchema("No such receipt for this issuer"),
      422: problemSchema("Not a sale (E41, E43 and E47 are purchases)"),
    },
  }),
  async (c) => c.json(await recordSaleWithholding(c.env, c.get("tenant"), c.req.valid("param").encf, c.req.valid("json")), 200),
);
