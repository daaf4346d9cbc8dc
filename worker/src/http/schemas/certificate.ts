// The signing certificate as the API takes and shows it.
import { z } from "@hono/zod-openapi";

export const CertificateForm = z
  .object({
    file: z
      .custom<File>((v) => v instanceof File, "expected a .p12/.pfx file")
      .openapi({ type: "string", format: "binary" }),
    password: z.string().max(200),
  })
  .openapi("CertificateUpload");

export const CertificateOut = z
  .object({
    name: z.string(),
    subject: z.string(),
    serialNumber: z.string(),
    notBefore: z.string(),
    notAfter: z.string(),
  })
  .openapi("Certificate");
