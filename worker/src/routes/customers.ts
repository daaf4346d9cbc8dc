// /customers: the company's buyers (customers/customers.ts), listed with the buyers of its recent
// receipts taken in, and added or edited one at a time by RNC or cédula.
import { z } from "@hono/zod-openapi";
import { requireAuth } from "../auth/middleware.ts";
import { customerView, listCustomers, saveCustomer } from "../customers/customers.ts";
import { askUnaskedReceivers } from "../customers/receivers.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { resolveTenant } from "../tenant/resolve.ts";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });

const Customer = z
  .object({
    rnc: z.string().openapi({ description: "RNC (9 digits) or cédula (11 digits)", example: "131880738" }),
    name: z
      .string()
      .openapi({ description: "Razón social or name", example: "DIRECCION GENERAL DE IMPUESTOS INTERNOS" }),
    email: z.string().nullable().openapi({ description: "Where its receipts are e-mailed" }),
    electronicReceiver: z.boolean().nullable().openapi({
      description: "Whether DGII's directory lists it as an electronic receiver, as last asked (null: not asked)",
    }),
    updatedAt: z.string().openapi({ description: "Last change, ISO 8601 UTC" }),
  })
  .openapi("Customer");
const CustomerList = z.object({ items: z.array(Customer) }).openapi("CustomerList");
const CustomerInput = z
  .object({
    name: z.string().trim().min(1).max(250).openapi({ description: "Razón social or name" }),
    email: z.email().max(80).nullable().optional().openapi({ description: "Where its receipts are e-mailed" }),
  })
  .openapi("CustomerInput");
const RncParam = z.object({
  rnc: z
    .string()
    .regex(/^(\d{9}|\d{11})$/, "an RNC has 9 digits, a cédula 11")
    .openapi({ param: { name: "rnc", in: "path" }, example: "131880738" }),
});
const ListQuery = z.object({
  q: z.string().max(80).optional().openapi({ description: "RNC or name containing (case-insensitive)" }),
});

export const customerRoutes = newRouter();
customerRoutes.use("/customers", requireAuth, resolveTenant);
customerRoutes.use("/customers/*", requireAuth, resolveTenant);

customerRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/customers",
    tags: ["Customers"],
    summary: "The company's customers, the buyers of its recent receipts among them",
    description:
      "Lists the company's buyers by name: those saved with PUT /customers/{rnc} and every buyer with an RNC or cédula on a receipt of the last 120 days (taken in as its receipts name it).",
    request: { query: ListQuery },
    responses: { 200: { description: "The customers", ...json(CustomerList) } },
  }),
  async (c) => {
    const companyId = c.get("tenant").id;
    const rows = await listCustomers(c.env, companyId, c.req.valid("query").q?.trim() || undefined);
    // Those never asked (the buyers taken in from receipts) are asked about after the answer.
    c.executionCtx.waitUntil(askUnaskedReceivers(c.env, companyId, rows));
    return c.json({ items: rows.map(customerView) }, 200);
  },
);

customerRoutes.openapi(
  tenantRoute({
    method: "put",
    path: "/customers/{rnc}",
    tags: ["Customers"],
    summary: "Add or edit one customer",
    description:
      "Saves the customer's name and e-mail under its RNC or cédula and asks DGII's directory whether it receives e-CF (electronicReceiver stays null when DGII cannot be asked).",
    request: { params: RncParam, body: { required: true, ...json(CustomerInput) } },
    responses: {
      200: { description: "The customer as saved", ...json(Customer) },
      400: problemSchema("The RNC, name or e-mail is not valid (errors[] points at each)"),
    },
  }),
  async (c) => {
    const { rnc } = c.req.valid("param");
    const body = c.req.valid("json");
    const row = await saveCustomer(c.env, c.get("tenant").id, rnc, { name: body.name, email: body.email ?? null });
    return c.json(customerView(row), 200);
  },
);
