// GET /archive/{period}: the month's documents as one zip, streamed (reports/month-zip.ts).
import { z } from "@hono/zod-openapi";
import { requireAuth } from "../auth/middleware.ts";
import { requestedMonth } from "../reports/requested-month.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { monthArchive } from "../reports/month-zip.ts";
import { chunksToStream } from "../archive/zip-stream.ts";
import { resolveTenant } from "../tenant/resolve.ts";

export const archiveRoutes = newRouter();
archiveRoutes.use("*", requireAuth, resolveTenant);

archiveRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/{period}",
    tags: ["Archive"],
    summary:
      "The month's archive as a zip: every signed XML issued and received, ARECF/ACECF, the PDFs already rendered, and an index",
    description: [
      "Streamed (stored, no compression; ZIP64 when large): emitidos/ holds the issuer's signed e-CF with its buyers' ARECF/ACECF and the",
      "PDFs rendered so far (a PDF not yet made is not made here: GET /fe/recepcion/ecf/{encf}/pdf makes it), recibidos/ the e-CF suppliers",
      "sent with our ARECF/ACECF, and indice.csv one line per receipt and purchase of the ledger with its files' paths, the XML's SHA-256 and its",
      "estado in DGII's words (a receipt's state; a purchase's commercial approval, else Recibido or No Recibido as our ARECF said).",
      "The month is the documents' FechaEmision month, as in the ledger and the archive's keys.",
    ].join(" "),
    request: {
      params: z.object({
        // Checked by requestedMonth, which also refuses a month not begun (422).
        period: z.string().openapi({
          param: { name: "period", in: "path", description: "The month, AAAA-MM or AAAAMM" },
          example: "2026-05",
        }),
      }),
    },
    responses: {
      200: {
        description: "The zip",
        content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } },
      },
      400: problemSchema("period is not a month (AAAA-MM or AAAAMM)"),
      422: problemSchema("The month has not begun yet"),
    },
  }),
  async (c) => {
    const month = requestedMonth(c.req.valid("param").period, "/period", new Date());
    const tenant = c.get("tenant");
    return c.body(chunksToStream(monthArchive(c.env, tenant, month)), 200, {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="${tenant.rnc}-${month}.zip"`,
    });
  },
);
