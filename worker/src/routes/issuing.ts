import { z } from "@hono/zod-openapi";
import { EMAILS_PER_ADDRESS_PER_HOUR, EMAILS_PER_RECEIPT_PER_DAY } from "../ledger/month/email-limits.ts";
import { isCodigoModificacion, TOTALS_POLICIES, type TotalsPolicy } from "@ecf/shared";
import type { Context } from "hono";
import { requireAuth } from "../auth/middleware.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem, DEFAULT_RETRY_AFTER_SECONDS, malformedJson } from "../errors/problem.ts";
import { tenantRoute, problemSchema } from "../http/openapi.ts";
import { ecfRequestContent } from "../http/ecf-request.ts";
import { newRouter } from "../http/router.ts";
import { dgiiOutcomeEvent, requestAuditEntry } from "../audit/log.ts";
import { receiptAnswerOf } from "../answers/receipt.ts";
import { buyerDeliveryStateOf } from "../ledger/month/estado.ts";
import { EncfParam } from "../http/schemas/common.ts";
import {
  AnulacionAnswer,
  AnulacionBody,
  EmailQueued,
  EmailRequest,
  IssueHeaders,
  ReceiptNotes,
} from "../http/schemas/issuing.ts";
import { ANSWER_STATUSES, type AnswerStatus, type IssueAnswer, receiptAnswers } from "../answers/receipt-schema.ts";
import { issueReceipt } from "../issuing/issue.ts";
import { PhaseTimes } from "../issuing/timing.ts";
import { isEmailAddress } from "../after-dgii/email.ts";
import { companionKey } from "../receiving/archive-keys.ts";
import { acceptedNotesOf, findReceipt, monthOfReceipt } from "../ledger/client.ts";
import { roundTripsHeader } from "../ledger/round-trips.ts";
import { voidRanges } from "../issuing/void.ts";
import { resolveTenant } from "../tenant/resolve.ts";

async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw malformedJson();
  }
}

/** The status an idempotent answer was stored with: always one receiptAnswerOf gave. */
function storedAnswerStatus(status: number): AnswerStatus {
  const known = ANSWER_STATUSES.find((s) => s === status);
  if (!known) throw new Error(`stored idempotent answer with status ${status}`);
  return known;
}

async function tenantReceipt(c: Context<AppEnv>, encf: string) {
  const receipt = await findReceipt(c.env, c.get("tenant").id, encf.toUpperCase());
  if (!receipt) throw new ApiProblem("not_found", { detail: `No receipt ${encf} for issuer ${c.get("tenant").rnc}.` });
  return receipt;
}

export const issuingRoutes = newRouter();
// One registration: Hono's "/x/*" also matches "/x" itself, so a second one for the bare path would
// run the key and tenant lookups twice on POST /fe/recepcion/ecf.
issuingRoutes.use("/recepcion/ecf/*", requireAuth, resolveTenant);
issuingRoutes.use("/anulacion", requireAuth, resolveTenant);
// Checked before the route's own body handling, so a wrong media type is a 415, not a 400.
issuingRoutes.post("/recepcion/ecf", async (c, next) => {
  if (!/^application\/([\w.-]+\+)?json/i.test(c.req.header("Content-Type") ?? "")) {
    throw new ApiProblem("unsupported_media_type", { detail: "Send the e-CF as application/json." });
  }
  await next();
});

/** The request's `Totals-Policy` header, if it names one. */
function totalsPolicyOf(c: Context<AppEnv>): TotalsPolicy | undefined {
  const header = c.req.header("Totals-Policy")?.trim().toLowerCase();
  if (!header) return undefined;
  if ((TOTALS_POLICIES as readonly string[]).includes(header)) return header as TotalsPolicy;
  const message = `Totals-Policy is one of ${TOTALS_POLICIES.join(", ")}.`;
  throw new ApiProblem("bad_request", {
    detail: message,
    errors: [{ path: "/headers/Totals-Policy", code: "invalid_value", message }],
  });
}

issuingRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/recepcion/ecf",
    tags: ["Issuing"],
    summary: "Issue an e-CF: validate, number, sign, archive, send to DGII",
    description:
      "The e-CF as JSON (DGII's element names; what the service can fill may be left out) is validated with every problem reported at once, numbered from the issuer's range, signed, archived and sent to DGII; the answer says what DGII decided (200), that it is still deciding (202), or that DGII could not be reached and the receipt was signed in contingency (503 with Retry-After: print it, do not issue it again). Send an Idempotency-Key so a retry after a lost answer gets the receipt the first request issued (its answer as it stands now, with Idempotent-Replayed: true) instead of a second receipt.",
    request: {
      headers: IssueHeaders,
      body: { required: true, content: { "application/json": ecfRequestContent } },
    },
    responses: {
      ...receiptAnswers,
      400: problemSchema("The document has problems (all listed, with JSON pointers)"),
      409: problemSchema(
        "The e-NCF was used by a different document, or the Idempotency-Key by a different request (idempotency_key_reused) or by one still being processed (problem code in_progress, with Retry-After: retry then; never the receipt's passing state); rarely, the range changed three times while the document was being numbered (range_changed)",
      ),
      422: problemSchema("No usable e-NCF range, or no certificate"),
      429: problemSchema("Monthly quota exceeded"),
    },
  }),
  // The body is read and validated by the domain package (every problem at once), not by zod.
  async (c) => {
    const body = await readJsonBody(c);
    const company = c.get("tenant");
    // Claimed with the receipt's number (a request that fails before numbering never holds it).
    const idempotencyKey = c.req.header("Idempotency-Key")?.trim() || undefined;
    const times = new PhaseTimes();
    const outcome = await issueReceipt(c.env, company, body, new Date(), {
      times,
      totalsPolicy: totalsPolicyOf(c),
      idempotencyKey,
      // Written with the receipt when it is left in contingency (answered 503), not after the answer.
      contingencyAudit: (encf, mensajes) => requestAuditEntry(c, dgiiOutcomeEvent("Contingencia", encf, mensajes), 503),
      subscribedEvents: c.get("subscribedEvents"),
    });
    if ("stored" in outcome) {
      c.header("Idempotent-Replayed", "true");
      if (outcome.stored.status === 503) c.header("Retry-After", String(DEFAULT_RETRY_AFTER_SECONDS));
      return c.json(JSON.parse(outcome.stored.response) as IssueAnswer, storedAnswerStatus(outcome.stored.status));
    }
    const { status, body: judged, retryAfter } = receiptAnswerOf(outcome.receipt, { reenviado: outcome.reenviado });
    if (retryAfter) c.header("Retry-After", String(retryAfter));
    if (outcome.replayed) c.header("Idempotent-Replayed", "true");
    const answer = outcome.warnings ? { ...judged, warnings: outcome.warnings } : judged;
    if (
      !outcome.reenviado &&
      !outcome.replayed &&
      !outcome.audited &&
      (answer.estado === "Rechazado" || answer.estado === "Contingencia")
    ) {
      c.set("auditEvent", dgiiOutcomeEvent(answer.estado, answer.encf, answer.mensajes));
    }
    // storage: ledger numbering, R2 archive, ledger record; transmit: all of the DGII part (dgii:
    // its HTTP round trips, dgii-wait: the pauses between result polls).
    const timing = [times.header(), roundTripsHeader(c.get("roundTrips"))].filter(Boolean).join(", ");
    c.header("Server-Timing", timing);
    return c.json(answer, status);
  },
);

issuingRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/recepcion/ecf/{encf}",
    tags: ["Receipts"],
    summary: "A receipt's current state",
    description:
      "The same answer issuing gave, as it stands now: poll it after a 202 (En Proceso) or a 503 (Contingencia, with Retry-After) until DGII's final word; the service keeps sending and polling in the background meanwhile. Also shows the delivery to the buyer, e-mails sent and the buyer's commercial approval.",
    request: { params: EncfParam },
    responses: { ...receiptAnswers, 404: problemSchema("No such receipt for this issuer") },
  }),
  async (c) => {
    const { status, body, retryAfter } = receiptAnswerOf(await tenantReceipt(c, c.req.valid("param").encf));
    if (retryAfter) c.header("Retry-After", String(retryAfter));
    return c.json(body, status);
  },
);

issuingRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/recepcion/ecf/{encf}/xml",
    tags: ["Receipts"],
    summary: "The archived signed XML, byte for byte",
    description:
      "The signed e-CF exactly as it was sent to DGII and archived (10 years, never rewritten), with its SHA-256 in X-Content-SHA256; this file, not a re-rendering, is the fiscal document to keep or forward.",
    request: { params: EncfParam },
    responses: {
      200: { description: "Signed XML", content: { "application/xml": { schema: z.string() } } },
      404: problemSchema("No such receipt"),
    },
  }),
  async (c) => {
    const receipt = await tenantReceipt(c, c.req.valid("param").encf);
    const object = await c.env.ARCHIVE.get(receipt.xmlKey);
    if (!object) throw new Error(`archived XML ${receipt.xmlKey} is missing`);
    return c.body(await object.arrayBuffer(), 200, {
      "Content-Type": "application/xml; charset=utf-8",
      "Content-Disposition": `inline; filename="${c.get("tenant").rnc}${receipt.encf}.xml"`,
      "X-Content-SHA256": receipt.xmlSha256,
    });
  },
);

issuingRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/recepcion/ecf/{encf}/email",
    tags: ["Issuing"],
    summary: "Send the printed copy (PDF) and the signed XML by e-mail",
    description:
      "Queued and sent in the background (retried for 3 days); each sending shows in the receipt's `emails`. A buyer that is not an electronic receiver gets it on its own when the e-CF carries CorreoComprador.",
    request: {
      params: EncfParam,
      body: {
        required: true,
        content: { "application/json": { schema: EmailRequest } },
      },
    },
    responses: {
      202: { description: "Queued", content: { "application/json": { schema: EmailQueued } } },
      400: problemSchema("Not an e-mail address"),
      404: problemSchema("No such receipt"),
      429: problemSchema("too_many_requests: the receipt was e-mailed too often (Retry-After says when to try again)"),
    },
  }),
  async (c) => {
    const { to } = c.req.valid("json");
    if (!isEmailAddress(to))
      throw new ApiProblem("validation_failed", {
        errors: [{ path: "/to", code: "invalid_email", message: "Not an e-mail address." }],
      });
    const receipt = await tenantReceipt(c, c.req.valid("param").encf);
    const queued = await monthOfReceipt(c.env, receipt).followUp().queueEmail(receipt.companyId, receipt.encf, to);
    if (queued.outcome === "limited")
      throw new ApiProblem("too_many_requests", {
        detail: `${receipt.encf} was e-mailed to ${to} too often (${EMAILS_PER_ADDRESS_PER_HOUR} an hour to one address, ${EMAILS_PER_RECEIPT_PER_DAY} a day in all); try again in ${queued.retryAfter} seconds.`,
        errors: [{ path: "/to", code: "email_limit_reached", message: "Sent too often; wait before sending again." }],
        retryAfter: queued.retryAfter,
      });
    return c.json({ encf: receipt.encf, to, state: "pending" as const }, 202);
  },
);

issuingRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/recepcion/ecf/{encf}/notes",
    tags: ["Receipts"],
    summary: "The credit and debit notes DGII accepted against a receipt",
    description:
      "The receipt's MontoTotal and every E33/E34 DGII accepted that modifies it (InformacionReferencia), from which its open balance follows (@ecf/shared availableBalance: total + debit notes − credit notes; nothing after an annulment). Issuing an E34 over that balance is refused (credit_exceeds_available).",
    request: { params: EncfParam },
    responses: {
      200: { description: "The receipt's notes", content: { "application/json": { schema: ReceiptNotes } } },
      404: problemSchema("No such receipt"),
    },
  }),
  async (c) => {
    const receipt = await tenantReceipt(c, c.req.valid("param").encf);
    const notes = (await acceptedNotesOf(c.env, receipt)).flatMap((n) =>
      (n.tipoeCF === "33" || n.tipoeCF === "34") && isCodigoModificacion(n.codigoModificacion)
        ? [
            {
              encf: n.encf,
              tipoeCF: n.tipoeCF as "33" | "34",
              codigoModificacion: n.codigoModificacion,
              montoTotal: n.montoTotal,
              fechaEmision: n.issueDate,
            },
          ]
        : [],
    );
    return c.json({ encf: receipt.encf, montoTotal: receipt.montoTotal, notes }, 200);
  },
);

issuingRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/recepcion/ecf/{encf}/arecf",
    tags: ["Receipts"],
    summary: "The buyer's signed acknowledgment (ARECF) of a delivered receipt, byte for byte",
    description:
      "After the service delivered the e-CF to an electronic buyer, the buyer's signed ARECF (received or not received, and why) as archived beside the receipt; 404 until there is one.",
    request: { params: EncfParam },
    responses: {
      200: { description: "Signed ARECF", content: { "application/xml": { schema: z.string() } } },
      404: problemSchema("No such receipt, or not delivered to an electronic receiver"),
    },
  }),
  async (c) => {
    const receipt = await tenantReceipt(c, c.req.valid("param").encf);
    const object = receipt.deliveryArecfEstado
      ? await c.env.ARCHIVE.get(companionKey(receipt.xmlKey, ".arecf.xml"))
      : null;
    if (!object)
      throw new ApiProblem("not_found", {
        detail: `${receipt.encf} has no ARECF from its buyer (buyerDelivery: ${receipt.deliveryStatus ? buyerDeliveryStateOf(receipt.deliveryStatus) : "none"}).`,
      });
    return c.body(await object.arrayBuffer(), 200, {
      "Content-Type": "application/xml; charset=utf-8",
      "Content-Disposition": `inline; filename="${receipt.rncComprador}${receipt.encf}.arecf.xml"`,
    });
  },
);

issuingRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/anulacion",
    tags: ["Issuing"],
    summary: "Void unused e-NCF ranges (and signed but unsent receipts) with a signed ANECF",
    description: [
      "Each range must lie in the issuer's authorised range and must not start above the first unused number of its type",
      "(`range_gap`, 422): voiding is contiguous with the unused tail, so no number is ever skipped without being voided.",
      "A range may also lie wholly below it (numbers left unused, e.g. before a client-chosen e-NCF).",
      "Numbers leased to a point-of-sale device (`encf_leased`) or already sent to DGII (`encf_used`) cannot be voided (409);",
      "a receipt in contingency (signed, never sent) can: it is held while DGII is asked, so it is never sent meanwhile,",
      "and becomes Anulado once DGII voids its range (`encf_busy`, 409, when it is being transmitted at that moment).",
      "The unused numbers of each range are taken out of the sequence before DGII is asked and given back if DGII cannot be",
      'reached (503) or refuses the document (422). When DGII answers that numbers are used (codigo "3": 409; codigo "2": the',
      "refused ranges have `anulado: false`), those ranges stay out of the sequence, nothing in them is marked voided, and they",
      "can be voided again with narrower ranges; the refusal is in the issuer's audit log.",
    ].join(" "),
    request: { body: { required: true, content: { "application/json": { schema: AnulacionBody } } } },
    responses: {
      200: {
        description: "DGII voided the ranges (codigo 1), or some of them (codigo 2)",
        content: { "application/json": { schema: AnulacionAnswer } },
      },
      400: problemSchema("A malformed or overlapping range"),
      409: problemSchema(
        "A number in a range was already used, is leased to a device or is being transmitted; or DGII refused every range",
      ),
      422: problemSchema("Outside the authorised range, starting above the unused tail, or DGII refused the document"),
      503: problemSchema("DGII unreachable"),
    },
  }),
  async (c) => {
    const outcome = await voidRanges(c.env, c.get("tenant"), c.req.valid("json").rangos, new Date());
    if (outcome.auditEvent) c.set("auditEvent", outcome.auditEvent);
    return c.json(outcome.answer, 200);
  },
);
