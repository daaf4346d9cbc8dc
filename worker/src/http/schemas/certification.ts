// DGII certification, as the API takes and shows it: starting a run, and the run's steps.
import { z } from "@hono/zod-openapi";
import { STEP_IDS } from "../../certification/steps.ts";

const TIPOS = ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"] as const;

export const CertificationStart = z
  .object({
    representative: z.object({
      cedula: z
        .string()
        .regex(/^\d{11}$/)
        .openapi({
          description: "The RNC's registered representative's cédula: the holder of the certificate that signs.",
          example: "00112345678",
        }),
      name: z.string().min(1).max(150),
    }),
    ecfTypes: z
      .array(z.enum(TIPOS))
      .min(1)
      .openapi({ description: "The e-CF types the issuer will issue (the simulation covers each)." }),
    applicant: z.enum(["taxpayer", "provider", "provider-client"]).openapi({
      description:
        "taxpayer: the full path alone; provider: a software house certifying itself (full path); provider-client: a certified provider's client (short path).",
    }),
    providerRnc: z
      .string()
      .regex(/^(\d{9}|\d{11})$/)
      .optional()
      .openapi({ description: "provider-client only: the certified provider's RNC." }),
    publicOrigin: z.url().optional().openapi({
      description:
        "The origin DGII reaches this deployment at (https in production); the request's origin when absent.",
    }),
  })
  .refine((v) => (v.applicant === "provider-client") === (v.providerRnc !== undefined), {
    path: ["providerRnc"],
    message: "providerRnc is required for a provider-client, and only then",
  })
  .openapi("CertificationStart");

const ReceiverUrlsSchema = z.object({ recepcion: z.url(), aprobacionComercial: z.url(), autenticacion: z.url() });

const StepView = z.object({
  id: z.enum(STEP_IDS),
  number: z.int(),
  name: z.string().openapi({ description: "As DGII's portal names it." }),
  actor: z.enum(["service", "person", "dgii"]),
  state: z.enum(["pending", "completed", "skipped"]),
  detail: z.string().optional(),
  completedAt: z.string().optional(),
  act: z
    .object({ es: z.string(), en: z.string() })
    .optional()
    .openapi({ description: "What the person does, where, and what DGII answers." }),
});

export const CertificationRunOut = z
  .object({
    applicant: z.enum(["taxpayer", "provider", "provider-client"]),
    providerRnc: z.string().optional(),
    representative: z.object({ cedula: z.string(), name: z.string() }),
    ecfTypes: z.array(z.string()),
    receiverUrls: ReceiverUrlsSchema,
    currentStep: z.object({ id: z.enum(STEP_IDS), number: z.int(), name: z.string() }).nullable(),
    certified: z.boolean(),
    dgiiTarget: z
      .string()
      .openapi({ description: "sandbox: every step was exercised against the local DGII sandbox only." }),
    steps: z.array(StepView),
    startedAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("CertificationRun");

export const StepParam = z.object({ step: z.enum(STEP_IDS).openapi({ param: { name: "step", in: "path" } }) });

export const StepVerdict = z
  .object({ detail: z.string().max(500).optional().openapi({ description: "What DGII answered, in its words." }) })
  .openapi("CertificationStepVerdict");

/** `?encf=E31…,E32…`: the simulation invoices whose printed copies go into the one PDF. */
export const PrintedCopiesQuery = z.object({
  encf: z
    .string()
    .regex(/^E\d{12}(,E\d{12}){0,49}$/, "expected up to 50 e-NCFs separated by commas")
    .openapi({
      description: "The simulation invoices' e-NCFs, separated by commas, in the order they print.",
      example: "E310000000101,E320000000101",
    }),
});

const Bilingual = z.object({ es: z.string(), en: z.string() });

/** The receiver self-test's answer: each call DGII will make, and whether the receiver answered it. */
export const ReceiverCheckOut = z
  .object({
    ok: z.boolean().openapi({ description: "Every check passed." }),
    checks: z.array(
      z.object({
        id: z.enum(["semilla", "validacion-certificado", "recepcion", "aprobacion-comercial", "mayusculas"]),
        ok: z.boolean(),
        url: z.string().openapi({ description: "The URL called, as DGII will call it." }),
        status: z.number().int().openapi({ description: "The HTTP status answered (0: unreachable)." }),
        detail: z.string(),
        requirement: Bilingual.openapi({ description: "What a public deployment must expose for this check." }),
      }),
    ),
  })
  .openapi("ReceiverCheck");
