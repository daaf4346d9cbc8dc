// GET /archive/{periodo}: the month's documents as one zip, streamed (archive/month-zip.ts).
import { z } from "@hono/zod-openapi";
import { requireAuth } from "../auth/middleware.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { monthArchive } from "../archive/month-zip.ts";
import { chunksToStream } from "../archive/zip-stream.ts";
import { resolveTenant } from "../tenant/resolve.ts";

export const archiveRoutes = newRouter();
archiveRoutes.use("/archive/*", requireAuth, resolveTenant);

archiveRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/archive/{periodo}",
    tags: ["Archive"],
    summary: "The month's archive as a zip: every signed XML issued and received, ARECF/ACECF, the PDFs already rendered, and an index",
    description: [
      "Streamed (stored, no compression; ZIP64 when large): emitidos/ holds the issuer's signed e-CF with its buyers' ARECF/ACECF and the",
      "PDFs rendered so far (a PDF not yet made is not made here: GET /fe/recepcion/ecf/{encf}/pdf makes it), recibidos/ the e-CF suppliers",
      "sent with our ARECF/ACECF, and indice.csv one line per receipt and purchase of the ledger with its files' paths, the XML's SHA-256 and its",
      "estado in DGII's words (a receipt's state; a purchase's commercial approval, else Recibido or No Recibido as our ARECF said).",
      "The month is the documents' FechaEmision month, as in the ledger and the archive's keys.",
    ].join(" "),
    request: {
      params: z.object({
        periodo: z
          .string()
          .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "expected AAAA-MM")
          .openapi({ param: { name: "periodo", in: "path" }, example: "2026-05" }),
      }),
    },
    responses: {
      200: { description: "The zip", content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } } },
      400: problemSchema("periodo is not AAAA-MM"),
    },
  }),
  async (c) => {
    const month = c.req.valid("param").periodo;
    const tenant = c.get("tenant");
    return c.body(chunksToStream(monthArchive(c.env, tenant, month)), 200, {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="${tenant.rnc}-${month}.zip"`,
    });
  },
);
