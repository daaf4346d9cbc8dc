import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { notFound, onError } from "./http/errors.ts";
import { newRouter } from "./http/router.ts";
import { problemResponse } from "./http/problem.ts";
import { withOperationIds, withProblemExamples } from "./http/openapi.ts";
import { withEcfRequestSchemas } from "./http/ecf-request.ts";
import { API_TAGS } from "./http/tags.ts";
import { API_VERSION } from "./version.ts";
import { healthRoutes } from "./routes/health.ts";
import { docsRoutes } from "./routes/docs.ts";
import { loginRoutes } from "./routes/login.ts";
import { companyRoutes } from "./routes/company.ts";
import { adminRoutes } from "./routes/admin.ts";
import { certificateRoutes } from "./routes/certificate.ts";
import { companyKeyRoutes } from "./routes/company-keys.ts";
import { issuingRoutes } from "./routes/issuing.ts";
import { receiverRoutes } from "./routes/receiver.ts";
import { purchaseRoutes } from "./routes/purchases.ts";
import { reportRoutes } from "./routes/reports.ts";
import { salesRoutes } from "./routes/sales.ts";
import { archiveRoutes } from "./routes/archive.ts";
import { auditProblems } from "./audit/log.ts";
import { deviceRoutes } from "./routes/devices.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { cashierRoutes } from "./routes/cashiers.ts";
import { deviceCatalogRoutes } from "./routes/device-catalog.ts";
import { productRoutes } from "./routes/products.ts";
import { taxpayerRoutes } from "./routes/taxpayers.ts";
import { countingEnv } from "./ledger/round-trips.ts";
import { shiftRoutes } from "./routes/shifts.ts";
import { benchRoutes } from "./routes/bench.ts";
import { consoleRoutes } from "./routes/console.ts";
import { consoleUserRoutes } from "./routes/console-users.ts";

/**
 * Where each URL lives, in the order the routers are mounted (the order middleware runs in). A
 * router serving one prefix is mounted under it; the others name the prefixes they serve.
 */
// biome-ignore format: one router per line, its prefixes beside it
const ROUTERS: readonly (readonly [string, Hono<any, any, any>])[] = [
  ["/", healthRoutes], // /health
  ["/", docsRoutes], // /docs, /openapi.json
  ["/", loginRoutes], // /login
  ["/company", companyRoutes],
  ["/admin", adminRoutes], // (its middleware guards every /admin/* route, wherever declared)
  ["/", deviceRoutes], // /devices/*, /admin/companies/{id}/devices, /admin/devices/{id}/revoke
  ["/", certificateRoutes], // /company/certificate, /admin/companies/{id}/certificate
  ["/", companyKeyRoutes], // /company/api-keys* (authenticated by companyRoutes' middleware)
  ["/fe", issuingRoutes],
  ["/", receiverRoutes], // /{rnc}/fe/* (the receiver's services), /fe/recepcion/ecf/{encf}/pdf
  ["/", purchaseRoutes], // /compras/*, /proveedores/*, /receiver/settings
  ["/", reportRoutes], // /reports/*
  ["/ventas", salesRoutes],
  ["/archive", archiveRoutes],
  ["/", webhookRoutes], // /webhooks/* (at the root: its OpenAPI webhooks are named by event, not path)
  ["/", shiftRoutes], // /devices/shifts/{id}, /reports/turnos
  ["/", taxpayerRoutes], // /contribuyentes/{rnc}, /devices/contribuyentes/{rnc}, /admin/taxpayers/*
  ["/", productRoutes], // /products/*, /admin/companies/{id}/products/*
  ["/", cashierRoutes], // /cashiers/*, /admin/companies/{id}/cashiers
  ["/", deviceCatalogRoutes], // /devices/catalog, /devices/{id}, /admin/companies/{id}/devices/{deviceId}
  ["/", benchRoutes], // /admin/bench/* (bench only: not found unless BENCH_BULK is "1")
  ["/", consoleRoutes], // /console/login, /console/session*, /console/logout, /console/invitations/{token}*
  ["/", consoleUserRoutes], // /console/invitations, /console/users*, /admin/companies/{id}/console-invitations
];

/** Largest request body we accept: a 1000-line e-CF in JSON is well under this. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export function createApp() {
  const app = newRouter();

  app.use(requestId());
  app.use(async (c, next) => {
    const trips = { d1: 0, ledger: 0, r2: 0 };
    c.set("roundTrips", trips);
    c.env = countingEnv(c.env, trips);
    await next();
  });
  app.use(async (c, next) => {
    await next();
    c.header("API-Version", API_VERSION);
  });
  app.use(secureHeaders({ contentSecurityPolicy: undefined }));
  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => problemResponse(c, "payload_too_large", { detail: `The body exceeds ${MAX_BODY_BYTES} bytes.` }),
    }),
  );

  app.use(auditProblems);

  for (const [prefix, routes] of ROUTERS) app.route(prefix, routes);

  // What the routes declare, plus the e-CF request's per-type schemas and the problem examples,
  // both built on the first request for the document rather than when an isolate starts.
  app.get("/openapi.json", (c) => {
    const declared = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "ecf-edge API",
        version: API_VERSION,
        description: "Electronic tax receipts (e-CF) for the Dominican Republic: issue, receive, approve, report.",
      },
      // The server that answers: the same document serves npm start, a deployment and a test.
      servers: [{ url: new URL(c.req.url).origin, description: "This ecf-edge server" }],
      tags: API_TAGS,
    });
    return c.json(withOperationIds(withProblemExamples(withEcfRequestSchemas(declared))));
  });

  app.notFound(notFound);
  app.onError(onError);
  return app;
}

export type App = ReturnType<typeof createApp>;
