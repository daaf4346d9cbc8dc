import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { notFound, onError } from "./http/errors.ts";
import { lazyRouteGroups, mountGroups, onceLoaded, RNC_SEGMENT, type RouteGroup } from "./http/lazy-routes.ts";
import { problemResponse } from "./http/problem.ts";
import { drainUnreadBody } from "./http/unread-body.ts";
import { withCurrentPath } from "./http/path-aliases.ts";
import type { newRouter as OpenApiRouterOf } from "./http/router.ts";
import type { AppEnv } from "./env.ts";
import { API_VERSION } from "./version.ts";
import { auditProblems } from "./audit/log.ts";
import { countingEnv } from "./ledger/round-trips.ts";

/**
 * Where each URL lives, in the order the groups are mounted (the order middleware runs in): the
 * first path segments each group serves, and its module, imported on the first request for one
 * of them (http/lazy-routes.ts). A group serving one prefix is mounted under it; the others name
 * the prefixes they serve. A segment missing here is not found: test/route-groups.test.ts checks
 * every route of every group against its segments.
 */
export const ROUTE_GROUPS: readonly RouteGroup[] = [
  // GET / (the empty first segment): the service's index
  { mount: "/", serves: [""], load: async () => (await import("./routes/service-index.ts")).serviceIndexRoutes },
  { mount: "/", serves: ["health"], load: async () => (await import("./routes/health.ts")).healthRoutes },
  { mount: "/", serves: ["docs"], load: async () => (await import("./routes/docs.ts")).docsRoutes },
  { mount: "/", serves: ["login"], load: async () => (await import("./routes/login.ts")).loginRoutes },
  { mount: "/company", serves: ["company"], load: async () => (await import("./routes/company.ts")).companyRoutes },
  // (its middleware guards every /admin/* route, wherever declared)
  { mount: "/admin", serves: ["admin"], load: async () => (await import("./routes/admin.ts")).adminRoutes },
  // /devices/*, /tills/{id}/*, /admin/companies/{id}/devices, /admin/devices/{id}/revoke
  {
    mount: "/",
    serves: ["devices", "tills", "admin"],
    load: async () => (await import("./routes/devices.ts")).deviceRoutes,
  },
  // /company/certificate, /admin/companies/{id}/certificate
  {
    mount: "/",
    serves: ["company", "admin"],
    load: async () => (await import("./routes/certificate.ts")).certificateRoutes,
  },
  // /company/api-keys* (authenticated by the company group's middleware, mounted before it)
  {
    mount: "/",
    serves: ["company"],
    load: async () => (await import("./routes/company-keys.ts")).companyKeyRoutes,
  },
  // /company/certification* (the owner's DGII certification run)
  {
    mount: "/",
    serves: ["company"],
    load: async () => (await import("./routes/certification.ts")).certificationRoutes,
  },
  { mount: "/fe", serves: ["fe"], load: async () => (await import("./routes/issuing.ts")).issuingRoutes },
  // /{rnc}/fe/* (the receiver's services), /fe/recepcion/ecf/{encf}/pdf
  { mount: "/", serves: ["fe", RNC_SEGMENT], load: async () => (await import("./routes/receiver.ts")).receiverRoutes },
  // /compras/*, /proveedores/*, /receiver/settings
  {
    mount: "/",
    serves: ["compras", "proveedores", "receiver"],
    load: async () => (await import("./routes/purchases.ts")).purchaseRoutes,
  },
  { mount: "/", serves: ["reports"], load: async () => (await import("./routes/reports.ts")).reportRoutes },
  { mount: "/ventas", serves: ["ventas"], load: async () => (await import("./routes/sales.ts")).salesRoutes },
  { mount: "/archive", serves: ["archive"], load: async () => (await import("./routes/archive.ts")).archiveRoutes },
  // /webhooks/* (at the root: its OpenAPI webhooks are named by event, not path)
  { mount: "/", serves: ["webhooks"], load: async () => (await import("./routes/webhooks.ts")).webhookRoutes },
  // /devices/shifts/{id}, /reports/turnos
  { mount: "/", serves: ["devices", "reports"], load: async () => (await import("./routes/shifts.ts")).shiftRoutes },
  // /contribuyentes/{rnc}, /devices/contribuyentes/{rnc}, /admin/taxpayers/*
  {
    mount: "/",
    serves: ["contribuyentes", "devices", "admin"],
    load: async () => (await import("./routes/taxpayers.ts")).taxpayerRoutes,
  },
  // /customers, /customers/{rnc}
  { mount: "/", serves: ["customers"], load: async () => (await import("./routes/customers.ts")).customerRoutes },
  // /products/*, /admin/companies/{id}/products/*
  { mount: "/", serves: ["products", "admin"], load: async () => (await import("./routes/products.ts")).productRoutes },
  // /cashiers/*, /admin/companies/{id}/cashiers
  { mount: "/", serves: ["cashiers", "admin"], load: async () => (await import("./routes/cashiers.ts")).cashierRoutes },
  // /devices/catalog, /devices/{id}, /admin/companies/{id}/devices/{deviceId}
  {
    mount: "/",
    serves: ["devices", "admin"],
    load: async () => (await import("./routes/device-catalog.ts")).deviceCatalogRoutes,
  },
  // /admin/bench/* (bench only: not found unless BENCH_BULK is "1")
  { mount: "/", serves: ["admin"], load: async () => (await import("./routes/bench.ts")).benchRoutes },
  // /console/login, /console/session*, /console/logout, /console/invitations/{token}*
  { mount: "/", serves: ["console"], load: async () => (await import("./routes/console.ts")).consoleRoutes },
  // /console/totp*: the signed-in user's two-step verification
  { mount: "/", serves: ["console"], load: async () => (await import("./routes/console-totp.ts")).consoleTotpRoutes },
  // /console/invitations, /console/users*, /admin/companies/{id}/console-invitations
  {
    mount: "/",
    serves: ["console", "admin"],
    load: async () => (await import("./routes/console-users.ts")).consoleUserRoutes,
  },
  // /r/{rnc}/{encf}[/pdf|/xml], /r/{link}: a receipt's public page, for its buyer (no account)
  { mount: "/", serves: ["r"], load: async () => (await import("./routes/public-receipt.ts")).publicReceiptRoutes },
  // /credito-fiscal/requests: buyers' crédito fiscal requests waiting for the issuer's decision
  {
    mount: "/",
    serves: ["credito-fiscal"],
    load: async () => (await import("./routes/credito-fiscal-requests.ts")).creditoFiscalRequestRoutes,
  },
  // /validate: the public validator (no account, nothing stored)
  { mount: "/", serves: ["validate"], load: async () => (await import("./routes/validator.ts")).validatorRoutes },
];

type OpenApiRouter = ReturnType<typeof OpenApiRouterOf>;

/** Largest request body we accept: a 1000-line e-CF in JSON is well under this. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export function createApp() {
  // A plain Hono: the OpenAPI router (zod and zod-to-openapi) loads with the route groups that use it.
  const app = new Hono<AppEnv>();

  app.use(requestId());
  app.use(drainUnreadBody);
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

  app.use(lazyRouteGroups(ROUTE_GROUPS));

  // What every group declares (each mounted for it, if not yet), plus the e-CF request's per-type
  // schemas and the problem examples, all built on the first request for the document.
  const everyGroup = onceLoaded<OpenApiRouter>(async () =>
    mountGroups(ROUTE_GROUPS, (await import("./http/router.ts")).newRouter()),
  );
  app.get("/openapi.json", async (c) => {
    const { apiDocument } = await import("./http/api-document.ts");
    return c.json(apiDocument(await everyGroup(), new URL(c.req.url).origin));
  });

  app.notFound(notFound);
  app.onError(onError);
  // The paths renamed for one release answer as the new ones (http/path-aliases.ts).
  const serve = app.fetch;
  app.fetch = (request, ...rest) => serve(withCurrentPath(request), ...rest);
  return app;
}

export type App = ReturnType<typeof createApp>;
