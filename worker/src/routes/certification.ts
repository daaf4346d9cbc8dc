// /company/certification: the issuer's DGII certification run (worker/src/certification/), the
// owner's alone. Start it, read every step with what the person must do, download the signed
// postulación and declaración, record DGII's verdicts, or read them from the sandbox's portal.
import type { z } from "@hono/zod-openapi";
import { declaracionXml, postulacionXml, receiverUrls, signAsRepresentative } from "../certification/documents.ts";
import { syncWithPortal } from "../certification/portal.ts";
import { printedCopiesPdf } from "../certification/printed-copies.ts";
import { checkReceiver } from "../certification/receiver-check.ts";
import { type CertificationRun, completeStep, currentStep, loadRun, newRun, saveRun } from "../certification/run.ts";
import { STEPS, type StepId } from "../certification/steps.ts";
import type { Company } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import {
  CertificationRunOut,
  CertificationStart,
  PrintedCopiesQuery,
  ReceiverCheckOut,
  StepParam,
  StepVerdict,
} from "../http/schemas/certification.ts";

function view(env: Env, run: CertificationRun): z.infer<typeof CertificationRunOut> {
  const current = currentStep(run);
  const definition = (id: StepId) => STEPS.find((s) => s.id === id)!;
  return {
    ...run,
    currentStep: current
      ? { id: current.id, number: definition(current.id).number, name: definition(current.id).name }
      : null,
    certified: current === undefined,
    dgiiTarget: env.DGII_TARGET,
    steps: run.steps.map((step) => ({ ...definition(step.id), ...step })),
  };
}

async function runOf(db: D1Database, company: Company): Promise<CertificationRun> {
  const run = await loadRun(db, company.id);
  if (run) return run;
  throw new ApiProblem("not_found", {
    detail: "This issuer has no certification run: start one with PUT /company/certification.",
  });
}

const xmlResponses = (what: string) => ({
  200: { description: what, content: { "application/xml": { schema: { type: "string" as const } } } },
  404: problemSchema("No certification run"),
  422: problemSchema("No certificate, or its holder is not the representative"),
});

const signedDocument = (path: "/company/certification/postulacion" | "/company/certification/declaracion") =>
  tenantRoute({
    method: "get",
    path,
    tags: ["Company"],
    summary: path.endsWith("postulacion")
      ? "The signed postulación, to upload in DGII's portal"
      : "The signed declaración jurada, to upload in DGII's portal",
    description:
      "Signed with the issuer's certificate, whose holder must be the representative the run names (DGII checks that the signer is the RNC's registered representative): another holder's certificate is refused with 422 signer_not_representative.",
    responses: xmlResponses("Signed XML"),
  });

export const certificationRoutes = newRouter()
  .openapi(
    tenantRoute({
      method: "put",
      path: "/company/certification",
      tags: ["Company"],
      summary: "Start the issuer's DGII certification run",
      description:
        "Starts (or, until the postulación is registered, starts again) the issuer's one certification run: its representative, the e-CF types it will issue, and how it applies (alone, as a provider, or as a certified provider's client on the short path). Owners only.",
      request: { body: { required: true, content: { "application/json": { schema: CertificationStart } } } },
      responses: {
        200: { description: "The run", content: { "application/json": { schema: CertificationRunOut } } },
        400: problemSchema("A field is missing or wrong"),
        409: problemSchema("The postulación is already registered"),
      },
    }),
    async (c) => {
      const company = c.get("tenant");
      const body = c.req.valid("json");
      const existing = await loadRun(c.env.DB, company.id);
      if (existing && currentStep(existing)?.id !== "registro")
        throw new ApiProblem("conflict", {
          detail: "The postulación is already registered with DGII: this run goes on from where it is.",
          errors: [
            {
              path: "",
              code: "run_under_way",
              message: "The run is under way.",
              messageEs: "La certificación ya está en curso.",
            },
          ],
        });
      const origin = body.publicOrigin ?? new URL(c.req.url).origin;
      const { publicOrigin: _, ...input } = body;
      const run = newRun({ ...input, receiverUrls: receiverUrls(origin, company.rnc) }, new Date());
      await saveRun(c.env.DB, company.id, run);
      return c.json(view(c.env, run), 200);
    },
  )
  .openapi(
    tenantRoute({
      method: "get",
      path: "/company/certification",
      tags: ["Company"],
      summary: "The certification run: every step, and what the person must do",
      description:
        "Each of DGII's 14 steps in order, who does it, its state and DGII's last word, and for the person's steps what to upload, where, and what DGII answers.",
      responses: {
        200: { description: "The run", content: { "application/json": { schema: CertificationRunOut } } },
        404: problemSchema("No certification run"),
      },
    }),
    async (c) => c.json(view(c.env, await runOf(c.env.DB, c.get("tenant"))), 200),
  )
  .openapi(signedDocument("/company/certification/postulacion"), async (c) => {
    const company = c.get("tenant");
    const run = await runOf(c.env.DB, company);
    const xml = await signAsRepresentative(c.env, company, run, postulacionXml(company, run, new Date()));
    return c.body(xml, 200, { "content-type": "application/xml; charset=utf-8" });
  })
  .openapi(signedDocument("/company/certification/declaracion"), async (c) => {
    const company = c.get("tenant");
    const run = await runOf(c.env.DB, company);
    const xml = await signAsRepresentative(c.env, company, run, declaracionXml(company, run, new Date()));
    return c.body(xml, 200, { "content-type": "application/xml; charset=utf-8" });
  })
  .openapi(
    tenantRoute({
      method: "get",
      path: "/company/certification/printed-copies",
      tags: ["Company"],
      summary: "The simulation invoices' printed copies as one PDF, to upload in DGII's portal",
      description:
        "Step 5 (Validación representación impresa) takes one PDF under 10 MB: each named invoice's printed representation, as it prints on its own, one after the other (422 printed_copies_too_large past 10 MB).",
      request: { query: PrintedCopiesQuery },
      responses: {
        200: {
          description: "One PDF with every invoice's pages",
          content: { "application/pdf": { schema: { type: "string" as const, format: "binary" } } },
        },
        400: problemSchema("Not a list of e-NCFs"),
        404: problemSchema("No certification run, or no such receipt"),
        422: problemSchema("Over DGII's 10 MB"),
      },
    }),
    async (c) => {
      const company = c.get("tenant");
      await runOf(c.env.DB, company);
      const pdf = await printedCopiesPdf(c.env, company, c.req.valid("query").encf.split(","));
      return c.body(pdf as Uint8Array<ArrayBuffer>, 200, {
        "Content-Type": "application/pdf",
        "Content-Disposition": `attachment; filename="representaciones-impresas-${company.rnc}.pdf"`,
      });
    },
  )
  .openapi(
    tenantRoute({
      method: "post",
      path: "/company/certification/receiver-check",
      tags: ["Company"],
      summary: "Call the run's receiver URLs as DGII will, and report each check",
      description:
        "The seed and its signed exchange for a token (autenticación), an e-CF to recepción answered with a signed ARECF, an ACECF to aprobación comercial, and DGII's capitalised paths. The test documents are deliberately incomplete: the receiver answers them as not received and records nothing. Each check names what a public deployment must expose.",
      responses: {
        200: { description: "Each check", content: { "application/json": { schema: ReceiverCheckOut } } },
        404: problemSchema("No certification run"),
        422: problemSchema("No signing certificate"),
      },
    }),
    async (c) => {
      const company = c.get("tenant");
      const run = await runOf(c.env.DB, company);
      const checks = await checkReceiver(c.env, company, run.receiverUrls);
      return c.json({ ok: checks.every((check) => check.ok), checks }, 200);
    },
  )
  .openapi(
    tenantRoute({
      method: "post",
      path: "/company/certification/steps/{step}",
      tags: ["Company"],
      summary: "Record DGII's verdict on the current step",
      description:
        "Against the real DGII, whose portal has no API, the person records here what DGII answered. Only the current step may be recorded, so the order always holds.",
      request: {
        params: StepParam,
        body: { required: false, content: { "application/json": { schema: StepVerdict } } },
      },
      responses: {
        200: { description: "The run", content: { "application/json": { schema: CertificationRunOut } } },
        404: problemSchema("No certification run"),
        409: problemSchema("Not the current step"),
      },
    }),
    async (c) => {
      const company = c.get("tenant");
      const { step } = c.req.valid("param");
      const done = completeStep(await runOf(c.env.DB, company), step, c.req.valid("json")?.detail, new Date());
      if (!done.ok) throw outOfOrder(step, done.current);
      await saveRun(c.env.DB, company.id, done.run);
      return c.json(view(c.env, done.run), 200);
    },
  )
  .openapi(
    tenantRoute({
      method: "post",
      path: "/company/certification/sync",
      tags: ["Company"],
      summary: "Read each step's verdict from the DGII sandbox's portal",
      description:
        "Only against the local DGII sandbox (DGII_TARGET sandbox), whose portal answers as JSON; DGII's own portal has no API (409 portal_without_api).",
      responses: {
        200: { description: "The run", content: { "application/json": { schema: CertificationRunOut } } },
        404: problemSchema("No certification run"),
        409: problemSchema("The real DGII's portal has no API"),
      },
    }),
    async (c) => {
      const company = c.get("tenant");
      const run = await syncWithPortal(c.env, company.rnc, await runOf(c.env.DB, company), new Date());
      await saveRun(c.env.DB, company.id, run);
      return c.json(view(c.env, run), 200);
    },
  );

function outOfOrder(step: StepId, current: StepId | null): ApiProblem {
  const name = (id: StepId) => STEPS.find((s) => s.id === id)!;
  const now = current ? `the current step is ${name(current).number} (${name(current).name})` : "the run is finished";
  const ahora = current
    ? `el paso en curso es ${name(current).number} (${name(current).name})`
    : "la certificación terminó";
  return new ApiProblem("conflict", {
    detail: `Step ${name(step).number} (${name(step).name}) cannot be recorded now: ${now}.`,
    errors: [
      {
        path: "/step",
        code: "step_out_of_order",
        message: `Not the current step: ${now}.`,
        messageEs: `No es el paso en curso: ${ahora}.`,
      },
    ],
  });
}
