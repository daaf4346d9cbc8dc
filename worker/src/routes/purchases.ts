import { requireAuth } from "../auth/middleware.ts";
import { actorOf } from "../auth/principal.ts";
import { tenantRoute, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { approvePurchase } from "../receiving/outgoing-approval.ts";
import { overrideConfirmation, purchaseCounts } from "../receiving/purchase-confirmation.ts";
import { requiresAuthentication, saveReceiverSettings } from "../receiving/receiver-auth.ts";
import { resolveTenant } from "../tenant/resolve.ts";
import {
  ApprovalBody,
  ApprovalResult,
  ClassificationView,
  ConfirmationOverrideBody,
  PurchaseConfirmation,
  PurchaseIdParam,
  ReceiverSettings,
  SupplierDefaultsView,
  SupplierParam,
} from "../http/schemas/purchases.ts";
import { ApiProblem } from "../errors/problem.ts";
import { issuerLedger } from "../ledger/client.ts";
import type { SupplierDefault } from "../ledger/issuer/supplier-defaults.ts";
import {
  classifyPurchase,
  PurchaseClassificationBody,
  purchaseClassification,
  SupplierDefaultBody,
  supplierDefaultValues,
} from "../receiving/purchase-classification.ts";
import { ESTADO_DGII_OF } from "../ledger/month/estado-dgii.ts";

export const purchaseRoutes = newRouter();
purchaseRoutes.use("/receiver/*", requireAuth, resolveTenant);
purchaseRoutes.use("/compras/*", requireAuth, resolveTenant);
purchaseRoutes.use("/proveedores/*", requireAuth, resolveTenant);

purchaseRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/receiver/settings",
    tags: ["Purchases"],
    summary: "The company's receiver settings",
    description:
      "Whether suppliers must authenticate (DGII's seed and token) before they send the issuer an e-CF or an ACECF at the emisor-receptor services; off by default, as many senders do not.",
    responses: { 200: { description: "Settings", content: { "application/json": { schema: ReceiverSettings } } } },
  }),
  async (c) => c.json({ requireAuthentication: await requiresAuthentication(c.env.DB, c.get("tenant").id) }, 200),
);

purchaseRoutes.openapi(
  tenantRoute({
    method: "put",
    path: "/receiver/settings",
    tags: ["Purchases"],
    summary: "Change the company's receiver settings",
    description:
      "Turns the token requirement of the issuer's reception and commercial-approval services on or off; it applies from the next request on.",
    request: { body: { required: true, content: { "application/json": { schema: ReceiverSettings } } } },
    responses: {
      200: { description: "Settings", content: { "application/json": { schema: ReceiverSettings } } },
      400: problemSchema("Invalid settings"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    await saveReceiverSettings(c.env.DB, c.get("tenant").id, body.requireAuthentication);
    return c.json(body, 200);
  },
);

purchaseRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/compras/{id}/aprobacion",
    tags: ["Purchases"],
    summary: "Accept or reject a received e-CF: a signed ACECF to the supplier and a copy to DGII",
    description:
      "The buyer's commercial approval of a purchase (optional in DGII's scheme): the service signs the ACECF, sends it to the supplier's service and a copy to DGII, and reports each delivery. A rejection needs its reason. The decision is final; sending the same decision again retries a failed delivery, a different one is a 409.",
    request: {
      params: PurchaseIdParam,
      body: { required: true, content: { "application/json": { schema: ApprovalBody } } },
    },
    responses: {
      200: {
        description: "Decision recorded; each delivery's outcome (repeat the same decision to retry a failed one)",
        content: {
          "application/json": {
            schema: ApprovalResult,
          },
        },
      },
      400: problemSchema("Invalid decision"),
      404: problemSchema("No such purchase for this company"),
      409: problemSchema("A different decision was already recorded"),
      422: problemSchema("No signing certificate, or a type that takes no approval"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    return c.json(
      await approvePurchase(c.env, c.get("tenant"), c.req.valid("param").id, body.estado, body.motivo, new Date()),
      200,
    );
  },
);

purchaseRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/compras/{id}/confirmacion-manual",
    tags: ["Purchases"],
    summary: "Count a received e-CF that DGII does not confirm (the accountant's override, audited)",
    description:
      "A received e-CF counts (606, commercial acceptance) only once DGII knows it as Aceptado or Aceptado Condicional (consultaestado, asked by the service after reception). One DGII still does not know after 4 days is flagged not_found_at_dgii. The accountant may count it anyway with a reason, kept on the purchase and in the audit log. One DGII rejected cannot be counted (409).",
    request: {
      params: PurchaseIdParam,
      body: { required: true, content: { "application/json": { schema: ConfirmationOverrideBody } } },
    },
    responses: {
      200: { description: "The purchase counts", content: { "application/json": { schema: PurchaseConfirmation } } },
      400: problemSchema("No reason"),
      404: problemSchema("No such purchase for this company"),
      409: problemSchema("DGII rejected the e-CF"),
    },
  }),
  async (c) => {
    const by = actorOf(c.get("principal"));
    const after = await overrideConfirmation(
      c.env,
      c.get("tenant"),
      c.req.valid("param").id,
      c.req.valid("json").motivo,
      by,
      c.get("requestId"),
      new Date(),
    );
    return c.json(
      {
        id: after.id,
        encf: after.encf,
        rncEmisor: after.rncEmisor,
        estadoDgii: ESTADO_DGII_OF[after.dgiiStatus],
        confirmada: purchaseCounts(after),
        confirmacionManual: after.dgiiOverrideReason,
      },
      200,
    );
  },
);

// ------------------------------------------------------------- the 606 classification

purchaseRoutes.openapi(
  tenantRoute({
    method: "patch",
    path: "/compras/{id}",
    tags: ["Purchases"],
    summary:
      "Classify a received e-CF for the 606 (tipo de bienes y servicios, fecha y forma de pago, retenciones, ITBIS al costo)",
    description:
      "A JSON merge patch: an absent field stays, null clears it. Amounts may not exceed the document's (ITBIS facturado, amount without taxes). The supplier's defaults learn from it (codes, and withholding rates that reproduce the amounts exactly) unless the issuer set them (PUT /proveedores/{rnc}/clasificacion).",
    request: {
      params: PurchaseIdParam,
      body: { required: true, content: { "application/json": { schema: PurchaseClassificationBody } } },
    },
    responses: {
      200: {
        description: "Stored; what the 606 will report",
        content: { "application/json": { schema: ClassificationView } },
      },
      400: problemSchema("An unknown code, a malformed date or amount, or an amount above the document's"),
      404: problemSchema("No such purchase for this company"),
    },
  }),
  async (c) =>
    c.json(
      await classifyPurchase(c.env, c.get("tenant"), c.req.valid("param").id, c.req.valid("json"), new Date()),
      200,
    ),
);

purchaseRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/compras/{id}/clasificacion",
    tags: ["Purchases"],
    summary: "A received e-CF's 606 classification: as given, as it will be reported, and what is missing",
    description:
      "What the 606 will say of one purchase and why: the values given for it, the values that apply with where each comes from (this purchase, the supplier's defaults, the document, the type's rule), and what is still missing before the month can be filed.",
    request: { params: PurchaseIdParam },
    responses: {
      200: { description: "The classification", content: { "application/json": { schema: ClassificationView } } },
      404: problemSchema("No such purchase for this company"),
    },
  }),
  async (c) => c.json(await purchaseClassification(c.env, c.get("tenant"), c.req.valid("param").id), 200),
);

const defaultsView = (d: SupplierDefault) => ({
  rncEmisor: d.rncEmisor,
  tipoBienesServicios: d.tipoBienesServicios,
  formaPago: d.formaPago,
  tipoRetencionIsr: d.tipoRetencionIsr,
  itbisRetenidoPorcentaje: d.itbisRetenidoPorcentaje,
  retencionRentaPorcentaje: d.retencionRentaPorcentaje,
  itbisAlCostoPorcentaje: d.itbisAlCostoPorcentaje,
  source: d.origin,
  updatedAt: d.updatedAt,
});

purchaseRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/proveedores/{rnc}/clasificacion",
    tags: ["Purchases"],
    summary: "The issuer's 606 defaults for a supplier (learned or set)",
    description:
      "The classification a supplier's purchases take unless they say otherwise: learned from its last classification, or set by the issuer; 404 when there are none yet.",
    request: { params: SupplierParam },
    responses: {
      200: { description: "The defaults", content: { "application/json": { schema: SupplierDefaultsView } } },
      400: problemSchema("Not an RNC or cédula"),
      404: problemSchema("No defaults for this supplier"),
    },
  }),
  async (c) => {
    const { rnc } = c.req.valid("param");
    const [found] = await issuerLedger(c.env, c.get("tenant").id).catalogue().supplierDefaults([rnc]);
    if (!found) throw new ApiProblem("not_found", { detail: `No 606 defaults for ${rnc}.` });
    return c.json(defaultsView(found), 200);
  },
);

purchaseRoutes.openapi(
  tenantRoute({
    method: "put",
    path: "/proveedores/{rnc}/clasificacion",
    tags: ["Purchases"],
    summary:
      "Set the issuer's 606 defaults for a supplier (its purchases' classification unless a purchase says otherwise)",
    description:
      "Replaces the defaults (an absent field is none). Set defaults are not overwritten by later classifications. The supplier's RNC is also how the issuer's own E41 (the seller's cédula) and E43/E47 (the issuer's own RNC) take their tipo de bienes y servicios.",
    request: {
      params: SupplierParam,
      body: { required: true, content: { "application/json": { schema: SupplierDefaultBody } } },
    },
    responses: {
      200: { description: "Stored", content: { "application/json": { schema: SupplierDefaultsView } } },
      400: problemSchema("An unknown code, or a percentage outside 0–100"),
    },
  }),
  async (c) => {
    const stored = await issuerLedger(c.env, c.get("tenant").id)
      .catalogue()
      .setSupplierDefault(c.req.valid("param").rnc, supplierDefaultValues(c.req.valid("json")));
    return c.json(defaultsView(stored), 200);
  },
);

purchaseRoutes.openapi(
  tenantRoute({
    method: "delete",
    path: "/proveedores/{rnc}/clasificacion",
    tags: ["Purchases"],
    summary: "Forget the issuer's 606 defaults for a supplier",
    description:
      "Removes the defaults, learned or set; the supplier's next classification teaches new ones. Purchases already classified keep their own values.",
    request: { params: SupplierParam },
    responses: {
      204: { description: "Forgotten" },
      400: problemSchema("Not an RNC or cédula"),
      404: problemSchema("No defaults for this supplier"),
    },
  }),
  async (c) => {
    const { rnc } = c.req.valid("param");
    if (!(await issuerLedger(c.env, c.get("tenant").id).catalogue().deleteSupplierDefault(rnc)))
      throw new ApiProblem("not_found", { detail: `No 606 defaults for ${rnc}.` });
    return c.body(null, 204);
  },
);
