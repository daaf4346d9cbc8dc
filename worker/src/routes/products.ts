// /products: the issuer's shared catalogue (kept in its IssuerLedger object), paged, with ETag and
// If-Match for concurrent edits, and as a whole CSV file in and out; the administrator's import and
// export of the same file under /admin/companies/{id}/products.
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { requireAdmin } from "../auth/admin.ts";
import { requireAuth } from "../auth/middleware.ts";
import { expectedVersion } from "../http/if-match.ts";
import {
  codeOfCursor,
  etagOf,
  Product,
  ProductInput,
  ProductPatch,
  productChanges,
  productCursor,
  productValues,
  productView,
} from "../catalog/products.ts";
import { exportProductsCsv, importProductsCsv } from "../catalog/transfer.ts";
import { PRODUCT_CSV_COLUMNS } from "../catalog/csv.ts";
import { database } from "../db/client.ts";
import { companies } from "../db/tables.ts";
import { adminRoute, problemSchema, tenantRoute } from "../http/openapi.ts";
import { ApiProblem } from "../errors/problem.ts";
import { newRouter } from "../http/router.ts";
import { issuerLedger } from "../ledger/client.ts";
import { unwrap } from "../ledger/refusal.ts";
import { resolveTenant } from "../tenant/resolve.ts";

/** Content types an import body may have: CSV, or plain text from a tool that knows no better. */
function assertCsvBody(contentType: string | undefined): void {
  if (!/^\s*(text\/csv|text\/plain)\b/i.test(contentType ?? "")) {
    throw new ApiProblem("unsupported_media_type", {
      detail: "Send the products file as text/csv (UTF-8, a header row, comma-separated).",
    });
  }
}

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const IdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, example: "0b6f2c4e-8a1d-4f5e-9c3b-7d2a1e0f9b8c" }),
});
const CompanyParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" }, description: "The company id" }),
});
const IfMatchHeader = z.object({
  "If-Match": z.string().optional().openapi({
    description:
      'The ETag of the version being changed, e.g. "7" (required: 428 without it, 412 when the product changed since)',
  }),
});
const etagHeader = {
  ETag: {
    description: 'The product\'s version in quotes, e.g. "7": send it back in If-Match to change the product',
    schema: { type: "string" as const },
  },
};

// Loose on purpose: the handler reports each problem with a /query/... pointer.
const ListQuery = z.object({
  cursor: z.string().optional().openapi({ description: "nextCursor of the previous page" }),
  limit: z
    .string()
    .optional()
    .openapi({ description: `Products per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` }),
  q: z.string().optional().openapi({
    description: "Code starting with, name containing (case-insensitive) or exact barcode",
    example: "cafe",
  }),
  active: z.string().optional().openapi({ description: "true or false: only active or only inactive products" }),
});
const ProductPage = z
  .object({
    items: z.array(Product),
    total: z.number().int().openapi({ description: "Products matching q and active, on every page" }),
    limit: z.number().int(),
    nextCursor: z.string().nullable(),
  })
  .openapi("ProductPage");
const ImportAnswer = z
  .object({
    lines: z.number().int().openapi({ description: "Product lines in the file" }),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int().openapi({
      description: "Lines equal to the stored product: their version stays, tills download nothing for them",
    }),
    version: z.number().int().openapi({ description: "The catalogue version after the import" }),
  })
  .openapi("ProductImport");
const csvBody = {
  required: true,
  description: `UTF-8 CSV with the header ${PRODUCT_CSV_COLUMNS.join(",")}; barcodes separated by |, booleans true or false; empty optional cells take the defaults`,
  content: {
    "text/csv": {
      schema: z.string().openapi({
        example:
          "code,barcodes,name,price,priceIncludesItbis,itbisRate,unit,kind,active\r\nCAFE-454,7460000123456,Café molido 454 g,325.00,true,18,43,good,true\r\n",
      }),
    },
  },
};
const importProblems = {
  415: problemSchema("The body is not text/csv"),
  422: problemSchema(
    "Some lines are not valid: errors[] lists each as { line, column, detail } (line 1 is the header); nothing was stored",
  ),
};

function readListQuery(query: z.infer<typeof ListQuery>) {
  const errors = [];
  let limit = DEFAULT_LIMIT;
  if (query.limit !== undefined) {
    limit = /^\d{1,4}$/.test(query.limit) ? Number(query.limit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT))
      errors.push({
        path: "/query/limit",
        code: "out_of_range",
        message: `limit must be an integer from 1 to ${MAX_LIMIT}.`,
      });
  }
  const afterCode = query.cursor === undefined ? undefined : codeOfCursor(query.cursor);
  if (query.cursor !== undefined && afterCode === undefined)
    errors.push({ path: "/query/cursor", code: "invalid_cursor", message: "cursor is not one this route returned." });
  if (query.active !== undefined && query.active !== "true" && query.active !== "false") {
    errors.push({ path: "/query/active", code: "invalid", message: "active must be true or false." });
  }
  if (query.q !== undefined && query.q.length > 80)
    errors.push({ path: "/query/q", code: "too_long", message: "q is at most 80 characters." });
  if (errors.length) throw new ApiProblem("validation_failed", { detail: "The product query is not valid.", errors });
  return {
    limit,
    afterCode,
    q: query.q?.trim() || undefined,
    active: query.active === undefined ? undefined : query.active === "true",
  };
}

async function companyById(d1: D1Database, id: string) {
  const company = await database(d1).query.companies.findFirst({ where: eq(companies.id, id) });
  if (!company) throw new ApiProblem("not_found", { detail: `No company with id ${id}.` });
  return company;
}

const csvHeaders = {
  "Content-Type": "text/csv; charset=utf-8",
  "Content-Disposition": 'attachment; filename="products.csv"',
};

export const productRoutes = newRouter();
// "/products/*" also matches "/products" itself.
productRoutes.use("/products/*", requireAuth, resolveTenant);

productRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/products",
    tags: ["Catalogue"],
    summary: "The issuer's products, a page at a time in code order",
    description:
      "Lists the shared catalogue the issuer's tills sell from, filtered by text (q) and state (active), in pages that follow nextCursor; inactive products stay listed until filtered out.",
    request: { query: ListQuery },
    responses: {
      200: { description: "One page", ...json(ProductPage) },
      400: problemSchema("Invalid limit, cursor or active"),
    },
  }),
  async (c) => {
    const query = readListQuery(c.req.valid("query"));
    const { rows, total } = await issuerLedger(c.env, c.get("tenant").id)
      .catalogue()
      .products({
        ...query,
        limit: query.limit + 1,
      });
    const page = rows.slice(0, query.limit);
    const nextCursor = rows.length > query.limit ? productCursor(page.at(-1)!.code) : null;
    return c.json({ items: page.map(productView), total, limit: query.limit, nextCursor }, 200);
  },
);

productRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/products",
    tags: ["Catalogue"],
    summary: "Add a product to the catalogue",
    description:
      "Creates a product with a code unique among the issuer's products; barcodes, ITBIS, unit, kind and active take their defaults when left out. Paired tills receive it on their next catalogue pull.",
    request: { body: { required: true, ...json(ProductInput) } },
    responses: {
      201: {
        description: "Created; Location names it and ETag is its version",
        headers: { ...etagHeader, Location: { schema: { type: "string" } } },
        ...json(Product),
      },
      400: problemSchema("The product does not match the schema (errors[] points at each field)"),
      409: problemSchema("Another product has this code"),
    },
  }),
  async (c) => {
    const row = await unwrap(
      issuerLedger(c.env, c.get("tenant").id)
        .catalogue()
        .createProduct(productValues(c.req.valid("json"))),
    );
    c.header("Location", `/products/${row.id}`);
    c.header("ETag", etagOf(row.version));
    return c.json(productView(row), 201);
  },
);

productRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/products/export",
    tags: ["Catalogue"],
    summary: "The whole catalogue as a CSV file",
    description: `Streams every product (active or not) in code order, in the columns POST /products/import reads (${PRODUCT_CSV_COLUMNS.join(",")}), so a file exported, edited in a spreadsheet and imported again round-trips.`,
    responses: { 200: { description: "The CSV file", content: { "text/csv": { schema: z.string() } } } },
  }),
  (c) => c.body(exportProductsCsv(c.env, c.get("tenant").id), 200, csvHeaders),
);

productRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/products/import",
    tags: ["Catalogue"],
    summary: "Import a CSV file of products: all of it or nothing",
    description:
      "Creates or updates products by code from a whole CSV file. Every line is checked first; one bad line refuses the file with a 422 listing every bad line and column, and nothing is stored. Lines equal to the stored product change nothing.",
    request: { body: csvBody },
    responses: { 200: { description: "Imported", ...json(ImportAnswer) }, ...importProblems },
  }),
  async (c) => {
    assertCsvBody(c.req.header("Content-Type"));
    return c.json(await importProductsCsv(c.env, c.get("tenant").id, await c.req.text()), 200);
  },
);

productRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/products/{id}",
    tags: ["Catalogue"],
    summary: "One product, with its version as ETag",
    description:
      "Reads a product of the issuer's catalogue; its ETag is the version to send in If-Match when changing or deleting it.",
    request: { params: IdParam },
    responses: {
      200: { description: "The product", headers: etagHeader, ...json(Product) },
      404: problemSchema("No such product of this issuer"),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const row = await issuerLedger(c.env, c.get("tenant").id).catalogue().product(id);
    if (!row) throw new ApiProblem("not_found", { detail: `No product ${id}.` });
    c.header("ETag", etagOf(row.version));
    return c.json(productView(row), 200);
  },
);

const changeProblems = {
  404: problemSchema("No such product of this issuer"),
  412: problemSchema("If-Match names a version the product is no longer at (currentVersion says which it is)"),
  428: problemSchema("If-Match is missing"),
};

productRoutes.openapi(
  tenantRoute({
    method: "patch",
    path: "/products/{id}",
    tags: ["Catalogue"],
    summary: "Change a product (If-Match required)",
    description:
      "Changes the fields sent, only if the product is still at the version named in If-Match (428 without it, 412 when someone changed it meanwhile). The product takes a new version, which paired tills pull.",
    request: { params: IdParam, headers: IfMatchHeader, body: { required: true, ...json(ProductPatch) } },
    responses: {
      200: { description: "Changed (or already so: the version stays)", headers: etagHeader, ...json(Product) },
      400: problemSchema("The change does not match the schema"),
      409: problemSchema("Another product has the new code"),
      ...changeProblems,
    },
  }),
  async (c) => {
    const ifMatch = c.req.header("If-Match");
    const expected = expectedVersion(ifMatch);
    const row = await unwrap(
      issuerLedger(c.env, c.get("tenant").id)
        .catalogue()
        .updateProduct(c.req.valid("param").id, productChanges(c.req.valid("json")), expected, ifMatch!),
    );
    c.header("ETag", etagOf(row.version));
    return c.json(productView(row), 200);
  },
);

productRoutes.openapi(
  tenantRoute({
    method: "delete",
    path: "/products/{id}",
    tags: ["Catalogue"],
    summary: "Withdraw a product: it becomes inactive (If-Match required)",
    description:
      "Marks the product inactive rather than erasing it, so every till learns of it on its next pull and stops selling it; PATCH with active true brings it back. If-Match as for PATCH.",
    request: { params: IdParam, headers: IfMatchHeader },
    responses: {
      200: { description: "The product, now inactive", headers: etagHeader, ...json(Product) },
      ...changeProblems,
    },
  }),
  async (c) => {
    const ifMatch = c.req.header("If-Match");
    const expected = expectedVersion(ifMatch);
    const row = await unwrap(
      issuerLedger(c.env, c.get("tenant").id)
        .catalogue()
        .updateProduct(c.req.valid("param").id, { active: false }, expected, ifMatch!),
    );
    c.header("ETag", etagOf(row.version));
    return c.json(productView(row), 200);
  },
);

// ------------------------------------------------------------------------ administration

productRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/companies/{id}/products/import",
    tags: ["Administration"],
    summary: "Import a CSV file of products for an issuer: all of it or nothing",
    description:
      "What `npm run admin -- products:import` sends: the same file, checks and answer as POST /products/import, for the issuer named in the path. A bad line refuses the whole file (422 with every bad line).",
    middleware: [requireAdmin] as const,
    request: { params: CompanyParam, body: csvBody },
    responses: {
      200: { description: "Imported", ...json(ImportAnswer) },
      404: problemSchema("No such company"),
      ...importProblems,
    },
  }),
  async (c) => {
    assertCsvBody(c.req.header("Content-Type"));
    const company = await companyById(c.env.DB, c.req.valid("param").id);
    return c.json(await importProductsCsv(c.env, company.id, await c.req.text()), 200);
  },
);

productRoutes.openapi(
  adminRoute({
    method: "get",
    path: "/admin/companies/{id}/products/export",
    tags: ["Administration"],
    summary: "An issuer's whole catalogue as a CSV file",
    description:
      "What `npm run admin -- products:export` writes: every product of the issuer in code order, in the columns the import reads.",
    middleware: [requireAdmin] as const,
    request: { params: CompanyParam },
    responses: {
      200: { description: "The CSV file", content: { "text/csv": { schema: z.string() } } },
      404: problemSchema("No such company"),
    },
  }),
  async (c) => {
    const company = await companyById(c.env.DB, c.req.valid("param").id);
    return c.body(exportProductsCsv(c.env, company.id), 200, csvHeaders);
  },
);
