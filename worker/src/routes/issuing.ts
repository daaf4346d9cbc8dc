import { createRoute, z } from "@hono/zod-openapi";
import { buildAnecf, fechaHoraSantoDomingo, signEcfXml, TIPOS_ECF } from "@ecf/shared";
import { and, eq, gte, lte } from "drizzle-orm";
import type { Context } from "hono";
import { requireAuth } from "../auth/middleware.ts";
import { sha256Hex } from "../auth/crypto.ts";
import { database } from "../db/client.ts";
import { receipts } from "../db/schema.ts";
import { DgiiError } from "../dgii/errors.ts";
import { dgiiClientFor, signerFor } from "../dgii/for-company.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../http/problem.ts";
import { bearerSecurity, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { answerFor } from "../issuing/answer.ts";
import { stableStringify } from "../issuing/document.ts";
import { claimIdempotencyKey, releaseIdempotencyKey, storeIdempotentAnswer } from "../issuing/idempotency.ts";
import { issueReceipt } from "../issuing/issue.ts";
import { resolveTenant } from "../tenant/resolve.ts";

export const IssueAnswer = z
  .object({
    codigo: z.string().openapi({ description: '"1" Aceptado, "2" Rechazado, "3" En Proceso, "4" Aceptado Condicional, "-1" Contingencia, "-2" Anulado, "0" already accepted (resend)' }),
    estado: z.enum(["Aceptado", "Aceptado Condicional", "En Proceso", "Rechazado", "Contingencia", "Anulado"]),
    encf: z.string(),
    trackId: z.string().nullable(),
    codigoSeguridad: z.string(),
    fechaHoraFirma: z.string(),
    urlTimbre: z.string(),
    mensajes: z.array(z.object({ codigo: z.string().nullable(), valor: z.string() })),
    reenviado: z.boolean(),
    links: z.object({ self: z.string(), xml: z.string(), pdf: z.string() }),
  })
  .openapi("IssueAnswer");

const EcfRequest = z
  .record(z.string(), z.unknown())
  .openapi("EcfRequest", {
    description: "An e-CF as JSON mirroring DGII's XML (Encabezado, DetallesItems, …). Derivable fields (eNCF, Emisor, FechaEmision, totals, …) may be left out.",
    example: {
      Encabezado: { IdDoc: { TipoeCF: "31", TipoIngresos: "01", TipoPago: "1" }, Comprador: { RNCComprador: "131880681", RazonSocialComprador: "Cliente SRL" } },
      DetallesItems: [{ IndicadorFacturacion: 1, NombreItem: "Servicio", IndicadorBienoServicio: 2, CantidadItem: 1, PrecioUnitarioItem: "1000.00" }],
    },
  });

const EncfParam = z.object({ encf: z.string().regex(/^E\d{12}$/).openapi({ param: { name: "encf", in: "path" }, example: "E310000000001" }) });

const answers = {
  200: { description: "DGII has judged the receipt", content: { "application/json": { schema: IssueAnswer } } },
  202: { description: "In process at DGII; finished in the background", content: { "application/json": { schema: IssueAnswer } } },
  503: { description: "Contingencia: signed and queued, DGII unreachable. Print it; do not resend the e-NCF.", content: { "application/json": { schema: IssueAnswer } } },
};

async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new ApiProblem("malformed_json", { detail: "The request body is not valid JSON.", errors: [{ path: "", code: "malformed_json", message: "The request body is not valid JSON." }] });
  }
}

async function findReceipt(c: Context<AppEnv>, encf: string) {
  const receipt = await database(c.env.DB).query.receipts.findFirst({ where: and(eq(receipts.companyId, c.get("tenant").id), eq(receipts.encf, encf.toUpperCase())) });
  if (!receipt) throw new ApiProblem("not_found", { detail: `No receipt ${encf} for issuer ${c.get("tenant").rnc}.` });
  return receipt;
}

export const issuingRoutes = newRouter();
issuingRoutes.use("/fe/recepcion/ecf", requireAuth, resolveTenant);
issuingRoutes.use("/fe/recepcion/ecf/*", requireAuth, resolveTenant);
issuingRoutes.use("/fe/anulacion", requireAuth, resolveTenant);
// Checked before the route's own body handling, so a wrong media type is a 415, not a 400.
issuingRoutes.post("/fe/recepcion/ecf", async (c, next) => {
  if (!/^application\/([\w.-]+\+)?json/i.test(c.req.header("Content-Type") ?? "")) {
    throw new ApiProblem("unsupported_media_type", { detail: "Send the e-CF as application/json." });
  }
  await next();
});

issuingRoutes.openapi(
  createRoute({
    method: "post",
    path: "/fe/recepcion/ecf",
    tags: ["Issuing"],
    summary: "Issue an e-CF: validate, number, sign, archive, send to DGII",
    security: bearerSecurity,
    request: {
      headers: z.object({ "Idempotency-Key": z.string().max(200).optional(), "X-RNC-Emisor": z.string().optional() }),
      body: { required: true, content: { "application/json": { schema: EcfRequest } } },
    },
    responses: {
      ...answers,
      400: problemSchema("The document has problems (all listed, with JSON pointers)"),
      409: problemSchema("The e-NCF was used by a different document"),
      422: problemSchema("No usable e-NCF range, or no certificate"),
      429: problemSchema("Monthly quota exceeded"),
    },
  }),
  // The body is read and validated by the domain package (every problem at once), not by zod.
  (async (c: Context<AppEnv>) => {
    const body = await readJsonBody(c);
    const company = c.get("tenant");
    const key = c.req.header("Idempotency-Key")?.trim();
    if (key) {
      const claim = await claimIdempotencyKey(c.env.DB, company.id, key, await sha256Hex(stableStringify(body)));
      if (claim.kind === "replay") return c.json(claim.body as object, claim.status);
    }
    let outcome;
    try {
      outcome = await issueReceipt(c.env, company, body, new Date());
    } catch (error) {
      if (key) await releaseIdempotencyKey(c.env.DB, company.id, key);
      throw error;
    }
    const { status, body: answer } = answerFor(outcome.receipt, { reenviado: outcome.reenviado });
    if (!outcome.reenviado && (answer.estado === "Rechazado" || answer.estado === "Contingencia")) {
      const reasons = answer.mensajes.map((m) => (m.codigo ? `${m.codigo}: ${m.valor}` : m.valor)).join("; ");
      c.set("auditEvent", { code: answer.estado === "Rechazado" ? "dgii_rejected" : "dgii_unavailable", detail: `${answer.encf}: ${reasons}` });
    }
    if (key) await storeIdempotentAnswer(c.env.DB, company.id, key, status, answer);
    return c.json(answer, status);
  }) as never,
);

issuingRoutes.openapi(
  createRoute({
    method: "get",
    path: "/fe/recepcion/ecf/{encf}",
    tags: ["Issuing"],
    summary: "A receipt's current state",
    security: bearerSecurity,
    request: { params: EncfParam },
    responses: { ...answers, 404: problemSchema("No such receipt for this issuer") },
  }),
  (async (c: Context<AppEnv>) => {
    const { status, body } = answerFor(await findReceipt(c, c.req.param("encf")!));
    return c.json(body, status);
  }) as never,
);

issuingRoutes.openapi(
  createRoute({
    method: "get",
    path: "/fe/recepcion/ecf/{encf}/xml",
    tags: ["Issuing"],
    summary: "The archived signed XML, byte for byte",
    security: bearerSecurity,
    request: { params: EncfParam },
    responses: { 200: { description: "Signed XML", content: { "application/xml": { schema: z.string() } } }, 404: problemSchema("No such receipt") },
  }),
  (async (c: Context<AppEnv>) => {
    const receipt = await findReceipt(c, c.req.param("encf")!);
    const object = await c.env.ARCHIVE.get(receipt.xmlKey);
    if (!object) throw new Error(`archived XML ${receipt.xmlKey} is missing`);
    return c.body(await object.arrayBuffer(), 200, {
      "Content-Type": "application/xml; charset=utf-8",
      "Content-Disposition": `inline; filename="${c.get("tenant").rnc}${receipt.encf}.xml"`,
      "X-Content-SHA256": receipt.xmlSha256,
    });
  }) as never,
);

const AnulacionBody = z
  .object({
    rangos: z
      .array(
        z.object({
          tipoeCF: z.enum(TIPOS_ECF),
          desde: z.string().regex(/^E\d{12}$/),
          hasta: z.string().regex(/^E\d{12}$/),
        }),
      )
      .min(1)
      .max(10),
  })
  .openapi("AnulacionRequest");

issuingRoutes.openapi(
  createRoute({
    method: "post",
    path: "/fe/anulacion",
    tags: ["Issuing"],
    summary: "Void unused e-NCF ranges (and signed but unsent receipts) with a signed ANECF",
    security: bearerSecurity,
    request: { body: { required: true, content: { "application/json": { schema: AnulacionBody } } } },
    responses: {
      200: { description: "DGII's answer", content: { "application/json": { schema: z.object({ codigo: z.string(), nombre: z.string(), mensajes: z.array(z.string()), anulados: z.number() }) } } },
      409: problemSchema("A number in a range was already used"),
      503: problemSchema("DGII unreachable"),
    },
  }),
  async (c) => {
    const { rangos } = c.req.valid("json");
    const company = c.get("tenant");
    const db = database(c.env.DB);
    const errors: { path: string; code: string; message: string }[] = [];
    for (const [i, r] of rangos.entries()) {
      const from = Number(r.desde.slice(3));
      const to = Number(r.hasta.slice(3));
      if (r.desde.slice(1, 3) !== r.tipoeCF || r.hasta.slice(1, 3) !== r.tipoeCF || from > to || from < 1) {
        errors.push({ path: `/rangos/${i}`, code: "invalid_range", message: `The range must be of type ${r.tipoeCF}, from ≤ to.` });
        continue;
      }
      const used = await db.query.receipts.findMany({
        where: and(eq(receipts.companyId, company.id), eq(receipts.tipoeCF, r.tipoeCF), gte(receipts.encf, r.desde), lte(receipts.encf, r.hasta)),
      });
      for (const receipt of used.filter((u) => u.sendAttempts > 0 || !["signed", "contingency"].includes(u.status))) {
        errors.push({ path: `/rangos/${i}`, code: "encf_used", message: `${receipt.encf} was already sent to DGII and cannot be voided.` });
      }
    }
    if (errors.length) {
      throw new ApiProblem(errors.some((e) => e.code === "encf_used") ? "conflict" : "validation_failed", { detail: "Some ranges cannot be voided.", errors });
    }

    const signer = await signerFor(c.env, company);
    const now = new Date();
    const xml = buildAnecf({
      RncEmisor: company.rnc,
      FechaHoraAnulacioneNCF: fechaHoraSantoDomingo(now),
      DetalleAnulacion: Object.values(
        rangos.reduce<Record<string, { TipoeCF: (typeof TIPOS_ECF)[number]; TablaRangoSecuenciasAnuladaseNCF: { SecuenciaeNCFDesde: string; SecuenciaeNCFHasta: string }[] }>>((acc, r) => {
          (acc[r.tipoeCF] ??= { TipoeCF: r.tipoeCF, TablaRangoSecuenciasAnuladaseNCF: [] }).TablaRangoSecuenciasAnuladaseNCF.push({ SecuenciaeNCFDesde: r.desde, SecuenciaeNCFHasta: r.hasta });
          return acc;
        }, {}),
      ),
    });
    const signed = await signEcfXml(xml, signer.key, signer.certificateDer);
    let answer: { codigo: string; nombre: string; mensajes: string[] };
    try {
      answer = await dgiiClientFor(c.env, company, signer).anularRangos(signed, `${company.rnc}ANECF${Date.now()}.xml`);
    } catch (error) {
      if (error instanceof DgiiError && error.isUnavailable) throw new ApiProblem("dgii_unavailable", { detail: error.message });
      if (error instanceof DgiiError) throw new ApiProblem("unprocessable", { detail: error.message, errors: error.mensajes.map((m) => ({ path: "", code: m.codigo ?? "dgii", message: m.valor })) });
      throw error;
    }
    let anulados = 0;
    if (answer.codigo !== "3") {
      for (const r of rangos) {
        const voided = await db
          .update(receipts)
          .set({ status: "voided", updatedAt: now.toISOString() })
          .where(and(eq(receipts.companyId, company.id), eq(receipts.tipoeCF, r.tipoeCF), gte(receipts.encf, r.desde), lte(receipts.encf, r.hasta), eq(receipts.sendAttempts, 0)))
          .returning();
        anulados += voided.length;
        // Numbers not yet handed out are taken out of the sequence, so they are never issued.
        await c.env.DB.prepare(`UPDATE sequences SET next_number = ?3 + 1 WHERE company_id = ?1 AND tipo_ecf = ?2 AND next_number <= ?3`)
          .bind(company.id, r.tipoeCF, Number(r.hasta.slice(3)))
          .run();
      }
    }
    return c.json({ ...answer, anulados }, 200);
  },
);

