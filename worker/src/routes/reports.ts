// GET /reports/{encf,compras,errores}: tenant-scoped, date-filtered, keyset-paged, JSON or CSV.
// GET /reports/{606,607,608}: DGII's monthly formats for one month, JSON or the TXT.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireAuth } from "../auth/middleware.ts";
import type { AppEnv } from "../env.ts";
import { tenantRoute, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { toCsv } from "../reports/csv.ts";
import { readReportQuery } from "../reports/paging.ts";
import { readReport, REPORTS, type ReportName } from "../reports/reports.ts";
import { resolveTenant } from "../tenant/resolve.ts";
import { ApiProblem } from "../errors/problem.ts";
import { COLUMNS_606 } from "../reports/dgii-606.ts";
import { COLUMNS_607 } from "../reports/dgii-607.ts";
import {
  Formato606,
  Formato607,
  Formato608,
  PeriodQuery,
  ReportQuerySchema,
  reportPageSchema,
  type ReportItem,
} from "../http/schemas/reports.ts";
import { COLUMNS_608 } from "../reports/dgii-608.ts";
import type { FormatLine, MissingItem } from "../reports/dgii-txt.ts";
import { monthlyJson, monthlyTxt, type MonthlyFile } from "../reports/monthly-file.ts";
import { open606, open607, open608, periodOfQuery } from "../reports/monthly-formats.ts";

const SUMMARIES: Record<ReportName, string> = {
  encf: "Issued e-CF (type, e-NCF, buyer, totals, state, security code, dates), for local back-up",
  compras: "Received e-CF with their ARECF and ACECF state",
  errores: "The error-audit log",
};

const DESCRIPTIONS: Record<ReportName, string> = {
  encf: "Every receipt the issuer issued, by FechaEmision, with its state as DGII spells it and its commercial approval; filter by buyer, type, state and e-NCF prefix. For an ERP's reconciliation and a local back-up: page with `cursor` until nextCursor is null, or take it as CSV.",
  compras:
    "Every e-CF suppliers sent the issuer, by FechaEmision, with our acknowledgment (ARECF) and the commercial approval given (ACECF) and how it was delivered; filter by supplier, type and e-NCF prefix. JSON pages or CSV.",
  errores:
    "The issuer's refused requests and DGII's rejections, newest last: what was asked, the problem code, the detail and the request id to quote to support. JSON pages or CSV.",
};

/** One page of a report: CSV (a plain body, with the next page in Link), or JSON typed by REPORT_ITEMS. */
async function serve(c: Context<AppEnv>, name: ReportName) {
  const query = readReportQuery(name, c.req.query(), c.req.header("Accept"));
  const page = await readReport(c.env, name, c.get("tenant").id, query);
  if (query.format === "csv") {
    const headers: Record<string, string> = {
      "Content-Type": "text/csv; charset=utf-8",
      "X-Total-Count": String(page.total),
    };
    if (page.nextCursor) {
      const next = new URL(c.req.url);
      next.searchParams.set("cursor", page.nextCursor);
      headers.Link = `<${next.pathname}${next.search}>; rel="next"`;
      headers["X-Next-Cursor"] = page.nextCursor;
    }
    return c.body(toCsv(Object.keys(REPORTS[name].columns), page.items), 200, headers);
  }
  // The rows come from SQL whose output names are the spec's columns; reports.test.ts checks that
  // they are exactly REPORT_ITEMS' properties, so the rows are the items the schema describes.
  return c.json({ ...page, items: page.items as ReportItem[] }, 200);
}

export const reportRoutes = newRouter();
reportRoutes.use("/reports/*", requireAuth, resolveTenant);

for (const name of ["encf", "compras", "errores"] as const) {
  reportRoutes.openapi(
    tenantRoute({
      method: "get",
      path: `/reports/${name}`,
      tags: ["Reports"],
      summary: SUMMARIES[name],
      description: DESCRIPTIONS[name],
      request: { query: ReportQuerySchema },
      responses: {
        200: {
          description: "One page, in a stable order; CSV carries the next page in Link and X-Next-Cursor",
          content: { "application/json": { schema: reportPageSchema(name) }, "text/csv": { schema: z.string() } },
        },
        400: problemSchema("Invalid dates, filters, page size, cursor or format"),
      },
    }),
    (c) => serve(c, name),
  );
}

// ------------------------------------------------------- the monthly formats: 606, 607, 608

const MONTHLY = {
  "606": {
    summary:
      "Formato 606 (compras): the month's purchases and own E41/E43/E47, as DGII's tool writes the TXT, or JSON with what is missing",
    description: [
      "Purchases are the e-CF suppliers sent (in the month of their FechaEmision; commercially rejected ones are left out, listed in `excluded`)",
      "and the issuer's own E41, E43 and E47 accepted by DGII. Each purchase's classification comes from PATCH /compras/{id}, else the",
      "defaults the issuer set for the supplier (PUT /proveedores/{rnc}/clasificacion), else the document, else the defaults learned from",
      "the supplier's last classification; `lines[].classification.sources` says which.",
      "The TXT (format=txt) is given only when nothing is missing; otherwise 422 lists `missing` (unclassified purchases, withholdings",
      "without a payment date, own receipts not final with DGII).",
    ].join(" "),
    columns: COLUMNS_606,
    schema: Formato606,
    open: open606,
  },
  "607": {
    summary:
      "Formato 607 (ventas), for issuers that still file it: accepted e-CF one by one, E32 under 250,000 as the summary's totals",
    description: [
      "Every sale DGII accepted in the month (E31, E33, E34, E44, E45, E46, and E32 from 250,000) is one record; E32 under 250,000 (sent as RFCE)",
      "are summed in `consumptionSummary` for the Oficina Virtual and do not count in the header. A buyer's withholding needs its date",
      "(PATCH /ventas/{encf}); receipts not final with DGII are listed as missing. The TXT is given only when nothing is missing (422 otherwise).",
    ].join(" "),
    columns: COLUMNS_607,
    schema: Formato607,
    open: open607,
  },
  "608": {
    summary:
      "Formato 608 (comprobantes anulados), for issuers that still file it: the e-NCF DGII voided (ANECF) in the month",
    description:
      "One record per voided e-NCF, by the month DGII voided it; Tipo de Anulación 04 for a signed receipt voided before it was sent, 08 for a number never used.",
    columns: COLUMNS_608,
    schema: Formato608,
    open: open608,
  },
} as const;

/** What is missing as problem items, each pointing at the resource (and field) to change. */
function missingProblems(missing: readonly MissingItem[]) {
  return missing.map((m) => {
    const resource = m.fixWith ? m.fixWith.split(" ")[1]! : m.encf ? `/fe/recepcion/ecf/${m.encf}` : "/query/period";
    return { path: m.field ? `${resource}/${m.field}` : resource, ...m };
  });
}

for (const formato of ["606", "607", "608"] as const) {
  const spec = MONTHLY[formato];
  reportRoutes.openapi(
    tenantRoute({
      method: "get",
      path: `/reports/${formato}`,
      tags: ["Reports"],
      summary: spec.summary,
      description: spec.description,
      request: { query: PeriodQuery },
      responses: {
        200: {
          description:
            "The month's file: JSON (with what is missing), or the TXT exactly as DGII's tool writes it (CRLF, ASCII)",
          content: { "application/json": { schema: spec.schema }, "text/plain": { schema: z.string() } },
        },
        400: problemSchema("period is not a month (AAAAMM or AAAA-MM), or an unknown format"),
        422: problemSchema(
          "The month has not begun yet, or the TXT was asked for but the month is not complete (errors[] list what is missing)",
        ),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      // A code, so case does not matter: format=TXT is format=txt.
      const format =
        query.format?.toLowerCase() ?? (/text\/plain/i.test(c.req.header("Accept") ?? "") ? "txt" : "json");
      if (format !== "json" && format !== "txt")
        throw new ApiProblem("validation_failed", {
          errors: [{ path: "/query/format", code: "invalid", message: "format must be json or txt." }],
        });
      const tenant = c.get("tenant");
      const file: MonthlyFile<FormatLine<string>> = await spec.open(c.env, tenant, periodOfQuery(query, new Date()));
      const { head } = file;
      // Written while read (reports/monthly-file.ts): the same text as the whole object's JSON, which
      // the route's types cannot see in a stream (hence `as never`: the schema still documents it).
      if (format === "json")
        return c.newResponse(monthlyJson(file), 200, { "Content-Type": "application/json" }) as never;
      if (!head.complete) {
        throw new ApiProblem("unprocessable", {
          detail: `The ${formato} of ${head.period} is not complete: ${head.missing.length} things are missing (see errors).`,
          errors: missingProblems(head.missing),
        });
      }
      return c.newResponse(monthlyTxt(file, spec.columns), 200, {
        "Content-Type": "text/plain; charset=us-ascii",
        "Content-Disposition": `attachment; filename="${head.fileName}"`,
        "X-Record-Count": String(head.recordCount),
      }) as never;
    },
  );
}
