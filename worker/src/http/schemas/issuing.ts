// Issuing as the API shows it: the request's headers (the e-CF body is http/ecf-request.ts), the
// e-mail of a receipt's printed copy, the voiding of e-NCF ranges (ANECF).
import { z } from "@hono/zod-openapi";
import { TIPOS_ECF, TOTALS_POLICIES } from "@ecf/shared";
import { ENCF_PATTERN } from "./common.ts";

export const IssueHeaders = z.object({
  "Idempotency-Key": z.string().max(200).optional().openapi({
    description:
      "Any unique string per document: a retry with the same key and body gets the receipt the first request issued, as it stands now (with Idempotent-Replayed: true), never a second receipt; the same key with another body is a 409.",
  }),
  "Totals-Policy": z.enum(TOTALS_POLICIES).optional().openapi({
    description:
      "Makes this request stricter than the issuer's setting: `strict` refuses a total beyond DGII's tolerance even when the issuer's setting issues it with a warning (`dgii`, as DGII accepts it conditionally). It never relaxes the setting: `dgii` under a `strict` issuer changes nothing, since relaxing is the owner's decision (console settings or PATCH /company/me). Without it, the issuer's setting applies (default `strict`).",
  }),
});

export const EmailRequest = z
  .object({ to: z.string().max(254).openapi({ example: "compras@cliente.com.do" }) })
  .openapi("EmailRequest");
export const EmailQueued = z
  .object({ encf: z.string(), to: z.string(), state: z.literal("pending") })
  .openapi("EmailQueued");

/** A receipt and the credit and debit notes DGII accepted against it (what its balance is computed from). */
export const ReceiptNotes = z
  .object({
    encf: z.string(),
    montoTotal: z.string().openapi({ description: "The modified receipt's MontoTotal, exact decimal" }),
    notes: z.array(
      z.object({
        encf: z.string(),
        tipoeCF: z.enum(["33", "34"]),
        codigoModificacion: z.enum(["1", "2", "3", "4", "5"]),
        montoTotal: z.string(),
        fechaEmision: z.string().openapi({ description: "yyyy-MM-dd" }),
      }),
    ),
  })
  .openapi("ReceiptNotes");

export const AnulacionBody = z
  .object({
    rangos: z
      .array(
        z.object({
          tipoeCF: z.enum(TIPOS_ECF),
          desde: z.string().regex(ENCF_PATTERN),
          hasta: z.string().regex(ENCF_PATTERN),
        }),
      )
      .min(1)
      .max(10),
  })
  .openapi("AnulacionRequest");

export const AnulacionAnswer = z
  .object({
    codigo: z
      .string()
      .openapi({ description: 'DGII\'s codigo: "1" every range voided, "2" some ranges voided (see `rangos`)' }),
    nombre: z.string(),
    mensajes: z.array(z.string()),
    numbersVoided: z
      .number()
      .int()
      .openapi({ description: "e-NCF numbers in the ranges DGII voided (`anulado` true)" }),
    receiptsVoided: z.number().int().openapi({
      description: "Of those, signed-but-unsent receipts (contingency) that became Anulado; the rest held no receipt",
    }),
    rangos: z.array(
      z.object({
        tipoeCF: z.string(),
        desde: z.string(),
        hasta: z.string(),
        anulado: z.boolean().nullable().openapi({
          description:
            "false: DGII refused this range (its messages name it); null: DGII's partial answer names no range, so nothing was marked voided here",
        }),
      }),
    ),
  })
  .openapi("AnulacionAnswer");
