// DGII's taxpayer registry: the administrator imports it (start, rows in chunks, commit, purge;
// `npm run admin -- taxpayers:import`), issuers and paired tills look a buyer up by RNC.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodError } from "zod";
import { requireAdmin } from "../auth/admin.ts";
import { requireAuth } from "../auth/middleware.ts";
import { requireDevice, type DeviceEnv } from "../devices/auth.ts";
import { validationHook } from "../http/errors.ts";
import { adminRoute, problemSchema, tenantRoute } from "../http/openapi.ts";
import { ApiProblem } from "../errors/problem.ts";
import { resolveTenant } from "../tenant/resolve.ts";
import {
  abandonImport,
  appendRows,
  commitImport,
  lookupTaxpayer,
  MAX_ROWS_PER_APPEND,
  purgeStaleRows,
  registryStatus,
  startImport,
} from "../taxpayers/registry.ts";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });
const deviceSecurity = [{ deviceAuth: [] as string[] }];

const RNC_PATTERN = /^(\d{9}|\d{11})$/;
const RncParam = z.object({
  rnc: z
    .string()
    .regex(RNC_PATTERN, "an RNC has 9 digits, a cédula 11")
    .openapi({
      param: { name: "rnc", in: "path" },
      description: "RNC (9 digits) or cédula (11 digits), digits only",
      example: "131880681",
    }),
});
const ImportIdParam = z.object({
  importId: z
    .string()
    .regex(/^\d{1,15}$/, "an import id is a number")
    .openapi({ param: { name: "importId", in: "path" }, example: "7" }),
});

const Taxpayer = z
  .object({
    rnc: z.string().openapi({ example: "131880681" }),
    legalName: z.string().openapi({
      description: "Razón social (or the person's name), as DGII's file spells it",
      example: "COMERCIAL PEÑA & ASOCIADOS SRL",
    }),
    tradeName: z
      .string()
      .nullable()
      .openapi({ description: "Nombre comercial, when DGII lists one", example: "LA ESQUINA" }),
    activity: z
      .string()
      .nullable()
      .openapi({ description: "Economic activity as DGII lists it", example: "VENTA AL POR MENOR EN COLMADOS" }),
    status: z
      .string()
      .openapi({ description: "As DGII's file spells it: ACTIVO, SUSPENDIDO, DADO DE BAJA, …", example: "ACTIVO" }),
    active: z.boolean().openapi({ description: "status is ACTIVO: a till warns the cashier otherwise" }),
    paymentRegime: z.string().nullable().openapi({ description: "Régimen de pagos (NORMAL, …)", example: "NORMAL" }),
    registeredOn: z
      .string()
      .nullable()
      .openapi({ description: "Registration date, yyyy-MM-dd", example: "2012-03-15" }),
    registryImportedAt: z.string().openapi({
      description: "When the registry this answer comes from was imported (ISO 8601)",
      example: "2026-11-20T04:10:00.000Z",
    }),
  })
  .openapi("Taxpayer");

const TaxpayerRowInput = z
  .object({
    rnc: z.string().regex(RNC_PATTERN, "an RNC has 9 digits, a cédula 11"),
    legalName: z.string().max(250),
    tradeName: z.string().max(250).nullable(),
    activity: z.string().max(250).nullable(),
    status: z.string().max(60),
    paymentRegime: z.string().max(60).nullable(),
    registeredOn: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "expected yyyy-MM-dd")
      .nullable(),
  })
  .openapi("TaxpayerRowInput");
const RowsBody = z
  .object({
    rows: z
      .array(TaxpayerRowInput)
      .min(1)
      .max(MAX_ROWS_PER_APPEND)
      .openapi({ description: `Up to ${MAX_ROWS_PER_APPEND} taxpayers` }),
  })
  .openapi("TaxpayerRows");
const ImportOut = z
  .object({
    importId: z.number().int(),
    state: z.enum(["loading", "current", "replaced", "abandoned"]),
    source: z.string().nullable().openapi({ description: "The file the import was read from" }),
    startedAt: z.string(),
    committedAt: z.string().nullable(),
    rows: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Taxpayers in the import, counted when it was committed" }),
  })
  .openapi("TaxpayerImport");
const RegistryStatus = z
  .object({
    current: z
      .object({ importId: z.number().int(), rows: z.number().int(), importedAt: z.string() })
      .nullable()
      .openapi({ description: "The registry lookups answer from; null before the first import" }),
    imports: z.array(ImportOut).openapi({ description: "The latest 10 imports, newest first" }),
    purgePending: z.boolean().openapi({
      description: "Rows of replaced or abandoned imports remain: POST /admin/taxpayers/purge deletes them",
    }),
  })
  .openapi("TaxpayerRegistryStatus");

/** An RNC that is not 9 or 11 digits is the contract's `invalid_rnc`, not a generic validation problem. */
function rncHook(result: { success: boolean; error?: ZodError }, c: Context): undefined {
  if (result.success) return undefined;
  const message = result.error?.issues[0]?.message ?? "an RNC has 9 digits, a cédula 11";
  throw new ApiProblem("invalid_rnc", {
    detail: `${c.req.param("rnc")} is not an RNC (9 digits) or a cédula (11 digits).`,
    errors: [{ path: "/rnc", code: "invalid_rnc", message }],
  });
}

const LOOKUP_PROBLEMS = {
  400: problemSchema("invalid_rnc: the RNC is not 9 or 11 digits"),
  404: problemSchema("taxpayer_not_found: not in the registry (or no registry imported yet)"),
};

export const taxpayerRoutes = new OpenAPIHono<DeviceEnv>({ defaultHook: validationHook });

taxpayerRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/contribuyentes/{rnc}",
    tags: ["Taxpayers"],
    summary: "Look a buyer up in DGII's taxpayer registry by RNC or cédula",
    description:
      "For an issuer filling in a buyer (RNCComprador, RazonSocialComprador): the legal and trade names, activity and status as DGII's registry lists them, from the latest import the operator made, and when that import was made.",
    middleware: [requireAuth, resolveTenant] as const,
    request: { params: RncParam },
    responses: { 200: { description: "The taxpayer", ...json(Taxpayer) }, ...LOOKUP_PROBLEMS },
  }),
  async (c) => c.json(await lookupTaxpayer(c.env.DB, c.req.valid("param").rnc), 200),
  rncHook,
);

taxpayerRoutes.openapi(
  createRoute({
    method: "get",
    path: "/devices/contribuyentes/{rnc}",
    tags: ["Devices"],
    summary: "Look a buyer up in DGII's taxpayer registry, for a paired till",
    description:
      "The same answer as GET /contribuyentes/{rnc}, with the till's device token: the till fills the buyer's name as the cashier types the RNC and warns when the taxpayer is not active.",
    security: deviceSecurity,
    middleware: [requireDevice] as const,
    request: { params: RncParam },
    responses: {
      200: { description: "The taxpayer", ...json(Taxpayer) },
      401: problemSchema("Token invalid or device revoked"),
      ...LOOKUP_PROBLEMS,
    },
  }),
  async (c) => c.json(await lookupTaxpayer(c.env.DB, c.req.valid("param").rnc), 200),
  rncHook,
);

taxpayerRoutes.openapi(
  adminRoute({
    method: "get",
    path: "/admin/taxpayers",
    tags: ["Administration"],
    summary: "The taxpayer registry's state: the current import, its size and date, the latest imports",
    description:
      "For the operator: which import lookups answer from (its row count and when it was committed), the imports in progress or given up, and whether old rows wait to be purged.",
    middleware: [requireAdmin] as const,
    responses: { 200: { description: "Registry status", ...json(RegistryStatus) } },
  }),
  async (c) => c.json(await registryStatus(c.env.DB), 200),
);

taxpayerRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/taxpayers/imports",
    tags: ["Administration"],
    summary: "Start importing DGII's taxpayer registry (a new generation, invisible until committed)",
    description:
      "The first step of `npm run admin -- taxpayers:import`: opens an empty import; rows are then added in chunks and the import committed, which replaces the previous registry at once. Lookups keep answering from the previous registry meanwhile.",
    middleware: [requireAdmin] as const,
    request: {
      body: {
        required: true,
        ...json(
          z
            .object({ source: z.string().max(200).optional().openapi({ example: "DGII_RNC.zip" }) })
            .openapi("TaxpayerImportStart"),
        ),
      },
    },
    responses: { 201: { description: "Started", ...json(ImportOut) } },
  }),
  async (c) => c.json(await startImport(c.env.DB, c.req.valid("json").source ?? null, new Date()), 201),
);

taxpayerRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/taxpayers/imports/{importId}/rows",
    tags: ["Administration"],
    summary: `Add up to ${MAX_ROWS_PER_APPEND} taxpayers to a loading import`,
    description:
      "All the chunk's rows are stored or none. A row whose RNC the import already holds replaces it, so a chunk sent again after a lost answer changes nothing. Refused once the import is committed or abandoned.",
    middleware: [requireAdmin] as const,
    request: { params: ImportIdParam, body: { required: true, ...json(RowsBody) } },
    responses: {
      200: {
        description: "Stored",
        ...json(z.object({ importId: z.number().int(), accepted: z.number().int() }).openapi("TaxpayerRowsAccepted")),
      },
      400: problemSchema("A row that is not a taxpayer (errors[].path /rows/{i}/…)"),
      404: problemSchema("No such import"),
      409: problemSchema("The import is committed or abandoned"),
    },
  }),
  async (c) =>
    c.json(
      await appendRows(c.env.DB, Number(c.req.valid("param").importId), c.req.valid("json").rows, new Date()),
      200,
    ),
);

taxpayerRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/taxpayers/imports/{importId}/commit",
    tags: ["Administration"],
    summary: "Commit an import: it replaces the registry lookups answer from, all at once",
    description:
      "Counts the import's rows and makes it the current registry in one statement: a lookup sees the whole previous registry or the whole new one. Committing the current import again answers the same; afterwards POST /admin/taxpayers/purge deletes the replaced rows.",
    middleware: [requireAdmin] as const,
    request: { params: ImportIdParam },
    responses: {
      200: { description: "Committed: the registry lookups now answer from", ...json(ImportOut) },
      404: problemSchema("No such import"),
      409: problemSchema("The import was abandoned, or a newer import was committed meanwhile"),
      422: problemSchema("The import has no rows"),
    },
  }),
  async (c) => c.json(await commitImport(c.env.DB, Number(c.req.valid("param").importId), new Date()), 200),
);

taxpayerRoutes.openapi(
  adminRoute({
    method: "delete",
    path: "/admin/taxpayers/imports/{importId}",
    tags: ["Administration"],
    summary: "Abandon a loading import: it never becomes visible",
    description:
      "What the CLI does when a file cannot be read to the end. Its rows are deleted by the next purges; an import left loading for a day is abandoned by the purge itself.",
    middleware: [requireAdmin] as const,
    request: { params: ImportIdParam },
    responses: {
      200: { description: "Abandoned", ...json(ImportOut) },
      404: problemSchema("No such import"),
      409: problemSchema("The import is already committed"),
    },
  }),
  async (c) => c.json(await abandonImport(c.env.DB, Number(c.req.valid("param").importId)), 200),
);

taxpayerRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/taxpayers/purge",
    tags: ["Administration"],
    summary: "Delete a chunk of the rows of replaced and abandoned imports",
    description:
      "Each call deletes a bounded number of rows (so it stays short) and says whether more remain; the CLI calls it until none do. The current registry and loading imports are never touched.",
    middleware: [requireAdmin] as const,
    responses: {
      200: {
        description: "Deleted",
        ...json(
          z
            .object({ deleted: z.number().int(), remaining: z.boolean().openapi({ description: "Call again" }) })
            .openapi("TaxpayerPurge"),
        ),
      },
    },
  }),
  async (c) => c.json(await purgeStaleRows(c.env.DB, new Date()), 200),
);
