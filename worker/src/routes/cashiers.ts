// /cashiers: the people who sign in on the issuer's tills, each with a PIN the tills check offline
// (kept only as a PBKDF2 hash in the issuer's object, shipped with the catalogue pull); and the
// administrator's way to add one.
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { requireAdmin } from "../auth/admin.ts";
import { requireAuth } from "../auth/middleware.ts";
import { Cashier, CashierInput, CashierPatch, cashierView, hashPin } from "../catalog/cashiers.ts";
import { database } from "../db/client.ts";
import { companies } from "../db/tables.ts";
import { adminRoute, problemSchema, tenantRoute } from "../http/openapi.ts";
import { ApiProblem } from "../errors/problem.ts";
import { newRouter } from "../http/router.ts";
import { issuerLedger } from "../ledger/client.ts";
import { unwrap } from "../ledger/refusal.ts";
import { resolveTenant } from "../tenant/resolve.ts";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });
const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });
const CompanyParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" }, description: "The company id" }),
});

export const cashierRoutes = newRouter();
cashierRoutes.use("/cashiers/*", requireAuth, resolveTenant);

cashierRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/cashiers",
    tags: ["Catalogue"],
    summary: "The issuer's cashiers",
    description: "Lists everyone who may sign in on the issuer's tills, active or not, by name; PINs are never shown.",
    responses: {
      200: { description: "Cashiers", ...json(z.object({ cashiers: z.array(Cashier) }).openapi("CashierList")) },
    },
  }),
  async (c) =>
    c.json({ cashiers: (await issuerLedger(c.env, c.get("tenant").id).catalogue().cashiers()).map(cashierView) }, 200),
);

cashierRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/cashiers",
    tags: ["Catalogue"],
    summary: "Add a cashier with a PIN",
    description:
      "Creates a cashier whose 4 to 6 digit PIN is kept only as a PBKDF2-SHA256 hash; paired tills receive the cashier with their next catalogue pull and check the PIN offline.",
    request: { body: { required: true, ...json(CashierInput) } },
    responses: { 201: { description: "Created", ...json(Cashier) }, 400: problemSchema("Name or PIN not valid") },
  }),
  async (c) => {
    const { name, pin } = c.req.valid("json");
    const row = await issuerLedger(c.env, c.get("tenant").id)
      .catalogue()
      .createCashier(name, await hashPin(pin));
    return c.json(cashierView(row), 201);
  },
);

cashierRoutes.openapi(
  tenantRoute({
    method: "patch",
    path: "/cashiers/{id}",
    tags: ["Catalogue"],
    summary: "Rename a cashier, change the PIN, or deactivate",
    description:
      "Changes the fields sent; an inactive cashier can no longer sign in on any till once the tills have pulled the change.",
    request: { params: IdParam, body: { required: true, ...json(CashierPatch) } },
    responses: {
      200: { description: "Changed", ...json(Cashier) },
      400: problemSchema("Name or PIN not valid"),
      404: problemSchema("No such cashier of this issuer"),
    },
  }),
  async (c) => {
    const { pin, ...rest } = c.req.valid("json");
    const changes = { ...rest, ...(pin === undefined ? {} : { pin: await hashPin(pin) }) };
    const row = await unwrap(
      issuerLedger(c.env, c.get("tenant").id).catalogue().updateCashier(c.req.valid("param").id, changes),
    );
    return c.json(cashierView(row), 200);
  },
);

cashierRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/companies/{id}/cashiers",
    tags: ["Administration"],
    summary: "Add a cashier with a PIN to an issuer",
    description: "What `npm run admin -- cashiers:create` sends: as POST /cashiers, for the issuer named in the path.",
    middleware: [requireAdmin] as const,
    request: { params: CompanyParam, body: { required: true, ...json(CashierInput) } },
    responses: {
      201: { description: "Created", ...json(Cashier) },
      400: problemSchema("Name or PIN not valid"),
      404: problemSchema("No such company"),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    if (!(await database(c.env.DB).query.companies.findFirst({ where: eq(companies.id, id) })))
      throw new ApiProblem("not_found", { detail: `No company with id ${id}.` });
    const { name, pin } = c.req.valid("json");
    return c.json(
      cashierView(
        await issuerLedger(c.env, id)
          .catalogue()
          .createCashier(name, await hashPin(pin)),
      ),
      201,
    );
  },
);
