// The one answer about a receipt, whoever asks (issuing, a status query, a device upload, a
// webhook): its zod shape is the contract, and answers/receipt.ts builds values of its type. It sits
// below the services and the edge, so the webhook payload built in the month object does not reach
// up into http/.
import { z } from "@hono/zod-openapi";
import { APPROVAL_ESTADOS, BUYER_DELIVERY_STATES, ESTADOS } from "../ledger/month/estado.ts";

/** A validation warning of an issuing request: the JSON pointer of its field, a stable code, English and Spanish text. */
const Warning = z.object({ path: z.string(), code: z.string(), message: z.string(), messageEs: z.string().optional() });
export type ValidationWarning = z.infer<typeof Warning>;

export const IssueAnswer = z
  .object({
    codigo: z.string().openapi({
      description:
        '"1" Aceptado, "2" Rechazado, "3" En Proceso, "4" Aceptado Condicional, "-1" Contingencia, "-2" Anulado, "0" already accepted (resend)',
    }),
    estado: z.enum(ESTADOS).openapi({
      description:
        "The receipt's state as DGII spells it (Contingencia: not yet at DGII; Anulado: voided before it was sent)",
    }),
    encf: z.string(),
    fechaEmision: z
      .string()
      .openapi({ description: "FechaEmision, yyyy-MM-dd (as in the reports): a note's FechaNCFModificado" }),
    trackId: z.string().nullable(),
    codigoSeguridad: z.string(),
    fechaHoraFirma: z.string(),
    urlTimbre: z.string(),
    mensajes: z.array(z.object({ codigo: z.string().nullable(), valor: z.string() })),
    reenviado: z.boolean().openapi({
      description:
        "True when this request sent an e-NCF the service already had: nothing was redone, the receipt's current state is answered",
    }),
    links: z.object({ self: z.string(), xml: z.string(), pdf: z.string() }),
    buyerDelivery: z
      .object({
        state: z.enum(BUYER_DELIVERY_STATES).openapi({
          description:
            "One closed set, in DGII's words where DGII defines the state: Recibido (the buyer's ARECF Estado 0 \"e-CF Recibido\", or a duplicate, motivo 3: the buyer had it already), No Recibido (Estado 1 \"e-CF No Recibido\"); and the delivery's own states in the same language: Pendiente (being delivered), No Receptor (the buyer is not an electronic receiver in DGII's directory), Fallido (no answer in 72 hours of retries)",
        }),
        at: z.string().nullable().openapi({ description: "When the buyer answered, or the delivery was given up" }),
        arecfEstado: z
          .string()
          .nullable()
          .openapi({ description: 'The buyer\'s ARECF Estado: "0" received, "1" not received' }),
        codigoMotivoNoRecibido: z.string().nullable().openapi({
          description:
            "The ARECF's CodigoMotivoNoRecibido: 1 error de especificación, 2 error de firma digital, 3 envío duplicado, 4 RNC comprador no corresponde",
        }),
        attempts: z.number().int(),
        detail: z.string().nullable().openapi({ description: "Why the last attempt did not deliver" }),
      })
      .optional()
      .openapi({
        description:
          "Delivery to the buyer (DGII's emisor-receptor standard) once DGII accepted the receipt; its ARECF is archived beside the XML",
      }),
    emails: z
      .array(
        z.object({
          to: z.string(),
          at: z.string(),
          state: z
            .enum(["sent", "failed", "retrying"])
            .openapi({ description: "retrying: the mail service refused it for now; tried again for 3 days" }),
          detail: z.string().nullable(),
        }),
      )
      .optional()
      .openapi({ description: "Each sending of the printed copy (PDF and signed XML) by e-mail" }),
    aprobacionComercial: z
      .object({
        estado: z
          .enum(APPROVAL_ESTADOS)
          .openapi({ description: "The ACECF's Estado as DGII spells it (1 Aceptado, 2 Rechazado)" }),
        motivo: z.string().nullable().openapi({ description: "DetalleMotivoRechazo of a rejection" }),
        fechaHoraAprobacionComercial: z.string().nullable(),
      })
      .optional()
      .openapi({ description: "The buyer's commercial approval (ACECF), once received" }),
    warnings: z.array(Warning).optional().openapi({
      description:
        "Validation warnings of this request (not errors: the receipt was issued), each with the JSON pointer of its field",
    }),
  })
  .openapi("IssueAnswer");
export type IssueAnswer = z.infer<typeof IssueAnswer>;

/** The statuses a receipt's answer comes with: judged, in process at DGII, in contingency. */
export const ANSWER_STATUSES = [200, 202, 503] as const;
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];

/** The three answers a receipt's state may take, as an operation declares them. */
export const receiptAnswers = {
  200: { description: "DGII has judged the receipt", content: { "application/json": { schema: IssueAnswer } } },
  202: {
    description: "In process at DGII; finished in the background",
    content: { "application/json": { schema: IssueAnswer } },
  },
  503: {
    description: "Contingencia: signed and queued, DGII unreachable. Print it; do not resend the e-NCF.",
    content: { "application/json": { schema: IssueAnswer } },
  },
};
