import { requireAuth } from "../auth/middleware.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { SaleWithholdingView } from "../http/schemas/sales.ts";
import { EncfParam } from "../http/schemas/common.ts";
import { recordSaleWithholding, SaleWithholdingBody } from "../reports/sale-withholding.ts";
import { resolveTenant } from "../tenant/resolve.ts";

export const salesRoutes = newRouter();
salesRoutes.use("*", requireAuth, resolveTenant);

salesRoutes.openapi(
  tenantRoute({
    method: "patch",
    path: "/{encf}",
    tags: ["Reports"],
    summary: "Record a buyer's withholding on a sale for the 607 (fecha de retención, ITBIS and ISR withheld)",
    description:
      "A JSON merge patch (absent keeps, null clears). A null amount reports what the e-CF declares (TotalITBISRetenido, TotalISRRetencion).",
    request: {
      params: EncfParam,
      body: { required: true, content: { "application/json": { schema: SaleWithholdingBody } } },
    },
    responses: {
      200: {
        description: "Stored; what the 607 will report",
        content: { "application/json": { schema: SaleWithholdingView } },
      },
      400: problemSchema(
        "A malformed date or amount, a date before the receipt's, or more than the document's amounts",
      ),
      404: problemSchema("No such receipt for this issuer"),
      422: problemSchema("Not a sale (E41, E43 and E47 are purchases)"),
    },
  }),
  async (c) =>
    c.json(await recordSaleWithholding(c.env, c.get("tenant"), c.req.valid("param").encf, c.req.valid("json")), 200),
);
