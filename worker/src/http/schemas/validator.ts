import { z } from "@hono/zod-openapi";

export const ValidateForm = z.object({
  xml: z.string().openapi({ format: "binary", description: "The e-CF, RFCE, ARECF, ACECF or ANECF, signed" }),
  filename: z
    .string()
    .optional()
    .openapi({ description: "The file's name, checked against DGII's rule (default: the uploaded file's own name)" }),
  ecf: z.string().optional().openapi({
    format: "binary",
    description: "With an RFCE: the signed E32 it summarises, to check the RFCE copies it",
  }),
});

export const ValidateQuery = z.object({
  formato: z
    .enum(["json", "html"])
    .optional()
    .openapi({ description: "html: the answer as a page in Spanish (the validator's own form); default json" }),
});

const Finding = z
  .object({
    path: z.string().openapi({ description: "Where in the document (/xml/…), or /filename" }),
    code: z.string(),
    message: z.string(),
    messageEs: z.string(),
    rule: z.string().openapi({ description: "The DGII document and field or section the rule comes from" }),
    severity: z.enum(["error", "warning"]),
  })
  .openapi("ValidationFinding");

export const ValidateAnswer = z
  .object({
    valid: z.boolean().openapi({ description: "No problem of severity error" }),
    kind: z.string().nullable().openapi({ description: "An e-CF type (31 … 47), RFCE, ARECF, ACECF or ANECF" }),
    timbre: z
      .object({ codigoSeguridad: z.string(), url: z.string() })
      .nullable()
      .openapi({ description: "An e-CF's security code and the URL its QR must hold" }),
    problems: z.array(Finding),
  })
  .openapi("ValidationVerdict");
