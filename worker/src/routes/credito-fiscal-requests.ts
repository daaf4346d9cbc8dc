// /credito-fiscal/requests: the buyers' crédito fiscal requests waiting for the issuer's decision
// (its `creditoFiscalApproval` setting "approval"), for owners and accountants
// (auth/roles.ts): listed, approved (the E31 is issued then) or rejected with a reason.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireAuth } from "../auth/middleware.ts";
import type { AppEnv } from "../env.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import {
  CreditoFiscalAnswer,
  CreditoFiscalReject,
  CreditoFiscalRequestId,
  CreditoFiscalRequestsQuery,
  CreditoFiscalRequestView,
} from "../http/schemas/public-receipt.ts";
import { estadoOf } from "../ledger/month/estado.ts";
import { approveRequest, type Decider, listRequests, rejectRequest } from "../public-receipt/requests.ts";
import { receiptPageUrl } from "@ecf/shared/receipt-link";
import { resolveTenant } from "../tenant/resolve.ts";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });
const decider = (c: Context<AppEnv>): Decider => ({
  actor: c.get("principal")?.keyId ?? null,
  requestId: c.get("requestId") ?? "unknown",
});

export const creditoFiscalRequestRoutes = newRouter();
creditoFiscalRequestRoutes.use("/credito-fiscal/*", requireAuth, resolveTenant);

creditoFiscalRequestRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/credito-fiscal/requests",
    tags: ["Buyers"],
    summary: "Buyers' crédito fiscal requests (the waiting ones first)",
    description:
      "Every request a buyer made on an E32's public page while the issuer's `creditoFiscalApproval` is `approval`: waiting ones first, then the decided ones, newest first. Owners and accountants.",
    request: { query: CreditoFiscalRequestsQuery },
    responses: { 200: { description: "Requests", ...json(z.object({ items: z.array(CreditoFiscalRequestView) })) } },
  }),
  async (c) => {
    const items = await listRequests(c.env, c.get("tenant").id, c.req.valid("query").status);
    return c.json({ items }, 200);
  },
);

creditoFiscalRequestRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/credito-fiscal/requests/{id}/approve",
    tags: ["Buyers"],
    summary: "Approve a crédito fiscal request: its E31 is issued",
    description:
      "Issues the E31 exactly as the at-once path does (CodigoModificacion 5 referencing the E32; one per E32, ever) and, when `creditoFiscalE32` is `credit_note`, the E34 voiding the E32 (a note that fails stays owed, `creditNote` `owed`, and the ledger issues it later under the same key). Of two approvals at once one issues, the other is refused (409). When an E31 was issued for the E32 meanwhile (by the at-once path or by hand), the request is settled with it: issued with that E31 when it names the same buyer and DGII did not reject it (200), otherwise declined with the reason (409 `already_issued`). Written in the audit log.",
    request: { params: CreditoFiscalRequestId },
    responses: {
      200: {
        description: "Approved, the E31 issued (or the one issued before)",
        ...json(z.object({ request: CreditoFiscalRequestView, e31: CreditoFiscalAnswer })),
      },
      404: problemSchema("No such request for this issuer"),
      409: problemSchema("Already decided, being approved, or declined now: an E31 for another buyer exists"),
      422: problemSchema("The buyer is no longer an active taxpayer"),
    },
  }),
  async (c) => {
    const company = c.get("tenant");
    const { request, e31 } = await approveRequest(c.env, company, c.req.valid("param").id, decider(c), new Date());
    const pagina = receiptPageUrl(new URL(c.req.url).origin, company.rnc, e31.encf, e31.securityCode);
    const estado = estadoOf(e31.status, e31.trackId !== null).estado;
    return c.json({ request, e31: { encf: e31.encf, estado, pagina } }, 200);
  },
);

creditoFiscalRequestRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/credito-fiscal/requests/{id}/reject",
    tags: ["Buyers"],
    summary: "Reject a crédito fiscal request, saying why",
    description:
      "The request is kept with the reason and who decided; the buyer may ask again. Written in the audit log.",
    request: { params: CreditoFiscalRequestId, body: { required: true, ...json(CreditoFiscalReject) } },
    responses: {
      200: { description: "Rejected", ...json(CreditoFiscalRequestView) },
      400: problemSchema("No reason given"),
      404: problemSchema("No such request for this issuer"),
      409: problemSchema("Already decided or being approved"),
    },
  }),
  async (c) => {
    const { reason } = c.req.valid("json");
    const row = await rejectRequest(c.env, c.get("tenant"), c.req.valid("param").id, reason, decider(c), new Date());
    return c.json(row, 200);
  },
);
